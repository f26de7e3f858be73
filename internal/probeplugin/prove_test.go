package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// The proof takes the container's Ready states as the kubelet publishes
// them after it applied the change, the first one included.
func TestReadinessProof(t *testing.T) {
	for _, tc := range []struct {
		name string
		// added: the change added the readiness probe.
		added bool
		// states are the Ready states seen, the first when the kubelet
		// reported the change's generation.
		states []bool
		// want is "passed", "failed", or "" when the window decides.
		want string
	}{
		{name: "the old Ready state, kept", states: []bool{true, true, true}},
		{name: "Ready, then not: the new probe failed", states: []bool{true, false}, want: "failed"},
		{name: "not Ready, kept, then Ready: the new probe passed", states: []bool{false, false, true}, want: "passed"},
		{name: "not Ready, kept, and the new probe does not pass", states: []bool{false, false}},
		{name: "added: Ready, not Ready as a new probe starts, then Ready", added: true, states: []bool{true, false, true}, want: "passed"},
		{name: "added: not Ready as a new probe starts", added: true, states: []bool{true, false, false}},
		{name: "added: Ready all along", added: true, states: []bool{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newReadinessProof(tc.added, tc.states[0])
			got := ""
			for _, ready := range tc.states[1:] {
				passed, err := p.observe(ready)
				switch {
				case errors.Is(err, errReadinessFailed):
					got = "failed"
				case err != nil:
					t.Fatal(err)
				case passed:
					got = "passed"
				default:
					continue
				}
				break
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		probe *v1.Probe
		want  time.Duration
	}{
		{&v1.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}, 23 * time.Second},
		{&v1.Probe{PeriodSeconds: 1, TimeoutSeconds: 1, FailureThreshold: 1, SuccessThreshold: 4}, 13 * time.Second},
	} {
		if got := failureWindow(tc.probe, 5*time.Second); got != tc.want {
			t.Errorf("window of %+v = %s, want %s", tc.probe, got, tc.want)
		}
	}
}

// The kubelet counts a probe's initial delay from the container's start:
// the part still to come lengthens the window, in whole seconds, rounded up.
func TestRemainingDelay(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	probe := &v1.Probe{InitialDelaySeconds: 30}
	for _, tc := range []struct {
		name    string
		started time.Time
		want    time.Duration
	}{
		{"started 10s ago", now.Add(-10 * time.Second), 20 * time.Second},
		{"started 10.6s ago", now.Add(-10600 * time.Millisecond), 20 * time.Second},
		{"started 10.2s ago", now.Add(-10200 * time.Millisecond), 20 * time.Second},
		{"started a minute ago", now.Add(-time.Minute), 0},
		{"start not reported", time.Time{}, 30 * time.Second},
	} {
		status := &v1.ContainerStatus{State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(tc.started)}}}
		if got := remainingDelay(probe, status, now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// inBackground runs f in a goroutine of its own, and returns a function
// that waits for f to return, and returns what it did.
func inBackground(f func() (string, error)) func() (string, error) {
	done := make(chan struct{})
	var (
		got string
		err error
	)
	go func() {
		defer close(done)
		got, err = f()
	}()
	return func() (string, error) {
		<-done
		return got, err
	}
}

// checkProof checks what a proof returned: the error wantErr, or, without
// it, what want says.
func checkProof(t *testing.T, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Errorf("prove: %v, want %q", err, wantErr)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("prove = %q, %v; want %q", got, err, want)
	}
}

// kubelet plays the Pod's kubelet for a prover: the test sends the Pod's
// states, in order, through a watch that the prover opens.
type kubelet struct {
	t       *testing.T
	watcher *watch.FakeWatcher
	// events feeds a watch of events, which need not be open yet.
	events *watch.FakeWatcher
	pod    *v1.Pod
	// restarts is the container's restart count.
	restarts int32
}

// newKubelet returns a client whose Pod is pod, as the list returns it,
// and whose watch of Pods the returned kubelet feeds.
func newKubelet(t *testing.T, pod *v1.Pod) (*fake.Clientset, *kubelet) {
	client := fake.NewClientset(pod)
	k := &kubelet{t: t, watcher: watch.NewFake(), events: watch.NewFakeWithChanSize(10, false), pod: pod.DeepCopy()}
	client.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, k.watcher, nil
	})
	client.PrependWatchReactor("events", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, k.events, nil
	})
	return client, k
}

// unhealthy records an Unhealthy event of the container, at the time
// given, as the kubelet's probe does when it fails.
func (k *kubelet) unhealthy(message string, at time.Time) {
	k.event("Unhealthy", "spec.containers{app}", message, at)
}

var eventVersion = 100

func (k *kubelet) event(reason, fieldPath, message string, at time.Time) {
	eventVersion++
	k.events.Add(&v1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("web.%d", eventVersion), Namespace: "ns", ResourceVersion: fmt.Sprint(eventVersion)},
		InvolvedObject: v1.ObjectReference{Kind: "Pod", Name: "web", UID: k.pod.UID, FieldPath: fieldPath},
		Reason:         reason, Type: v1.EventTypeWarning, Message: message, Count: 1,
		FirstTimestamp: metav1.NewTime(at), LastTimestamp: metav1.NewTime(at),
	})
}

// report sends the Pod with the generation observed and the container's
// Ready state, as the kubelet writes its status.
func (k *kubelet) report(observed int64, ready bool) {
	k.reportStarted(observed, true, ready)
}

// reportStarted is report, with the container's Started state. It reports
// nothing once the prover stopped its watch: the proof ended.
func (k *kubelet) reportStarted(observed int64, started, ready bool) {
	if k.watcher.IsStopped() {
		return
	}
	k.pod = k.pod.DeepCopy()
	k.pod.Status.ObservedGeneration = observed
	k.pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Ready: ready, Started: ptr.To(started), RestartCount: k.restarts}}
	if k.restarts > 0 {
		k.pod.Status.ContainerStatuses[0].LastTerminationState.Terminated = &v1.ContainerStateTerminated{Reason: "Error", ExitCode: 137}
	}
	status := v1.ConditionFalse
	if ready {
		status = v1.ConditionTrue
	}
	k.pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: status}}
	k.watcher.Modify(k.pod)
}

// restart reports that the container restarted: its restart count is one
// up, and the new container has started and is not Ready.
func (k *kubelet) restart(observed int64) {
	k.restarts++
	k.report(observed, false)
}

// changedPods returns a Pod on a node, Ready at generation 1, and the Pod
// as stored after a change of its readiness probe's path.
func changedPods() (before, stored *v1.Pod) {
	before = webPod()
	before.UID = "web"
	before.Spec.NodeName = "node-1"
	before.Status.Phase = v1.PodRunning
	before.Status.ObservedGeneration = 1
	before.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true)}}
	stored = before.DeepCopy()
	stored.Generation = 2
	stored.Spec.Containers[0].ReadinessProbe = httpGet("/missing")
	return before, stored
}

// livenessChanged makes stored a change of the liveness probe's handler,
// stored at the time given, and nothing else.
func livenessChanged(before, stored *v1.Pod, at time.Time) {
	stored.Spec.Containers[0].ReadinessProbe = before.Spec.Containers[0].ReadinessProbe
	stored.Spec.Containers[0].LivenessProbe = httpGet("/livez")
	stored.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-probe", Operation: metav1.ManagedFieldsOperationUpdate, Time: ptr.To(metav1.NewTime(at))}}
}

// startupChanged makes stored a change of a startup probe on a container
// that has not started.
func startupChanged(before, stored *v1.Pod) {
	before.Spec.Containers[0].StartupProbe = httpGet("/started")
	before.Status.ContainerStatuses[0].Started = ptr.To(false)
	before.Status.ContainerStatuses[0].Ready = false
	stored.Spec.Containers[0].ReadinessProbe = before.Spec.Containers[0].ReadinessProbe
	stored.Spec.Containers[0].StartupProbe = httpGet("/started")
	stored.Spec.Containers[0].StartupProbe.FailureThreshold = 30
	stored.Status = *before.Status.DeepCopy()
}

