package probeplugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"
)

// provings stands in for the prove stage: each proof waits until the test
// decides it, and the test sees which Pods are being proven.
type provings struct {
	started chan string
	results map[string]chan error
}

func newProvings(names ...string) *provings {
	p := &provings{started: make(chan string, len(names)), results: map[string]chan error{}}
	for _, n := range names {
		p.results[n] = make(chan error, 1)
	}
	return p
}

func (p *provings) prove(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
	p.started <- stored.Name
	if err := <-p.results[stored.Name]; err != nil {
		return "", err
	}
	return "the kubelet applied generation 2", nil
}

// inFlight returns the Pods being proven once every goroutine of the test's
// bubble is blocked: the batch that the rollout started.
func (p *provings) inFlight() []string {
	synctest.Wait()
	var names []string
	for {
		select {
		case n := <-p.started:
			names = append(names, n)
		default:
			slices.Sort(names)
			return names
		}
	}
}

// passBatches checks that the rollout proves each of batches in turn, and
// lets every proof of each pass; after them, the run must end without an
// error, on errc.
func (p *provings) passBatches(t *testing.T, errc <-chan error, errOut *bytes.Buffer, batches ...[]string) {
	t.Helper()
	for _, batch := range batches {
		if got := p.inFlight(); !slices.Equal(got, batch) {
			t.Fatalf("in flight %v, want the batch %v", got, batch)
		}
		for _, n := range batch {
			p.results[n] <- nil
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
}

// startRollout starts a run of relax on Pods of the names, maxInFlight at a
// time, whose proofs p decides; its error comes on errc.
func startRollout(ctx context.Context, names []string, maxInFlight int) (c *cluster, r *runner, errOut *bytes.Buffer, p *provings, errc chan error) {
	c = newCluster(namedPods(names...)...)
	r, _, errOut = newRunner(c, relax)
	r.largest = maxInFlight
	p = newProvings(names...)
	r.prove = p.prove
	errc = make(chan error)
	go func() { errc <- r.run(ctx, &targets{pods: namedPods(names...)}) }()
	return c, r, errOut, p, errc
}

// A rollout changes the first Pod alone, then batches that double up to
// --max-in-flight, and starts each batch only when every Pod of the one
// before it is proven.
func TestRolloutInBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
		c, _, errOut, p, errc := startRollout(context.Background(), names, 4)
		for _, batch := range [][]string{{"a"}, {"b", "c"}, {"d", "e", "f", "g"}, {"h"}} {
			if got := p.inFlight(); !slices.Equal(got, batch) {
				t.Fatalf("in flight %v, want the batch %v", got, batch)
			}
			_, patches := c.sent()
			if want := names[:slices.Index(names, batch[len(batch)-1])+1]; !slices.Equal(sortedCopy(patches), want) {
				t.Fatalf("patched %v while %v are proven, want %v", patches, batch, want)
			}
			for _, n := range batch {
				p.results[n] <- nil
			}
		}
		if err := <-errc; err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
	})
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// A Pod that fails stops the rollout after its batch: the other Pods of the
// batch are proven, and the Pods after it are not started.
func TestRolloutStopsAfterTheBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e", "f", "g"}
		c, r, errOut, p, errc := startRollout(context.Background(), names, 4)
		p.inFlight()
		p.results["a"] <- nil
		if got := p.inFlight(); !slices.Equal(got, []string{"b", "c"}) {
			t.Fatalf("in flight %v, want b and c", got)
		}
		p.results["b"] <- errors.New("the new readiness probe failed")
		p.results["c"] <- nil
		if err := <-errc; exitStatus(err) != exitStopped {
			t.Errorf("run: %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
		}
		want := "error: stopped at the first Pod that failed\ndone (2): pod/a pod/c\nfailed (1): pod/b\nnot started, left as they are (4): pod/d pod/e pod/f pod/g\n" +
			"to put back the 3 Pods that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n"
		if !strings.HasSuffix(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, want)
		}
		if _, patches := c.sent(); !slices.Equal(sortedCopy(patches), []string{"a", "b", "c"}) {
			t.Errorf("patched %v, want a, b and c only", patches)
		}
		for _, pr := range r.runs {
			if pr.pod.Name >= "d" && (pr.result != resultSkipped || pr.reason != "not changed: the run stopped at pod/b") {
				t.Errorf("pod/%s: %s %q, want it skipped, not started", pr.pod.Name, pr.result, pr.reason)
			}
		}
	})
}

// proveUntilInterrupted is prove that ends when its context does: an
// interrupt with --undo-on-failure.
func (p *provings) proveUntilInterrupted(ctx context.Context, before, stored *v1.Pod, container string) (string, error) {
	select {
	case <-ctx.Done():
		p.started <- stored.Name
		return "", ctx.Err()
	default:
	}
	done := make(chan struct{})
	var (
		proven string
		err    error
	)
	go func() {
		defer close(done)
		proven, err = p.prove(ctx, before, stored, container)
	}()
	select {
	case <-done:
		return proven, err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// An interrupt stops new changes at once: no Pod is patched after it. The
// Pods in flight are proven to the end, and the run says which Pods
// changed, and the command that puts them back.
func TestRolloutInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e", "f", "g"}
		ctx, interrupt := context.WithCancel(context.Background())
		c, _, errOut, p, errc := startRollout(ctx, names, 4)
		p.inFlight()
		p.results["a"] <- nil
		p.inFlight()
		interrupt()
		synctest.Wait()
		p.results["b"] <- nil
		p.results["c"] <- nil
		if err := <-errc; exitStatus(err) != exitInterrupted {
			t.Errorf("run: %v (exit status %d), want exit status %d", err, exitStatus(err), exitInterrupted)
		}
		if _, patches := c.sent(); !slices.Equal(sortedCopy(patches), []string{"a", "b", "c"}) {
			t.Errorf("patched %v, want a, b and c only", patches)
		}
		undo := "kubectl probe undo deployment/web -n ns --run " + testRun
		for _, want := range []string{
			"interrupted: no more Pods change, and the 2 in flight are proven first; Ctrl-C again quits at once\n" +
				"to put back what this run changed: " + undo + "\n",
			"pod/b: the kubelet applied generation 2\npod/c: the kubelet applied generation 2\n",
			"error: interrupted\ndone (3): pod/a pod/b pod/c\nfailed (0): none\nnot started, left as they are (4): pod/d pod/e pod/f pod/g\n" +
				"to put back the 3 Pods that this run changed: " + undo + "\n",
		} {
			if got := strings.ReplaceAll(errOut.String(), "pod/c: the kubelet applied generation 2\npod/b:", "pod/b: the kubelet applied generation 2\npod/c:"); !strings.Contains(got, want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
		}
	})
}

// An interrupt that comes as a batch begins, here while its first Pod is
// patched, finds the whole batch in flight: each of its Pods is patched and
// proven, and counted, never some of them only, whichever goroutine ran
// first.
func TestRolloutInterruptedAsABatchBegins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d"}
		ctx, interrupt := context.WithCancel(context.Background())
		c := newCluster(namedPods(names...)...)
		c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
			if patch := action.(k8stesting.PatchActionImpl); len(patch.PatchOptions.DryRun) == 0 && (patch.Name == "b" || patch.Name == "c") {
				interrupt()
			}
			return false, nil, nil
		})
		r, _, errOut := newRunner(c, relax)
		r.largest = 4
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(ctx, &targets{pods: namedPods(names...)}) }()
		p.inFlight()
		p.results["a"] <- nil
		if got := p.inFlight(); !slices.Equal(got, []string{"b", "c"}) {
			t.Fatalf("in flight %v, want b and c, the batch\n%s", got, errOut)
		}
		p.results["b"] <- nil
		p.results["c"] <- nil
		if err := <-errc; exitStatus(err) != exitInterrupted {
			t.Errorf("run: %v (exit status %d), want exit status %d", err, exitStatus(err), exitInterrupted)
		}
		if _, patches := c.sent(); !slices.Equal(sortedCopy(patches), []string{"a", "b", "c"}) {
			t.Errorf("patched %v, want a, b and c", patches)
		}
		if want := "interrupted: no more Pods change, and the 2 in flight are proven first; Ctrl-C again quits at once\n"; !strings.Contains(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
		}
	})
}

// An interrupt says what becomes of the Pods in flight as --wait has it:
// with --wait=applied, they are waited on, proven or until their kubelets
// applied the change; with --wait=none, they are patched, and not proven.
func TestRolloutInterruptedAsItWaits(t *testing.T) {
	proven := func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
	for _, tc := range []struct {
		wait           string
		prove, applied func(context.Context, *v1.Pod, *v1.Pod, string) (string, error)
		want           string
	}{
		{wait: waitApplied, prove: proven, applied: proven, want: "the Pod in flight is waited on first (--wait=applied)"},
		{wait: waitNone, want: "the Pod in flight is patched first, not proven (--wait=none)"},
	} {
		t.Run(tc.wait, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(namedPods("a", "b")...)
				r, _, errOut := newRunner(c, relax)
				r.wait, r.prove, r.applied = tc.wait, tc.prove, tc.applied
				ctx, interrupt := context.WithCancel(context.Background())
				c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
					if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) == 0 {
						interrupt()
						// The interrupt is said while a is in flight.
						synctest.Wait()
					}
					return false, nil, nil
				})
				if err := r.run(ctx, &targets{pods: namedPods("a", "b")}); exitStatus(err) != exitInterrupted {
					t.Errorf("run: %v, want exit status %d", err, exitInterrupted)
				}
				if want := "interrupted: no more Pods change, and " + tc.want + "; Ctrl-C again quits at once\n"; !strings.Contains(errOut.String(), want) {
					t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
				}
			})
		})
	}
}

// With --undo-on-failure, an interrupt puts back the Pods in flight, and
// the run lists them apart. (The change makes the liveness probe stricter:
// a relaxed one is never put back, see TestUndoNeverPutsBackAStricterProbe.)
func TestRolloutInterruptedUndo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d"}
		c := newCluster(namedPods(names...)...)
		r, _, errOut := newRunner(c, setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](1)}})
		r.largest, r.undoOnFailure = 4, true
		p := newProvings(names...)
		r.prove = p.proveUntilInterrupted
		ctx, interrupt := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() { errc <- r.run(ctx, &targets{pods: namedPods(names...)}) }()
		p.inFlight()
		p.results["a"] <- nil
		if got := p.inFlight(); !slices.Equal(got, []string{"b", "c"}) {
			t.Fatalf("in flight %v, want b and c", got)
		}
		interrupt()
		if err := <-errc; exitStatus(err) != exitInterrupted {
			t.Errorf("run: %v (exit status %d), want exit status %d", err, exitStatus(err), exitInterrupted)
		}
		// The proofs that the interrupt left behind end.
		p.results["b"] <- nil
		p.results["c"] <- nil
		for name, threshold := range map[string]int32{"a": 1, "b": 3, "c": 3, "d": 3} {
			pod, err := c.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := pod.Spec.Containers[0].LivenessProbe.FailureThreshold; got != threshold {
				t.Errorf("pod/%s: liveness failureThreshold %d, want %d", name, got, threshold)
			}
		}
		want := "error: interrupted\ndone (1): pod/a\nfailed (0): none\nput back, in flight when interrupted (2): pod/b pod/c\nnot started, left as they are (1): pod/d\n" +
			"to put back the 1 Pod that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n"
		if !strings.Contains(errOut.String(), "interrupted: no more Pods change, and the 2 in flight are put back, but for probes whose old ones would restart the container sooner or keep it out of readiness more; Ctrl-C again quits at once\n") || !strings.HasSuffix(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, want)
		}
	})
}

