/*
Copyright The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// This file is not part of Kubernetes: the KEP-6318 project compiles it into
// pkg/kubelet/prober of the patched tree and of the base tree with
// go test -overlay (make bench). HARNESS_TREE says which tree it runs in.

package prober

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubepod "k8s.io/kubernetes/pkg/kubelet/pod"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"
	statustest "k8s.io/kubernetes/pkg/kubelet/status/testing"
	kubeletutil "k8s.io/kubernetes/pkg/kubelet/util"
)

// kepContext is the benchmarks' context, cancelled when the benchmark ends.
// Its logger discards: the benchmarks measure the prober, not logging, and
// build on both bases (1.38 moved test/utils/ktesting to k8s.io/ktesting).
func kepContext(b *testing.B) context.Context {
	return klog.NewContext(b.Context(), logr.Discard())
}

// kepEnableGate turns MutableContainerProbes on in the patched tree. The base
// tree does not have the gate.
func kepEnableGate(b *testing.B) {
	const gate = featuregate.Feature("MutableContainerProbes")
	_, known := utilfeature.DefaultMutableFeatureGate.GetAll()[gate]
	switch tree := os.Getenv("HARNESS_TREE"); {
	case tree == "patched" && known:
		featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, gate, true)
	case tree == "base" && !known:
	default:
		b.Fatalf("HARNESS_TREE=%q, and the gate %s is known: %v", tree, gate, known)
	}
}

func kepProbe(command string, period int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{command}}},
		TimeoutSeconds:   1,
		PeriodSeconds:    period,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

// BenchmarkKEPDoProbe measures one probe of a running, ready container by its
// readiness worker, with MutableContainerProbes off as it is by default: the
// probe loop's hot path, which the series rewrites without a gate. It reports
// the process CPU time per probe, for the budget, next to the wall time.
func BenchmarkKEPDoProbe(b *testing.B) {
	ctx := kepContext(b)
	m := newTestManager()
	w := newTestWorker(m, readiness, v1.Probe{})
	m.statusManager.SetPodStatus(klog.FromContext(ctx), w.pod, getTestRunningStatus())
	// The first probe publishes the container's results; the next ones change nothing.
	for range 2 {
		if !w.doProbe(ctx) {
			b.Fatal("the worker stopped")
		}
		<-m.readinessManager.Updates()
	}

	kepLoop(b, func() {
		if !w.doProbe(ctx) {
			b.Fatal("the worker stopped")
		}
	})
}

// kepLoop runs op in the benchmark's loop, and reports the process CPU time
// per op, for the budgets, next to the wall time.
func kepLoop(b *testing.B, op func()) {
	var ru syscall.Rusage
	cpu := func() int64 {
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	b.ReportAllocs()
	start, n := cpu(), 0
	for b.Loop() {
		n++
		op()
	}
	b.ReportMetric(float64(cpu()-start)/float64(n), "cpu-ns/op")
}

// kepUpdatePod returns the probe manager's UpdatePod, which the kubelet calls
// when it receives a Pod's spec in the patched tree, or a function that does
// nothing in the base tree, which has none.
func kepUpdatePod(ctx context.Context, m *manager) func(*v1.Pod) {
	if u, ok := any(m).(interface {
		UpdatePod(context.Context, *v1.Pod)
	}); ok {
		return func(pod *v1.Pod) { u.UpdatePod(ctx, pod) }
	}
	return func(*v1.Pod) {}
}

// kepPod returns a running Pod with 10 containers with three probes each.
func kepPod() *v1.Pod {
	pod := &v1.Pod{}
	pod.Name, pod.Namespace, pod.UID, pod.Generation = "bench", "default", "bench", 1
	for i := range 10 {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{
			Name:           fmt.Sprintf("container-%d", i),
			LivenessProbe:  kepProbe("live", 10),
			ReadinessProbe: kepProbe("ready", 10),
			StartupProbe:   kepProbe("start", 10),
		})
	}
	return pod
}

// BenchmarkKEPPodUpdateLabelOnly measures what the probe manager does for an
// update of a running Pod that changes a label, the most common Pod update:
// UpdatePod when the kubelet receives the spec (the patched tree only), and
// AddPod when the pod worker syncs it. The Pod has 10 containers with three
// probes each. The base tree has no gate: both of its runs are the base.
func BenchmarkKEPPodUpdateLabelOnly(b *testing.B) {
	for _, gate := range []string{"off", "on"} {
		b.Run("gate="+gate, func(b *testing.B) {
			if gate == "on" {
				kepEnableGate(b)
			}
			ctx := kepContext(b)
			m := newTestManager()
			// Not a kubelet restart: the workers do not wait a random part of
			// their period before the first probe, which cleanup would wait for.
			m.start = time.Now().Add(-time.Hour)
			defer cleanup(b, m)
			update := kepUpdatePod(ctx, m)
			var pods []*v1.Pod
			for _, tier := range []string{"a", "b"} {
				pod := kepPod()
				pod.Labels = map[string]string{"tier": tier}
				pods = append(pods, pod)
			}
			update(pods[0])
			m.AddPod(ctx, pods[0])
			if n := m.workerCount(); n != 30 {
				b.Fatalf("%d workers, want 30", n)
			}
			i := 0
			kepLoop(b, func() {
				i++
				update(pods[i%2])
				m.AddPod(ctx, pods[i%2])
			})
		})
	}
}

// BenchmarkKEPAddPodNoChange measures AddPod of a Pod with 10 containers with
// three probes each, whose workers already exist: the reconcile that every
// Pod sync does.
func BenchmarkKEPAddPodNoChange(b *testing.B) {
	kepEnableGate(b)
	ctx := kepContext(b)
	m := newTestManager()
	m.start = time.Now().Add(-time.Hour) // not a kubelet restart, as above
	defer cleanup(b, m)
	pod := kepPod()
	m.AddPod(ctx, pod)
	if n := m.workerCount(); n != 30 {
		b.Fatalf("%d workers, want 30", n)
	}

	b.ReportAllocs()
	for b.Loop() {
		m.AddPod(ctx, pod)
	}
}

// kepBlockingRunner blocks every exec probe until release is closed, even
// when its context is cancelled: probes that cannot be cancelled.
type kepBlockingRunner struct {
	attempts chan struct{}
	release  chan struct{}
}

func (r *kepBlockingRunner) RunInContainer(_ context.Context, _ kubecontainer.ContainerID, _ []string, _ time.Duration) ([]byte, error) {
	select {
	case r.attempts <- struct{}{}:
	default:
	}
	<-r.release
	return nil, nil
}

// BenchmarkKEPRapidUpdates applies 1,000 spec updates per iteration to a
// running Pod whose probes are blocked, changing its startup command, its
// liveness timeout and removing and re-adding its readiness probe, as the
// kubelet does: UpdatePod when it receives the spec (the patched tree only),
// AddPod when the pod worker syncs it. It reports the goroutines the probe
// manager holds after the updates (the most seen), which must not grow with
// the number of updates, and its workers.
func BenchmarkKEPRapidUpdates(b *testing.B) {
	kepEnableGate(b)
	// Every probe change logs (and with the gate on, records an event);
	// discard the logs so that the benchmark measures the prober.
	ctx := klog.NewContext(context.Background(), logr.Discard())
	pod := getTestPod()
	var pods []*v1.Pod
	for i := range 20 {
		p := pod.DeepCopy()
		c := &p.Spec.Containers[0]
		c.StartupProbe = kepProbe(fmt.Sprintf("start-%d", i), 1)
		c.LivenessProbe = kepProbe("live", 1)
		c.LivenessProbe.TimeoutSeconds = int32(i%5 + 1)
		if i%10 != 0 {
			c.ReadinessProbe = kepProbe("ready", int32(i%7+1))
		}
		pods = append(pods, p)
	}
	pod = pods[1]

	podManager := kubepod.NewBasicPodManager()
	podManager.AddPod(pod)
	runner := &kepBlockingRunner{attempts: make(chan struct{}, 1), release: make(chan struct{})}
	m := NewManager(
		status.NewManager(&fake.Clientset{}, podManager, &statustest.FakePodDeletionSafetyProvider{}, kubeletutil.NewPodStartupLatencyTracker()),
		results.NewManager(),
		results.NewManager(),
		results.NewManager(),
		runner,
		&record.FakeRecorder{}, // discards events
	).(*manager)
	// Not a kubelet restart: workers start probing without a random delay.
	m.start = time.Now().Add(-time.Hour)
	m.statusManager.SetPodStatus(klog.FromContext(ctx), pod, getTestRunningStatusWithStarted(true))

	update := kepUpdatePod(ctx, m)

	before := runtime.NumGoroutine()
	m.AddPod(ctx, pod)
	<-runner.attempts // a probe is blocked
	most := 0
	i := 0
	for b.Loop() {
		for range 1000 {
			i++
			update(pods[i%len(pods)])
			m.AddPod(ctx, pods[i%len(pods)])
		}
		most = max(most, runtime.NumGoroutine()-before)
	}
	b.ReportMetric(float64(most), "goroutines")
	b.ReportMetric(float64(m.workerCount()), "workers")
	close(runner.release)
	cleanup(b, m)
}