func TestProve(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change makes the stored Pod from the one changedPods stores.
		change func(stored *v1.Pod)
		// run plays the kubelet.
		run     func(k *kubelet)
		want    string
		wantErr string
	}{{
		name:   "a liveness change whose new probe fails: stops at its failureThreshold-th failure in a row",
		change: func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe = httpGet("/livez") },
		run: func(k *kubelet) {
			k.report(2, true)
			for range 3 {
				k.unhealthy("Liveness probe failed: HTTP probe failed with statuscode: 404", time.Now())
			}
		},
		wantErr: `the new liveness probe of container "app" reached its failureThreshold, 3 failures in a row: the kubelet restarts the container; its last Unhealthy event, 0s ago: Liveness probe failed: HTTP probe failed with statuscode: 404`,
	}, {
		name:   "a liveness change, and the container restarts",
		change: func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe = httpGet("/livez") },
		run: func(k *kubelet) {
			k.report(2, true)
			k.restart(2)
		},
		wantErr: `container "app" restarted before its new liveness probe passed (restart count 1, was 0); its last run ended with Error, exit code 137`,
	}, {
		name:   "a liveness probe removed: the generation",
		change: func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe = nil },
		run:    func(k *kubelet) { k.report(2, true) },
		want:   "the kubelet applied generation 2",
	}, {
		name: "a startup change on a container that has started: its next start runs it",
		change: func(p *v1.Pod) {
			p.Spec.Containers[0].StartupProbe = httpGet("/started")
		},
		run:  func(k *kubelet) { k.report(2, true) },
		want: "the kubelet applied generation 2; the container has started: its new startup probe runs when it restarts",
	}, {
		name: "a readiness change that fails: stops at once",
		run: func(k *kubelet) {
			k.report(2, true)
			k.report(2, false)
		},
		wantErr: `the new readiness probe failed: container "app" is not Ready any more`,
	}, {
		name: "a readiness change on a container that was not Ready, which passes",
		run: func(k *kubelet) {
			k.report(2, false)
			k.report(2, true)
		},
		want: "the kubelet applied generation 2; the new readiness probe passed: the container turned Ready",
	}, {
		name: "a readiness change on a container that has not started: the new probe must pass once it has",
		run: func(k *kubelet) {
			k.reportStarted(2, false, false)
			k.reportStarted(2, true, false)
			k.report(2, true)
		},
		want: "the kubelet applied generation 2; the new readiness probe passed: the container turned Ready",
	}, {
		name: "a Ready state before the kubelet applied the change does not count",
		run: func(k *kubelet) {
			k.report(1, false)
			k.report(1, true)
			k.report(2, true)
			k.report(2, false)
		},
		wantErr: "the new readiness probe failed",
	}, {
		name: "a container restarted after the kubelet applied the change: not proven",
		run: func(k *kubelet) {
			k.report(2, true)
			k.restart(2)
		},
		wantErr: `container "app" restarted before its new readiness probe passed (restart count 1, was 0); its last run ended with Error, exit code 137`,
	}, {
		name: "a container restarted before the kubelet applied the change, which passes",
		run: func(k *kubelet) {
			k.restart(1)
			k.report(2, false)
			k.report(2, true)
		},
		want: "the kubelet applied generation 2; the new readiness probe passed: the container turned Ready",
	}, {
		name:   "a readiness probe removed",
		change: func(p *v1.Pod) { p.Spec.Containers[0].ReadinessProbe = nil },
		run:    func(k *kubelet) { k.report(2, true) },
		want:   "the kubelet applied generation 2; without a readiness probe the container counts as Ready",
	}, {
		name: "the Pod recreated",
		run: func(k *kubelet) {
			again := k.pod.DeepCopy()
			again.UID = "another"
			k.watcher.Modify(again)
		},
		wantErr: "recreated: another Pod has its name now",
	}, {
		name:    "the Pod deleted",
		run:     func(k *kubelet) { k.watcher.Delete(k.pod) },
		wantErr: "deleted",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before, stored := changedPods()
			if tc.change != nil {
				stored.Spec.Containers[0].ReadinessProbe = before.Spec.Containers[0].ReadinessProbe
				tc.change(stored)
			}
			client, k := newKubelet(t, before)
			w := &prover{client: client, timeout: time.Minute, margin: time.Hour}
			result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
			tc.run(k)
			got, err := result()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("prove = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The end of the new readiness probe's failure window decides: a container
// that stayed Ready through it passed, one that is not Ready then did not.
// The window is 3 × (10s + 1s) for the probe changedPods stores, and the
// margin 2s after that: 35s, on the bubble's fake clock.
func TestProveWindow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ready   bool
		want    string
		wantErr string
	}{{
		name:  "Ready through the window",
		ready: true,
		want:  "the kubelet applied generation 2; the new readiness probe passed: the container stayed Ready through the probe's failure window (35s)",
	}, {
		name:    "not Ready through the window",
		ready:   false,
		wantErr: `the new readiness probe has not passed: container "app" is not Ready 35s after the kubelet applied it`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				start := time.Now()
				result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
				k.report(2, tc.ready)
				got, err := result()
				if waited := time.Since(start); waited != 35*time.Second {
					t.Errorf("confirmed after %s, want at the end of the window, 35s", waited)
				}
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// A readiness change that passed its proof on the container waits for the
// Pod to be Ready as a whole only when the Pod was Ready when the change
// was stored: a Pod held not Ready by something else, as an unready
// sidecar or a false readiness gate, before and after, passes; a Pod that
// was Ready and is not after the change fails at --wait-timeout. The
// window is 3 × (10s + 1s) and the margin, 5s: 38s.
func TestProvePodNotReadyForAnotherReason(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wasReady bool
		want     string
		wantErr  string
	}{{
		name: "not Ready before, for a readiness gate, and after",
		want: "the kubelet applied generation 2; the new readiness probe passed: the container stayed Ready through the probe's failure window (38s)",
	}, {
		name:     "Ready before, not Ready after",
		wasReady: true,
		wantErr:  "the kubelet applied generation 2; the new readiness probe passed: the container stayed Ready through the probe's failure window (38s), but the Pod, Ready before the change, was not Ready again within 1m0s (--wait-timeout)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				ready := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: "ReadinessGatesNotReady"}
				if tc.wasReady {
					ready = v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue}
				}
				before.Status.Conditions = []v1.PodCondition{ready}
				stored.Status.Conditions = []v1.PodCondition{ready}
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Minute, margin: 5 * time.Second}
				result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
				pod := k.pod.DeepCopy()
				pod.Status.ObservedGeneration = 2
				pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true)}}
				pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: "ReadinessGatesNotReady"}}
				k.watcher.Modify(pod)
				got, err := result()
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// A failure window longer than --wait-timeout, 10s here, is waited out: the
// timeout bounds the wait for the kubelet and the container, not a window
// that began, as a probe with a high failureThreshold has.
func TestProveWindowLongerThanTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before, stored := changedPods()
		client, k := newKubelet(t, before)
		w := &prover{client: client, timeout: 10 * time.Second, margin: 2 * time.Second}
		start := time.Now()
		result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
		k.report(2, true)
		got, err := result()
		if waited := time.Since(start); waited != 35*time.Second {
			t.Errorf("confirmed after %s, want at the end of the window, 35s", waited)
		}
		checkProof(t, got, err, "the kubelet applied generation 2; the new readiness probe passed: the container stayed Ready through the probe's failure window (35s)", "")
	})
}

