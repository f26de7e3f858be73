package probeplugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// pods returns Pods named like webPod's, with the given names.
func pods(names ...string) []*v1.Pod {
	var out []*v1.Pod
	for _, n := range names {
		p := webPod()
		p.Name = n
		out = append(out, p)
	}
	return out
}

func newRollout(client *fake.Clientset, maxInFlight int) (*rollout, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &rollout{
		patcher:        &patcher{client: client, change: setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](10)}}, dryRun: dryRunNone},
		maxInFlight:    maxInFlight,
		printChanged:   printers.NewTypeSetter(scheme.Scheme).ToPrinter(&printers.NamePrinter{Operation: "probes set"}),
		printUnchanged: printers.NewTypeSetter(scheme.Scheme).ToPrinter(&printers.NamePrinter{Operation: "unchanged"}),
		out:            &out,
		errOut:         &errOut,
	}, &out, &errOut
}

// The rollout stops at the first Pod that fails: the Pods after it are not
// sent, and the error says which Pods were done, failed and not started.
func TestRolloutStopsAtFirstFailure(t *testing.T) {
	all := pods("a", "b", "c", "d")
	objects := []runtime.Object{}
	for _, p := range all {
		objects = append(objects, p)
	}
	client := fake.NewClientset(objects...)
	var patched []string
	client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		name := action.(k8stesting.PatchAction).GetName()
		patched = append(patched, name)
		if name == "b" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, name, errors.New("violates PodSecurity \"baseline:latest\": probe or lifecycle host"))
		}
		return false, nil, nil
	})
	r, out, errOut := newRollout(client, 1)
	n, err := r.run(context.Background(), all)
	if n != 1 {
		t.Errorf("%d Pods changed, want 1", n)
	}
	if got := strings.Join(patched, " "); got != "a b" {
		t.Errorf("patched %q, want a and b only", got)
	}
	want := "stopped at the first Pod that failed\ndone (1): pod/a\nfailed (1): pod/b\nnot started, left as they are (2): pod/c pod/d"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if got := out.String(); got != "pod/a probes set\n" {
		t.Errorf("printed %q", got)
	}
	if got := errOut.String(); !strings.HasPrefix(got, "error: pod/b: pods \"b\" is forbidden: violates PodSecurity") || !strings.Contains(got, "\nhint: the Pod with the new probe breaks the namespace's Pod Security level") {
		t.Errorf("printed the error as %q", got)
	}
	for _, name := range []string{"c", "d"} {
		pod, err := client.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds != 1 {
			t.Errorf("pod %s, after the failure, was changed", name)
		}
	}
}

// A single Pod's error is printed once, with its hint, and the returned
// error says so.
func TestRolloutOnePod(t *testing.T) {
	client := fake.NewClientset()
	r, _, errOut := newRollout(client, 1)
	_, err := r.run(context.Background(), pods("gone"))
	if !errors.Is(err, errReported) {
		t.Errorf("err = %v, want errReported", err)
	}
	if got := errOut.String(); got != "error: pod/gone: pods \"gone\" not found\n" {
		t.Errorf("printed %q", got)
	}
}

// barrier is a change that waits until n Pods are being changed at once,
// and records how many were at most.
type barrier struct {
	n           int
	mu          sync.Mutex
	arrived     int
	running     int
	maxRunning  int
	wave        chan struct{}
	removeProbe removeChange
}

func (b *barrier) apply(pod *v1.Pod, c *v1.Container) error {
	b.mu.Lock()
	b.arrived++
	b.running++
	b.maxRunning = max(b.maxRunning, b.running)
	wave := b.wave
	if b.arrived%b.n == 0 {
		close(b.wave)
		b.wave = make(chan struct{})
	}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.running--
		b.mu.Unlock()
	}()
	select {
	case <-wave:
	case <-time.After(10 * time.Second):
		return errors.New("fewer Pods than --max-in-flight were changed at once")
	}
	return b.removeProbe.apply(pod, c)
}

// With --max-in-flight=N, N Pods change at once, and no more.
func TestRolloutMaxInFlight(t *testing.T) {
	const n, inFlight = 12, 4
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("p%02d", i))
	}
	all := pods(names...)
	var objects []runtime.Object
	for _, p := range all {
		objects = append(objects, p)
	}
	client := fake.NewClientset(objects...)
	r, _, errOut := newRollout(client, inFlight)
	b := &barrier{n: inFlight, wave: make(chan struct{}), removeProbe: removeChange{types: []probeType{liveness}}}
	r.patcher.change = b
	changed, err := r.run(context.Background(), all)
	if err != nil || changed != n {
		t.Errorf("run = %d, %v; want %d Pods changed\n%s", changed, err, n, errOut)
	}
	if b.maxRunning != inFlight {
		t.Errorf("at most %d Pods changed at once, want %d", b.maxRunning, inFlight)
	}
}

// readyPod is webPod at generation 2, with the status the kubelet wrote.
func readyPod(phase v1.PodPhase, observedGeneration int64, ready v1.ConditionStatus) *v1.Pod {
	pod := webPod()
	pod.Generation = 2
	pod.Status.Phase = phase
	pod.Status.ObservedGeneration = observedGeneration
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: ready}}
	return pod
}

func TestWaitReady(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pod     *v1.Pod
		wantErr string
	}{
		{"Ready at the generation of the change", readyPod(v1.PodRunning, 2, v1.ConditionTrue), ""},
		{"Ready, but the kubelet has not seen the change", readyPod(v1.PodRunning, 1, v1.ConditionTrue), "not Ready within 100ms (--timeout)"},
		{"not Ready", readyPod(v1.PodRunning, 2, v1.ConditionFalse), "not Ready within 100ms (--timeout)"},
		{"finished", readyPod(v1.PodFailed, 2, v1.ConditionFalse), "the Pod is Failed, it will not be Ready again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.pod)
			err := waitReady(context.Background(), client, tc.pod, 100*time.Millisecond)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// waitReady sees the Pod become Ready after it started to wait.
func TestWaitReadyWatches(t *testing.T) {
	pod := readyPod(v1.PodRunning, 1, v1.ConditionFalse)
	client := fake.NewClientset(pod)
	ctx := context.Background()
	done := make(chan error)
	go func() { done <- waitReady(ctx, client, pod, time.Minute) }()
	ready := readyPod(v1.PodRunning, 2, v1.ConditionTrue)
	if _, err := client.CoreV1().Pods("ns").UpdateStatus(ctx, ready, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("waitReady = %v", err)
	}
}
