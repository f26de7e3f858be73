package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeReport writes a Ginkgo JSON report of one suite whose It specs have the given states.
func writeReport(t *testing.T, dir, config string, states map[string]string) {
	t.Helper()
	var specs []map[string]any
	specs = append(specs, map[string]any{"LeafNodeType": "BeforeSuite", "State": "passed"})
	for name, state := range states {
		specs = append(specs, map[string]any{
			"ContainerHierarchyTexts": []string{"[sig-node] Probing container"},
			"LeafNodeText":            name,
			"LeafNodeType":            "It",
			"State":                   state,
			"RunTime":                 int64(2e9),
			"Failure":                 map[string]any{"Message": "timed out\nmore"},
		})
	}
	data, err := json.Marshal([]map[string]any{{"SpecReports": specs}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, config+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reports  map[string]map[string]string
		wantCode int
		want     []string
	}{
		{
			name: "all pass",
			reports: map[string]map[string]string{
				"on":   {"a": "passed", "b": "passed"},
				"base": {"a": "passed", "b": "passed"},
			},
			want: []string{"| [sig-node] Probing container a | passed (2s) | passed (2s) |"},
		},
		{
			name: "the patched node fails what the base passes",
			reports: map[string]map[string]string{
				"on":   {"a": "passed", "b": "failed"},
				"base": {"a": "passed", "b": "passed"},
			},
			wantCode: 1,
			want:     []string{"- on, [sig-node] Probing container b: timed out", "FAIL"},
		},
		{
			name: "both fail: listed with the reason, not a regression",
			reports: map[string]map[string]string{
				"on":   {"a": "passed", "b": "failed"},
				"base": {"a": "passed", "b": "failed"},
			},
			want: []string{"- base, [sig-node] Probing container b: timed out"},
		},
		{
			name: "a spec skipped by its label in the base",
			reports: map[string]map[string]string{
				"on":   {"a": "passed", "feature": "passed"},
				"base": {"a": "passed", "feature": "skipped"},
			},
			want: []string{"| [sig-node] Probing container feature | passed (2s) | skipped |"},
		},
		{
			name: "a configuration without a report",
			reports: map[string]map[string]string{
				"on": {"a": "passed"},
			},
			wantCode: 1,
			want:     []string{"| passed (2s) | no report |"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for config, states := range tc.reports {
				writeReport(t, dir, config, states)
			}
			configs := []string{"on", "base"}
			specs, results := load(dir, configs)
			var out bytes.Buffer
			if code := table(&out, dir, configs, specs, results); code != tc.wantCode {
				t.Errorf("exit code %d, want %d:\n%s", code, tc.wantCode, out.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