// A liveness change is proven through the new probe's failure window, 3 ×
// (10s + 1s) and the margin, 2s: 35s on the bubble's fake clock. It passes
// at the end of the window without a restart; a failure of the new probe,
// below its threshold of 3, is counted in what it says. The kubelet's other
// events do not count, and neither does the old probe's failure, recorded
// before the change was stored, that reaches the API server late.
func TestProveLivenessWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		// events are recorded after the kubelet reported the change's
		// generation; ago is how long before the change was stored each
		// one happened.
		events []struct {
			reason, fieldPath, message string
			ago                        time.Duration
		}
		// listed is the message of an Unhealthy liveness event in the
		// second the change was stored, there before the proof began.
		listed string
		// counted is what the proof says of the new probe's failures.
		counted string
	}{{
		name: "no event",
	}, {
		name: "the old probe's failure, arriving late",
		events: []struct {
			reason, fieldPath, message string
			ago                        time.Duration
		}{{"Unhealthy", "spec.containers{app}", "Liveness probe failed: context deadline exceeded", 3 * time.Second}},
	}, {
		name: "a readiness failure, another container's, other reasons",
		events: []struct {
			reason, fieldPath, message string
			ago                        time.Duration
		}{
			{"Unhealthy", "spec.containers{app}", "Readiness probe failed: HTTP probe failed with statuscode: 503", -time.Second},
			{"Unhealthy", "spec.containers{sidecar}", "Liveness probe failed: HTTP probe failed with statuscode: 503", -time.Second},
			{"ContainerProbeChanged", "spec.containers{app}", `Liveness probe updated for container "app"`, -time.Second},
		},
	}, {
		name:   "a failure in the second the change was stored, there before the proof began",
		listed: "Liveness probe failed: context deadline exceeded",
	}, {
		name: "the new probe's failure in the second the change was stored, recorded after the proof began",
		events: []struct {
			reason, fieldPath, message string
			ago                        time.Duration
		}{{"Unhealthy", "spec.containers{app}", "Liveness probe failed: HTTP probe failed with statuscode: 404", 0}},
		counted: "; it failed once, at most 1 in a row, below its failureThreshold of 3",
	}, {
		name: "the new probe's failure, folded into an earlier event",
		events: []struct {
			reason, fieldPath, message string
			ago                        time.Duration
		}{{"Unhealthy", "spec.containers{app}", "(combined from similar events): Liveness probe failed: HTTP probe failed with statuscode: 404", -2 * time.Second}},
		counted: "; it failed once, at most 1 in a row, below its failureThreshold of 3",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				storedAt := time.Now()
				livenessChanged(before, stored, storedAt)
				client, k := newKubelet(t, before)
				if tc.listed != "" {
					if _, err := client.CoreV1().Events("ns").Create(context.Background(), &v1.Event{
						ObjectMeta:     metav1.ObjectMeta{Name: "web.old", Namespace: "ns"},
						InvolvedObject: v1.ObjectReference{Kind: "Pod", Name: "web", UID: before.UID, FieldPath: "spec.containers{app}"},
						Reason:         "Unhealthy", Message: tc.listed, Count: 1, LastTimestamp: metav1.NewTime(storedAt),
					}, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
				time.Sleep(2 * time.Second)
				k.report(2, true)
				for _, e := range tc.events {
					k.event(e.reason, e.fieldPath, e.message, storedAt.Add(-e.ago))
				}
				got, err := result()
				want := "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (35s)"
				if tc.counted != "" {
					want = "the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (35s)" + tc.counted
				}
				if err != nil || got != want {
					t.Errorf("prove = %q, %v; want %q", got, err, want)
				}
				if waited := time.Since(storedAt); waited != 37*time.Second {
					t.Errorf("proven %s after the change, want at the end of the window, 2s + 35s", waited)
				}
			})
		})
	}
}

