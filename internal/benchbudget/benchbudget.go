// Package benchbudget checks the performance budget of the series on the
// output of the same benchmarks run in the base tree and in the patched tree
// (make bench).
package benchbudget

import (
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/perf/benchfmt"
)

// Samples holds, per benchmark name (without the -GOMAXPROCS suffix) and
// unit, every value measured. The units are benchfmt's, as benchstat shows
// them: a time in ns is in sec (cpu-ns/op is cpu-sec/op).
type Samples map[string]map[string][]float64

// Parse reads go test -bench output, from the file name (for errors). A
// benchmark line that does not parse is an error: its samples would be
// missing from the budgets.
func Parse(r io.Reader, name string) (Samples, error) {
	s := Samples{}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			name := benchName(rec.Name)
			if s[name] == nil {
				s[name] = map[string][]float64{}
			}
			for _, v := range rec.Values {
				s[name][v.Unit] = append(s[name][v.Unit], v.Value)
			}
		}
	}
	return s, br.Err()
}

// benchName is a benchmark's full name without its -GOMAXPROCS suffix.
func benchName(n benchfmt.Name) string {
	base, parts := n.Parts()
	name := string(base)
	for _, p := range parts {
		if p[0] == '/' {
			name += string(p)
		}
	}
	return name
}

// ParseFile reads go test -bench output from a file.
func ParseFile(path string) (Samples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Median is the median of the values of name in unit.
func (s Samples) Median(name, unit string) (float64, error) {
	v := slices.Clone(s[name][unit])
	if len(v) == 0 {
		return 0, fmt.Errorf("no %s samples of Benchmark%s", unit, name)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], nil
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, nil
}

// PairedRatio is the median of num[i]/den[i] over the samples of two
// benchmarks. make bench runs the two trees alternately, so sample i of each
// was measured at about the same time, under the same load of a shared
// machine; the ratio of each pair cancels most of that load.
func PairedRatio(num, den []float64) (float64, error) {
	n := min(len(num), len(den))
	if n == 0 {
		return 0, fmt.Errorf("no samples")
	}
	r := make([]float64, n)
	for i := range n {
		r[i] = num[i] / den[i]
	}
	slices.Sort(r)
	if n%2 == 1 {
		return r[n/2], nil
	}
	return (r[n/2-1] + r[n/2]) / 2, nil
}

// Result is one budget line.
type Result struct {
	Budget string
	Value  string
	OK     bool
	// Over says by how much a broken budget is exceeded.
	Over string
}

// MaxGoroutines is the budget of BenchmarkKEPRapidUpdates: the three probe
// workers, the one blocked probe attempt of each, and two spare for the
// runtime. It must not depend on the number of updates.
const MaxGoroutines = 3 + 3 + 2

// CPUTime is the unit the time budgets are checked in: the process CPU time
// per operation that the benchmarks report (cpu-ns/op, which benchfmt reads
// in seconds), which unlike wall time does not count the time other
// processes take from the benchmark.
const CPUTime = "cpu-sec/op"

// Check applies the budgets of make bench to the base and patched samples.
func Check(base, patched Samples) ([]Result, error) {
	var out []Result
	ratio := func(budget string, num, den []float64, limit float64) error {
		r, err := PairedRatio(num, den)
		if err != nil {
			return fmt.Errorf("%s: %w", budget, err)
		}
		res := Result{Budget: budget, Value: fmt.Sprintf("%.3f", r), OK: r <= limit}
		if !res.OK {
			res.Over = fmt.Sprintf("%.1f%% over %.2f", (r/limit-1)*100, limit)
		}
		out = append(out, res)
		return nil
	}
	allocs := func(budget string, name string, equal bool) error {
		b, err := base.Median(name, "allocs/op")
		if err != nil {
			return err
		}
		p, err := patched.Median(name, "allocs/op")
		if err != nil {
			return err
		}
		res := Result{Budget: budget, Value: fmt.Sprintf("%g vs %g", p, b), OK: p <= b && (!equal || p == b)}
		if !res.OK {
			res.Over = fmt.Sprintf("%+g allocs/op", p-b)
		}
		out = append(out, res)
		return nil
	}

	for _, update := range []string{"image", "probe"} {
		name := "KEPValidatePodUpdate/gate=off/update=" + update
		if err := ratio("ValidatePodUpdate, gate off, "+update+" update: patched/base CPU time ≤ 1.02",
			patched[name][CPUTime], base[name][CPUTime], 1.02); err != nil {
			return nil, err
		}
		if err := allocs("ValidatePodUpdate, gate off, "+update+" update: patched allocs/op = base", name, true); err != nil {
			return nil, err
		}
	}
	if err := ratio("ValidatePodUpdate, gate on, patched: probe-only/image-only update CPU time ≤ 1.10",
		patched["KEPValidatePodUpdate/gate=on/update=probe"][CPUTime],
		patched["KEPValidatePodUpdate/gate=on/update=image"][CPUTime], 1.10); err != nil {
		return nil, err
	}
	// Pod Security asks whether an update is significant on every Pod update in a namespace
	// with a policy; most updates are not, and the check compares every probe to say so.
	if err := ratio("Pod Security, patched: isSignificantPodUpdate of a label update/ValidatePodUpdate of an image update CPU time ≤ 0.05",
		patched["KEPIsSignificantPodUpdate"][CPUTime],
		patched["KEPValidatePodUpdate/gate=off/update=image"][CPUTime], 0.05); err != nil {
		return nil, err
	}
	if err := allocs("prober AddPod, no change, 10 containers x 3 probes: patched allocs/op ≤ base", "KEPAddPodNoChange", false); err != nil {
		return nil, err
	}
	// The probe loop is rewritten without a gate. With the gate off it allocates what it did, and
	// costs an uncontended lock and unlock of the worker's mutex and the publishing of its results
	// after the lock is released, on a path that runs once per probe period.
	if err := ratio("prober doProbe, gate off: patched/base CPU time ≤ 1.05",
		patched["KEPDoProbe"][CPUTime], base["KEPDoProbe"][CPUTime], 1.05); err != nil {
		return nil, err
	}
	if err := allocs("prober doProbe, gate off: patched allocs/op = base", "KEPDoProbe", true); err != nil {
		return nil, err
	}
	// Every Pod update reaches the probe manager; most change no probe. With the gate on, a spec of
	// the generation already applied is not compared.
	for _, gate := range []string{"off", "on"} {
		name := "KEPPodUpdateLabelOnly/gate=" + gate
		if err := ratio("prober label-only Pod update, gate "+gate+": patched/base CPU time ≤ 1.05",
			patched[name][CPUTime], base[name][CPUTime], 1.05); err != nil {
			return nil, err
		}
		relation := map[string]string{"off": "=", "on": "≤"}[gate]
		if err := allocs("prober label-only Pod update, gate "+gate+": patched allocs/op "+relation+" base", name, gate == "off"); err != nil {
			return nil, err
		}
	}

	// The most goroutines of any run, not the median.
	gs := patched["KEPRapidUpdates"]["goroutines"]
	if len(gs) == 0 {
		return nil, fmt.Errorf("no goroutines samples of BenchmarkKEPRapidUpdates")
	}
	g := slices.Max(gs)
	res := Result{Budget: fmt.Sprintf("prober, 1,000 rapid updates against blocked probes: goroutines ≤ %d", MaxGoroutines), Value: fmt.Sprintf("%g", g), OK: g <= MaxGoroutines}
	if !res.OK {
		res.Over = fmt.Sprintf("%g goroutines over", g-MaxGoroutines)
	}
	out = append(out, res)
	return out, nil
}
