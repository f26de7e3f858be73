package benchbudget

import (
	"fmt"
	"strings"
	"testing"
)

// samples are the values of one run of the benchmarks.
type samples struct {
	offNs, offAllocs, onImage, onProbe, significant, addAllocs, goroutines float64
	doProbeNs, doProbeAllocs                                               float64
	// labelNs and labelAllocs are the label-only Pod update's, gate off then on.
	labelNs, labelAllocs [2]float64
}

// baseSamples are the base tree's.
var baseSamples = samples{
	offNs: 1000, offAllocs: 10, significant: 1, goroutines: 3, doProbeNs: 1000, doProbeAllocs: 5,
	labelNs: [2]float64{1000, 1000}, labelAllocs: [2]float64{30, 30},
}

// withinBudget are a patched tree's that keep every budget.
var withinBudget = samples{
	offNs: 1010, offAllocs: 10, onImage: 1000, onProbe: 1090, significant: 20, goroutines: 8, doProbeNs: 1000, doProbeAllocs: 5,
	labelNs: [2]float64{1040, 1000}, labelAllocs: [2]float64{30, 0},
}

func bench(s samples) string {
	var b strings.Builder
	for _, update := range []string{"image", "probe"} {
		fmt.Fprintf(&b, "BenchmarkKEPValidatePodUpdate/gate=off/update=%s-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  %g allocs/op\n", update, s.offNs, s.offAllocs)
	}
	fmt.Fprintf(&b, "BenchmarkKEPValidatePodUpdate/gate=on/update=image-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  1 allocs/op\n", s.onImage)
	fmt.Fprintf(&b, "BenchmarkKEPValidatePodUpdate/gate=on/update=probe-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  1 allocs/op\n", s.onProbe)
	fmt.Fprintf(&b, "BenchmarkKEPIsSignificantPodUpdate-2   1000  9 ns/op  %g cpu-ns/op  0 B/op  0 allocs/op\n", s.significant)
	fmt.Fprintf(&b, "BenchmarkKEPAddPodNoChange-2   1000  50 ns/op  0 B/op  %g allocs/op\n", s.addAllocs)
	fmt.Fprintf(&b, "BenchmarkKEPRapidUpdates-2   10  5000 ns/op  %g goroutines  3 workers\n", s.goroutines)
	fmt.Fprintf(&b, "BenchmarkKEPDoProbe-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  %g allocs/op\n", s.doProbeNs, s.doProbeAllocs)
	for i, gate := range []string{"off", "on"} {
		fmt.Fprintf(&b, "BenchmarkKEPPodUpdateLabelOnly/gate=%s-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  %g allocs/op\n", gate, s.labelNs[i], s.labelAllocs[i])
	}
	return b.String()
}