// An interrupt during the pre-check changes no Pod.
func TestPrecheckInterrupted(t *testing.T) {
	names := []string{"a", "b", "c"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	ctx, interrupt := context.WithCancel(context.Background())
	r.prober = proberFunc(func(ctx context.Context, pod *v1.Pod, _ *v1.Container, _ *v1.Probe) tried {
		interrupt()
		return tried{notTried: ctx.Err().Error()}
	})
	if err := r.run(ctx, &targets{pods: namedPods(names...)}); exitStatus(err) != exitInterrupted {
		t.Errorf("run: %v (exit status %d), want exit status %d", err, exitStatus(err), exitInterrupted)
	}
	if _, patches := c.sent(); len(patches) > 0 {
		t.Errorf("patched %v after an interrupt in the pre-check", patches)
	}
	if got, want := errOut.String(), "error: interrupted: no Pod was changed\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// proberFunc is a prober of a function.
type proberFunc func(ctx context.Context, pod *v1.Pod, c *v1.Container, probe *v1.Probe) tried

func (f proberFunc) try(ctx context.Context, pod *v1.Pod, c *v1.Container, probe *v1.Probe) tried {
	return f(ctx, pod, c, probe)
}

// The pre-check tries at most precheckWorkers Pods at once, each an exec,
// port-forward or proxy stream through the API server, however large
// --max-in-flight is.
func TestPrecheckConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var names []string
		for i := range 30 {
			names = append(names, fmt.Sprintf("pod-%02d", i))
		}
		c := newCluster(namedPods(names...)...)
		r, _, _ := newRunner(c, moveReadiness)
		r.largest = 500
		var (
			mu        sync.Mutex
			now, most int
			release   = make(chan struct{})
		)
		r.prober = proberFunc(func(context.Context, *v1.Pod, *v1.Container, *v1.Probe) tried {
			mu.Lock()
			now++
			most = max(most, now)
			mu.Unlock()
			<-release
			mu.Lock()
			now--
			mu.Unlock()
			return tried{ok: true, answer: "answered 200 OK"}
		})
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: namedPods(names...)}) }()
		synctest.Wait()
		mu.Lock()
		inFlight := now
		mu.Unlock()
		close(release)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if inFlight != precheckWorkers || most != precheckWorkers {
			t.Errorf("%d tries at once, at most %d; want %d", inFlight, most, precheckWorkers)
		}
	})
}

// A run's exit status tells nothing changed (1) from some Pods changed,
// then the run stopped (2), and from an interrupt (3).
func TestRunExitStatus(t *testing.T) {
	failAt := func(name string) func(string, bool) error {
		return func(n string, dryRun bool) error {
			if n == name && !dryRun {
				return apierrors.NewInternalError(errors.New("etcd is gone"))
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name   string
		refuse func(string, bool) error
		// proof is the error of each proof.
		proof error
		want  int
	}{
		{name: "every Pod changed", want: 0},
		{name: "the first Pod's change fails: nothing changed", refuse: failAt("a"), want: 1},
		{name: "the second Pod's change fails, after the first changed", refuse: failAt("b"), want: 2},
		{name: "the first Pod's change is stored, then fails its proof", proof: errors.New("the new readiness probe failed"), want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"a", "b", "c"}
			c := newCluster(namedPods(names...)...)
			c.refuse = tc.refuse
			r, _, _ := newRunner(c, moveReadiness)
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", tc.proof }
			err := r.run(context.Background(), &targets{pods: namedPods(names...)})
			if got := exitStatus(err); got != tc.want {
				t.Errorf("exit status %d (%v), want %d", got, err, tc.want)
			}
		})
	}

	// Interrupted while the first Pod is proven.
	c := newCluster(namedPods("a", "b")...)
	r, _, _ := newRunner(c, moveReadiness)
	ctx, interrupt := context.WithCancel(context.Background())
	r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
		interrupt()
		return "proven", nil
	}
	if got := exitStatus(r.run(ctx, &targets{pods: namedPods("a", "b")})); got != 3 {
		t.Errorf("interrupted: exit status %d, want 3", got)
	}
}

// A patch whose answer is lost after the API server stored it (a timeout,
// a connection reset) changed the Pod: the Pod read again carries this
// run's record, so the run proves it, and goes on, as after any change.
func TestRunPatchStoredButAnswerLost(t *testing.T) {
	for _, lost := range []error{
		errors.New("read tcp 10.0.0.1:51234->10.0.0.2:6443: read: connection reset by peer"),
		apierrors.NewTimeoutError("request did not complete within the allowed duration", 0),
	} {
		t.Run(lost.Error(), func(t *testing.T) {
			names := []string{"a", "b"}
			c := newCluster(namedPods(names...)...)
			answered := false
			c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				patch := action.(k8stesting.PatchActionImpl)
				if patch.Name != "a" || len(patch.PatchOptions.DryRun) > 0 || answered {
					return false, nil, nil
				}
				answered = true
				if _, _, err := k8stesting.ObjectReaction(c.Tracker())(action); err != nil {
					return true, nil, err
				}
				return true, nil, lost
			})
			r, _, errOut := newRunner(c, relax)
			var proven []string
			r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				proven = append(proven, stored.Name)
				return "proven", nil
			}
			if err := r.run(context.Background(), &targets{pods: namedPods(names...)}); err != nil {
				t.Fatalf("run: %v (exit status %d)\n%s", err, exitStatus(err), errOut)
			}
			if !slices.Equal(proven, names) {
				t.Errorf("proven %v, want %v", proven, names)
			}
			pod, err := c.CoreV1().Pods("ns").Get(context.Background(), "a", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != 10 {
				t.Errorf("pod/a: liveness timeoutSeconds %d, want 10", got)
			}
		})
	}
}

// A put-back by --undo-on-failure whose answer is lost after the API
// server stored it put the Pod back: the Pod read again is as the put-back
// left it, with the record of its earlier run, or with none when the run
// was the first to change it, which the put-back removed. The run says
// that the Pod was undone, not that its put-back failed. When the Pod
// cannot be read again, whether the put-back was stored is unknown.
func TestRunPutBackStoredButAnswerLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		// earlier is set for Pods that an earlier run changed.
		earlier, unread bool
		want            string
	}{
		{name: "the run is the first on the Pod", want: "pod/a: undone: its probes are as they were before\n"},
		{name: "an earlier run changed the Pod", earlier: true, want: "pod/a: undone: its probes are as they were before\n"},
		{name: "the run is the first on the Pod, which cannot be read again", unread: true, want: "error: pod/a: undoing the change: whether the put-back was stored is unknown: the answer to its patch was lost ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"a", "b", "c"}
			pods := namedPods(names...)
			if tc.earlier {
				for _, pod := range pods {
					after, err := stateAt(pod, "app")
					if err != nil {
						t.Fatal(err)
					}
					record := runRecord{Version: recordVersion, Run: "20261201-090000-0001", Container: "app", Before: containerState{Probes: map[probeType]*v1.Probe{liveness: httpGet("/livez")}}, After: after}
					pod.Annotations = map[string]string{}
					if err := record.write(pod); err != nil {
						t.Fatal(err)
					}
				}
			}
			c := newCluster(pods...)
			patches := 0
			c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) > 0 {
					return false, nil, nil
				}
				if patches++; patches == 1 {
					return false, nil, nil
				}
				if _, _, err := k8stesting.ObjectReaction(c.Tracker())(action); err != nil {
					return true, nil, err
				}
				return true, nil, apierrors.NewTimeoutError("request did not complete within the allowed duration", 0)
			})
			c.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				if !tc.unread || patches < 2 {
					return false, nil, nil
				}
				return true, nil, errors.New("dial tcp 10.0.0.2:6443: connect: connection refused")
			})
			r, _, errOut := newRunner(c, moveReadiness)
			r.undoOnFailure, r.report.yes = true, true
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
				return "", errors.New("the new readiness probe failed")
			}
			err := r.run(context.Background(), &targets{pods: namedPods(names...)})
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, tc.want)
			}
			if tc.unread {
				if exitStatus(err) != exitStopped || !strings.Contains(errOut.String(), "failed (1): pod/a\n") {
					t.Errorf("err = %v (exit status %d), want exit status %d, with pod/a failed\n%s", err, exitStatus(err), exitStopped, errOut)
				}
				return
			}
			if exitStatus(err) != 1 || strings.Contains(errOut.String(), "undoing the change") || !strings.Contains(errOut.String(), "failed (1): pod/a\n") {
				t.Errorf("err = %v (exit status %d), want exit status 1, with pod/a failed and undone\n%s", err, exitStatus(err), errOut)
			}
			if strings.Contains(errOut.String(), "kubectl probe undo") {
				t.Errorf("printed an undo of a run that it undid\n%s", errOut)
			}
		})
	}
}

// A patch whose answer is lost, of a Pod that cannot be read again, may
// have been stored: the run does not say that it changed nothing. It says
// that the outcome is unknown, prints the undo of that Pod, which leaves it
// as it is when the change was not stored, stops, and exits with status 2,
// as after a change.
func TestRunPatchOutcomeUnknown(t *testing.T) {
	for _, stored := range []bool{true, false} {
		t.Run(fmt.Sprintf("stored: %v", stored), func(t *testing.T) {
			c := newCluster(namedPods("a", "b")...)
			lost := errors.New("read tcp 10.0.0.1:51234->10.0.0.2:6443: read: connection reset by peer")
			c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if patch := action.(k8stesting.PatchActionImpl); patch.Name != "a" || len(patch.PatchOptions.DryRun) > 0 {
					return false, nil, nil
				}
				if stored {
					if _, _, err := k8stesting.ObjectReaction(c.Tracker())(action); err != nil {
						return true, nil, err
					}
				}
				return true, nil, lost
			})
			c.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("dial tcp 10.0.0.2:6443: connect: connection refused")
			})
			r, _, errOut := newRunner(c, relax)
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
			err := r.run(context.Background(), &targets{pods: namedPods("a", "b")})
			if got := exitStatus(err); got != exitStopped {
				t.Errorf("exit status %d (%v), want %d\n%s", got, err, exitStopped, errOut)
			}
			undo := "kubectl probe undo deployment/web -n ns --run " + testRun
			for _, want := range []string{
				"error: pod/a: whether the change was stored is unknown: the answer to its patch was lost (" + lost.Error() + "), and the Pod cannot be read again (dial tcp 10.0.0.2:6443: connect: connection refused)\n" +
					"pod/a: to put it back, if the change was stored: kubectl probe undo pod/a -n ns --run " + testRun + " (it leaves the Pod as it is otherwise)\n",
				"failed (1): pod/a\nnot started, left as they are (1): pod/b\nto put back the Pods that this run changed, or may have (1): " + undo + "\n",
			} {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
				}
			}
		})
	}
}

