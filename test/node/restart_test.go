//go:build node

package node

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// restartKubelet restarts the node's kubelet with hack/node-restart-kubelet.sh,
// with MutableContainerProbes set to gate unless it is empty, and returns when
// the new kubelet answers. The containers keep running. A test that restarts
// the kubelet is named TestKubeletRestart...: make test-node runs those alone,
// and the others alongside the feature's e2e specs. The measurements run on
// their own (make measure-node).
func restartKubelet(t *testing.T, gate string) time.Time {
	t.Helper()
	if !strings.HasPrefix(t.Name(), "TestKubeletRestart") && !strings.HasPrefix(t.Name(), "TestMeasure") {
		t.Fatalf("%s restarts the kubelet: name it TestKubeletRestart..., which make test-node runs alone", t.Name())
	}
	args := []string{}
	if gate != "" {
		args = append(args, gate)
	}
	out, err := exec.Command(filepath.Join("..", "..", "hack", "node-restart-kubelet.sh"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("restarting the kubelet: %v\n%s", err, out)
	}
	return time.Now()
}

// startedBefore waits until the container has run for d.
func (f *framework) startedBefore(name, container string, d time.Duration) {
	f.t.Helper()
	pod := f.get(name)
	s := containerStatus(pod, container)
	if s == nil || s.State.Running == nil {
		f.t.Fatalf("container %s of %s does not run: %s", container, name, describe(pod))
	}
	time.Sleep(time.Until(s.State.Running.StartedAt.Add(d))) // waits for the container's age, not for an event
}

// TestKubeletRestartReadinessAdded adds a readiness probe that fails to a
// container that ran before the kubelet restarted: the container is not Ready
// from the update on. The kubelet keeps the Ready state of the containers it
// finds when it starts until their readiness probes fail; a probe added by an
// update is new to the container and must not take that path.
func TestKubeletRestartReadinessAdded(t *testing.T) {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
	f := newFramework(t)
	c := targetContainer(app, port, "READYZ=fail")
	// A liveness probe that passes, every second: its first request after the
	// kubelet restarted shows that the new kubelet runs the Pod's probes.
	c.LivenessProbe = httpProbe("/livez?restart", port)
	f.create(newPod("restart", c))
	f.waitFor("restart", "app Ready", func(p *v1.Pod) bool { return ready(p, app) })
	// The kubelet treats a container as older than itself when it started
	// more than 10s before the kubelet did.
	f.startedBefore("restart", app, 15*time.Second)
	restarted := restartKubelet(t, "")
	f.firstArrival("restart", port, "/livez?restart", restarted)
	// The container that the change finds: a strict liveness probe may have
	// restarted it once at its start, before the app listened.
	id, n := containerID(f.get("restart"), app), restarts(f.get("restart"), app)
	if !ready(f.get("restart"), app) {
		t.Fatalf("the container is not Ready after the kubelet restarted: %s", describe(f.get("restart")))
	}

	_, sent := f.patch("restart", fmt.Sprintf(`{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/readyz","port":%d},"periodSeconds":10,"failureThreshold":3}}]}}`, port))
	// The first attempt fails at once, the third 20s later. Not Ready must
	// come with the update, not with the third failure.
	var last *v1.Pod
	err := wait.PollUntilContextTimeout(f.ctx, 100*time.Millisecond, 8*time.Second, true, func(ctx context.Context) (bool, error) {
		pod, err := f.client.CoreV1().Pods(f.ns).Get(ctx, "restart", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = pod
		return !ready(pod, app), nil
	})
	if err != nil {
		t.Fatalf("the container is still Ready %s after a failing readiness probe was added: %v\n%s", time.Since(sent).Round(time.Second), err, describe(last))
	}
	f.holds("restart", "not Ready, the same container", 5*time.Second, func(p *v1.Pod) bool {
		return !ready(p, app) && sameContainer(app, id, n)(p)
	})
}

// TestKubeletRestartGateFlip restarts the kubelet with the gate off, then on
// again, on a node whose Pod had its probes changed: each time, the kubelet
// runs the Pod's current probes, and restarts no container.
func TestKubeletRestartGateFlip(t *testing.T) {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
	t.Cleanup(func() { restartKubelet(t, "true") })
	f := newFramework(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz?v=1", port)
	c.LivenessProbe = httpProbe("/livez?v=1", port)
	f.create(newPod("flip", c))
	f.waitFor("flip", "app Ready", func(p *v1.Pod) bool { return ready(p, app) })

	f.patch("flip", `{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/readyz?v=2"}},"livenessProbe":{"httpGet":{"path":"/livez?v=2"}}}]}}`)
	f.waitApplied("flip")

	// The kubelet keeps the Ready state of containers older than itself.
	f.startedBefore("flip", app, 15*time.Second)
	// The container that the kubelet's restarts find: its strict liveness
	// probe may have restarted it once at its start, before the app
	// listened (see TestKubeletRestartReadinessAdded).
	pod := f.get("flip")
	if !ready(pod, app) {
		t.Fatalf("the container is not Ready before the kubelet restarts: %s", describe(pod))
	}
	id, n := containerID(pod, app), restarts(pod, app)
	for _, gate := range []string{"false", "true"} {
		restarted := restartKubelet(t, gate)
		for _, uri := range []string{"/readyz?v=2", "/livez?v=2"} {
			f.firstArrival("flip", port, uri, restarted)
		}
		f.holds("flip", "the same Ready container", 3*time.Second, func(p *v1.Pod) bool {
			return ready(p, app) && sameContainer(app, id, n)(p)
		})
		for _, uri := range []string{"/readyz?v=1", "/livez?v=1"} {
			for _, at := range f.arrivals("flip", port)[uri] {
				if at.After(restarted) {
					t.Errorf("with MutableContainerProbes=%s after the restart, the kubelet ran the probe of the first generation (%s)", gate, uri)
				}
			}
		}
	}
}

// TestProbeChangeEventBudget changes the probes of a Pod's two containers 30
// times in a row, then makes a liveness probe fail: the kubelet records at
// most three ContainerProbeChanged events at once (it folds later changes into
// one event every five minutes), so the Killing event of the restart that
// follows, and the Started event of the new container, are still recorded.
// The kubelet's recorder drops a Pod's events of a type after 25 (then allows
// one every five minutes); one event per update would have used it up.
func TestProbeChangeEventBudget(t *testing.T) {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
	f := newFramework(t)
	c := targetContainer(app, port)
	c.StartupProbe = httpProbe("/startz", port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	c.LivenessProbe = httpProbe("/livez", port)
	second := targetContainer("second", port+1)
	second.ReadinessProbe = httpProbe("/readyz", port+1)
	f.create(newPod("budget", c, second))
	f.waitFor("budget", "app and second Ready", func(p *v1.Pod) bool { return ready(p, app) && ready(p, "second") })
	id := containerID(f.get("budget"), app)

	const updates = 30
	for i := 1; i <= updates; i++ {
		f.patch("budget", fmt.Sprintf(`{"spec":{"containers":[`+
			`{"name":"app","startupProbe":{"httpGet":{"path":"/startz?n=%d"}},"readinessProbe":{"httpGet":{"path":"/readyz?n=%d"}},"livenessProbe":{"httpGet":{"path":"/livez?n=%d"}}},`+
			`{"name":"second","readinessProbe":{"periodSeconds":%d}}]}}`, i, i, i, 10+i))
		f.waitApplied("budget")
	}
	want := `Startup probe updated, readiness probe updated and liveness probe updated for container "app"; readiness probe updated for container "second"`
	events := func(reason string) []v1.Event {
		list, err := f.client.CoreV1().Events(f.ns).List(f.ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=budget,reason=" + reason})
		if err != nil {
			t.Fatal(err)
		}
		return list.Items
	}
	var count int32
	for _, e := range events("ContainerProbeChanged") {
		if e.Message != want {
			t.Errorf("ContainerProbeChanged event %q, want %q", e.Message, want)
		}
		count += e.Count
	}
	if count != 3 {
		t.Errorf("%d ContainerProbeChanged events for %d updates, want 3: the rest are folded into the next one", count, updates)
	}

	f.tell("budget", port, "mode", map[string]string{"livez": "fail"})
	f.waitFor("budget", "app restarted", func(p *v1.Pod) bool { return restarts(p, app) > 0 && containerID(p, app) != id })
	err := wait.PollUntilContextTimeout(f.ctx, 500*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		// The app container's events, counted: Killing once, Started for its first
		// container and for the new one.
		count := func(reason string) (n int32) {
			for _, e := range events(reason) {
				if e.InvolvedObject.FieldPath == "spec.containers{app}" {
					n += e.Count
				}
			}
			return n
		}
		return count("Killing") >= 1 && count("Started") >= 2, nil
	})
	if err != nil {
		t.Fatalf("no Killing and Started events for the liveness restart: %v\n%s", err, describe(f.get("budget")))
	}
}
