//go:build node

package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The measurements of docs/performance.md. They run only with
// HARNESS_NODE_MEASURE=1 ('make measure-node') and the kubelet's gate on, and
// report figures; they fail only when the kubelet misbehaves (a restart, a
// change that is never applied), never on a duration.

func measuring(t *testing.T) {
	t.Helper()
	if os.Getenv("HARNESS_NODE_MEASURE") != "1" {
		t.Skip("a measurement: run it with 'make measure-node'")
	}
	if !kubeletGate() {
		t.Skip("measures the kubelet with MutableContainerProbes on")
	}
}

// trials is the number of trials of each kind (KEP_NODE_TRIALS, default 20).
func trials() int {
	if n, err := strconv.Atoi(os.Getenv("KEP_NODE_TRIALS")); err == nil && n > 0 {
		return n
	}
	return 20
}

// arrivals reads when the container's health endpoints were requested, by
// request URI.
func (f *framework) arrivals(pod string, port int32) map[string][]time.Time {
	f.t.Helper()
	return f.state(pod, port).Arrivals
}

// firstArrival waits for the first request to uri that reached the container
// after since, and returns when it arrived.
func (f *framework) firstArrival(pod string, port int32, uri string, since time.Time) time.Time {
	f.t.Helper()
	var arrived time.Time
	err := wait.PollUntilContextTimeout(f.ctx, 20*time.Millisecond, eventually, true, func(context.Context) (bool, error) {
		for _, at := range f.arrivals(pod, port)[uri] {
			if at.After(since) {
				arrived = at
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		f.t.Fatalf("pod %s: no request to %s after %s: %v", pod, uri, since.Format(time.RFC3339Nano), err)
	}
	return arrived
}

// waitApplied waits until the kubelet reports the Pod's current generation
// as observed, which it does once the probes of that generation are in force.
func (f *framework) waitApplied(name string) *v1.Pod {
	f.t.Helper()
	return f.waitFor(name, "the kubelet observes the latest generation", func(p *v1.Pod) bool {
		return p.Status.ObservedGeneration == p.Generation
	})
}

// percentiles returns the 50th and the 99th percentile of ds (nearest rank).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return rank(0.50), rank(0.99)
}

func (f *framework) report(what string, ds []time.Duration) {
	p50, p99 := percentiles(ds)
	f.t.Logf("measure: %s: p50 %s, p99 %s, max %s (%d trials)", what,
		p50.Round(time.Millisecond), p99.Round(time.Millisecond), slices.Max(ds).Round(time.Millisecond), len(ds))
}

// TestMeasureProbeChangeLatency measures the time from a PATCH to the first
// request of the new probe configuration that reaches the container: on an
// idle Pod, and on a Pod whose pod worker is busy restarting another
// container that exits every two seconds.
func TestMeasureProbeChangeLatency(t *testing.T) {
	measuring(t)
	for _, busy := range []bool{false, true} {
		name := "idle"
		if busy {
			name = "busy"
		}
		t.Run(name, func(t *testing.T) {
			f := newFramework(t)
			const port = 8080
			app := targetContainer("app", port, "STARTZ=slow:25s")
			// Long periods: a request soon after the PATCH is the new configuration's.
			app.ReadinessProbe = httpProbe("/readyz?trial=0", port)
			app.ReadinessProbe.PeriodSeconds = 60
			app.LivenessProbe = httpProbe("/livez?timeout", port)
			app.LivenessProbe.PeriodSeconds = 60
			app.LivenessProbe.FailureThreshold = 3
			containers := []v1.Container{app}
			if busy {
				crasher := targetContainer("crasher", port+1)
				crasher.Args = append(crasher.Args, "-exit-after", "2s")
				containers = append(containers, crasher)
			}
			f.create(newPod(name, containers...))
			f.waitFor(name, "app Ready", func(p *v1.Pod) bool { return ready(p, "app") })
			appID := containerID(f.get(name), "app")

			var handler, timeout, addition, inFlight []time.Duration
			for i := 1; i <= trials(); i++ {
				// A readiness handler change.
				uri := fmt.Sprintf("/readyz?trial=%d", i)
				sent := time.Now()
				f.patch(name, fmt.Sprintf(`{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":%q}}}]}}`, uri))
				handler = append(handler, f.firstArrival(name, port, uri, sent).Sub(sent))

				// A liveness timeout change: 1s to 2s (the probe is put back to 1s below).
				sent = time.Now()
				f.patch(name, `{"spec":{"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":2}}]}}`)
				timeout = append(timeout, f.firstArrival(name, port, "/livez?timeout", sent).Sub(sent))

				// A liveness addition, after the probe was removed.
				f.patch(name, `{"spec":{"containers":[{"name":"app","livenessProbe":null}]}}`)
				f.waitApplied(name)
				uri = fmt.Sprintf("/livez?added=%d", i)
				sent = time.Now()
				f.patch(name, fmt.Sprintf(`{"spec":{"containers":[{"name":"app","livenessProbe":{"httpGet":{"path":%q,"port":%d},"periodSeconds":60,"timeoutSeconds":1,"failureThreshold":3}}]}}`, uri, port))
				addition = append(addition, f.firstArrival(name, port, uri, sent).Sub(sent))
				f.patch(name, `{"spec":{"containers":[{"name":"app","livenessProbe":{"httpGet":{"path":"/livez?timeout"},"timeoutSeconds":1}}]}}`)
				f.waitApplied(name)
			}
			last := time.Now()
			for i := 1; i <= trials()/2; i++ {
				// timeoutSeconds cut from 30 to 1 while an attempt that takes 25s is in flight.
				// Each cut cancels an attempt: the trials come a second apart, the pace of a
				// person or a script, not of a client that changes the probe in a loop, whose
				// changes the kubelet coalesces (TestMeasureProbeChangeStorm).
				time.Sleep(time.Until(last.Add(time.Second))) // pacing, not a synchronisation
				uri := fmt.Sprintf("/startz?inflight=%d", i)
				sent := time.Now()
				f.patch(name, fmt.Sprintf(`{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":%q},"timeoutSeconds":30}}]}}`, uri))
				first := f.firstArrival(name, port, uri, sent)
				sent = time.Now()
				f.patch(name, `{"spec":{"containers":[{"name":"app","readinessProbe":{"timeoutSeconds":1}}]}}`)
				inFlight = append(inFlight, f.firstArrival(name, port, uri, first).Sub(sent))
				last = time.Now()
			}
			f.report(name+" Pod: readiness handler change", handler)
			f.report(name+" Pod: liveness timeoutSeconds change", timeout)
			f.report(name+" Pod: liveness probe added", addition)
			f.report(name+" Pod: readiness timeoutSeconds 30 -> 1 with a 25s attempt in flight", inFlight)

			pod := f.get(name)
			if id := containerID(pod, "app"); id != appID || restarts(pod, "app") != 0 {
				t.Errorf("the probe changes restarted the app container: %s", describe(pod))
			}
		})
	}
}

// kubeletCPU returns the CPU time the node's kubelet has used so far. The
// kubelet runs in the node's PID namespace; /proc of the host shows it too.
// HARNESS_NODE_KUBELET names its binary when it is not the tree's (make
// measure-node WHAT=sync).
func kubeletCPU(t *testing.T) time.Duration {
	t.Helper()
	kubelet := os.Getenv("HARNESS_NODE_KUBELET")
	if kubelet == "" {
		kubelet = binary("kubelet")
	}
	bin, err := filepath.Abs(kubelet)
	if err != nil {
		t.Fatal(err)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, proc := range procs {
		if exe, err := os.Readlink(proc + "/exe"); err != nil || exe != bin {
			continue
		}
		stat, err := os.ReadFile(proc + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis; utime and
		// stime are fields 14 and 15 of the whole line.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		// Linux reports these in clock ticks of 1/100 s (USER_HZ).
		return time.Duration(utime+stime) * 10 * time.Millisecond
	}
	t.Fatalf("no kubelet process runs %s", bin)
	return 0
}

// TestMeasureProbeChangeBurst fills the node with Pods (110, the kubelet's
// default maxPods), then changes the three probes of each in one burst of
// PATCHes: readiness and liveness get new handlers, startup a new period. It
// reports when the last new handler first reached its container and when the
// kubelet had reported every new generation, and compares the kubelet's CPU
// time with the same burst of no-op updates (a label).
func TestMeasureProbeChangeBurst(t *testing.T) {
	measuring(t)
	f := newFramework(t)
	const pods = 110
	const window = 30 * time.Second
	const port = 8080
	c := targetContainer("app", port)
	c.StartupProbe = httpProbe("/startz", port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	c.LivenessProbe = httpProbe("/livez", port)
	for _, p := range []*v1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		p.PeriodSeconds, p.FailureThreshold = 30, 3
	}
	names := make([]string, pods)
	for i := range names {
		names[i] = fmt.Sprintf("burst-%03d", i)
		f.create(newPod(names[i], c))
	}
	ids := map[string]string{}
	for _, name := range names {
		p := f.waitFor(name, "app Ready", func(p *v1.Pod) bool { return ready(p, "app") })
		ids[name] = containerID(p, "app")
	}

	// burst sends patch to every Pod at once and returns when it started.
	burst := func(patch string) time.Time {
		start := time.Now()
		errs := make(chan error, len(names))
		var wg sync.WaitGroup
		for _, name := range names {
			wg.Go(func() {
				_, err := f.client.CoreV1().Pods(f.ns).Patch(f.ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("burst: %v", err)
			}
		}
		return start
	}

	cpu := kubeletCPU(t)
	start := burst(`{"metadata":{"labels":{"burst":"no-op"}}}`)
	time.Sleep(window - time.Since(start)) // a measurement window, not a synchronisation
	noop := kubeletCPU(t) - cpu

	cpu = kubeletCPU(t)
	start = burst(`{"spec":{"containers":[{"name":"app","startupProbe":{"periodSeconds":20},` +
		`"readinessProbe":{"httpGet":{"path":"/readyz?burst"}},"livenessProbe":{"httpGet":{"path":"/livez?burst"}}}]}}`)
	var lastArrival time.Time
	for _, name := range names {
		for _, uri := range []string{"/readyz?burst", "/livez?burst"} {
			if at := f.firstArrival(name, port, uri, start); at.After(lastArrival) {
				lastArrival = at
			}
		}
	}
	for _, name := range names {
		f.waitApplied(name)
	}
	observed := time.Now()
	time.Sleep(window - time.Since(start)) // the same window as the no-op burst
	changed := kubeletCPU(t) - cpu

	for _, name := range names {
		p := f.get(name)
		if containerID(p, "app") != ids[name] || restarts(p, "app") != 0 || !ready(p, "app") {
			t.Errorf("the burst restarted a container or made it unready: %s", describe(p))
		}
	}
	f.t.Logf("measure: %d Pods x 3 probes changed in one burst: the last new handler reached its container %s after the burst started; every generation observed %s after it (polled one Pod at a time)",
		pods, lastArrival.Sub(start).Round(time.Millisecond), observed.Sub(start).Round(time.Millisecond))
	f.t.Logf("measure: kubelet CPU in the %s after the burst: %s for the probe changes, %s for the same burst of no-op label updates",
		window, changed, noop)
}

// TestMeasureProbeChangeAfterKubeletRestart measures a liveness timeoutSeconds
// change made right after a kubelet restart, while the worker waits for its
// first probe: a kubelet that starts spreads each worker's first probe over a
// random part of its period, here 60s. The readiness probe runs every second:
// its first request after the restart shows that the kubelet has started the
// Pod's workers, before the change is sent.
func TestMeasureProbeChangeAfterKubeletRestart(t *testing.T) {
	measuring(t)
	f := newFramework(t)
	const port = 8080
	app := targetContainer("app", port)
	app.ReadinessProbe = httpProbe("/readyz", port)
	app.LivenessProbe = httpProbe("/livez?timeout", port)
	app.LivenessProbe.PeriodSeconds = 60
	app.LivenessProbe.FailureThreshold = 3
	f.create(newPod("restart", app))
	appID := containerID(f.waitFor("restart", "app Ready", func(p *v1.Pod) bool { return ready(p, "app") }), "app")

	var latencies []time.Duration
	for i := 1; i <= max(trials()/4, 2); i++ {
		restarted := restartKubelet(t, "")
		f.firstArrival("restart", port, "/readyz", restarted)
		sent := time.Now()
		f.patch("restart", fmt.Sprintf(`{"spec":{"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":%d}}]}}`, 1+i%2))
		latencies = append(latencies, f.firstArrival("restart", port, "/livez?timeout", sent).Sub(sent))
	}
	f.report("idle Pod right after a kubelet restart: liveness timeoutSeconds change", latencies)
	if pod := f.get("restart"); containerID(pod, "app") != appID || restarts(pod, "app") != 0 {
		t.Errorf("the kubelet restarts or the probe changes restarted the app container: %s", describe(pod))
	}
}

// TestMeasureProbeChangeStorm sends 100 changes of a readiness probe's
// handler as fast as one client can, each while the previous change's attempt
// (25s) is in flight, and reports how many of the changed handlers reached
// the container and when the last one did: the kubelet runs a few at once,
// then coalesces the changes into five attempts a second.
func TestMeasureProbeChangeStorm(t *testing.T) {
	measuring(t)
	f := newFramework(t)
	const port = 8080
	app := targetContainer("app", port, "STARTZ=slow:25s")
	app.ReadinessProbe = httpProbe("/readyz", port)
	app.ReadinessProbe.PeriodSeconds = 60
	f.create(newPod("storm", app))
	appID := containerID(f.waitFor("storm", "app Ready", func(p *v1.Pod) bool { return ready(p, "app") }), "app")

	const changes = 100
	start := time.Now()
	for i := 1; i <= changes; i++ {
		f.patch("storm", fmt.Sprintf(`{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/startz?storm=%d"},"timeoutSeconds":30}}]}}`, i))
	}
	sent := time.Since(start)
	lastArrival := f.firstArrival("storm", port, fmt.Sprintf("/startz?storm=%d", changes), start)
	arrived := 0
	for uri := range f.arrivals("storm", port) {
		if strings.HasPrefix(uri, "/startz?storm=") {
			arrived++
		}
	}
	f.t.Logf("measure: %d handler changes sent in %s, each while the previous attempt was in flight: %d of the handlers reached the container, the last one %s after the first change",
		changes, sent.Round(time.Millisecond), arrived, lastArrival.Sub(start).Round(time.Millisecond))
	if pod := f.get("storm"); containerID(pod, "app") != appID || restarts(pod, "app") != 0 {
		t.Errorf("the changes restarted the app container: %s", describe(pod))
	}
}