// A Pod whose probes someone else changed since the pre-check is left as
// it is, and skipped: the run would otherwise overwrite that change, or
// merge its own onto a probe that the pre-check did not try. Here b's
// liveness probe is edited while a is proven, before b's batch reads it, or
// as b is patched, which then conflicts; an edit of b's labels is kept,
// with the change.
func TestRolloutSkipsPodsChangedSinceThePrecheck(t *testing.T) {
	editProbe := func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30 }
	for _, tc := range []struct {
		name string
		edit func(*v1.Pod)
		// asPatched makes the edit as b is patched, rather than while a
		// is proven.
		asPatched bool
		// timeout is b's liveness timeoutSeconds after the run, and
		// skipped what it says of b, if it skipped it.
		timeout int32
		skipped string
	}{
		{name: "its probe, before its batch", edit: editProbe, timeout: 1, skipped: `pod/b skipped: left as it is: someone else changed the probes of container "app" since the pre-check`},
		{name: "its probe, as it is patched", edit: editProbe, asPatched: true, timeout: 1, skipped: `pod/b skipped: left as it is: someone else changed the probes of container "app" since the pre-check`},
		{name: "its labels", edit: func(p *v1.Pod) { p.Labels = map[string]string{"edited": "yes"} }, timeout: 10},
		{name: "another of its probes", edit: func(p *v1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"ready"}}}}
		}, timeout: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				names := []string{"a", "b"}
				c := newCluster(namedPods(names...)...)
				requireResourceVersion(c)
				edit := func() {
					pod, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "b")
					if err != nil {
						t.Fatal(err)
					}
					b := pod.(*v1.Pod).DeepCopy()
					tc.edit(b)
					b.ResourceVersion = "9"
					if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), b, "ns"); err != nil {
						t.Fatal(err)
					}
				}
				if tc.asPatched {
					c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
						if patch := action.(k8stesting.PatchActionImpl); patch.Name == "b" && len(patch.PatchOptions.DryRun) == 0 && tc.edit != nil {
							edit()
							tc.edit = nil
						}
						return false, nil, nil
					})
				}
				r, out, errOut := newRunner(c, relax)
				p := newProvings(names...)
				r.prove = p.prove
				errc := make(chan error)
				go func() { errc <- r.run(context.Background(), &targets{pods: namedPods(names...)}) }()
				p.inFlight()
				if !tc.asPatched {
					edit()
				}
				// b's proof passes, if b is proven.
				p.results["a"] <- nil
				p.results["b"] <- nil
				if err := <-errc; err != nil {
					t.Fatalf("run: %v\n%s", err, errOut)
				}
				pod, err := c.CoreV1().Pods("ns").Get(context.Background(), "b", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != tc.timeout {
					t.Errorf("pod/b: liveness timeoutSeconds %d, want %d\n%s", got, tc.timeout, errOut)
				}
				if tc.skipped != "" && !strings.Contains(out.String(), tc.skipped+"\n") {
					t.Errorf("printed\n%s\nwant in it\n%s", out, tc.skipped)
				}
			})
		})
	}
}

// readyPods returns Pods like namedPods, Ready but for those named in
// notReady.
func readyPods(names []string, notReady ...string) []*v1.Pod {
	pods := namedPods(names...)
	for _, p := range pods {
		status := v1.ConditionTrue
		if slices.Contains(notReady, p.Name) {
			status = v1.ConditionFalse
		}
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: status}}
	}
	return pods
}

// oneWorkload makes the run keep the cluster's Pods to one floor, of the
// Pods expected, with the limit, its largest batch: at first as they are
// now, then as each census reads them.
func oneWorkload(r *runner, c *cluster, l limit, of int) {
	pods, _ := c.pods(context.Background())
	r.largest, r.floors = l.n, []floor{newFloor("", l, of, pods)}
	r.census = func(ctx context.Context, _ []floor) ([]*v1.Pod, []floor, int, error) {
		pods, err := c.pods(ctx)
		return pods, []floor{newFloor("", l, of, pods)}, l.n, err
	}
}

// Pods that are not Ready count against the limit: no batch takes the Ready
// Pods below the floor, the 6 replicas less the limit of 3. Those not Ready
// change first, as changing them takes no Pod out of readiness: here b and
// e, which stay not Ready, so that after them one Ready Pod at a time may
// go.
func TestRolloutKeepsTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e", "f"}
		pods := readyPods(names, "b", "e")
		c := newCluster(pods...)
		r, _, errOut := newRunner(c, moveLiveness)
		oneWorkload(r, c, limit{n: 3, why: "maxUnavailable 50% of deployment.apps/web's 6 replicas"}, 6)
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: pods}) }()
		p.passBatches(t, errc, errOut, []string{"b"}, []string{"a", "e"}, []string{"c"}, []string{"d"}, []string{"f"})
	})
}

// webWorkload returns the Pods a, b, c and x of deployment.apps/web, which
// asks for 4 replicas, and may have 1 out of service (maxUnavailable 25% by
// default), through its ReplicaSet web-1; all labelled app=web, and a, b and
// c pick=yes too; Ready but for those named in notReady. The owners know
// the Deployment and the ReplicaSet.
func webWorkload(t *testing.T, notReady ...string) (*owners, []*v1.Pod) {
	t.Helper()
	app := map[string]string{"app": "web"}
	selector := &metav1.LabelSelector{MatchLabels: app}
	deployment := &appsv1.Deployment{ObjectMeta: objectMeta("web", "d", app, nil, ""), Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4), Selector: selector}}
	rs := &appsv1.ReplicaSet{ObjectMeta: objectMeta("web-1", "rs-1", app, deployment, "Deployment"), Spec: appsv1.ReplicaSetSpec{Selector: selector}}
	rs.OwnerReferences[0].APIVersion = "apps/v1"
	pods := readyPods([]string{"a", "b", "c", "x"}, notReady...)
	for _, pod := range pods {
		pod.Labels = map[string]string{"app": "web"}
		if pod.Name != "x" {
			pod.Labels["pick"] = "yes"
		}
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}
	}
	o, _ := newTestOwners(t, deployment, rs)
	return o, pods
}

// Pods named or selected keep to the floor of the workload they belong to,
// as the workload named would: its replicas less its limit, counting its
// Pods that the run does not change. When no Pod may go without taking the
// Ready Pods below it, the run waits for Pods to turn Ready, for as long as
// it waits for a Pod, and then stops. Here the run changes a, b and c of
// deployment.apps/web, named or selected; the Deployment asks for 4
// replicas and allows 1 out of service, and its Pod x is not Ready: the 3
// Ready Pods are the floor.
func TestRolloutWaitsForTheFloor(t *testing.T) {
	for _, targeted := range []struct {
		name     string
		args     []string
		selector string
	}{{"named", []string{"a", "b", "c"}, ""}, {"selected", nil, "pick=yes"}} {
		for _, turnsReady := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, x turns Ready: %v", targeted.name, turnsReady), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					o, pods := webWorkload(t, "x")
					c := newCluster(pods...)
					tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", targeted.args, targeted.selector)
					if err != nil {
						t.Fatal(err)
					}
					var names []string
					for _, pod := range tg.pods {
						names = append(names, pod.Name)
					}
					if !slices.Equal(sortedCopy(names), []string{"a", "b", "c"}) {
						t.Fatalf("targets %v, want a, b and c", names)
					}
					r, _, errOut := newRunner(c, moveLiveness)
					if r.largest, err = tg.chooseLimits("", nil); err != nil {
						t.Fatal(err)
					}
					r.floors = tg.workloadFloors()
					r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
						return tg.current(ctx, c, o, "", budgets)
					}
					r.waitTimeout = time.Minute
					p := newProvings("a", "b", "c")
					r.prove = p.prove
					errc := make(chan error)
					start := time.Now()
					go func() { errc <- r.run(context.Background(), tg) }()
					synctest.Wait()
					if _, patches := c.sent(); len(patches) > 0 {
						t.Fatalf("patched %v below the floor\n%s", patches, errOut)
					}
					waiting := "batches: waiting for Pods to turn Ready before the next batch: deployment.apps/web: 3 of 4 Pods Ready, and at least 3 must stay Ready (maxUnavailable 25% of deployment.apps/web's 4 replicas)\n"
					if !turnsReady {
						err := <-errc
						if got := exitStatus(err); got != 1 {
							t.Errorf("exit status %d (%v), want 1: no Pod changed", got, err)
						}
						if waited := time.Since(start); waited != time.Minute {
							t.Errorf("stopped after %s, want after --wait-timeout, 1m", waited)
						}
						if want := waiting + "error: stopped before the next batch: deployment.apps/web: 3 of 4 Pods Ready, and at least 3 must stay Ready"; !strings.Contains(errOut.String(), want) {
							t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
						}
						if _, patches := c.sent(); len(patches) > 0 {
							t.Errorf("patched %v below the floor", patches)
						}
						return
					}
					// x turns Ready between two reads of the Pods, every
					// floorPoll: the next one takes a.
					time.Sleep(9 * time.Second)
					x, err := c.CoreV1().Pods("ns").Get(context.Background(), "x", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					x.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
					if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), x, metav1.UpdateOptions{}); err != nil {
						t.Fatal(err)
					}
					time.Sleep(floorPoll)
					for _, batch := range [][]string{{"a"}, {"b"}, {"c"}} {
						if got := p.inFlight(); !slices.Equal(got, batch) {
							t.Fatalf("in flight %v, want the batch %v", got, batch)
						}
						p.results[batch[0]] <- nil
					}
					if err := <-errc; err != nil {
						t.Fatalf("run: %v\n%s", err, errOut)
					}
					if strings.Count(errOut.String(), waiting) != 1 {
						t.Errorf("printed\n%s\nwant once in it\n%s", errOut, waiting)
					}
				})
			})
		}
	}
}

// A PodDisruptionBudget's floor counts every Pod that it selects, read
// again before each batch, not only the run's or their workload's. Here the
// budget web allows 1 of the 5 Pods labelled app=web unavailable:
// deployment.apps/web's 4, all Ready, and y, another Pod, not Ready. The
// Deployment alone would let a or b go; the budget lets none go until y
// turns Ready.
func TestRolloutKeepsToBudgets(t *testing.T) {
	for _, turnsReady := range []bool{true, false} {
		t.Run(fmt.Sprintf("y turns Ready: %v", turnsReady), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o, pods := webWorkload(t)
				y := readyPods([]string{"y"}, "y")[0]
				y.Labels = map[string]string{"app": "web"}
				pdb := &policyv1.PodDisruptionBudget{
					ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
					Spec: policyv1.PodDisruptionBudgetSpec{
						Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
						MaxUnavailable: ptr.To(intstr.FromInt32(1)),
					},
					Status: policyv1.PodDisruptionBudgetStatus{ExpectedPods: 5},
				}
				c := newCluster(append(pods, y)...)
				if _, err := c.PolicyV1().PodDisruptionBudgets("ns").Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				var out, errOut bytes.Buffer
				opts := newChangeOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "probes set", true)
				opts.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: o}
				opts.args, opts.wait, opts.waitTimeout, opts.skipCheck = []string{"a", "b"}, waitNone, time.Minute, true
				opts.report = newTestReporter(&out, &errOut, "", "probes set")
				opts.cmdline = &commandLine{targets: opts.args, connection: []string{"-n", "ns"}}
				errc := make(chan error)
				start := time.Now()
				go func() { errc <- opts.run(context.Background(), moveLiveness) }()
				synctest.Wait()
				if _, patches := c.sent(); len(patches) > 0 {
					t.Fatalf("patched %v below the budget's floor\n%s", patches, &errOut)
				}
				waiting := "batches: waiting for Pods to turn Ready before the next batch: 4 of 5 Pods Ready, and at least 4 must stay Ready (poddisruptionbudget.policy/web: maxUnavailable 1 of 5 Pods)\n"
				if !turnsReady {
					err := <-errc
					if got := exitStatus(err); got != 1 || time.Since(start) != time.Minute {
						t.Errorf("exit status %d (%v) after %s, want 1 after --wait-timeout, 1m", got, err, time.Since(start))
					}
					if !strings.Contains(errOut.String(), waiting) {
						t.Errorf("printed\n%s\nwant in it\n%s", &errOut, waiting)
					}
					return
				}
				time.Sleep(9 * time.Second)
				y.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
				if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), y, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				if err := <-errc; err != nil {
					t.Fatalf("run: %v\n%s", err, &errOut)
				}
				if _, patches := c.sent(); !slices.Equal(patches, []string{"a", "b"}) {
					t.Errorf("patched %v, want a and b", patches)
				}
				if strings.Count(errOut.String(), waiting) != 1 {
					t.Errorf("printed\n%s\nwant once in it\n%s", &errOut, waiting)
				}
			})
		})
	}
}

