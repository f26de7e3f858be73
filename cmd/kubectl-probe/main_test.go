package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"mutableprobes/internal/probeplugin"
)

// The version is written in one place, the krew manifest's spec.version:
// the binary carries it, kubectl probe version prints it, and nothing else
// in the manifest repeats it.
func TestVersion(t *testing.T) {
	data, err := os.ReadFile("krew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Spec struct {
			Version string `json:"version"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if got := version(); got != m.Spec.Version || !strings.HasPrefix(got, "v") {
		t.Errorf("version() = %q, want the manifest's %q", got, m.Spec.Version)
	}
	if n := strings.Count(string(data), m.Spec.Version); n != 1 {
		t.Errorf("the manifest names version %s %d times, want once, in spec.version", m.Spec.Version, n)
	}
	var out bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
	if status := probeplugin.Execute(context.Background(), streams, version(), []string{"version"}); status != 0 || out.String() != m.Spec.Version+"\n" {
		t.Errorf("kubectl probe version: status %d, printed %q; want %q", status, out.String(), m.Spec.Version+"\n")
	}
}