// A startup probe changed on a container that has not started is proven
// when the container starts, which only the new probe can make it; the
// container restarting before that, or not started at the end of the new
// probe's failure window, 30 × (10s + 1s) and the margin, 2s, and the
// grace period of the kubelet's kill that follows, 30s, fails it.
func TestProveStartup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		run     func(k *kubelet)
		want    string
		wantErr string
		// after is when the proof ends, after the change was stored.
		after time.Duration
	}{{
		name: "the container starts",
		run: func(k *kubelet) {
			k.reportStarted(2, false, false)
			time.Sleep(time.Minute)
			k.reportStarted(2, true, false)
		},
		want:  "the kubelet applied generation 2; the new startup probe passed: the container started",
		after: time.Minute,
	}, {
		// The kubelet may report the new generation and the start in one
		// status update: the container had not started when the change was
		// stored, so its new probe started it.
		name:  "the container has started by the time the kubelet reports the generation",
		run:   func(k *kubelet) { k.reportStarted(2, true, false) },
		want:  "the kubelet applied generation 2; the new startup probe passed: the container started",
		after: 0,
	}, {
		name: "the container restarts before it started",
		run: func(k *kubelet) {
			k.reportStarted(2, false, false)
			time.Sleep(time.Minute)
			k.restarts++
			k.reportStarted(2, false, false)
		},
		wantErr: `container "app" restarted before its new startup probe passed (restart count 1, was 0); its last run ended with Error, exit code 137`,
		after:   time.Minute,
	}, {
		// The new probe reached its threshold at the end of its window, and
		// the kubelet stops the container, within the Pod's grace period
		// (30s, the API's default), before it starts the next one and
		// reports the restart: the restart fails the proof, as it would
		// have in the window.
		name: "the container restarts after the window, within the kill's grace period",
		run: func(k *kubelet) {
			k.reportStarted(2, false, false)
			time.Sleep(332*time.Second + 20*time.Second)
			k.restarts++
			k.reportStarted(2, false, false)
		},
		wantErr: `container "app" restarted before its new startup probe passed (restart count 1, was 0); its last run ended with Error, exit code 137`,
		after:   352 * time.Second,
	}, {
		name:    "the container has not started at the end of the window and the kill's grace period",
		run:     func(k *kubelet) { k.reportStarted(2, false, false) },
		wantErr: `the new startup probe has not passed: container "app" has not started 6m2s after the kubelet applied it`,
		after:   362 * time.Second,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				startupChanged(before, stored)
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				start := time.Now()
				result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
				tc.run(k)
				got, err := result()
				if waited := time.Since(start); waited != tc.after {
					t.Errorf("proven after %s, want %s", waited, tc.after)
				}
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// Removing the startup probe of a container that has not started starts its
// liveness probe at once, which may restart the container: the liveness
// probe, unchanged, is proven as a new one, through its window from the
// container's start that the change lets the kubelet report, 3 × (10s + 1s)
// and the margin, 2s; the kubelet killing the container for it, or
// restarting it, fails the proof.
func TestProveStartupRemoved(t *testing.T) {
	for _, tc := range []struct {
		name string
		// then is what the kubelet does 30s after the container started,
		// unless the proof ended.
		then    func(k *kubelet)
		want    string
		wantErr string
	}{{
		name: "the liveness probe passes",
		want: "the kubelet applied generation 2; without its startup probe, the container that had not started runs its liveness probe: it is proven as a new one; " +
			"the new liveness probe passed: no restart and no liveness failure through the probe's failure window (35s)",
	}, {
		name: "the kubelet kills the container for its liveness probe",
		then: func(k *kubelet) {
			k.event("Killing", "spec.containers{app}", "Container app failed liveness probe, will be restarted", time.Now())
		},
		wantErr: `the new liveness probe of container "app" reached its failureThreshold, 3 failures in a row: the kubelet restarts the container`,
	}, {
		name:    "the container restarts",
		then:    func(k *kubelet) { k.restart(2) },
		wantErr: `container "app" restarted before its new liveness probe passed (restart count 1, was 0); its last run ended with Error, exit code 137`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				startupChanged(before, stored)
				stored.Spec.Containers[0].StartupProbe = nil
				stored.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-probe", Operation: metav1.ManagedFieldsOperationUpdate, Time: ptr.To(metav1.Now())}}
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				var (
					got  string
					err  error
					done = make(chan struct{})
				)
				go func() {
					defer close(done)
					got, err = w.prove(context.Background(), before, stored, "app")
				}()
				time.Sleep(time.Second)
				// Without its startup probe, the kubelet reports the
				// container started.
				k.reportStarted(2, true, false)
				if tc.then != nil {
					select {
					case <-done:
					case <-time.After(30 * time.Second):
						tc.then(k)
					}
				}
				<-done
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// A readiness change of a container that never starts is not confirmed: the
// wait ends at its timeout and says why.
func TestProveContainerNotStarted(t *testing.T) {
	before, stored := changedPods()
	client, k := newKubelet(t, before)
	w := &prover{client: client, timeout: time.Second, margin: time.Hour}
	errc := make(chan error)
	go func() {
		_, err := w.prove(context.Background(), before, stored, "app")
		errc <- err
	}()
	// The watch takes the second report only after the first was seen.
	k.reportStarted(2, false, false)
	k.reportStarted(2, false, false)
	want := `the kubelet applied generation 2, but container "app" had not started within 1s (--wait-timeout), so its new readiness probe has not run`
	if err := <-errc; err == nil || err.Error() != want {
		t.Errorf("prove: %v, want %q", err, want)
	}
}

// A Pod that is not on a node yet needs no wait: its kubelet starts it with
// the probes it has.
func TestProveUnscheduled(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		t.Errorf("unexpected request %s", action)
		return true, nil, nil
	})
	w := &prover{client: client, timeout: time.Minute}
	got, err := w.prove(context.Background(), webPod(), webPod(), "app")
	if err != nil || !strings.Contains(got, "not on a node yet") {
		t.Errorf("prove = %q, %v", got, err)
	}
}

// The failure of a readiness probe says why, from the container's last
// Unhealthy event.
func TestProveSaysWhy(t *testing.T) {
	before, stored := changedPods()
	client, k := newKubelet(t, before)
	if _, err := client.CoreV1().Events("ns").Create(context.Background(), &v1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "ns"},
		InvolvedObject: v1.ObjectReference{UID: "web", FieldPath: "spec.containers{app}"},
		Reason:         "Unhealthy",
		Message:        "Readiness probe failed: HTTP probe failed with statuscode: 404",
		LastTimestamp:  metav1.Now(),
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := &prover{client: client, timeout: time.Minute, margin: time.Hour}
	errc := make(chan error)
	go func() {
		_, err := w.prove(context.Background(), before, stored, "app")
		errc <- err
	}()
	k.report(2, true)
	k.report(2, false)
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "its last Unhealthy event, 0s ago: Readiness probe failed: HTTP probe failed with statuscode: 404") {
		t.Errorf("err = %v, want the last Unhealthy event in it", err)
	}
}

// A relaxed liveness probe, here failureThreshold 1 to 6 with a period of
// 5s, is judged by its new threshold: its failures below it, as a flapping
// dependency causes them, are reported and the proof passes; six failures
// in a row, or the kubelet killing the container for its liveness probe,
// fail it. The window is 6 × (5s + 1s) and the margin, 2s: 38s on the
// bubble's fake clock. Each event happens at the second given after the
// kubelet reported the change's generation.
func TestProveRelaxedLiveness(t *testing.T) {
	type event struct {
		reason, message string
		at              time.Duration
	}
	failure := func(at time.Duration) event {
		return event{"Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 503", at * time.Second}
	}
	// failuresEvery fails from from to to, every step seconds.
	failuresEvery := func(from, step, to time.Duration) []event {
		var events []event
		for at := from; at <= to; at += step {
			events = append(events, failure(at))
		}
		return events
	}
	errored := func(at time.Duration) event {
		return event{"Unhealthy", "Liveness probe errored and resulted in unknown state: rpc error: code = Unavailable", at * time.Second}
	}
	for _, tc := range []struct {
		name string
		// period is the new probe's periodSeconds; 5 when 0.
		period  int32
		events  []event
		want    string
		wantErr string
		// after is when the proof ends, after the kubelet reported the
		// change's generation.
		after time.Duration
	}{{
		name:   "three failures in a row, below the new threshold",
		events: []event{failure(1), failure(6), failure(11)},
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (38s); it failed 3 times, at most 3 in a row, below its failureThreshold of 6",
		after:  38 * time.Second,
	}, {
		// The first five end when a probe passes, 15s later: the window
		// ends in the second run of failures, and is lengthened until it
		// could have reached the threshold, 5 × (5s + 1s) and the margin.
		name:   "ten failures, never six in a row",
		events: []event{failure(1), failure(6), failure(11), failure(16), failure(21), failure(36), failure(41), failure(46), failure(51), failure(56)},
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (38s); it failed 10 times, at most 5 in a row, below its failureThreshold of 6",
		after:  70 * time.Second,
	}, {
		name:    "six failures in a row: the kubelet restarts the container",
		events:  []event{failure(1), failure(6), failure(11), failure(16), failure(21), failure(26)},
		wantErr: `the new liveness probe of container "app" reached its failureThreshold, 6 failures in a row: the kubelet restarts the container`,
		after:   26 * time.Second,
	}, {
		// A 2s period and a 1s timeout: failures in a row are up to 4s
		// apart, and so are failures with a success between them. These
		// alternate with successes; the window, 6 × (2s + 1s) and the
		// margin, 20s, ends in them, and is lengthened as for a run of one
		// failure, 5 × (2s + 1s) and the margin: only the kubelet's kill
		// would have said that they reached the threshold.
		name:   "failures that the period cannot tell from a run",
		period: 2,
		events: []event{failure(1), failure(5), failure(9), failure(13), failure(17), failure(21), failure(25)},
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (20s); it failed 7 times, and the kubelet did not restart the container",
		after:  37 * time.Second,
	}, {
		// As above, but the failures go on past the lengthened window: it
		// is lengthened once, and the proof decides at its end.
		name:   "failures that go on now and then",
		period: 2,
		events: failuresEvery(3, 4, 59),
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (20s); it failed 9 times, and the kubelet did not restart the container",
		after:  37 * time.Second,
	}, {
		// The kubelet throws an errored attempt's result away: it does
		// not count towards the threshold.
		name: "six errored attempts in a row",
		events: []event{
			errored(1), errored(6), errored(11), errored(16), errored(21), errored(26),
		},
		want:  "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after: 38 * time.Second,
	}, {
		// An errored attempt neither counts nor ends a run: six failures
		// with errors between them are six in a row for the kubelet.
		name: "six failures in a row, with errored attempts between them",
		events: []event{
			failure(1), errored(6), failure(11), errored(16), failure(21), errored(26), failure(31), failure(36), failure(41),
		},
		wantErr: `the new liveness probe of container "app" reached its failureThreshold, 6 failures in a row: the kubelet restarts the container`,
		after:   41 * time.Second,
	}, {
		// An attempt between 11 and 21 passed: the errored one at 26
		// does not join the failures around it into one run.
		name: "failures with a passed attempt and an errored one between them",
		events: []event{
			failure(1), failure(6), failure(11), errored(26), failure(31), failure(36), failure(41),
		},
		want:  "the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (38s); it failed 6 times, at most 3 in a row, below its failureThreshold of 6",
		after: 64 * time.Second,
	}, {
		// Its Killing event can tell the kill before the last Unhealthy
		// event does, once the new probe can have decided it: 25s after the
		// change (5 periods of 5s); an earlier one is the old probe's
		// (TestProveOldKillInFlight).
		name:    "the kubelet kills the container for its liveness probe",
		events:  []event{failure(1), {"Killing", `Container app failed liveness probe, will be restarted`, 26 * time.Second}},
		wantErr: `the new liveness probe of container "app" reached its failureThreshold, 6 failures in a row: the kubelet restarts the container`,
		after:   26 * time.Second,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				before.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
				storedAt := time.Now()
				livenessChanged(before, stored, storedAt)
				stored.Spec.Containers[0].LivenessProbe = before.Spec.Containers[0].LivenessProbe.DeepCopy()
				stored.Spec.Containers[0].LivenessProbe.FailureThreshold = 6
				stored.Spec.Containers[0].LivenessProbe.PeriodSeconds = cmp.Or(tc.period, 5)
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				done := make(chan struct{})
				result := inBackground(func() (string, error) {
					defer close(done)
					return w.prove(context.Background(), before, stored, "app")
				})
				time.Sleep(time.Second)
				applied := time.Now()
				k.report(2, true)
				for _, e := range tc.events {
					select {
					case <-done:
					case <-time.After(time.Until(applied.Add(e.at))):
						k.event(e.reason, "spec.containers{app}", e.message, time.Now())
					}
				}
				got, err := result()
				if waited := time.Since(applied); waited != tc.after {
					t.Errorf("the proof ended %s after the kubelet applied the change, want %s", waited, tc.after)
				}
				if tc.wantErr != "" {
					if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
						t.Errorf("prove: %v, want %q", err, tc.wantErr)
					}
					return
				}
				if err != nil || got != tc.want {
					t.Errorf("prove = %q, %v; want %q", got, err, tc.want)
				}
			})
		})
	}
}