// deploymentOf returns deployment.apps/NAME, which asks for replicas and
// may have maxUnavailable of them out of service, its ReplicaSet NAME-1,
// and its Pods NAME-SUFFIX, labelled app=NAME, Ready but for those whose
// suffix is in notReady.
func deploymentOf(name string, replicas int32, maxUnavailable intstr.IntOrString, suffixes []string, notReady ...string) (*appsv1.Deployment, *appsv1.ReplicaSet, []*v1.Pod) {
	app := map[string]string{"app": name}
	selector := &metav1.LabelSelector{MatchLabels: app}
	deployment := &appsv1.Deployment{ObjectMeta: objectMeta(name, "d-"+name, app, nil, ""), Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Selector: selector, Strategy: appsv1.DeploymentStrategy{
		Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &maxUnavailable}}}}
	rs := &appsv1.ReplicaSet{ObjectMeta: objectMeta(name+"-1", "rs-"+name, app, deployment, "Deployment"), Spec: appsv1.ReplicaSetSpec{Selector: selector}}
	rs.OwnerReferences[0].APIVersion = "apps/v1"
	var names, notReadyNames []string
	for _, s := range suffixes {
		names = append(names, name+"-"+s)
		if slices.Contains(notReady, s) {
			notReadyNames = append(notReadyNames, name+"-"+s)
		}
	}
	pods := readyPods(names, notReadyNames...)
	for _, pod := range pods {
		// The Deployment's ReplicaSet labels its Pods with its revision.
		pod.Labels = map[string]string{"app": name, appsv1.DefaultDeploymentUniqueLabelKey: "1"}
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}
	}
	return deployment, rs, pods
}

// runOptions returns the options of a run of set on the cluster, whose
// workloads o knows, with --wait=none and --skip-check, and what it prints.
func runOptions(c *cluster, o *owners) (*changeOptions, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	opts := newChangeOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "probes set", true)
	opts.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: o}
	opts.wait, opts.waitTimeout, opts.skipCheck = waitNone, time.Minute, true
	opts.report = newTestReporter(&out, &errOut, "", "probes set")
	opts.cmdline = &commandLine{connection: []string{"-n", "ns"}}
	return opts, &errOut
}

// Each workload of a run keeps its own floor, and its own limit: a Pod of
// one that is not Ready holds back that workload's Pods, not another's.
// Here -l pick=yes selects api-a of deployment.apps/api, whose 2 replicas
// may have 1 out of readiness, and whose api-b is not Ready; and the 4 Pods
// of deployment.apps/web, which may have 2 out. web's Pods change, 2 at a
// time; api-a waits for api-b to turn Ready, for --wait-timeout, and the
// run then stops.
func TestRunKeepsEachWorkloadsFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api, apiRS, apiPods := deploymentOf("api", 2, intstr.FromString("25%"), []string{"a", "b"}, "b")
		web, webRS, webPods := deploymentOf("web", 4, intstr.FromInt32(2), []string{"a", "b", "c", "d"})
		pods := append(apiPods, webPods...)
		for _, pod := range pods {
			if pod.Name != "api-b" {
				pod.Labels["pick"] = "yes"
			}
		}
		o, _ := newTestOwners(t, api, apiRS, web, webRS)
		c := newCluster(pods...)
		opts, errOut := runOptions(c, o)
		opts.selector = "pick=yes"
		start := time.Now()
		err := opts.run(context.Background(), moveLiveness)
		if got := exitStatus(err); got != exitStopped || time.Since(start) != time.Minute {
			t.Errorf("exit status %d (%v) after %s, want %d after --wait-timeout, 1m\n%s", got, err, time.Since(start), exitStopped, errOut)
		}
		if _, patches := c.sent(); !slices.Equal(sortedCopy(patches), []string{"web-a", "web-b", "web-c", "web-d"}) {
			t.Errorf("patched %v, want web's Pods\n%s", patches, errOut)
		}
		api1 := "maxUnavailable 25% of deployment.apps/api's 2 replicas is 0, but a probe change cannot surge"
		for _, want := range []string{
			"batches: the first Pod alone, then of each workload at most its limit at a time, and out of readiness:\n" +
				"- deployment.apps/api: 1: " + api1 + "; not Ready now: 1 of the 2 Pods that it counts, which count against it; the run's own change first\n" +
				"- deployment.apps/web: 2: maxUnavailable 2 of deployment.apps/web's 4 replicas\n",
			"batches: waiting for Pods to turn Ready before the next batch: deployment.apps/api: 1 of 2 Pods Ready, and at least 1 must stay Ready (" + api1 + ")\n",
		} {
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
		}
	})
}

// A workload that a custom resource controls keeps its own limit, which
// the custom resource's, unknown to kubectl probe, does not replace: here
// an Argo-like Rollout controls deployment.apps/web, whose 4 replicas may
// have 1 out of readiness, and whose web-d is not Ready. The run counts
// web's Pods under the Rollout, the top workload, whose limit is not
// known (one Pod at a time, with a warning), and keeps to the
// Deployment's floor too: web-d changes, and the Ready Pods wait for it,
// for --wait-timeout, and the run then stops.
func TestRunKeepsTheLimitOfAWorkloadUnderACustomResource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deployment, rs, pods := deploymentOf("web", 4, intstr.FromInt32(1), []string{"a", "b", "c", "d"}, "d")
		rollout := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(4)}}}
		rollout.SetGroupVersionKind(rolloutKind)
		rollout.SetName("app")
		rollout.SetNamespace("ns")
		rollout.SetUID("ro-app")
		deployment.OwnerReferences = []metav1.OwnerReference{{APIVersion: rolloutKind.GroupVersion().String(), Kind: "Rollout", Name: "app", UID: "ro-app", Controller: ptr.To(true)}}
		o, _ := newTestOwners(t, rollout, deployment, rs)
		c := newCluster(pods...)
		opts, errOut := runOptions(c, o)
		opts.selector = "app=web"
		start := time.Now()
		err := opts.run(context.Background(), moveLiveness)
		if got := exitStatus(err); got != exitStopped || time.Since(start) != time.Minute {
			t.Errorf("exit status %d (%v) after %s, want %d after --wait-timeout, 1m\n%s", got, err, time.Since(start), exitStopped, errOut)
		}
		if _, patches := c.sent(); !slices.Equal(patches, []string{"web-d"}) {
			t.Errorf("patched %v, want web-d alone, which is not Ready\n%s", patches, errOut)
		}
		web := "maxUnavailable 1 of deployment.apps/web's 4 replicas"
		for _, want := range []string{
			`target: 4 Pods of rollout.argoproj.io/app in namespace "ns"` + "\n",
			"warning: rollout.argoproj.io/app: its kind is not built in; its limit is not known, so its Pods change one at a time, unless --max-in-flight says how many may\n",
			"batches: one Pod at a time, and of each workload at most its limit out of readiness:\n" +
				"- rollout.argoproj.io/app: 1: its limit is not known (its kind is not built in), so one Pod at a time; not Ready now: 1 of the 4 Pods that it counts, which count against it; the run's own change first\n" +
				"- deployment.apps/web of rollout.argoproj.io/app: 1: " + web + "; not Ready now: 1 of the 4 Pods that it counts, which count against it; the run's own change first\n",
			"rollout.argoproj.io/app: 3 of 4 Pods Ready, and at least 3 must stay Ready (its limit is not known (its kind is not built in), so one Pod at a time)",
		} {
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
		}
	})
}

// A Pod that the run counts by name, of no workload or of one whose Pods
// cannot be read, that is deleted during the run leaves the floor: it is
// not there to be Ready, and holds no Pod back. Here a, b and c change one
// at a time (--max-in-flight=1, or the limit of a workload not known), and
// c is deleted as a is changed: b goes next, and the run ends.
func TestRunPodDeletedLeavesItsFloor(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup returns the owners, the Pods and how the run names them.
		setup func(t *testing.T) (*owners, []*v1.Pod, func(opts *changeOptions))
	}{{
		name: "Pods of no workload, named",
		setup: func(t *testing.T) (*owners, []*v1.Pod, func(opts *changeOptions)) {
			o, _ := newTestOwners(t)
			return o, readyPods([]string{"a", "b", "c"}), func(opts *changeOptions) {
				opts.args, opts.maxInFlight = []string{"a", "b", "c"}, "1"
				opts.cmdline.targets = opts.args
			}
		},
	}, {
		name: "Pods of a Deployment that cannot be read",
		setup: func(t *testing.T) (*owners, []*v1.Pod, func(opts *changeOptions)) {
			deployment, rs, pods := deploymentOf("web", 3, intstr.FromInt32(3), []string{"a", "b", "c"})
			for _, pod := range pods {
				pod.Name = strings.TrimPrefix(pod.Name, "web-")
			}
			o, _ := newTestOwners(t, deployment, rs)
			o.dynamic.(*dynamicfake.FakeDynamicClient).PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("not yours"))
			})
			return o, pods, func(opts *changeOptions) { opts.selector = "app=web" }
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o, pods, name := tc.setup(t)
				c := newCluster(pods...)
				c.refuse = func(name string, dryRun bool) error {
					if name == "a" && !dryRun {
						return c.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "c")
					}
					return nil
				}
				opts, errOut := runOptions(c, o)
				name(opts)
				if err := opts.run(context.Background(), moveLiveness); err != nil {
					t.Errorf("run: %v (exit status %d)\n%s", err, exitStatus(err), errOut)
				}
				if _, patches := c.sent(); !slices.Contains(patches, "a") || !slices.Contains(patches, "b") {
					t.Errorf("patched %v, want a and b\n%s", patches, errOut)
				}
			})
		})
	}
}

// Each workload of a run grows its batches on its own: its canary, then
// twice as many Pods with each batch that it is in, up to its limit,
// whatever another workload's Pods did before. Here api's 3 Pods and web's
// 8, all of which may be out of readiness at once: web's canary goes with
// api's second batch, and web's Pods then go 2, 4 and the last one at a
// time, not all 7 at once. A batch has at most maxBatch Pods of all the
// workloads together: with 3, web's batch of 4 is 3.
func TestRolloutBatchesGrowForEachWorkload(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxBatch int
		batches  [][]string
	}{{
		name: "no limit of the run",
		batches: [][]string{
			{"api-a"},
			{"api-b", "api-c", "web-a"},
			{"web-b", "web-c"},
			{"web-d", "web-e", "web-f", "web-g"},
			{"web-h"},
		},
	}, {
		name:     "at most 3 Pods a batch",
		maxBatch: 3,
		batches: [][]string{
			{"api-a"},
			{"api-b", "api-c", "web-a"},
			{"web-b", "web-c"},
			{"web-d", "web-e", "web-f"},
			{"web-g", "web-h"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				api, apiRS, apiPods := deploymentOf("api", 3, intstr.FromInt32(3), []string{"a", "b", "c"})
				web, webRS, webPods := deploymentOf("web", 8, intstr.FromInt32(8), []string{"a", "b", "c", "d", "e", "f", "g", "h"})
				o, _ := newTestOwners(t, api, apiRS, web, webRS)
				pods := append(apiPods, webPods...)
				c := newCluster(pods...)
				tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", []string{"api-a", "api-b", "api-c", "web-a", "web-b", "web-c", "web-d", "web-e", "web-f", "web-g", "web-h"}, "")
				if err != nil {
					t.Fatal(err)
				}
				r, _, errOut := newRunner(c, moveLiveness)
				if r.largest, err = tg.chooseLimits("", nil); err != nil {
					t.Fatal(err)
				}
				r.floors, r.maxBatch = tg.workloadFloors(), tc.maxBatch
				r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
					return tg.current(ctx, c, o, "", budgets)
				}
				var names []string
				for _, pod := range pods {
					names = append(names, pod.Name)
				}
				p := newProvings(names...)
				r.prove = p.prove
				errc := make(chan error)
				go func() { errc <- r.run(context.Background(), tg) }()
				p.passBatches(t, errc, errOut, tc.batches...)
			})
		})
	}
}

