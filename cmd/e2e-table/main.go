// Command e2e-table compares Ginkgo JSON reports of the same e2e specs run in
// several configurations (make test-upstream-e2e): it prints a Markdown table
// of spec -> result per configuration, the run time of each configuration,
// and the reason for each failure. It exits 1 if a configuration has no
// report or did not complete its suite (a suite node failed, an interrupt,
// the suite's timeout), or if a configuration other than base fails a spec
// that base passes.
//
//	e2e-table -dir _output/upstream-e2e on off base
//
// reads DIR/on.json, DIR/off.json and DIR/base.json, and DIR/NAME.seconds
// for the run times.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

const base = "base"

func main() {
	dir := flag.String("dir", ".", "the directory of the reports")
	flag.Parse()
	configs := flag.Args()
	if len(configs) == 0 {
		fmt.Fprintln(os.Stderr, "e2e-table: name at least one configuration")
		os.Exit(2)
	}
	specs, results, suites := load(*dir, configs)
	os.Exit(table(os.Stdout, *dir, configs, specs, results, suites))
}

// load reads the report of each configuration; a report that cannot be read is nil. It returns
// the names of the specs that ran in at least one configuration, sorted, each
// configuration's specs by name, and why each configuration's suite failed, if it did.
func load(dir string, configs []string) ([]string, map[string]map[string]types.SpecReport, map[string][]string) {
	results := map[string]map[string]types.SpecReport{}
	suites := map[string][]string{}
	var specs []string
	for _, config := range configs {
		specsOf, suite, err := read(filepath.Join(dir, config+".json"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e-table: %v\n", err)
		}
		results[config], suites[config] = specsOf, suite
		for name, spec := range specsOf {
			if ran(spec.State) && !slices.Contains(specs, name) {
				specs = append(specs, name)
			}
		}
	}
	slices.Sort(specs)
	return specs, results, suites
}

// read returns the It specs of a report by name, and why its suite failed other than by a spec:
// a suite node that failed (a SynchronizedBeforeSuite that failed runs no spec), an interrupt,
// the suite's timeout.
func read(path string) (map[string]types.SpecReport, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	specs := map[string]types.SpecReport{}
	var suite []string
	for _, r := range reports {
		for _, spec := range r.SpecReports {
			switch {
			case spec.LeafNodeType == types.NodeTypeIt:
				specs[spec.FullText()] = spec
			case spec.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) && spec.Failed():
				suite = append(suite, fmt.Sprintf("%s: %s", spec.LeafNodeType, firstLine(spec.Failure.Message)))
			}
		}
		suite = append(suite, r.SpecialSuiteFailureReasons...)
	}
	return specs, suite, nil
}

// ran says whether a spec ran: it passed or failed, as opposed to skipped,
// pending, or not in the report.
func ran(state types.SpecState) bool {
	return state.Is(types.SpecStatePassed | types.SpecStateFailureStates)
}

// table writes the table to w and returns the exit code.
func table(w io.Writer, dir string, configs, specs []string, results map[string]map[string]types.SpecReport, suites map[string][]string) int {
	code := 0
	fmt.Fprintf(w, "| spec | %s |\n|---|%s\n", strings.Join(configs, " | "), strings.Repeat("---|", len(configs)))
	var reasons []string
	for _, name := range specs {
		row := []string{name}
		for _, config := range configs {
			spec, ok := results[config][name]
			state := spec.State.String()
			switch {
			case results[config] == nil:
				state = "no report"
			case !ok:
				state = "not run"
			case ran(spec.State):
				state += fmt.Sprintf(" (%s)", spec.RunTime.Round(time.Second))
			}
			row = append(row, state)
			if ok && spec.Failed() {
				reasons = append(reasons, fmt.Sprintf("- %s, %s: %s", config, name, firstLine(spec.Failure.Message)))
			}
			if config != base && results[base] != nil && results[config] != nil &&
				results[base][name].State == types.SpecStatePassed && spec.Failed() {
				code = 1
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
	for _, config := range configs {
		if seconds, err := os.ReadFile(filepath.Join(dir, config+".seconds")); err == nil {
			fmt.Fprintf(w, "- %s: %ss\n", config, strings.TrimSpace(string(seconds)))
		}
		if results[config] == nil || len(suites[config]) > 0 {
			code = 1
		}
		for _, reason := range suites[config] {
			reasons = append(reasons, fmt.Sprintf("- %s: %s", config, firstLine(reason)))
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w, "\nFailures:")
		for _, r := range reasons {
			fmt.Fprintln(w, r)
		}
	}
	if len(specs) == 0 {
		// A focus that matches no spec, say.
		code = 1
		fmt.Fprintln(w, "\nFAIL: no spec ran in any configuration.")
	} else if code != 0 {
		fmt.Fprintln(w, "\nFAIL: a configuration has no report, did not complete its suite, or fails a spec that the base passes.")
	}
	return code
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