// The kubelet counts a restart only when it starts the next container, after
// its back-off: a container that its new liveness probe killed, and that
// waits out the back-off, fails the proof when it stops, as one that ended
// for good (restartPolicy Never, with another container still running) does.
func TestProveContainerStopped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stopped v1.ContainerStatus
		// sidecar is a second container of the Pod, which runs.
		sidecar bool
		// want is the failure, "" for none yet.
		want string
	}{{
		name: "waiting out the back-off",
		stopped: v1.ContainerStatus{
			State:                v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: crashLoopBackOff}},
			LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ContainerID: "containerd://1", Reason: "Error", ExitCode: 137}},
		},
		want: `container "app" stopped before its new liveness probe passed; its run ended with Error, exit code 137`,
	}, {
		name: "ended for good beside a running container",
		stopped: v1.ContainerStatus{
			ContainerID: "containerd://1",
			State:       v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ContainerID: "containerd://1", Reason: "Completed", ExitCode: 0}},
		},
		sidecar: true,
		want:    `container "app" stopped before its new liveness probe passed; its run ended with Completed, exit code 0`,
	}, {
		// The kubelet ending the Pod (an eviction) reports every container
		// stopped before the phase: the next status decides.
		name: "every container of the Pod stopped",
		stopped: v1.ContainerStatus{
			ContainerID: "containerd://1",
			State:       v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ContainerID: "containerd://1", Reason: "Error", ExitCode: 137}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before, stored := changedPods()
			livenessChanged(before, stored, time.Now())
			p, err := newProof(before, stored, "app", time.Second, true)
			if err != nil {
				t.Fatal(err)
			}
			running := stored.DeepCopy()
			running.Status.ObservedGeneration = 2
			running.Status.ContainerStatuses = []v1.ContainerStatus{{
				Name: "app", ContainerID: "containerd://1", Ready: true, Started: ptr.To(true), RestartCount: 3,
				State: v1.ContainerState{Running: &v1.ContainerStateRunning{}},
			}}
			now := time.Now()
			if s := p.observe(running, now); s.failed != nil || len(p.began) == 0 {
				t.Fatalf("running: %+v, began %v; want the liveness proof begun", s.failed, p.began)
			}
			stopped := running.DeepCopy()
			tc.stopped.Name, tc.stopped.RestartCount, tc.stopped.Started = "app", 3, ptr.To(false)
			stopped.Status.ContainerStatuses = []v1.ContainerStatus{tc.stopped}
			if tc.sidecar {
				stopped.Status.ContainerStatuses = append(stopped.Status.ContainerStatuses, v1.ContainerStatus{Name: "proxy", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}})
			}
			s := p.observe(stopped, now.Add(20*time.Second))
			switch {
			case tc.want != "" && (s.failed == nil || s.failed.message != tc.want):
				t.Errorf("stopped: %+v, want the failure %q", s.failed, tc.want)
			case tc.want == "" && s.failed != nil:
				t.Errorf("stopped: %q, want no failure before the next status", s.failed.message)
			case tc.want == "":
				// The window that ends meanwhile decides nothing; the
				// back-off in the next status fails the proof.
				if s := p.windowEnded(liveness, now.Add(40*time.Second)); s.done || s.failed != nil || p.passed[liveness] != "" {
					t.Errorf("the window ended while every container stopped: %+v, passed %q; want nothing decided", s, p.passed[liveness])
				}
				// A kubelet that says nothing more: the timeout says why.
				wantTimeout := `the kubelet applied generation 2, but every container of the Pod stopped (container "app" stopped before its new liveness probe passed; its run ended with Error, exit code 137), and the kubelet of node "node-1" has reported nothing since, within 5m0s (--wait-timeout)`
				if err := p.timedOut(5*time.Minute, "node-1"); err == nil || err.Error() != wantTimeout {
					t.Errorf("timed out: %v, want %q", err, wantTimeout)
				}
				waiting := stopped.DeepCopy()
				waiting.Status.ContainerStatuses[0].State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: crashLoopBackOff}}
				waiting.Status.ContainerStatuses[0].LastTerminationState = v1.ContainerState{Terminated: tc.stopped.State.Terminated}
				want := `container "app" stopped before its new liveness probe passed; its run ended with Error, exit code 137`
				if s := p.observe(waiting, now.Add(50*time.Second)); s.failed == nil || s.failed.message != want {
					t.Errorf("then in back-off: %+v, want the failure %q", s.failed, want)
				}
			}
		})
	}
}

// A container that does not restart (restartPolicy Never) fails its Pod
// where another would restart: the proof fails, and says how the container
// ended; the Pod is not skipped as finished. A Pod that the kubelet ended
// itself, which says why (Evicted), is skipped as finished, whatever its
// restartPolicy.
func TestProvePodFailed(t *testing.T) {
	for _, tc := range []struct {
		name          string
		restartPolicy v1.RestartPolicy
		reason        string
		want          string
		gone          bool
	}{{
		name:          "restartPolicy Never",
		restartPolicy: v1.RestartPolicyNever,
		want:          `the Pod failed before the change was proven: container "app" ended with Error, exit code 137`,
	}, {
		// ContainerRestartRules: the container does not restart, though
		// the Pod's policy is Always.
		name:          "a container that does not restart in a Pod that would",
		restartPolicy: v1.RestartPolicyAlways,
		want:          `the Pod failed before the change was proven: container "app" ended with Error, exit code 137`,
	}, {
		name:          "evicted",
		restartPolicy: v1.RestartPolicyNever,
		reason:        "Evicted",
		want:          "finished (Failed: Evicted)",
		gone:          true,
	}, {
		name:          "restartPolicy Always, ended by the kubelet at a node shutdown",
		restartPolicy: v1.RestartPolicyAlways,
		reason:        "Terminated",
		want:          "finished (Failed: Terminated)",
		gone:          true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				before.Spec.RestartPolicy = tc.restartPolicy
				storedAt := time.Now()
				livenessChanged(before, stored, storedAt)
				stored.Spec.RestartPolicy = tc.restartPolicy
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				result := inBackground(func() (string, error) {
					return w.prove(context.Background(), before, stored, "app")
				})
				time.Sleep(time.Second)
				k.report(2, true)
				time.Sleep(5 * time.Second)
				failed := k.pod.DeepCopy()
				failed.Status.Phase, failed.Status.Reason = v1.PodFailed, tc.reason
				failed.Status.ContainerStatuses[0].Ready = false
				failed.Status.ContainerStatuses[0].State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: "Error", ExitCode: 137}}
				k.watcher.Modify(failed)
				_, err := result()
				var gone *podGoneError
				if err == nil || errors.As(err, &gone) != tc.gone || !strings.HasPrefix(err.Error(), tc.want) {
					t.Errorf("prove: %v (the Pod gone: %t), want %q (gone: %t)", err, errors.As(err, &gone), tc.want, tc.gone)
				}
			})
		})
	}
}

// The kubelet's recorder combines a Pod's Unhealthy events into one once
// they say too many different things: its count goes up with every probe's
// failure, it says only the last, and its path is the container of the
// event that began it. A relaxed liveness probe's proof counts its own
// failures, not the readiness probe's between them; when another container
// has a liveness probe too, the combined event does not say whose failed.
func TestProveCombinedEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		// sidecar gives the Pod a second container with a liveness probe,
		// whose event began the combined one.
		sidecar bool
		want    string
	}{{
		name: "the only container with a liveness probe",
		want: "no restart through the probe's failure window (38s); it failed 4 times, at most 4 in a row, below its failureThreshold of 6",
	}, {
		name:    "a sidecar with a liveness probe",
		sidecar: true,
		want:    "no restart through the probe's failure window (38s); the kubelet combined the Pod's Unhealthy events, which then do not say whose liveness probe failed: only a restart shows this one's failures",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				before.Spec.Containers[0].LivenessProbe = httpGet("/livez")
				before.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
				fieldPath := "spec.containers{app}"
				if tc.sidecar {
					before.Spec.Containers = append(before.Spec.Containers, v1.Container{Name: "proxy", LivenessProbe: httpGet("/proxy")})
					fieldPath = "spec.containers{proxy}"
				}
				storedAt := time.Now()
				stored.Spec.Containers = slices.Clone(before.Spec.Containers)
				livenessChanged(before, stored, storedAt)
				stored.Spec.Containers[0].LivenessProbe.FailureThreshold = 6
				stored.Spec.Containers[0].LivenessProbe.PeriodSeconds = 5
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				result := inBackground(func() (string, error) {
					return w.prove(context.Background(), before, stored, "app")
				})
				time.Sleep(time.Second)
				k.report(2, true)
				combined := &v1.Event{
					ObjectMeta:     metav1.ObjectMeta{Name: "web.combined", Namespace: "ns"},
					InvolvedObject: v1.ObjectReference{Kind: "Pod", Name: "web", UID: k.pod.UID, FieldPath: fieldPath},
					Reason:         "Unhealthy", Type: v1.EventTypeWarning, Count: 10,
					FirstTimestamp: metav1.NewTime(storedAt.Add(-time.Minute)),
				}
				// Every 5s the liveness probe fails once, and the readiness
				// probe three times.
				for i := range 4 {
					for j, message := range []string{"Liveness probe failed: timed out", "Readiness probe failed: 1", "Readiness probe failed: 2", "Readiness probe failed: 3"} {
						time.Sleep(time.Until(storedAt.Add(time.Duration(5*i+1)*time.Second + time.Duration(j)*time.Second)))
						combined = combined.DeepCopy()
						combined.Count++
						combined.Message = "(combined from similar events): " + message
						combined.LastTimestamp = metav1.NewTime(time.Now())
						if combined.ResourceVersion == "" {
							combined.ResourceVersion = "1"
							k.events.Add(combined)
							continue
						}
						k.events.Modify(combined)
					}
				}
				got, err := result()
				if err != nil || !strings.HasSuffix(got, tc.want) {
					t.Errorf("prove = %q, %v; want it to end %q", got, err, tc.want)
				}
			})
		})
	}
}

