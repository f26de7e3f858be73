package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The iptables stand-in: v1.37.2's package moves to internal/iptables, its
// own imports follow it, and the bridge becomes pkg/iptables without its
// build constraint, importing the moved package.
func TestWriteIptablesStandin(t *testing.T) {
	source, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(source, "pkg/util/iptables/iptables.go"), `package iptables

import "k8s.io/utils/exec"

var _ exec.Interface
`)
	writeFile(t, filepath.Join(source, "pkg/util/iptables/monitor/monitor.go"), `package monitor

import _ "k8s.io/kubernetes/pkg/util/iptables"
`)
	writeFile(t, filepath.Join(source, "pkg/util/iptables/testing/fake.go"), "package testing\n")
	writeFile(t, filepath.Join(source, "pkg/util/iptables/iptables_test.go"), "package iptables\n")
	gomod := filepath.Join(source, "base.mod")
	writeFile(t, gomod, "module k8s.io/kubernetes\n\ngo 1.27.0\n\nrequire (\n\tk8s.io/api v0.0.0\n\tk8s.io/utils v0.0.0-2026\n\tk8s.io/klog/v2 v2.140.0 // indirect\n)\n")

	module := "sigs.k8s.io/iptables-wrappers"
	if err := write(module, standins[module], source, gomod, out); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(out, "internal/iptables/monitor/monitor.go")); !strings.Contains(got, `"sigs.k8s.io/iptables-wrappers/internal/iptables"`) {
		t.Errorf("the moved package's import of its parent is not rewritten:\n%s", got)
	}
	for _, skipped := range []string{"internal/iptables/testing", "internal/iptables/iptables_test.go"} {
		if _, err := os.Stat(filepath.Join(out, skipped)); err == nil {
			t.Errorf("%s is copied", skipped)
		}
	}
	bridge := readFile(t, filepath.Join(out, "pkg/iptables/bridge.go"))
	if strings.Contains(bridge, "go:build") {
		t.Errorf("the bridge keeps its build constraint:\n%s", bridge)
	}
	if !strings.Contains(bridge, `legacy "sigs.k8s.io/iptables-wrappers/internal/iptables"`) {
		t.Errorf("the bridge does not import the moved package:\n%s", bridge)
	}
	want := "require (\n\tk8s.io/api v0.0.0\n\tk8s.io/utils v0.0.0-2026\n)\n"
	if got := readFile(t, filepath.Join(out, "go.mod")); !strings.HasSuffix(got, want) {
		t.Errorf("go.mod:\n%s\nwant it to end with:\n%s", got, want)
	}
}

// Every bridge is kept out of this module's build, and belongs to a known
// stand-in.
func TestBridges(t *testing.T) {
	for module, s := range standins {
		if err := writeBridges(module, s, t.TempDir(), map[string]bool{}); err != nil {
			t.Errorf("%s: %v", module, err)
		}
	}
	entries, err := bridges.ReadDir("bridges")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		found := false
		for module := range standins {
			found = found || strings.HasPrefix(module, e.Name()+"/")
		}
		if !found {
			t.Errorf("bridges/%s belongs to no stand-in", e.Name())
		}
	}
}

// A bridge never replaces a file that the stand-in copied from the source.
func TestBridgeReplacesNoFile(t *testing.T) {
	out := t.TempDir()
	writeFile(t, filepath.Join(out, "bridge.go"), "package ktesting\n")
	err := writeBridges("k8s.io/ktesting", standins["k8s.io/ktesting"], out, map[string]bool{})
	if err == nil || !strings.Contains(err.Error(), "would replace a file of the source") {
		t.Errorf("got %v, want an error about the replaced file", err)
	}
	if got := readFile(t, filepath.Join(out, "bridge.go")); got != "package ktesting\n" {
		t.Errorf("the source's file was replaced:\n%s", got)
	}
}