// A change that only relaxes liveness probes passes the floors, but keeps
// to each workload's limit as the most of its Pods in a batch: here api's 4
// Pods, of which 1 may be out of readiness, go one at a time beside web's,
// whose limit, 4, is the run's largest.
func TestRolloutRelaxationKeepsToEachWorkloadsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api, apiRS, apiPods := deploymentOf("api", 4, intstr.FromInt32(1), []string{"a", "b", "c", "d"})
		web, webRS, webPods := deploymentOf("web", 8, intstr.FromInt32(4), []string{"a", "b", "c", "d", "e", "f", "g", "h"})
		o, _ := newTestOwners(t, api, apiRS, web, webRS)
		pods := append(apiPods, webPods...)
		c := newCluster(pods...)
		var names []string
		for _, pod := range pods {
			names = append(names, pod.Name)
		}
		tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", names, "")
		if err != nil {
			t.Fatal(err)
		}
		r, _, errOut := newRunner(c, relax)
		if r.largest, err = tg.chooseLimits("", nil); err != nil {
			t.Fatal(err)
		}
		r.floors = tg.workloadFloors()
		r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
			return tg.current(ctx, c, o, "", budgets)
		}
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), tg) }()
		p.passBatches(t, errc, errOut,
			[]string{"api-a"},
			[]string{"api-b", "web-a"},
			[]string{"api-c", "web-b", "web-c"},
			[]string{"api-d", "web-d", "web-e", "web-f", "web-g"},
			[]string{"web-h"})
	})
}

// The batches of a run over the Pods of two workloads keep each one's
// floor: here web's Pods change, 2 at a time, its limit, while api-a waits
// for api-b to turn Ready (see TestRunKeepsEachWorkloadsFloor).
func TestRolloutKeepsEachWorkloadsFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api, apiRS, apiPods := deploymentOf("api", 2, intstr.FromString("25%"), []string{"a", "b"}, "b")
		web, webRS, webPods := deploymentOf("web", 4, intstr.FromInt32(2), []string{"a", "b", "c", "d"})
		o, _ := newTestOwners(t, api, apiRS, web, webRS)
		c := newCluster(append(apiPods, webPods...)...)
		tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", []string{"api-a", "web-a", "web-b", "web-c", "web-d"}, "")
		if err != nil {
			t.Fatal(err)
		}
		r, _, errOut := newRunner(c, moveLiveness)
		if r.largest, err = tg.chooseLimits("", nil); err != nil {
			t.Fatal(err)
		}
		r.floors = tg.workloadFloors()
		r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
			return tg.current(ctx, c, o, "", budgets)
		}
		p := newProvings("api-a", "web-a", "web-b", "web-c", "web-d")
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), tg) }()
		for _, batch := range [][]string{{"web-a"}, {"web-b", "web-c"}, {"web-d"}} {
			if got := p.inFlight(); !slices.Equal(got, batch) {
				t.Fatalf("in flight %v, want the batch %v\n%s", got, batch, errOut)
			}
			for _, n := range batch {
				p.results[n] <- nil
			}
		}
		if got := p.inFlight(); len(got) > 0 {
			t.Fatalf("in flight %v while api-b is not Ready\n%s", got, errOut)
		}
		b, err := c.CoreV1().Pods("ns").Get(context.Background(), "api-b", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
		if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), b, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(floorPoll)
		p.passBatches(t, errc, errOut, []string{"api-a"})
	})
}

// scaleTo sets the replicas of deployment.apps/NAME, as the owners read
// it, as an autoscaler does.
func scaleTo(ctx context.Context, o *owners, name string, replicas int64) error {
	deployments := o.dynamic.Resource(appsv1.SchemeGroupVersion.WithResource("deployments")).Namespace("ns")
	d, err := deployments.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if err := unstructured.SetNestedField(d.Object, replicas, "spec", "replicas"); err != nil {
		return err
	}
	_, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
	return err
}

// A workload's floor follows the workload as the census reads it again
// before each batch: its replicas, and its limit, as they are now, not as
// the run began. Here an autoscaler scales deployment.apps/web from 8
// replicas, of which 2 may be out of readiness, to 4, of which 1 may,
// while the canary web-a is proven, and web-d is not Ready: the run waits
// for web-d, with 3 of the 4 Pods Ready, and takes web-b once it is
// Ready, rather than wait for 6 Ready Pods of 4, and stop after
// --wait-timeout.
func TestRolloutFollowsAWorkloadScaledDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deployment, rs, pods := deploymentOf("web", 8, intstr.FromString("25%"), []string{"a", "b", "c", "d", "e", "f", "g", "h"})
		o, _ := newTestOwners(t, deployment, rs)
		c := newCluster(pods...)
		tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", []string{"web-a", "web-b", "web-c"}, "")
		if err != nil {
			t.Fatal(err)
		}
		r, _, errOut := newRunner(c, moveLiveness)
		if r.largest, err = tg.chooseLimits("", nil); err != nil {
			t.Fatal(err)
		}
		r.floors = tg.workloadFloors()
		r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
			return tg.current(ctx, c, o, "", budgets)
		}
		r.waitTimeout = time.Minute
		p := newProvings("web-a", "web-b", "web-c")
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), tg) }()
		if got := p.inFlight(); !slices.Equal(got, []string{"web-a"}) {
			t.Fatalf("in flight %v, want the canary web-a\n%s", got, errOut)
		}
		setReady := func(name string, ready v1.ConditionStatus) {
			pod, err := c.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: ready}}
			if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := scaleTo(context.Background(), o, "web", 4); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"web-e", "web-f", "web-g", "web-h"} {
			if err := c.CoreV1().Pods("ns").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		setReady("web-d", v1.ConditionFalse)
		p.results["web-a"] <- nil
		if got := p.inFlight(); len(got) > 0 {
			t.Fatalf("in flight %v while web-d is not Ready\n%s", got, errOut)
		}
		waiting := "batches: waiting for Pods to turn Ready before the next batch: deployment.apps/web: 3 of 4 Pods Ready, and at least 3 must stay Ready (maxUnavailable 25% of deployment.apps/web's 4 replicas)\n"
		if !strings.Contains(errOut.String(), waiting) {
			t.Errorf("printed\n%s\nwant in it\n%s", errOut, waiting)
		}
		setReady("web-d", v1.ConditionTrue)
		time.Sleep(floorPoll)
		p.passBatches(t, errc, errOut, []string{"web-b"}, []string{"web-c"})
	})
}

// A workload scaled up mid-run keeps to its limit as it is now. Here
// deployment.apps/web asks for 4 replicas, of which 1 may be out of
// readiness, and the change keeps each Pod that it changes out of
// readiness; as web-a changes, an autoscaler scales web to 8 replicas, of
// which 2 may be. With --wait=none, the run changes web-a and web-b, then
// waits for them to turn Ready, for --wait-timeout, and stops: the floor
// of 4 replicas, 3 Ready Pods, would have let it take all 4 of its Pods
// out. The batches line still says the limit as the run began.
func TestRunFollowsAWorkloadScaledUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deployment, rs, pods := deploymentOf("web", 4, intstr.FromString("25%"), []string{"a", "b", "c", "d"})
		_, _, added := deploymentOf("web", 8, intstr.FromString("25%"), []string{"e", "f", "g", "h"})
		o, _ := newTestOwners(t, deployment, rs)
		c := newCluster(pods...)
		podsResource := v1.SchemeGroupVersion.WithResource("pods")
		scaled := false
		c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
			patch := action.(k8stesting.PatchActionImpl)
			if len(patch.PatchOptions.DryRun) > 0 {
				return false, nil, nil
			}
			obj, err := c.Tracker().Get(podsResource, "ns", patch.Name)
			if err != nil {
				return true, nil, err
			}
			pod := obj.(*v1.Pod).DeepCopy()
			pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionFalse}}
			if err := c.Tracker().Update(podsResource, pod, "ns"); err != nil {
				return true, nil, err
			}
			if !scaled {
				scaled = true
				if err := scaleTo(context.Background(), o, "web", 8); err != nil {
					return true, nil, err
				}
				for _, pod := range added {
					if err := c.Tracker().Add(pod); err != nil {
						return true, nil, err
					}
				}
			}
			return false, nil, nil
		})
		opts, errOut := runOptions(c, o)
		opts.args = []string{"web-a", "web-b", "web-c", "web-d"}
		start := time.Now()
		err := opts.run(context.Background(), moveReadiness)
		if got := exitStatus(err); got != exitStopped || time.Since(start) != time.Minute {
			t.Errorf("exit status %d (%v) after %s, want %d after --wait-timeout, 1m\n%s", got, err, time.Since(start), exitStopped, errOut)
		}
		if _, patches := c.sent(); !slices.Equal(patches, []string{"web-a", "web-b"}) {
			t.Errorf("patched %v, want web-a and web-b: 2 of the 8 replicas out of readiness\n%s", patches, errOut)
		}
		for _, want := range []string{
			"batches: one Pod at a time: maxUnavailable 25% of deployment.apps/web's 4 replicas\n",
			"batches: waiting for Pods to turn Ready before the next batch: deployment.apps/web: 6 of 8 Pods Ready, and at least 6 must stay Ready (maxUnavailable 25% of deployment.apps/web's 8 replicas)\n",
		} {
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
		}
	})
}

// A workload's share of a batch keeps to its limit as last read, which an
// autoscaler may lower after the share grew: here deployment.apps/web's 8
// replicas may have 2 out of readiness, and its share grows to 2, then 4;
// while b and c are proven, it is scaled to 6, of which 1 may be, and its
// Pods then go one at a time, though the relaxation passes the floors.
func TestRolloutRelaxationFollowsAWorkloadScaledDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deployment, rs, pods := deploymentOf("web", 8, intstr.FromString("25%"), []string{"a", "b", "c", "d", "e", "f", "g", "h"})
		o, _ := newTestOwners(t, deployment, rs)
		c := newCluster(pods...)
		names := []string{"web-a", "web-b", "web-c", "web-d", "web-e", "web-f"}
		tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", names, "")
		if err != nil {
			t.Fatal(err)
		}
		r, _, errOut := newRunner(c, relax)
		if r.largest, err = tg.chooseLimits("", nil); err != nil {
			t.Fatal(err)
		}
		r.floors = tg.workloadFloors()
		r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
			return tg.current(ctx, c, o, "", budgets)
		}
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), tg) }()
		for _, batch := range [][]string{{"web-a"}, {"web-b", "web-c"}} {
			if got := p.inFlight(); !slices.Equal(got, batch) {
				t.Fatalf("in flight %v, want the batch %v\n%s", got, batch, errOut)
			}
			if batch[0] == "web-b" {
				if err := scaleTo(context.Background(), o, "web", 6); err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{"web-g", "web-h"} {
					if err := c.CoreV1().Pods("ns").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, n := range batch {
				p.results[n] <- nil
			}
		}
		p.passBatches(t, errc, errOut, []string{"web-d"}, []string{"web-e"}, []string{"web-f"})
	})
}

// A workload named with another that it controls, a Deployment with its
// ReplicaSet, counts its Pods once, under the Deployment: its 4 replicas,
// of which 1 may be out of readiness, not 8.
func TestRunCountsNestedWorkloadsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deployment, rs, pods := deploymentOf("web", 4, intstr.FromString("25%"), []string{"a", "b", "c", "d"})
		o, _ := newTestOwners(t, deployment, rs)
		c := newCluster(pods...)
		for _, obj := range []runtime.Object{deployment, rs} {
			if err := c.Tracker().Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		opts, errOut := runOptions(c, o)
		opts.args = []string{"deployment/web", "replicaset/web-1"}
		if err := opts.run(context.Background(), relax); err != nil {
			t.Fatalf("run: %v (exit status %d)\n%s", err, exitStatus(err), errOut)
		}
		if _, patches := c.sent(); !slices.Equal(patches, []string{"web-a", "web-b", "web-c", "web-d"}) {
			t.Errorf("patched %v, want every Pod\n%s", patches, errOut)
		}
		if want := "batches: one Pod at a time: maxUnavailable 25% of deployment.apps/web's 4 replicas\n"; !strings.Contains(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
		}
	})
}