// The kubelet's back-off before it starts a crash-looping container again:
// 10s after the second run, doubling up to 5 minutes.
func TestKubeletBackOff(t *testing.T) {
	for restarts, want := range map[int32]time.Duration{
		0: 10 * time.Second, 1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second,
		5: 160 * time.Second, 6: 5 * time.Minute, 1000: 5 * time.Minute,
	} {
		if got := kubeletBackOff(restarts); got != want {
			t.Errorf("kubeletBackOff(%d) = %s, want %s", restarts, got, want)
		}
	}
}

// crashLooping makes the Pod's container wait out the kubelet's back-off
// after its fifth restart, whose run ended ended ago: 160s of back-off.
func crashLooping(pod *v1.Pod, ended time.Duration) {
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{
		Name: "app", RestartCount: 5, Started: ptr.To(false),
		State:                v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 2m40s restarting failed container"}},
		LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: "Error", ExitCode: 1, FinishedAt: metav1.NewTime(time.Now().Add(-ended))}},
	}}
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionFalse}}
}

// A change to a crash-looping container is proven from its next start: the
// kubelet's back-off still to come, 160s less the 20s since its last run
// ended, is added to --wait-timeout, 1m here, and the new probe's window,
// 6 × (5s + 1s) and the margin, 2s, begins at the start. The container
// starting again after the back-off is not a restart that fails the proof;
// one that does not start in time fails it, and says the back-off it waited.
func TestProveCrashLooping(t *testing.T) {
	for _, tc := range []struct {
		name string
		// startsAfter is when the container starts again after the kubelet
		// reported the change's generation; 0 for never.
		startsAfter time.Duration
		// initialDelay is the relaxed probe's initialDelaySeconds, which the
		// kubelet waits from the container's start before it probes.
		initialDelay int32
		// timeout is --wait-timeout; 1m when 0.
		timeout time.Duration
		// stopsAgain has the container that starts again stop 10s later,
		// before it is started, and wait out the kubelet's next back-off.
		stopsAgain bool
		change     func(p *v1.Probe)
		want       string
		wantErr    string
		after      time.Duration
	}{{
		name:        "a liveness probe relaxed, proven from the container's next start",
		startsAfter: 140 * time.Second,
		want:        "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after:       178 * time.Second,
	}, {
		name:         "a liveness probe relaxed with an initial delay, proven from its first run in the next container",
		startsAfter:  140 * time.Second,
		initialDelay: 60,
		timeout:      2 * time.Minute,
		want:         "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (1m38s)",
		after:        238 * time.Second,
	}, {
		name:    "the container does not start again",
		wantErr: `the kubelet applied generation 2, but container "app" had not started within 3m20s (--wait-timeout, and 2m20s of the kubelet's back-off before the container started again), so its new liveness probe has not run`,
		after:   200 * time.Second,
	}, {
		// Its next back-off, 5m, is not counted: a proof that counted
		// each would wait as long as the crash loop lasts.
		name:        "the container stops again before it starts",
		startsAfter: 140 * time.Second,
		stopsAgain:  true,
		wantErr:     `the kubelet applied generation 2, but container "app" had not started within 3m20s (--wait-timeout, and 2m20s of the kubelet's back-off before the container started again), so its new liveness probe has not run`,
		after:       200 * time.Second,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				crashLooping(before, 20*time.Second)
				livenessChanged(before, stored, time.Now())
				stored.Spec.Containers[0].LivenessProbe = before.Spec.Containers[0].LivenessProbe.DeepCopy()
				stored.Spec.Containers[0].LivenessProbe.FailureThreshold = 6
				stored.Spec.Containers[0].LivenessProbe.PeriodSeconds = 5
				stored.Spec.Containers[0].LivenessProbe.InitialDelaySeconds = tc.initialDelay
				stored.Status = *before.Status.DeepCopy()
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: cmp.Or(tc.timeout, time.Minute), margin: 2 * time.Second}
				start := time.Now()
				result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
				k.pod.Status.ObservedGeneration = 2
				k.watcher.Modify(k.pod.DeepCopy())
				switch {
				case tc.stopsAgain:
					time.Sleep(tc.startsAfter)
					k.restarts = 6
					k.reportStarted(2, false, false)
					time.Sleep(10 * time.Second)
					k.pod = k.pod.DeepCopy()
					crashLooping(k.pod, 0)
					k.pod.Status.ContainerStatuses[0].RestartCount = 7
					k.watcher.Modify(k.pod)
				case tc.startsAfter > 0:
					time.Sleep(tc.startsAfter)
					k.restarts = 6
					k.report(2, true)
				}
				got, err := result()
				if waited := time.Since(start); waited != tc.after {
					t.Errorf("the proof ended after %s, want %s", waited, tc.after)
				}
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// A container that the kubelet kills for its liveness probe restarts only
// once it has stopped, up to its grace period later; the kubelet's Killing
// event says so at once, unless its recorder drops the Pod's Normal events,
// as it does once a crash-looping Pod has used up their burst of 25. Then the
// liveness probe's window includes the grace period, the probe's own
// terminationGracePeriodSeconds or else the Pod's (30s when it does not
// say), so that a restart that shows late still fails the proof.
func TestProveLivenessKillGrace(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pod, probe *int64
		// events is how many Normal events of the Pod the kubelet recorded
		// in the last hour.
		events int32
		// restartAfter is when the container restarts after the kubelet
		// reported the change's generation; 0 for never.
		restartAfter time.Duration
		want         string
		wantErr      string
	}{{
		// Room for the Killing event.
		name:   "the kubelet's events get through",
		pod:    ptr.To[int64](30),
		events: 24,
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (35s)",
	}, {
		name:   "the Pod's grace period",
		pod:    ptr.To[int64](30),
		events: 25,
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (1m5s)",
	}, {
		name:   "the probe's own",
		pod:    ptr.To[int64](30),
		probe:  ptr.To[int64](5),
		events: 40,
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (40s)",
	}, {
		name:   "the API's default",
		events: 40,
		want:   "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (1m5s)",
	}, {
		name:         "a restart that shows after the probe's own window",
		pod:          ptr.To[int64](30),
		events:       40,
		restartAfter: 50 * time.Second,
		wantErr:      `container "app" restarted before its new liveness probe passed (restart count 1, was 0); its last run ended with Error, exit code 137`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				livenessChanged(before, stored, time.Now())
				before.Spec.TerminationGracePeriodSeconds = tc.pod
				stored.Spec.TerminationGracePeriodSeconds = tc.pod
				stored.Spec.Containers[0].LivenessProbe.TerminationGracePeriodSeconds = tc.probe
				client, k := newKubelet(t, before)
				// The kubelet's Normal events of the Pod; its Warning events and
				// another component's, which the filter counts apart; and one
				// from before the last burst's refill time.
				for _, e := range []v1.Event{
					{ObjectMeta: metav1.ObjectMeta{Name: "web.1"}, Type: v1.EventTypeNormal, Source: v1.EventSource{Component: "kubelet"}, Count: tc.events, LastTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))},
					{ObjectMeta: metav1.ObjectMeta{Name: "web.2"}, Type: v1.EventTypeWarning, Source: v1.EventSource{Component: "kubelet"}, Count: 30, LastTimestamp: metav1.NewTime(time.Now())},
					{ObjectMeta: metav1.ObjectMeta{Name: "web.3"}, Type: v1.EventTypeNormal, Source: v1.EventSource{Component: "default-scheduler"}, Count: 30, LastTimestamp: metav1.NewTime(time.Now())},
					{ObjectMeta: metav1.ObjectMeta{Name: "web.4"}, Type: v1.EventTypeNormal, Source: v1.EventSource{Component: "kubelet"}, Count: 30, LastTimestamp: metav1.NewTime(time.Now().Add(-3 * time.Hour))},
				} {
					e.Namespace, e.InvolvedObject = "ns", v1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "web", UID: before.UID}
					if _, err := client.CoreV1().Events("ns").Create(context.Background(), &e, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				w := &prover{client: client, timeout: 5 * time.Minute, margin: 2 * time.Second}
				var (
					got  string
					err  error
					done = make(chan struct{})
				)
				go func() {
					defer close(done)
					got, err = w.prove(context.Background(), before, stored, "app")
				}()
				k.report(2, true)
				if tc.restartAfter > 0 {
					select {
					case <-done:
						// Proven before the restart showed.
					case <-time.After(tc.restartAfter):
						k.restart(2)
					}
				}
				<-done
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// A startup probe relaxed on a container that its old one kept killing,
// now in a crash loop, is proven from its next start: the start after the
// back-off, 160s, is not a restart that fails the proof, and the container
// starting, 30s later, passes it, though --wait-timeout, 1m, is over by
// then but for the back-off.
func TestProveStartupCrashLooping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before, stored := changedPods()
		startupChanged(before, stored)
		crashLooping(before, 0)
		stored.Status = *before.Status.DeepCopy()
		client, k := newKubelet(t, before)
		w := &prover{client: client, timeout: time.Minute, margin: 2 * time.Second}
		result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
		k.pod.Status.ObservedGeneration = 2
		k.watcher.Modify(k.pod.DeepCopy())
		time.Sleep(160 * time.Second)
		k.restarts = 6
		k.reportStarted(2, false, false)
		time.Sleep(30 * time.Second)
		k.reportStarted(2, true, false)
		got, err := result()
		if want := "the kubelet applied generation 2; the new startup probe passed: the container started"; err != nil || got != want {
			t.Errorf("prove = %q, %v; want %q", got, err, want)
		}
	})
}