func check(t *testing.T, base, patched string) []Result {
	t.Helper()
	b, err := Parse(strings.NewReader("goos: linux\nPASS\n"+base), "base")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(strings.NewReader(patched), "patched")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(b, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func broken(res []Result) []string {
	var out []string
	for _, r := range res {
		if !r.OK {
			out = append(out, r.Budget+": "+r.Over)
		}
	}
	return out
}

func TestCheck(t *testing.T) {
	base := bench(baseSamples)
	for _, tc := range []struct {
		name   string
		change func(s *samples)
		broken []string
	}{
		{"within", func(*samples) {}, nil},
		{"gate off slower", func(s *samples) { s.offNs = 1050 }, []string{
			"ValidatePodUpdate, gate off, image update: patched/base CPU time ≤ 1.02: 2.9% over 1.02",
			"ValidatePodUpdate, gate off, probe update: patched/base CPU time ≤ 1.02: 2.9% over 1.02",
		}},
		{"gate off allocates", func(s *samples) { s.offAllocs = 11 }, []string{
			"ValidatePodUpdate, gate off, image update: patched allocs/op = base: +1 allocs/op",
			"ValidatePodUpdate, gate off, probe update: patched allocs/op = base: +1 allocs/op",
		}},
		{"probe update slower", func(s *samples) { s.onProbe = 1210 }, []string{
			"ValidatePodUpdate, gate on, patched: probe-only/image-only update CPU time ≤ 1.10: 10.0% over 1.10",
		}},
		{"Pod Security's check slower", func(s *samples) { s.significant = 60 }, []string{
			"Pod Security, patched: isSignificantPodUpdate of a label update/ValidatePodUpdate of an image update CPU time ≤ 0.05: 18.8% over 0.05",
		}},
		{"AddPod allocates", func(s *samples) { s.addAllocs = 2 }, []string{
			"prober AddPod, no change, 10 containers x 3 probes: patched allocs/op ≤ base: +2 allocs/op",
		}},
		{"goroutines", func(s *samples) { s.goroutines = 1003 }, []string{
			"prober, 1,000 rapid updates against blocked probes: goroutines ≤ 8: 995 goroutines over",
		}},
		{"doProbe slower", func(s *samples) { s.doProbeNs = 1060 }, []string{
			"prober doProbe, gate off: patched/base CPU time ≤ 1.05: 1.0% over 1.05",
		}},
		{"doProbe allocates", func(s *samples) { s.doProbeAllocs = 6 }, []string{
			"prober doProbe, gate off: patched allocs/op = base: +1 allocs/op",
		}},
		{"label-only update slower", func(s *samples) { s.labelNs = [2]float64{1060, 1060} }, []string{
			"prober label-only Pod update, gate off: patched/base CPU time ≤ 1.05: 1.0% over 1.05",
			"prober label-only Pod update, gate on: patched/base CPU time ≤ 1.05: 1.0% over 1.05",
		}},
		{"label-only update allocates", func(s *samples) { s.labelAllocs = [2]float64{29, 31} }, []string{
			"prober label-only Pod update, gate off: patched allocs/op = base: -1 allocs/op",
			"prober label-only Pod update, gate on: patched allocs/op ≤ base: +1 allocs/op",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patched := withinBudget
			tc.change(&patched)
			got := broken(check(t, base, bench(patched)))
			if strings.Join(got, "\n") != strings.Join(tc.broken, "\n") {
				t.Errorf("broken budgets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.broken, "\n"))
			}
		})
	}
}

func TestMedian(t *testing.T) {
	s, err := Parse(strings.NewReader("BenchmarkX-2 10 3 allocs/op\nBenchmarkX-2 10 1 allocs/op\nBenchmarkX-2 10 100 allocs/op\nBenchmarkX-2 10 2 allocs/op\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.Median("X", "allocs/op"); err != nil || m != 2.5 {
		t.Errorf("median %v, %v; want 2.5", m, err)
	}
	if _, err := s.Median("Y", "allocs/op"); err == nil {
		t.Error("median of a missing benchmark: no error")
	}
}

func TestParse(t *testing.T) {
	s, err := Parse(strings.NewReader("BenchmarkX/gate=on-2\nBenchmarkX/gate=on-2 10 1500 cpu-ns/op 3 goroutines\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := s["X/gate=on"][CPUTime]; len(got) != 1 || got[0] != 1.5e-6 {
		t.Errorf("X/gate=on %s: %v; want [1.5e-06]", CPUTime, got)
	}
	if got := s["X/gate=on"]["goroutines"]; len(got) != 1 || got[0] != 3 {
		t.Errorf("X/gate=on goroutines: %v; want [3]", got)
	}
	// A line cut short would lose its samples.
	_, err = Parse(strings.NewReader("BenchmarkX-2 10 3 allocs/op\nBenchmarkX-2 10 3 allocs/op 4\n"), "x")
	if want := "x:2: missing units"; err == nil || err.Error() != want {
		t.Errorf("a benchmark line without its last unit: error %v, want %q", err, want)
	}
}

func TestPairedRatio(t *testing.T) {
	// A load burst slows down both samples of the second pair alike.
	r, err := PairedRatio([]float64{101, 202, 103}, []float64{100, 200, 100})
	if err != nil || r != 1.01 {
		t.Errorf("paired ratio %v, %v; want 1.01", r, err)
	}
	if _, err := PairedRatio(nil, []float64{1}); err == nil {
		t.Error("no samples: no error")
	}
}