// A workload named that another one controls, a Deployment's ReplicaSet,
// counts under that one, as a Pod of it named does: its Pods keep to the
// Deployment's limit, 3 of its 12 replicas out of readiness at once, not
// to the default of 10 of a ReplicaSet's own.
func TestRunCountsANamedWorkloadUnderItsTop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		suffixes := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
		deployment, rs, pods := deploymentOf("web", 12, intstr.FromString("25%"), suffixes)
		o, _ := newTestOwners(t, deployment, rs)
		c := newCluster(pods...)
		for _, obj := range []runtime.Object{deployment, rs} {
			if err := c.Tracker().Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		opts, errOut := runOptions(c, o)
		opts.args = []string{"replicaset/web-1"}
		if err := opts.run(context.Background(), relax); err != nil {
			t.Fatalf("run: %v (exit status %d)\n%s", err, exitStatus(err), errOut)
		}
		if want := "batches: the first Pod alone, then up to 3 at a time: maxUnavailable 25% of deployment.apps/web's 12 replicas\n"; !strings.Contains(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
		}
	})
}

// With --wait=applied, the first Pod is proven, and each Pod after it is
// waited on only until its kubelet applied the change.
func TestRolloutWaitApplied(t *testing.T) {
	names := []string{"a", "b", "c"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	r.largest = 2
	var (
		mu             sync.Mutex
		proven, waited []string
	)
	r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		proven = append(proven, stored.Name)
		return "proven", nil
	}
	r.applied = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		waited = append(waited, stored.Name)
		return "applied", nil
	}
	if err := r.run(context.Background(), inWorkload(namedPods(names...))); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	if !slices.Equal(proven, []string{"a"}) || !slices.Equal(sortedCopy(waited), []string{"b", "c"}) {
		t.Errorf("proven %v, waited on until applied %v; want a proven, b and c applied", proven, waited)
	}
}

// With --wait=applied, the Pods are proven until one is: a first Pod that
// was deleted during its proof, or that no kubelet runs yet, proves
// nothing of the change, and the next one goes alone too, and is proven.
func TestRolloutWaitAppliedProvesUntilOneIs(t *testing.T) {
	for _, first := range []struct {
		name  string
		proof func() (string, error)
	}{
		{"deleted", func() (string, error) { return "", &podGoneError{reason: "deleted"} }},
		{"not on a node", func() (string, error) { return notOnANode, nil }},
	} {
		t.Run(first.name, func(t *testing.T) {
			names := []string{"a", "b", "c", "d", "e"}
			c := newCluster(namedPods(names...)...)
			r, _, errOut := newRunner(c, relax)
			r.largest = 2
			var (
				mu             sync.Mutex
				proven, waited []string
			)
			r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				proven = append(proven, stored.Name)
				if stored.Name == "a" {
					return first.proof()
				}
				return "proven", nil
			}
			r.applied = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				waited = append(waited, stored.Name)
				return "applied", nil
			}
			if err := r.run(context.Background(), inWorkload(namedPods(names...))); err != nil {
				t.Fatalf("run: %v\n%s", err, errOut)
			}
			if !slices.Equal(sortedCopy(proven), []string{"a", "b"}) || !slices.Equal(sortedCopy(waited), []string{"c", "d", "e"}) {
				t.Errorf("proven %v, waited on until applied %v; want a and b proven, c, d and e applied", proven, waited)
			}
		})
	}
}

// inWorkload returns the targets of the Pods, all of one workload, and,
// but for those that have a controller already, of one template: each is
// given the controller replicaset.apps/web-1.
func inWorkload(pods []*v1.Pod) *targets {
	for _, pod := range pods {
		if metav1.GetControllerOf(pod) == nil {
			pod.OwnerReferences = append(pod.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs-web-1", Controller: ptr.To(true)})
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "1"
		}
	}
	return &targets{pods: pods, floors: []*workloadFloor{{floor: newFloor("deployment.apps/web", limit{n: 10}, len(pods), pods)}}}
}

// With --wait=applied, a proof says something only of the Pods made from
// the same template as its Pod, which the Pods of one workload do not all
// share mid-rollout: a Deployment's two ReplicaSets, a StatefulSet's or a
// DaemonSet's two revisions (under a partition, or OnDelete). Of each
// template, the Pods are proven until one is; the batches still grow for
// the workload as a whole. Here a and b are of the old template, c, d and
// e of the new one.
func TestRolloutWaitAppliedProvesEachTemplate(t *testing.T) {
	for _, tc := range []struct {
		name string
		// of makes a Pod of the old template or of the new one.
		of func(pod *v1.Pod, new bool)
		// proven and waited are the Pods proven, and waited on only until
		// applied; by default a and c, and b, d and e: the batches are a,
		// the workload's canary; b and c; d and e.
		proven, waited []string
	}{{
		name: "a Deployment's two ReplicaSets",
		of: func(pod *v1.Pod, new bool) {
			rs := map[bool]string{false: "web-1", true: "web-2"}[new]
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: types.UID("rs-" + rs), Controller: ptr.To(true)}}
			pod.Labels = map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: strings.TrimPrefix(rs, "web-")}
		},
	}, {
		name: "a StatefulSet's two revisions",
		of: func(pod *v1.Pod, new bool) {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "ss-web", Controller: ptr.To(true)}}
			pod.Labels = map[string]string{appsv1.ControllerRevisionHashLabelKey: map[bool]string{false: "web-7f9c5d8b6", true: "web-5d4b8f7c9"}[new]}
		},
	}, {
		name: "a DaemonSet's two revisions",
		of: func(pod *v1.Pod, new bool) {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "web", UID: "ds-web", Controller: ptr.To(true)}}
			pod.Labels = map[string]string{appsv1.ControllerRevisionHashLabelKey: map[bool]string{false: "7f9c5d8b6", true: "5d4b8f7c9"}[new]}
		},
	}, {
		name: "a StatefulSet's Pods without their revision, whose templates are not known",
		of: func(pod *v1.Pod, _ bool) {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "ss-web", Controller: ptr.To(true)}}
		},
		proven: []string{"a", "b", "c", "d", "e"},
	}, {
		name: "a ReplicaSet's template changed in place",
		of: func(pod *v1.Pod, new bool) {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-web", Controller: ptr.To(true)}}
			pod.Labels = map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: map[bool]string{false: "7f9c5d8b6", true: "5d4b8f7c9"}[new]}
		},
	}, {
		name: "an Argo Rollout's two ReplicaSets",
		of: func(pod *v1.Pod, new bool) {
			rs := map[bool]string{false: "api-1", true: "api-2"}[new]
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: types.UID("rs-" + rs), Controller: ptr.To(true)}}
			pod.Labels = map[string]string{rolloutUniqueLabelKey: strings.TrimPrefix(rs, "api-")}
		},
	}, {
		name: "a ReplicaSet's Pods without pod-template-hash, whose template may have changed in place",
		of: func(pod *v1.Pod, _ bool) {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-web", Controller: ptr.To(true)}}
		},
		proven: []string{"a", "b", "c", "d", "e"},
	}, {
		name: "a custom controller's Pods, whose templates are not known",
		of: func(pod *v1.Pod, _ bool) {
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Name: "pg", UID: "cluster-pg", Controller: ptr.To(true)}}
		},
		proven: []string{"a", "b", "c", "d", "e"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"a", "b", "c", "d", "e"}
			pods := namedPods(names...)
			for i, pod := range pods {
				tc.of(pod, i >= 2)
			}
			c := newCluster(pods...)
			r, _, errOut := newRunner(c, relax)
			r.largest = 2
			var (
				mu             sync.Mutex
				proven, waited []string
			)
			r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				proven = append(proven, stored.Name)
				return "proven", nil
			}
			r.applied = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				waited = append(waited, stored.Name)
				return "applied", nil
			}
			if err := r.run(context.Background(), inWorkload(pods)); err != nil {
				t.Fatalf("run: %v\n%s", err, errOut)
			}
			wantProven, wantWaited := []string{"a", "c"}, []string{"b", "d", "e"}
			if tc.proven != nil {
				wantProven, wantWaited = tc.proven, tc.waited
			}
			if !slices.Equal(sortedCopy(proven), wantProven) || !slices.Equal(sortedCopy(waited), wantWaited) {
				t.Errorf("proven %v, waited on until applied %v; want %v proven, %v applied", proven, waited, wantProven, wantWaited)
			}
		})
	}
}

// With --wait=applied, each Pod of no workload is proven: it shares no
// template with another, whose proof would say something of it.
func TestRolloutWaitAppliedProvesPodsOfNoWorkload(t *testing.T) {
	names := []string{"a", "b", "c"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	r.largest = 2
	var (
		mu             sync.Mutex
		proven, waited []string
	)
	r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		proven = append(proven, stored.Name)
		return "proven", nil
	}
	r.applied = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		waited = append(waited, stored.Name)
		return "applied", nil
	}
	if err := r.run(context.Background(), &targets{pods: namedPods(names...)}); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	if !slices.Equal(sortedCopy(proven), names) || len(waited) > 0 {
		t.Errorf("proven %v, waited on until applied %v; want every Pod proven", proven, waited)
	}
}

// With --wait=applied, the Pods are proven until the proof of one tests a
// new probe: a startup probe added to a started container runs only when
// it restarts, so the first Pod's proves nothing of it, and the next
// batch's, crash-looping, which run it at their next start, are proven,
// and the Pods after them only waited on until applied.
func TestRolloutWaitAppliedCanaryTestsAProbe(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	pods := namedPods(names...)
	pods[0].Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Started: ptr.To(true), State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	for _, pod := range pods[1:] {
		crashLooping(pod, 20*time.Second)
	}
	c := newCluster(pods...)
	r, _, errOut := newRunner(c, setChange{types: []probeType{startup}, settings: settings{probe: httpGet("/healthz")}})
	r.largest = 2
	var (
		mu             sync.Mutex
		proven, waited []string
	)
	r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		proven = append(proven, stored.Name)
		return "proven", nil
	}
	r.applied = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		waited = append(waited, stored.Name)
		return "applied", nil
	}
	if err := r.run(context.Background(), inWorkload(pods)); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	if !slices.Equal(sortedCopy(proven), []string{"a", "b", "c"}) || !slices.Equal(sortedCopy(waited), []string{"d", "e"}) {
		t.Errorf("proven %v, waited on until applied %v; want a, b and c proven, d and e applied", proven, waited)
	}
}

// A user who may not read Nodes is warned once, and the run asks for no
// Node again before its batches; another error, such as a timeout, is
// warned of never, and the node is read again at the next batch.
func TestRolloutNodesUnread(t *testing.T) {
	for _, tc := range []struct {
		name         string
		err          error
		reads, warns int
	}{
		{name: "forbidden", err: apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "n", errors.New("not yours")), reads: 1, warns: 1},
		{name: "a timeout", err: apierrors.NewTimeoutError("busy", 1), reads: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				names := []string{"a", "b", "c"}
				pods := namedPods(names...)
				for _, pod := range pods {
					pod.Spec.NodeName = "n"
				}
				c := newCluster(pods...)
				c.PrependReactor("get", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.err
				})
				r, _, errOut := newRunner(c, relax)
				r.largest, r.nodes = 2, newNodeReadiness(c, r.report.nodesUnread)
				p := newProvings(names...)
				r.prove = p.prove
				errc := make(chan error)
				go func() { errc <- r.run(context.Background(), &targets{pods: pods}) }()
				p.passBatches(t, errc, errOut, []string{"a"}, []string{"b", "c"})
				gets := slices.DeleteFunc(c.Actions(), func(a k8stesting.Action) bool { return a.GetVerb() != "get" || a.GetResource().Resource != "nodes" })
				if len(gets) != tc.reads {
					t.Errorf("%d reads of Nodes, want %d", len(gets), tc.reads)
				}
				if n := strings.Count(errOut.String(), "warning: cannot read the Pods' nodes"); n != tc.warns {
					t.Errorf("warned %d times, want %d\n%s", n, tc.warns, errOut)
				}
			})
		})
	}
}

