package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	root := t.TempDir()
	write(t, root, "Makefile", "#: KEP_NODE_RUN  the tests\n#- KEP_DIFF_SEED  a maintainer's\ntest: ## Run the tests.\n")
	write(t, root, "hack/test.sh", "KEP_INTERNAL=1 go test\n")
	write(t, root, "docs/guide.md", "# The guide\n\n## Rollout order and version skew\n\n```sh\n# Not a heading\n```\n")
	write(t, root, "README.md", `# Project

[good](docs/guide.md#rollout-order-and-version-skew), [self](#project),
[web](https://example.com/x#y), `+"`make test`"+`, hack/test.sh, hack/*.sh,
KEP_NODE_RUN, KEP_DIFF_SEED and KEP_INTERNAL, golang.org/x/perf/cmd/benchstat.

[gone](docs/missing.md), [no heading](docs/guide.md#not-a-heading),
[no anchor](#nowhere), `+"`make test-docs`"+`, hack/run.sh, KEP_NODE_GONE.
`)
	c, err := newChecker(root, "")
	if err != nil {
		t.Fatal(err)
	}
	bad, err := c.check("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md: the link docs/missing.md names no file",
		"README.md: the link docs/guide.md#not-a-heading names no heading of docs/guide.md",
		"README.md: the link #nowhere names no heading of README.md",
		"README.md: make test-docs is not a target of the Makefile",
		"README.md: hack/run.sh does not exist",
		"README.md: the setting KEP_NODE_GONE is not listed in the Makefile",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("got\n%q\nwant\n%q", bad, want)
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Seeing that the node applied a change: the `ContainerProbeChanged` event": "seeing-that-the-node-applied-a-change-the-containerprobechanged-event",
		"Task: move running Pods to new health endpoints (ADR-0028)":               "task-move-running-pods-to-new-health-endpoints-adr-0028",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
