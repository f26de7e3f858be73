package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// manifest is what the test reads of a krew manifest.
type manifest struct {
	Spec struct {
		Homepage  string `json:"homepage"`
		Platforms []struct {
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
		} `json:"platforms"`
	} `json:"spec"`
}

func readManifest(t *testing.T, path string) manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// validate runs krew's validator of plugin manifests, validate-krew-manifest
// of the krew version that hack/tools/krew/go.mod pins, on the manifest,
// without installing the plugin, and returns what it printed.
func validate(t *testing.T, path string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", "-C", filepath.Join("..", "..", "hack", "tools", "krew"), "tool", "validate-krew-manifest", "-skip-install", "-manifest", path)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The manifest that hack/release-plugin.sh writes for the archives passes
// krew's own validator, and names each archive with its sha256. The
// manifest as the repository has it, with its placeholders, does not pass:
// the validator checks.
func TestReleaseManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds krew's validator")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("hack/release-plugin.sh needs bash")
	}
	template := readManifest(t, "krew.yaml")
	dir := t.TempDir()
	url := "https://github.com/kep-6318/kubectl-probe/releases/download/" + version()
	sums := map[string]string{}
	for _, p := range template.Spec.Platforms {
		archive := strings.TrimPrefix(p.URI, "RELEASE_URL/")
		// The script builds nothing with --manifest: any bytes stand in
		// for an archive.
		content := []byte("the archive " + archive)
		if err := os.WriteFile(filepath.Join(dir, archive), content, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		sums[url+"/"+archive] = hex.EncodeToString(sum[:])
	}
	script := exec.Command("bash", filepath.Join("..", "..", "hack", "release-plugin.sh"), "--manifest", dir, url)
	if out, err := script.CombinedOutput(); err != nil {
		t.Fatalf("hack/release-plugin.sh --manifest: %v\n%s", err, out)
	}
	// The release's tag is the manifest's version, written once.
	other := exec.Command("bash", filepath.Join("..", "..", "hack", "release-plugin.sh"), "--manifest", dir, strings.Replace(url, version(), "v9.9.9", 1))
	if out, err := other.CombinedOutput(); err == nil || !strings.Contains(string(out), "the manifest's spec.version") {
		t.Errorf("hack/release-plugin.sh --manifest with another release's URL: %v\n%s", err, out)
	}
	written := filepath.Join(dir, "probe.yaml")
	m := readManifest(t, written)
	if len(m.Spec.Platforms) != len(sums) {
		t.Errorf("the manifest has %d platforms, want %d", len(m.Spec.Platforms), len(sums))
	}
	for _, p := range m.Spec.Platforms {
		if want, ok := sums[p.URI]; !ok || p.SHA256 != want {
			t.Errorf("platform %s: sha256 %s, want %s", p.URI, p.SHA256, want)
		}
	}
	if want := "https://github.com/kep-6318/kubectl-probe"; m.Spec.Homepage != want {
		t.Errorf("homepage %q, want the project's page, %q", m.Spec.Homepage, want)
	}
	if out, err := validate(t, written); err != nil {
		t.Errorf("validate-krew-manifest refuses the manifest that hack/release-plugin.sh writes: %v\n%s", err, out)
	}

	placeholders := filepath.Join(t.TempDir(), "probe.yaml")
	data, err := os.ReadFile("krew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(placeholders, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := validate(t, placeholders); err == nil || !strings.Contains(out, "`sha256` value SHA256 is not valid") {
		t.Errorf("validate-krew-manifest passes the manifest with its placeholders (%v):\n%s", err, out)
	}
}