// With --wait=applied, a Pod is proven until each new probe that its proof
// would test was, on a Pod of its workload: a started container's proof
// tests a changed liveness probe, not the startup probe changed with it,
// which the crash-looping Pods after it run at their next start.
func TestRolloutWaitAppliedProvesEachProbe(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	pods := namedPods(names...)
	pods[0].Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Started: ptr.To(true), State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	for _, pod := range pods[1:] {
		crashLooping(pod, 20*time.Second)
	}
	for _, pod := range pods {
		pod.Spec.Containers[0].StartupProbe = httpGet("/started")
	}
	c := newCluster(pods...)
	r, _, errOut := newRunner(c, setChange{types: []probeType{liveness, startup}, settings: settings{failureThreshold: ptr.To[int32](6)}})
	r.largest = 2
	var (
		mu             sync.Mutex
		proven, waited []string
	)
	r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		proven = append(proven, stored.Name)
		return "proven", nil
	}
	r.applied = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		waited = append(waited, stored.Name)
		return "applied", nil
	}
	if err := r.run(context.Background(), inWorkload(pods)); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	if !slices.Equal(sortedCopy(proven), []string{"a", "b", "c"}) || !slices.Equal(sortedCopy(waited), []string{"d", "e"}) {
		t.Errorf("proven %v, waited on until applied %v; want a, b and c proven, d and e applied", proven, waited)
	}
}

// A change whose proofs test no new probe, such as a disabled readiness
// probe, still has its canary, and batches that double after it: with
// --wait=proven, each Pod is proven all the same, and with --wait=applied,
// no Pod after the first would test more.
func TestRolloutChangeThatTestsNoProbe(t *testing.T) {
	for _, applied := range []bool{false, true} {
		t.Run(fmt.Sprintf("applied=%t", applied), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				names := []string{"a", "b", "c", "d", "e"}
				c := newCluster(namedPods(names...)...)
				r, _, errOut := newRunner(c, disableChange{types: []probeType{readiness}})
				r.largest, r.report.yes = 2, true
				p := newProvings(names...)
				r.prove = p.prove
				if applied {
					r.applied = p.prove
				}
				errc := make(chan error)
				go func() { errc <- r.run(context.Background(), &targets{pods: namedPods(names...)}) }()
				p.passBatches(t, errc, errOut, []string{"a"}, []string{"b", "c"}, []string{"d", "e"})
			})
		})
	}
}

// Each batch takes first the Pods whose new probes can be proven soonest: a
// running container, then crash-looping ones by the end of the kubelet's
// back-off, then the others, each kind in the run's order. So the first
// Pod, proven whatever --wait says, is not one that waits out a long
// back-off while another could be proven at once. Here every Pod is not
// Ready, a crash loop: a waits out 140s more of its back-off, b 10s, c has
// no status yet, d and e run.
func TestRolloutProvesSoonestFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e"}
		pods := readyPods(names, names...)
		crashLooping(pods[0], 20*time.Second)
		crashLooping(pods[1], 150*time.Second)
		for _, p := range pods[3:] {
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", RestartCount: 5, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
		}
		c := newCluster(pods...)
		r, _, errOut := newRunner(c, relax)
		r.largest = 4
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: pods}) }()
		p.passBatches(t, errc, errOut, []string{"d"}, []string{"b", "e"}, []string{"a", "c"})
	})
}

// --wait=none keeps the floor as the other modes do: a crash-looping
// workload's Pods that are not Ready change first, then the run waits for
// Pods to turn Ready, as the new probe lets them, rather than stop with
// the Ready ones unchanged. Its batches follow each other at once, so it
// counts the Pods as last read, and reads them again only when that count
// holds a batch back. Here a and b crash-loop, and the 4 replicas may have
// 1 Pod out of readiness.
func TestRolloutWaitNoneKeepsTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d"}
		pods := readyPods(names, "a", "b")
		c := newCluster(pods...)
		r, _, errOut := newRunner(c, moveLiveness)
		oneWorkload(r, c, limit{n: 1, why: "maxUnavailable 25% of deployment.apps/web's 4 replicas"}, 4)
		r.waitTimeout = time.Minute
		var reads atomic.Int32
		census := r.census
		r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
			reads.Add(1)
			return census(ctx, budgets)
		}
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: pods}) }()
		synctest.Wait()
		if _, patches := c.sent(); !slices.Equal(patches, []string{"a", "b"}) {
			t.Fatalf("patched %v before the Pods turned Ready, want a and b, which are not Ready\n%s", patches, errOut)
		}
		if n := reads.Load(); n != 1 {
			t.Errorf("the Pods were read %d times before the run waited, want once: when the count held c back", n)
		}
		time.Sleep(10 * time.Second)
		for _, pod := range readyPods([]string{"a", "b"}) {
			if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-errc; err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
		if _, patches := c.sent(); !slices.Equal(patches, names) {
			t.Errorf("patched %v, want %v", patches, names)
		}
		waiting := "batches: waiting for Pods to turn Ready before the next batch: 2 of 4 Pods Ready, and at least 3 must stay Ready (maxUnavailable 25% of deployment.apps/web's 4 replicas)\n"
		if strings.Count(errOut.String(), waiting) != 1 {
			t.Errorf("printed\n%s\nwant once in it\n%s", errOut, waiting)
		}
	})
}

// --wait=none counts the Ready Pods that its own batches took out until it
// reads them again: between two reads, no more Ready Pods of a workload
// change than its limit allows. Here the 4 replicas, all Ready, may have 1
// out of readiness: each batch after the first finds the floor held by the
// one before it, and reads the Pods again, still Ready, before it goes.
func TestRolloutWaitNoneCountsItsOwnBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d"}
		pods := readyPods(names)
		c := newCluster(pods...)
		r, _, errOut := newRunner(c, moveReadiness)
		oneWorkload(r, c, limit{n: 1, why: "maxUnavailable 25% of deployment.apps/web's 4 replicas"}, 4)
		r.waitTimeout = time.Minute
		var reads atomic.Int32
		census := r.census
		r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
			reads.Add(1)
			return census(ctx, budgets)
		}
		if err := r.run(context.Background(), &targets{pods: pods}); err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
		if _, patches := c.sent(); !slices.Equal(patches, names) {
			t.Errorf("patched %v, want %v", patches, names)
		}
		if n := reads.Load(); n != 3 {
			t.Errorf("the Pods were read %d times, want 3: before each batch after the first\n%s", n, errOut)
		}
	})
}

// A batch that the floor makes smaller does not set the doubling back: the
// next batch is twice the one asked for. Here x1 to x7, Pods of the
// workload that the run does not change, turn not Ready while b and c are
// proven, so that the batch of 4 is d alone, and Ready again while d is.
func TestRolloutDoublesPastTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
		others := []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7"}
		pods := readyPods(names)
		c := newCluster(append(readyPods(others), pods...)...)
		r, _, errOut := newRunner(c, moveLiveness)
		oneWorkload(r, c, limit{n: 8, why: "--max-in-flight=8"}, 19)
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: pods}) }()
		setReady := func(notReady ...string) {
			for _, pod := range readyPods(others, notReady...) {
				if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, batch := range [][]string{{"a"}, {"b", "c"}, {"d"}, {"e", "f", "g", "h", "i", "j", "k", "l"}} {
			if got := p.inFlight(); !slices.Equal(got, batch) {
				t.Fatalf("in flight %v, want the batch %v\n%s", got, batch, errOut)
			}
			switch i {
			case 1:
				setReady(others...)
			case 2:
				setReady()
			}
			for _, n := range batch {
				p.results[n] <- nil
			}
		}
		if err := <-errc; err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
	})
}

// Each batch patches its Pods as they are when it begins, read with the
// Ready count: a Pod whose status the kubelet changed since the pre-check,
// as it does at each restart of a crash-looping container, is patched at
// once, without the conflict, the read and the second patch that the Pod
// as the pre-check read it would cost.
func TestRolloutPatchesPodsAsTheyAreNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c"}
		c := newCluster(namedPods(names...)...)
		requireResourceVersion(c)
		r, _, errOut := newRunner(c, relax)
		r.largest = 2
		p := newProvings(names...)
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: namedPods(names...)}) }()
		p.inFlight()
		// The kubelet reports b and c again, while a is proven.
		for _, name := range []string{"b", "c"} {
			pod, err := c.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pod.Status.Phase, pod.ResourceVersion = v1.PodRunning, "8"
			if _, err := c.CoreV1().Pods("ns").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		c.ClearActions()
		p.results["a"] <- nil
		if got := sortedCopy([]string{<-p.started, <-p.started}); !slices.Equal(got, []string{"b", "c"}) {
			t.Fatalf("in flight %v, want b and c\n%s", got, errOut)
		}
		p.results["b"] <- nil
		p.results["c"] <- nil
		if err := <-errc; err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
		for _, a := range c.Actions() {
			if a.GetVerb() == "get" || a.GetVerb() == "patch" && a.(k8stesting.PatchActionImpl).Name != "b" && a.(k8stesting.PatchActionImpl).Name != "c" {
				t.Errorf("%s %s: want only a patch of b and one of c", a.GetVerb(), a.GetResource().Resource)
			}
		}
		if n := len(slices.DeleteFunc(c.Actions(), func(a k8stesting.Action) bool { return a.GetVerb() != "patch" })); n != 2 {
			t.Errorf("%d patches, want one of b and one of c", n)
		}
	})
}

// A dry run says what the run would do, with -l too: the target line names
// the workloads whose Pods it selects, and the batches line the limit that
// it would keep to.
func TestDryRunSaysWorkloadsAndLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, pods := webWorkload(t)
		c := newCluster(pods...)
		opts, errOut := runOptions(c, o)
		var out bytes.Buffer
		report, err := newReporter(genericiooptions.IOStreams{Out: &out, ErrOut: errOut}, genericclioptions.NewPrintFlags("probes set"), cmdutil.DryRunClient, "probes set", false)
		if err != nil {
			t.Fatal(err)
		}
		opts.report, opts.selector = report, "pick=yes"
		if err := opts.run(context.Background(), relax); err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
		want := `target: 3 Pods of deployment.apps/web in namespace "ns"` + "\n" +
			"batches: one Pod at a time: maxUnavailable 25% of deployment.apps/web's 4 replicas\n"
		if !strings.HasPrefix(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant it to begin with\n%s", errOut, want)
		}
		if _, patches := c.sent(); len(patches) > 0 {
			t.Errorf("patched %v in a dry run", patches)
		}
	})
}

// twoWorkloads returns a run of every Pod of deployment.apps/api, 1 replica
// that may be out of readiness, and of deployment.apps/web, 4 replicas of
// which 2 may be, resolved as -l selects them: api-a first.
func twoWorkloads(t *testing.T) (*cluster, *targets, *runner, *bytes.Buffer) {
	t.Helper()
	api, apiRS, apiPods := deploymentOf("api", 1, intstr.FromInt32(1), []string{"a"})
	web, webRS, webPods := deploymentOf("web", 4, intstr.FromInt32(2), []string{"a", "b", "c", "d"})
	pods := append(apiPods, webPods...)
	for _, pod := range pods {
		pod.Labels["pick"] = "yes"
	}
	o, _ := newTestOwners(t, api, apiRS, web, webRS)
	c := newCluster(pods...)
	tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", nil, "pick=yes")
	if err != nil {
		t.Fatal(err)
	}
	r, _, errOut := newRunner(c, relax)
	if r.largest, err = tg.chooseLimits("", nil); err != nil {
		t.Fatal(err)
	}
	r.floors = tg.workloadFloors()
	r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
		return tg.current(ctx, c, o, "", budgets)
	}
	return c, tg, r, errOut
}