// With --wait=applied, a change is waited on only until the kubelet
// reports its generation: the new readiness probe is not proven.
func TestProveApplied(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before, stored := changedPods()
		client, k := newKubelet(t, before)
		w := &prover{client: client, timeout: time.Minute, margin: 2 * time.Second}
		start := time.Now()
		result := inBackground(func() (string, error) { return w.applied(context.Background(), before, stored, "app") })
		k.report(1, true)
		time.Sleep(3 * time.Second)
		k.report(2, false)
		got, err := result()
		if want := "the kubelet applied generation 2; its new probes are not proven (--wait=applied)"; err != nil || got != want {
			t.Errorf("applied = %q, %v; want %q", got, err, want)
		}
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("waited %s, want until the kubelet reported the generation, 3s", waited)
		}
	})
}

// A container that the kubelet decided to kill for its old liveness probe
// before the change was stored, as in a restart loop with a failureThreshold
// of 1, may stop after the kubelet applied the change: its stop says
// nothing of the new probe, and the proof begins again from the container's
// next start, after the kubelet's back-off, 40s after its third restart.
// The window, 6 × (5s + 1s) and the margin, 2s, that began on the container
// that stopped decides nothing. The kubelet's Killing event, in the second
// in which the change was stored, says so; without it, which the kubelet's
// recorder may drop, the container's status does: its run ended 3s after
// the change, before the new probe could have failed 6 times in a row, 25s
// after. A run that ended after that, without the event, may have been the
// new probe's doing, and fails the proof. A container that takes longer to
// stop than the new probe's window, within its grace period, is not proven
// meanwhile: the kubelet holds the probe that decided the kill, and the
// new one may not run until the next container.
func TestProveOldKillInFlight(t *testing.T) {
	for _, tc := range []struct {
		name string
		// event is set when the kubelet's Killing event got through: at
		// eventAt after the change was stored, listed when the proof
		// begins, or seen live by its watch.
		event   bool
		eventAt time.Duration
		live    bool
		// ended is when the run ended after the change was stored, and
		// grace the Pod's terminationGracePeriodSeconds, unless 0.
		ended time.Duration
		grace int64
		// keepCount changes the probe's periodSeconds alone, and keeps
		// its failureThreshold of 1: the kubelet keeps the old probe's
		// count of failures, and the new probe may decide a kill at once.
		keepCount bool
		want      string
		wantErr   string
		after     time.Duration
	}{{
		name:  "the Killing event",
		event: true,
		ended: 3 * time.Second,
		want:  "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after: 81 * time.Second,
	}, {
		// The node's clock a little ahead, or the kubelet's sync lag across
		// a second: the old probe's kill is told in a later second than
		// the one in which the change was stored.
		name:    "the Killing event a second later, seen live",
		event:   true,
		eventAt: time.Second,
		live:    true,
		ended:   3 * time.Second,
		want:    "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after:   81 * time.Second,
	}, {
		name:    "the Killing event a second later, listed",
		event:   true,
		eventAt: time.Second,
		ended:   3 * time.Second,
		want:    "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after:   81 * time.Second,
	}, {
		name:  "the Killing event, a container that stops 50s later, within its grace period of 60s",
		event: true,
		ended: 50 * time.Second,
		grace: 60,
		want:  "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after: 128 * time.Second,
	}, {
		name:      "the Killing event in the second of the change, a new probe that keeps the count, a container that stops 50s later",
		event:     true,
		ended:     50 * time.Second,
		grace:     60,
		keepCount: true,
		want:      "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (8s)",
		after:     98 * time.Second,
	}, {
		name:  "no Killing event: the run ended before the new probe could have decided",
		ended: 3 * time.Second,
		want:  "the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (38s)",
		after: 81 * time.Second,
	}, {
		name:    "no Killing event: the run ended after the new probe could have decided",
		ended:   31 * time.Second,
		wantErr: `container "app" stopped before its new liveness probe passed; its run ended with Error, exit code 137`,
		after:   31 * time.Second,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				before.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
				storedAt := time.Now()
				livenessChanged(before, stored, storedAt)
				stored.Spec.Containers[0].LivenessProbe = before.Spec.Containers[0].LivenessProbe.DeepCopy()
				stored.Spec.Containers[0].LivenessProbe.FailureThreshold = 6
				if tc.keepCount {
					stored.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
				}
				stored.Spec.Containers[0].LivenessProbe.PeriodSeconds = 5
				if tc.grace > 0 {
					before.Spec.TerminationGracePeriodSeconds = ptr.To(tc.grace)
					stored.Spec.TerminationGracePeriodSeconds = ptr.To(tc.grace)
				}
				started := metav1.NewTime(storedAt.Add(-30 * time.Second))
				before.Status.ContainerStatuses = []v1.ContainerStatus{{
					Name: "app", ContainerID: "containerd://1", Ready: true, Started: ptr.To(true), RestartCount: 3,
					State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: started}},
				}}
				stored.Status = *before.Status.DeepCopy()
				client, k := newKubelet(t, before)
				kill := func() {
					at := metav1.NewTime(storedAt.Add(tc.eventAt))
					if _, err := client.CoreV1().Events("ns").Create(context.Background(), &v1.Event{
						ObjectMeta:     metav1.ObjectMeta{Name: "web.killing", Namespace: "ns"},
						InvolvedObject: v1.ObjectReference{Kind: "Pod", Name: "web", UID: before.UID, FieldPath: "spec.containers{app}"},
						Reason:         "Killing", Type: v1.EventTypeNormal, Message: "Container app failed liveness probe, will be restarted",
						FirstTimestamp: at, LastTimestamp: at,
					}, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				if tc.event && !tc.live {
					kill()
				}
				w := &prover{client: client, timeout: 30 * time.Second, margin: 2 * time.Second}
				start := time.Now()
				var took time.Duration
				done := make(chan struct{})
				result := inBackground(func() (string, error) {
					defer close(done)
					defer func() { took = time.Since(start) }()
					return w.prove(context.Background(), before, stored, "app")
				})
				report := func(status v1.ContainerStatus) {
					select {
					case <-done:
						return
					default:
					}
					pod := before.DeepCopy()
					pod.Status.ObservedGeneration = 2
					pod.Status.ContainerStatuses = []v1.ContainerStatus{status}
					ready := v1.ConditionFalse
					if status.Ready {
						ready = v1.ConditionTrue
					}
					pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: ready}}
					k.watcher.Modify(pod)
				}
				time.Sleep(time.Second)
				report(before.Status.ContainerStatuses[0])
				if tc.event && tc.live {
					time.Sleep(time.Second)
					kill()
					time.Sleep(tc.ended - 2*time.Second)
				} else {
					time.Sleep(tc.ended - time.Second)
				}
				ended := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ContainerID: "containerd://1", Reason: "Error", ExitCode: 137, StartedAt: started, FinishedAt: metav1.Now()}}
				report(v1.ContainerStatus{
					Name: "app", ContainerID: "containerd://1", Started: ptr.To(false), RestartCount: 3,
					State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: crashLoopBackOff}}, LastTerminationState: ended,
				})
				time.Sleep(40 * time.Second)
				report(v1.ContainerStatus{
					Name: "app", ContainerID: "containerd://2", Ready: true, Started: ptr.To(true), RestartCount: 4,
					State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}}, LastTerminationState: ended,
				})
				got, err := result()
				if took != tc.after {
					t.Errorf("the proof ended after %s, want %s", took, tc.after)
				}
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// A startup probe changed on a container that has not started, whose old
// startup probe's kill was in flight (the kubelet's Killing event in the
// second in which the change was stored), is proven on the next container,
// which the new probe starts. A kill that the new probe decided, its third
// failure in a row 2s after the change, at the soonest, is its failure,
// whether or not its Killing event got through.
func TestProveStartupKills(t *testing.T) {
	for _, tc := range []struct {
		name string
		// killedAt is when the kubelet decided the kill, after the change
		// was stored, and event whether its Killing event got through.
		killedAt time.Duration
		event    bool
		want     string
		wantErr  string
	}{{
		name:     "the old probe's kill, in flight",
		killedAt: 0,
		event:    true,
		want:     "the kubelet applied generation 2; the new startup probe passed: the container started",
	}, {
		name:     "the new probe's kill",
		killedAt: 3 * time.Second,
		event:    true,
		wantErr:  `container "app" restarted before its new startup probe passed (restart count 1, was 0); its last run ended with Completed, exit code 0; its last Killing event, 1s ago: Container app failed startup probe, will be restarted`,
	}, {
		name:     "the new probe's kill, its Killing event dropped",
		killedAt: 3 * time.Second,
		wantErr:  `container "app" restarted before its new startup probe passed (restart count 1, was 0); its last run ended with Completed, exit code 0`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, stored := changedPods()
				startupChanged(before, stored)
				storedAt := time.Now()
				stored.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-probe", Operation: metav1.ManagedFieldsOperationUpdate, Time: ptr.To(metav1.NewTime(storedAt))}}
				stored.Spec.Containers[0].StartupProbe.FailureThreshold = 3
				stored.Spec.Containers[0].StartupProbe.PeriodSeconds = 1
				started := metav1.NewTime(storedAt.Add(-time.Minute))
				running := v1.ContainerStatus{
					Name: "app", ContainerID: "containerd://1", Started: ptr.To(false),
					State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: started}},
				}
				before.Status.ContainerStatuses = []v1.ContainerStatus{running}
				stored.Status = *before.Status.DeepCopy()
				client, k := newKubelet(t, before)
				w := &prover{client: client, timeout: time.Hour, margin: 2 * time.Second}
				result := inBackground(func() (string, error) { return w.prove(context.Background(), before, stored, "app") })
				report := func(status v1.ContainerStatus) {
					if k.watcher.IsStopped() {
						return
					}
					pod := before.DeepCopy()
					pod.Status.ObservedGeneration = 2
					pod.Status.ContainerStatuses = []v1.ContainerStatus{status}
					k.watcher.Modify(pod)
				}
				report(running)
				time.Sleep(tc.killedAt)
				if tc.event {
					if _, err := client.CoreV1().Events("ns").Create(context.Background(), &v1.Event{
						ObjectMeta:     metav1.ObjectMeta{Name: "web.killing", Namespace: "ns"},
						InvolvedObject: v1.ObjectReference{Kind: "Pod", Name: "web", UID: before.UID, FieldPath: "spec.containers{app}"},
						Reason:         "Killing", Type: v1.EventTypeNormal, Message: "Container app failed startup probe, will be restarted",
						FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(),
					}, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				time.Sleep(time.Second)
				ended := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ContainerID: "containerd://1", Reason: "Completed", StartedAt: started, FinishedAt: metav1.Now()}}
				report(v1.ContainerStatus{
					Name: "app", ContainerID: "containerd://2", Started: ptr.To(false), RestartCount: 1,
					State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}}, LastTerminationState: ended,
				})
				time.Sleep(5 * time.Second)
				report(v1.ContainerStatus{
					Name: "app", ContainerID: "containerd://2", Started: ptr.To(true), RestartCount: 1,
					State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.Now()}}, LastTerminationState: ended,
				})
				got, err := result()
				checkProof(t, got, err, tc.want, tc.wantErr)
			})
		})
	}
}

