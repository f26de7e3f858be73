//go:build node

package node

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	app  = "app"
	port = 8080
)

// startApp creates the Pod and waits until container app runs, and returns
// the Pod and the app's state.
func (f *framework) startApp(pod *v1.Pod, until func(*v1.Pod) bool) (*v1.Pod, appState) {
	f.t.Helper()
	f.create(pod)
	p := f.waitFor(pod.Name, "app running", until)
	return p, f.state(pod.Name, port)
}

// With the gate off on the kubelet, the node does not declare the
// MutableContainerProbes feature, so the API server refuses probe changes
// for its Pods: the change can never be stored without being applied.
func TestKubeletGateOffRefusesProbeChanges(t *testing.T) {
	if kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes on")
	}
	f := newFramework(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	pod, before := f.startApp(newPod("skew", c), func(p *v1.Pod) bool { return ready(p, app) })
	id := containerID(pod, app)

	_, err := f.client.CoreV1().Pods(f.ns).Patch(f.ctx, "skew", types.StrategicMergePatchType,
		[]byte(`{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/healthz"}}}]}}`), metav1.PatchOptions{})
	if !isForbidden(err) || !strings.Contains(err.Error(), "MutableContainerProbes") {
		t.Fatalf("want the update forbidden for the node's missing MutableContainerProbes feature, got %v", err)
	}
	pod = f.get("skew")
	if got := pod.Spec.Containers[0].ReadinessProbe.HTTPGet.Path; got != "/readyz" {
		t.Errorf("the refused change was stored: readiness path %q", got)
	}
	f.holds("skew", "the same Ready container", 3*time.Second, func(p *v1.Pod) bool { return ready(p, app) && sameContainer(app, id, 0)(p) })
	if events := f.probeEvents("skew"); len(events) != 0 {
		t.Errorf("unexpected ContainerProbeChanged events: %q", events)
	}
	if after := f.state("skew", port); after.Instance != before.Instance {
		t.Errorf("the app's process changed from %s to %s", before.Instance, after.Instance)
	}
}