// Each workload of a run has its canary: its first Pod changes without
// another of its Pods, and is proven, before the others go in batches up to
// its limit. Here api-a is api's only Pod; web-a then goes alone of web's.
func TestRolloutCanaryOfEachWorkload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, tg, r, errOut := twoWorkloads(t)
		p := newProvings("api-a", "web-a", "web-b", "web-c", "web-d")
		r.prove = p.prove
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), tg) }()
		p.passBatches(t, errc, errOut, []string{"api-a"}, []string{"web-a"}, []string{"web-b", "web-c"}, []string{"web-d"})
	})
}

// With --wait=applied, each workload's Pods are proven until one of them is;
// a Pod of another workload proves nothing of it.
func TestRolloutWaitAppliedProvesEachWorkload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, tg, r, errOut := twoWorkloads(t)
		var (
			mu             sync.Mutex
			proven, waited []string
		)
		wait := func(into *[]string) func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
			return func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				*into = append(*into, stored.Name)
				return "proven", nil
			}
		}
		r.prove, r.applied = wait(&proven), wait(&waited)
		if err := r.run(context.Background(), tg); err != nil {
			t.Fatalf("run: %v\n%s", err, errOut)
		}
		if !slices.Equal(sortedCopy(proven), []string{"api-a", "web-a"}) || !slices.Equal(sortedCopy(waited), []string{"web-b", "web-c", "web-d"}) {
			t.Errorf("proven %v, waited on until applied %v; want api-a and web-a proven, the others applied", proven, waited)
		}
	})
}

// A canary that proves nothing, a Pod that no kubelet runs yet, does not
// count: the next Pod goes alone, and is proven, before more go at once.
func TestRolloutCanaryThatProvesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		names := []string{"a", "b", "c", "d", "e"}
		c := newCluster(namedPods(names...)...)
		r, _, errOut := newRunner(c, relax)
		r.largest = 4
		p := newProvings(names...)
		r.prove = func(ctx context.Context, before, stored *v1.Pod, container string) (string, error) {
			proven, err := p.prove(ctx, before, stored, container)
			if stored.Name == "a" {
				return notOnANode, err
			}
			return proven, err
		}
		errc := make(chan error)
		go func() { errc <- r.run(context.Background(), &targets{pods: namedPods(names...)}) }()
		p.passBatches(t, errc, errOut, []string{"a"}, []string{"b"}, []string{"c", "d", "e"})
	})
}

// The interrupt line prints the undo of the run only when it changed a Pod,
// or has one in flight: here the interrupt comes while the run waits for
// Pods to turn Ready, before its first change, or before its second batch,
// after its first one, and no goroutine of that batch is counted in flight.
func TestRolloutInterruptedSaysUndoOnlyAfterAChange(t *testing.T) {
	for _, tc := range []struct {
		name string
		// ready is how many of the 3 Pods are Ready; the workload asks for 4
		// and lets 1 be out of readiness.
		ready int
		want  string
	}{
		{"before any change", 3, "interrupted: no more Pods change; Ctrl-C again quits at once\nerror: interrupted\n"},
		{"after a change", 2, "interrupted: no more Pods change; Ctrl-C again quits at once\nto put back what this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\nerror: interrupted\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				names := []string{"a", "b", "c"}
				pods := readyPods(names, names[tc.ready:]...)
				c := newCluster(pods...)
				r, _, errOut := newRunner(c, moveLiveness)
				oneWorkload(r, c, limit{n: 1, why: "maxUnavailable 25% of deployment.apps/web's 4 replicas"}, 4)
				r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
				ctx, interrupt := context.WithCancel(context.Background())
				errc := make(chan error)
				go func() { errc <- r.run(ctx, &targets{pods: pods}) }()
				synctest.Wait()
				interrupt()
				if err := <-errc; exitStatus(err) != exitInterrupted {
					t.Errorf("run: %v, want exit status %d", err, exitInterrupted)
				}
				if !strings.Contains(errOut.String(), tc.want) {
					t.Errorf("printed\n%s\nwant in it\n%s", errOut, tc.want)
				}
			})
		})
	}
}

// An interrupt that leaves no Pod out, as one while the last batch is
// proven, which is proven to the end, ends a run that did all it was asked:
// it exits with status 0, and says no error.
func TestRolloutInterruptedInTheLastBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, interrupt := context.WithCancel(context.Background())
		_, _, errOut, p, errc := startRollout(ctx, []string{"a", "b"}, 1)
		p.inFlight()
		p.results["a"] <- nil
		p.inFlight()
		interrupt()
		synctest.Wait()
		p.results["b"] <- nil
		if err := <-errc; err != nil {
			t.Errorf("run: %v (exit status %d), want it to end as asked\n%s", err, exitStatus(err), errOut)
		}
		if strings.Contains(errOut.String(), "error:") {
			t.Errorf("printed\n%s\nwant no error", errOut)
		}
	})
}

// A change that only relaxes liveness and startup probes, keeping their
// handlers, restarts no container sooner than the old probes would, and so
// takes no Pod out of readiness: the floors do not hold it back, and the
// run says so. Any other change waits for the Pods that are not Ready, and
// the run that stops says what to do. Here c, of 3 replicas that may have
// 1 out of readiness, is not Ready, as a Pod on a lost node is.
func TestRolloutRelaxationPassesTheFloor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  change
		patches []string
		want    string
	}{{
		name:    "a liveness probe relaxed",
		change:  relax,
		patches: []string{"a", "b", "c"},
		want:    "batches: the floors do not hold back a change that only relaxes liveness and startup probes, which restarts no container sooner and takes no Pod out of readiness (2 of 3 Pods Ready, and at least 2 must stay Ready (maxUnavailable 25% of deployment.apps/web's 3 replicas))\n",
	}, {
		name:    "a liveness probe moved",
		change:  moveLiveness,
		patches: []string{"c"},
		want:    "error: stopped before the next batch: 2 of 3 Pods Ready, and at least 2 must stay Ready (maxUnavailable 25% of deployment.apps/web's 3 replicas); once the Pods that are not Ready are, or are deleted for their controller to replace, run the command again: it leaves the Pods changed already as they are\n",
	}, {
		// 2 × 30s is longer than 3 × 10s, but 2 failures in a row restart
		// the container sooner than 3 do: stricter in a way, no relaxation.
		name:    "a liveness probe given fewer failures of a longer period",
		change:  setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](2), periodSeconds: ptr.To[int32](30)}},
		patches: []string{"c"},
		want:    "error: stopped before the next batch: 2 of 3 Pods Ready",
	}, {
		// A readiness probe, relaxed or not, decides readiness: it counts
		// against the floors.
		name:    "a readiness probe relaxed",
		change:  setChange{types: []probeType{readiness}, settings: settings{failureThreshold: ptr.To[int32](10)}},
		patches: []string{"c"},
		want:    "error: stopped before the next batch: 2 of 3 Pods Ready",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				names := []string{"a", "b", "c"}
				pods := readyPods(names, "c")
				c := newCluster(pods...)
				r, _, errOut := newRunner(c, tc.change)
				oneWorkload(r, c, limit{n: 1, why: "maxUnavailable 25% of deployment.apps/web's 3 replicas"}, 3)
				r.waitTimeout = time.Minute
				r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
				err := r.run(context.Background(), &targets{pods: pods})
				if _, patches := c.sent(); !slices.Equal(sortedCopy(patches), tc.patches) {
					t.Errorf("patched %v, want %v (%v)\n%s", patches, tc.patches, err, errOut)
				}
				if !strings.Contains(errOut.String(), tc.want) {
					t.Errorf("printed\n%s\nwant in it\n%s", errOut, tc.want)
				}
			})
		})
	}
}

// A patch whose answer is lost, of a Pod that is gone when it is read
// again, deleted or recreated, is skipped as such: it is not there to be
// changed, whatever the patch did.
func TestRunPatchAnswerLostPodGone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		again func(c *cluster) error
		want  string
	}{
		{"deleted", func(c *cluster) error {
			return c.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
		}, "pod/a skipped: deleted\n"},
		{"recreated", func(c *cluster) error {
			a := namedPods("a")[0]
			a.UID = "another"
			if err := c.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a"); err != nil {
				return err
			}
			return c.Tracker().Add(a)
		}, "pod/a skipped: recreated: another Pod has its name now\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(namedPods("a", "b")...)
			c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if patch := action.(k8stesting.PatchActionImpl); patch.Name != "a" || len(patch.PatchOptions.DryRun) > 0 {
					return false, nil, nil
				}
				if err := tc.again(c); err != nil {
					return true, nil, err
				}
				return true, nil, errors.New("read tcp 10.0.0.1:51234->10.0.0.2:6443: read: connection reset by peer")
			})
			r, out, errOut := newRunner(c, relax)
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
			if err := r.run(context.Background(), &targets{pods: namedPods("a", "b")}); err != nil {
				t.Errorf("run: %v (exit status %d)\n%s", err, exitStatus(err), errOut)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("printed\n%s\nwant in it\n%s", out, tc.want)
			}
		})
	}
}

// A read of the Pods before a batch that fails now and then, as the API
// server's lists do under load, is tried again: it does not stop a long
// run. One that keeps failing stops it.
func TestRolloutCensusTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fails int
		want  int
	}{{"failing once", 1, 0}, {"failing on", 100, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(namedPods("a", "b")...)
				r, _, errOut := newRunner(c, relax)
				r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
				census, failed := r.census, 0
				r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
					if failed < tc.fails {
						failed++
						return nil, nil, 0, apierrors.NewTooManyRequests("the server is busy", 1)
					}
					return census(ctx, budgets)
				}
				if err := r.run(context.Background(), &targets{pods: namedPods("a", "b")}); exitStatus(err) != tc.want {
					t.Errorf("run: %v (exit status %d), want exit status %d\n%s", err, exitStatus(err), tc.want, errOut)
				}
			})
		})
	}
}

// A run that waits on its changes skips a Pod whose node stopped reporting
// after the pre-check read it, as the pre-check skips one whose node is not
// Ready: its kubelet would neither apply the change nor report it.
func TestRolloutSkipsPodsWhoseNodeStopsReporting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pods  []string
		later []string
	}{
		{name: "a Pod after it", pods: []string{"a", "b", "c"}, later: []string{"c"}},
		{name: "the last Pod", pods: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				pods := namedPods(tc.pods...)
				for _, pod := range pods {
					pod.Spec.NodeName = "up"
				}
				pods[1].Spec.NodeName = "lost"
				c := newCluster(pods...)
				for _, name := range []string{"up", "lost"} {
					node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
					if _, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				r, out, errOut := newRunner(c, relax)
				r.largest, r.nodes = 2, newNodeReadiness(c, r.report.nodesUnread)
				p := newProvings(tc.pods...)
				r.prove = p.prove
				errc := make(chan error)
				go func() { errc <- r.run(ctx, &targets{pods: pods}) }()
				if got := p.inFlight(); !slices.Equal(got, []string{"a"}) {
					t.Fatalf("in flight %v, want a\n%s", got, errOut)
				}
				// The node controller marks the node that stopped reporting.
				lost := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lost"}, Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionUnknown, Reason: "NodeStatusUnknown"}}}}
				if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, lost, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				p.results["a"] <- nil
				if got := p.inFlight(); !slices.Equal(got, tc.later) {
					t.Fatalf("in flight %v, want %v\n%s", got, tc.later, errOut)
				}
				for _, n := range tc.later {
					p.results[n] <- nil
				}
				if err := <-errc; err != nil {
					t.Fatalf("run: %v\n%s", err, errOut)
				}
				if _, patches := c.sent(); !slices.Contains(patches, "a") || slices.Contains(patches, "b") {
					t.Errorf("patched %v, want a and not b", patches)
				}
				skipped := `pod/b skipped: its node "lost" is not Ready (NodeStatusUnknown): its kubelet cannot apply the change until it is; run the command again then, or replace the Pod`
				if !strings.Contains(out.String(), skipped) {
					t.Errorf("printed\n%s\nwant %q in it", out, skipped)
				}
			})
		})
	}
}