// The time in which a kill is the old probes' (soonestKill) counts the new
// probes that can kill the container that runs: not the new startup probe
// of a container that has started, which runs only when it restarts.
func TestSoonestKillOfAStartedContainer(t *testing.T) {
	before, stored := changedPods()
	livenessChanged(before, stored, time.Now())
	stored.Spec.Containers[0].LivenessProbe.FailureThreshold = 3
	stored.Spec.Containers[0].LivenessProbe.PeriodSeconds = 10
	before.Spec.Containers[0].StartupProbe = httpGet("/started")
	stored.Spec.Containers[0].StartupProbe = httpGet("/started")
	stored.Spec.Containers[0].StartupProbe.FailureThreshold = 2
	stored.Spec.Containers[0].StartupProbe.PeriodSeconds = 1
	for _, tc := range []struct {
		name    string
		started bool
		probes  []probeType
	}{
		{name: "started: the liveness probe alone", started: true, probes: []probeType{liveness}},
		{name: "not started: both", probes: []probeType{liveness, startup}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, stored := before.DeepCopy(), stored.DeepCopy()
			before.Status.ContainerStatuses[0].Started = ptr.To(tc.started)
			stored.Status = *before.Status.DeepCopy()
			p, err := newProof(before, stored, "app", time.Second, true)
			if err != nil {
				t.Fatal(err)
			}
			deciding := map[probeType]*v1.Probe{}
			for _, t := range tc.probes {
				deciding[t] = *t.of(&stored.Spec.Containers[0])
			}
			if want := soonestKill(probesOf(before, "app"), deciding); p.soonestKill != want {
				t.Errorf("soonestKill %s, want %s, of %v", p.soonestKill, want, tc.probes)
			}
		})
	}
}

// A Killing event is about the container that ran at the change only when
// that container had started by then, and the run before it had ended
// before: an app that stops at once on SIGTERM ends its run, and the next
// one starts, in the second of the kill.
func TestRanSince(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name              string
		started, finished time.Duration
		want              bool
	}{
		{name: "started before, the last run ended before", started: -30 * time.Second, finished: -31 * time.Second, want: true},
		{name: "started in the second of the kill", started: 300 * time.Millisecond, want: true},
		{name: "started after", started: time.Second},
		{name: "the last run ended in the second of the kill", started: 500 * time.Millisecond, finished: 400 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := v1.ContainerStatus{Name: "app", ContainerID: "containerd://2", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(at.Add(tc.started))}}}
			if tc.finished != 0 {
				status.LastTerminationState.Terminated = &v1.ContainerStateTerminated{ContainerID: "containerd://1", FinishedAt: metav1.NewTime(at.Add(tc.finished))}
			}
			pod := webPod()
			pod.Status.ContainerStatuses = []v1.ContainerStatus{status}
			p := &proof{container: "app", last: pod, runningAtChange: "containerd://2"}
			if got := p.ranSince(at); got != tc.want {
				t.Errorf("ranSince = %t, want %t", got, tc.want)
			}
		})
	}
}
