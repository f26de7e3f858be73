package benchbudget

import (
	"fmt"
	"strings"
	"testing"
)

func bench(offNs, offAllocs, onImage, onProbe, significant, addAllocs, goroutines, doProbeNs, doProbeAllocs float64) string {
	var b strings.Builder
	for _, update := range []string{"image", "probe"} {
		fmt.Fprintf(&b, "BenchmarkKEPValidatePodUpdate/gate=off/update=%s-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  %g allocs/op\n", update, offNs, offAllocs)
	}
	fmt.Fprintf(&b, "BenchmarkKEPValidatePodUpdate/gate=on/update=image-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  1 allocs/op\n", onImage)
	fmt.Fprintf(&b, "BenchmarkKEPValidatePodUpdate/gate=on/update=probe-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  1 allocs/op\n", onProbe)
	fmt.Fprintf(&b, "BenchmarkKEPIsSignificantPodUpdate-2   1000  9 ns/op  %g cpu-ns/op  0 B/op  0 allocs/op\n", significant)
	fmt.Fprintf(&b, "BenchmarkKEPAddPodNoChange-2   1000  50 ns/op  0 B/op  %g allocs/op\n", addAllocs)
	fmt.Fprintf(&b, "BenchmarkKEPRapidUpdates-2   10  5000 ns/op  %g goroutines  3 workers\n", goroutines)
	fmt.Fprintf(&b, "BenchmarkKEPDoProbe-2   1000  9 ns/op  %g cpu-ns/op  100 B/op  %g allocs/op\n", doProbeNs, doProbeAllocs)
	return b.String()
}

func check(t *testing.T, base, patched string) []Result {
	t.Helper()
	b, err := Parse(strings.NewReader("goos: linux\nPASS\n" + base))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(strings.NewReader(patched))
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
	base := bench(1000, 10, 0, 0, 1, 0, 3, 1000, 5)
	for _, tc := range []struct {
		name    string
		patched string
		broken  []string
	}{
		{"within", bench(1010, 10, 1000, 1090, 20, 0, 8, 1000, 5), nil},
		{"gate off slower", bench(1050, 10, 1000, 1000, 20, 0, 3, 1000, 5), []string{
			"ValidatePodUpdate, gate off, image update: patched/base CPU time ≤ 1.02: 2.9% over 1.02",
			"ValidatePodUpdate, gate off, probe update: patched/base CPU time ≤ 1.02: 2.9% over 1.02",
		}},
		{"gate off allocates", bench(1000, 11, 1000, 1000, 20, 0, 3, 1000, 5), []string{
			"ValidatePodUpdate, gate off, image update: patched allocs/op = base: +1 allocs/op",
			"ValidatePodUpdate, gate off, probe update: patched allocs/op = base: +1 allocs/op",
		}},
		{"probe update slower", bench(1000, 10, 1000, 1210, 20, 0, 3, 1000, 5), []string{
			"ValidatePodUpdate, gate on, patched: probe-only/image-only update CPU time ≤ 1.10: 10.0% over 1.10",
		}},
		{"Pod Security's check slower", bench(1000, 10, 1000, 1000, 60, 0, 3, 1000, 5), []string{
			"Pod Security, patched: isSignificantPodUpdate of a label update/ValidatePodUpdate of an image update CPU time ≤ 0.05: 20.0% over 0.05",
		}},
		{"AddPod allocates", bench(1000, 10, 1000, 1000, 20, 2, 3, 1000, 5), []string{
			"prober AddPod, no change, 10 containers x 3 probes: patched allocs/op ≤ base: +2 allocs/op",
		}},
		{"goroutines", bench(1000, 10, 1000, 1000, 20, 0, 1003, 1000, 5), []string{
			"prober, 1,000 rapid updates against blocked probes: goroutines ≤ 8: 995 goroutines over",
		}},
		{"doProbe slower", bench(1000, 10, 1000, 1000, 20, 0, 3, 1210, 5), []string{
			"prober doProbe, gate off: patched/base CPU time ≤ 1.10: 10.0% over 1.10",
		}},
		{"doProbe allocates", bench(1000, 10, 1000, 1000, 20, 0, 3, 1000, 6), []string{
			"prober doProbe, gate off: patched allocs/op = base: +1 allocs/op",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := broken(check(t, base, tc.patched))
			if strings.Join(got, "\n") != strings.Join(tc.broken, "\n") {
				t.Errorf("broken budgets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.broken, "\n"))
			}
		})
	}
}

func TestMedian(t *testing.T) {
	s, err := Parse(strings.NewReader("BenchmarkX-2 10 3 ns/op\nBenchmarkX-2 10 1 ns/op\nBenchmarkX-2 10 100 ns/op\nBenchmarkX-2 10 2 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.Median("X", "ns/op"); err != nil || m != 2.5 {
		t.Errorf("median %v, %v; want 2.5", m, err)
	}
	if _, err := s.Median("Y", "ns/op"); err == nil {
		t.Error("median of a missing benchmark: no error")
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
