package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// writeReport writes a Ginkgo JSON report of one suite whose It specs have the given states, as
// Ginkgo writes it.
func writeReport(t *testing.T, dir, config string, states map[string]types.SpecState) {
	t.Helper()
	writeSuiteReport(t, dir, config, types.Report{SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed}}}, states)
}

// writeSuiteReport writes a report whose suite is suite, with It specs of the given states
// added.
func writeSuiteReport(t *testing.T, dir, config string, suite types.Report, states map[string]types.SpecState) {
	t.Helper()
	specs := suite.SpecReports
	for name, state := range states {
		specs = append(specs, types.SpecReport{
			ContainerHierarchyTexts: []string{"[sig-node] Probing container"},
			LeafNodeText:            name,
			LeafNodeType:            types.NodeTypeIt,
			State:                   state,
			RunTime:                 2 * time.Second,
			Failure:                 types.Failure{Message: "timed out\nmore"},
		})
	}
	suite.SpecReports = specs
	data, err := json.Marshal([]types.Report{suite})
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
		reports  map[string]map[string]types.SpecState
		wantCode int
		want     []string
		// absent is what the output must not have.
		absent []string
	}{
		{
			name: "all pass",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStatePassed, "b": types.SpecStatePassed},
				"base": {"a": types.SpecStatePassed, "b": types.SpecStatePassed},
			},
			want: []string{"| [sig-node] Probing container a | passed (2s) | passed (2s) |"},
		},
		{
			name: "the patched node fails what the base passes",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStatePassed, "b": types.SpecStateFailed},
				"base": {"a": types.SpecStatePassed, "b": types.SpecStatePassed},
			},
			wantCode: 1,
			want:     []string{"- on, [sig-node] Probing container b: timed out", "FAIL"},
		},
		{
			name: "the patched node times out where the base passes",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStatePassed, "b": types.SpecStateTimedout},
				"base": {"a": types.SpecStatePassed, "b": types.SpecStatePassed},
			},
			wantCode: 1,
			want:     []string{"| [sig-node] Probing container b | timedout (2s) | passed (2s) |", "- on, [sig-node] Probing container b: timed out", "FAIL"},
		},
		{
			name: "both fail: listed with the reason, not a regression",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStatePassed, "b": types.SpecStateFailed},
				"base": {"a": types.SpecStatePassed, "b": types.SpecStateFailed},
			},
			want: []string{"- base, [sig-node] Probing container b: timed out"},
		},
		{
			name: "a spec skipped by its label in the base",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStatePassed, "feature": types.SpecStatePassed},
				"base": {"a": types.SpecStatePassed, "feature": types.SpecStateSkipped},
			},
			want: []string{"| [sig-node] Probing container feature | passed (2s) | skipped |"},
		},
		{
			name: "no spec ran in the base, as with a focus on the feature's specs",
			reports: map[string]map[string]types.SpecState{
				"on":   {"feature": types.SpecStatePassed},
				"base": {"feature": types.SpecStateSkipped},
			},
			want: []string{"| [sig-node] Probing container feature | passed (2s) | skipped |"},
		},
		{
			name: "a spec pending everywhere ran nowhere",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStatePassed, "later": types.SpecStatePending},
				"base": {"a": types.SpecStatePassed, "later": types.SpecStatePending},
			},
			want:   []string{"| [sig-node] Probing container a | passed (2s) | passed (2s) |"},
			absent: []string{"later"},
		},
		{
			name: "no spec ran anywhere, as with a focus that matches none",
			reports: map[string]map[string]types.SpecState{
				"on":   {"a": types.SpecStateSkipped},
				"base": {"a": types.SpecStateSkipped},
			},
			wantCode: 1,
			want:     []string{"FAIL: no spec ran in any configuration."},
		},
		{
			name: "a configuration without a report",
			reports: map[string]map[string]types.SpecState{
				"on": {"a": types.SpecStatePassed},
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
			specs, results, suites := load(dir, configs)
			var out bytes.Buffer
			if code := table(&out, dir, configs, specs, results, suites); code != tc.wantCode {
				t.Errorf("exit code %d, want %d:\n%s", code, tc.wantCode, out.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			for _, absent := range tc.absent {
				if strings.Contains(out.String(), absent) {
					t.Errorf("output has %q:\n%s", absent, out.String())
				}
			}
		})
	}
}

// A configuration whose suite did not run its specs, or stopped, fails the table, although no
// spec of it failed: its setup failed on the node (SynchronizedBeforeSuite), it was interrupted
// or it ran out of time.
func TestTableSuiteFailed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		suite types.Report
		// states are the configuration's It specs; the base passes a and b.
		states map[string]types.SpecState
		want   []string
	}{
		{
			name: "its setup failed, so no spec ran",
			suite: types.Report{SpecReports: types.SpecReports{{
				LeafNodeType: types.NodeTypeSynchronizedBeforeSuite,
				State:        types.SpecStateFailed,
				Failure:      types.Failure{Message: "the node is not Ready\nmore"},
			}}},
			want: []string{"| [sig-node] Probing container a | not run | passed (2s) |", "- on: SynchronizedBeforeSuite: the node is not Ready"},
		},
		{
			name: "interrupted after a spec",
			suite: types.Report{
				SpecReports:                types.SpecReports{{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed}},
				SpecialSuiteFailureReasons: []string{"Interrupted by User"},
			},
			states: map[string]types.SpecState{"a": types.SpecStatePassed},
			want:   []string{"| [sig-node] Probing container b | not run | passed (2s) |", "- on: Interrupted by User"},
		},
		{
			name: "its cleanup failed",
			suite: types.Report{SpecReports: types.SpecReports{{
				LeafNodeType: types.NodeTypeSynchronizedAfterSuite,
				State:        types.SpecStateFailed,
				Failure:      types.Failure{Message: "namespaces left"},
			}}},
			states: map[string]types.SpecState{"a": types.SpecStatePassed, "b": types.SpecStatePassed},
			want:   []string{"- on: SynchronizedAfterSuite: namespaces left"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSuiteReport(t, dir, "on", tc.suite, tc.states)
			writeReport(t, dir, "base", map[string]types.SpecState{"a": types.SpecStatePassed, "b": types.SpecStatePassed})
			configs := []string{"on", "base"}
			specs, results, suites := load(dir, configs)
			var out bytes.Buffer
			if code := table(&out, dir, configs, specs, results, suites); code != 1 {
				t.Errorf("exit code %d, want 1:\n%s", code, out.String())
			}
			for _, want := range append(tc.want, "FAIL: a configuration has no report, did not complete its suite,") {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
