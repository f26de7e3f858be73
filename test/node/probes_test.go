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
	// quiet is how long a test watches for something that must not happen,
	// such as a restart: many probe periods, and longer than the restart
	// back-off of the node (1s).
	quiet = 8 * time.Second
)

func requireKubeletGate(t *testing.T) {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
}

// startApp creates the Pod and waits until container app runs, and returns
// the Pod and the app's state.
func (f *framework) startApp(pod *v1.Pod, until func(*v1.Pod) bool) (*v1.Pod, appState) {
	f.t.Helper()
	f.create(pod)
	p := f.waitFor(pod.Name, "app running", until)
	return p, f.state(pod.Name, port)
}

func appRunning(pod *v1.Pod) bool { return running(pod, app) }

// Readiness moves from a failing endpoint to a healthy one: the container
// becomes Ready after the new success threshold, without a restart.
func TestReadinessFailingToHealthy(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	c := targetContainer(app, port, "READYZ=fail")
	c.ReadinessProbe = httpProbe("/readyz", port)
	pod, before := f.startApp(newPod("web", c), appRunning)
	id := containerID(pod, app)
	f.holds("web", "not Ready", 3*time.Second, func(p *v1.Pod) bool { return !ready(p, app) })

	_, patched := f.patch("web", `{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/healthz"},"successThreshold":3}}]}}`)
	eventAt := f.waitForEvent("web", "ContainerProbeChanged", `Readiness probe updated for container "app"`)
	pod = f.waitFor("web", "Ready", func(p *v1.Pod) bool { return ready(p, app) && condition(p, v1.PodReady) == v1.ConditionTrue })
	readyAt := time.Now()
	f.measure("readiness PATCH to ContainerProbeChanged event", eventAt.Sub(patched))
	f.measure("readiness PATCH to Ready (successThreshold 3, period 1s)", readyAt.Sub(patched))
	if !sameContainer(app, id, 0)(pod) {
		t.Errorf("the container was replaced or restarted: %s", describe(pod))
	}
	// The kubelet also probes a container that is not ready on each Pod
	// sync, so three successes can take less than two periods; but there
	// must have been three.
	after := f.state("web", port)
	if after.Instance != before.Instance {
		t.Errorf("the app's process changed from %s to %s", before.Instance, after.Instance)
	}
	if after.Hits["healthz"] < 3 {
		t.Errorf("Ready after %d probes of /healthz; the success threshold is 3", after.Hits["healthz"])
	}
}

// A container in a liveness restart loop has its liveness probe removed:
// the restarts stop and the process keeps its memory.
func TestLivenessRemovedDuringRestartLoop(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	c := targetContainer(app, port, "LIVEZ=fail")
	c.LivenessProbe = httpProbe("/livez", port)
	f.create(newPod("loop", c))
	f.waitFor("loop", "a restart loop", func(p *v1.Pod) bool { return restarts(p, app) >= 2 && running(p, app) })

	_, patched := f.jsonPatch("loop", `[{"op":"remove","path":"/spec/containers/0/livenessProbe"}]`)
	eventAt := f.waitForEvent("loop", "ContainerProbeChanged", `Liveness probe removed for container "app"`)
	f.measure("liveness removal PATCH to ContainerProbeChanged event", eventAt.Sub(patched))
	// The change can land while the container is being restarted; from the
	// first container that runs after the event on, nothing restarts it.
	pod := f.waitFor("loop", "running", func(p *v1.Pod) bool { return running(p, app) })
	id, count := containerID(pod, app), restarts(pod, app)
	before := f.state("loop", port)
	f.remember("loop", port, "inspect me")
	f.holds("loop", "the same running container", quiet, sameContainer(app, id, count))
	after := f.state("loop", port)
	if after.Instance != before.Instance || after.Memory != "inspect me" {
		t.Errorf("the process did not survive: before %+v, after %+v", before, after)
	}
	if after.Hits["livez"] != before.Hits["livez"] {
		t.Errorf("the removed liveness probe still ran: /livez hits went from %d to %d", before.Hits["livez"], after.Hits["livez"])
	}
	if after.Starts != int(count)+1 {
		t.Errorf("the app counted %d starts, the kubelet %d restarts", after.Starts, count)
	}
	// The operator inspects the kept container as with kubectl logs.
	logs, err := f.client.CoreV1().Pods(f.ns).GetLogs("loop", &v1.PodLogOptions{Container: app}).DoRaw(f.ctx)
	if err != nil || !strings.Contains(string(logs), "probe-target "+after.Instance) {
		t.Errorf("the logs of the kept container: %v: %s", err, logs)
	}
}

// Adding a liveness probe to a running container does not restart it; the
// new probe runs.
func TestLivenessAdded(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	pod, before := f.startApp(newPod("add", targetContainer(app, port)), appRunning)
	id := containerID(pod, app)

	_, patched := f.patch("add", `{"spec":{"containers":[{"name":"app","livenessProbe":{"httpGet":{"path":"/livez","port":8080},"periodSeconds":1,"failureThreshold":1}}]}}`)
	eventAt := f.waitForEvent("add", "ContainerProbeChanged", `Liveness probe added for container "app"`)
	f.measure("liveness addition PATCH to ContainerProbeChanged event", eventAt.Sub(patched))
	f.holds("add", "the same running container", quiet, sameContainer(app, id, 0))
	after := f.state("add", port)
	if after.Instance != before.Instance {
		t.Errorf("the app's process changed from %s to %s", before.Instance, after.Instance)
	}
	if after.Hits["livez"] < 3 {
		t.Errorf("the added liveness probe ran %d times in %s, want at least 3", after.Hits["livez"], quiet)
	}
}

// A liveness probe that times out on a slow endpoint restarts the
// container; relaxing its timeout stops the restarts.
func TestLivenessTimeoutRelaxed(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	c := targetContainer(app, port, "LIVEZ=slow:2s")
	c.LivenessProbe = httpProbe("/livez", port)
	c.LivenessProbe.PeriodSeconds = 3
	f.create(newPod("slow", c))
	f.waitFor("slow", "a restart", func(p *v1.Pod) bool { return restarts(p, app) >= 1 && running(p, app) })

	f.patch("slow", `{"spec":{"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":5}}]}}`)
	f.waitForEvent("slow", "ContainerProbeChanged", `Liveness probe updated for container "app"`)
	pod := f.waitFor("slow", "running", func(p *v1.Pod) bool { return running(p, app) })
	id, count := containerID(pod, app), restarts(pod, app)
	before := f.state("slow", port)
	f.holds("slow", "the same running container", quiet, sameContainer(app, id, count))
	if after := f.state("slow", port); after.Instance != before.Instance || after.Hits["livez"] <= before.Hits["livez"] {
		t.Errorf("want the same process, probed on /livez: before %+v, after %+v", before, after)
	}
}

// Raising the startup probe's failureThreshold during a slow start keeps
// the container from being killed.
func TestStartupFailureThresholdRaised(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	c := targetContainer(app, port, "STARTZ=fail-for:15s")
	c.StartupProbe = httpProbe("/startz", port)
	c.StartupProbe.FailureThreshold = 8
	pod, before := f.startApp(newPod("starting", c), appRunning)
	id := containerID(pod, app)

	f.patch("starting", `{"spec":{"containers":[{"name":"app","startupProbe":{"failureThreshold":60}}]}}`)
	f.waitForEvent("starting", "ContainerProbeChanged", `Startup probe updated for container "app"`)
	pod = f.waitFor("starting", "Started", func(p *v1.Pod) bool { return started(p, app) })
	if !sameContainer(app, id, 0)(pod) {
		t.Errorf("the slow start was killed: %s", describe(pod))
	}
	after := f.state("starting", port)
	if after.Instance != before.Instance || after.Hits["startz"] <= 8 {
		t.Errorf("want the same process to pass the startup probe after more than 8 failures: before %+v, after %+v", before, after)
	}
}

// Changing the startup probe of a Started container does not make it
// unstarted, even when the new probe would fail.
func TestStartupChangedAfterStarted(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	c := targetContainer(app, port)
	c.StartupProbe = httpProbe("/startz", port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	pod, _ := f.startApp(newPod("started", c), func(p *v1.Pod) bool { return started(p, app) && ready(p, app) })
	id := containerID(pod, app)
	f.setModes("started", port, map[string]string{"healthz": "fail"})

	f.patch("started", `{"spec":{"containers":[{"name":"app","startupProbe":{"httpGet":{"path":"/healthz"},"failureThreshold":1}}]}}`)
	f.waitForEvent("started", "ContainerProbeChanged", `Startup probe updated for container "app"`)
	f.holds("started", "Started, Ready and the same container", quiet, func(p *v1.Pod) bool {
		return started(p, app) && ready(p, app) && sameContainer(app, id, 0)(p)
	})
	if hits := f.state("started", port).Hits["healthz"]; hits != 0 {
		t.Errorf("the new startup probe ran %d times on a Started container", hits)
	}
}

// After a restart, the new container uses the latest startup probe.
func TestNewContainerUsesLatestStartupProbe(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	c := targetContainer(app, port)
	c.StartupProbe = httpProbe("/startz", port)
	pod, before := f.startApp(newPod("restart", c), func(p *v1.Pod) bool { return started(p, app) })
	id := containerID(pod, app)

	f.patch("restart", `{"spec":{"containers":[{"name":"app","startupProbe":{"httpGet":{"path":"/livez"}}}]}}`)
	f.waitForEvent("restart", "ContainerProbeChanged", `Startup probe updated for container "app"`)
	if hits := f.state("restart", port).Hits["livez"]; hits != 0 {
		t.Fatalf("the changed startup probe ran %d times on the Started container", hits)
	}
	// End the process; the kubelet starts a new container.
	_, _ = f.app("restart", port, "POST", "exit", map[string]string{"code": "1"})
	pod = f.waitFor("restart", "a new Started container", func(p *v1.Pod) bool {
		return containerID(p, app) != id && restarts(p, app) == 1 && started(p, app)
	})
	after := f.state("restart", port)
	if after.Instance == before.Instance || after.Starts != 2 {
		t.Fatalf("want a second process: before %+v, after %+v", before, after)
	}
	if after.Hits["livez"] == 0 || after.Hits["startz"] != 0 {
		t.Errorf("the new container was started with the old startup probe: hits %v", after.Hits)
	}
}

// The probes of a restartable init container (a sidecar) change in place.
func TestRestartableInitContainerProbeChanged(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	const sidecarPort = 8081
	always := v1.ContainerRestartPolicyAlways
	sidecar := targetContainer("sidecar", sidecarPort, "READYZ=fail", "LIVEZ=fail")
	sidecar.RestartPolicy = &always
	sidecar.ReadinessProbe = httpProbe("/readyz", sidecarPort)
	pod := newPod("sidecar", targetContainer(app, port))
	pod.Spec.InitContainers = []v1.Container{sidecar}
	f.create(pod)
	pod = f.waitFor("sidecar", "both containers running", func(p *v1.Pod) bool { return running(p, "sidecar") && running(p, app) })
	id := containerID(pod, "sidecar")
	before := f.state("sidecar", sidecarPort)
	if ready(pod, "sidecar") {
		t.Fatal("the sidecar is Ready with a failing readiness probe")
	}

	_, patched := f.jsonPatch("sidecar", `[
	  {"op":"replace","path":"/spec/initContainers/0/readinessProbe/httpGet/path","value":"/healthz"},
	  {"op":"add","path":"/spec/initContainers/0/livenessProbe","value":{"httpGet":{"path":"/healthz","port":8081},"periodSeconds":1,"failureThreshold":1}}
	]`)
	f.waitForEvent("sidecar", "ContainerProbeChanged", `Readiness probe updated for container "sidecar"`)
	f.waitForEvent("sidecar", "ContainerProbeChanged", `Liveness probe added for container "sidecar"`)
	pod = f.waitFor("sidecar", "the sidecar and the Pod Ready", func(p *v1.Pod) bool {
		return ready(p, "sidecar") && condition(p, v1.PodReady) == v1.ConditionTrue
	})
	f.measure("sidecar readiness PATCH to Pod Ready (successThreshold 1, period 1s)", time.Since(patched))
	f.holds("sidecar", "the same sidecar container", 3*time.Second, sameContainer("sidecar", id, 0))
	after := f.state("sidecar", sidecarPort)
	if after.Instance != before.Instance || after.Hits["healthz"] == 0 {
		t.Errorf("want the same sidecar process, probed on /healthz: before %+v, after %+v", before, after)
	}
}

// A readiness probe that starts passing makes the containers ready, but the
// Pod stays not Ready until its readiness gate's condition is true.
func TestReadinessGateStillApplies(t *testing.T) {
	requireKubeletGate(t)
	f := newFramework(t)
	const gate = "example.com/traffic"
	c := targetContainer(app, port, "READYZ=fail")
	c.ReadinessProbe = httpProbe("/readyz", port)
	pod := newPod("gated", c)
	pod.Spec.ReadinessGates = []v1.PodReadinessGate{{ConditionType: gate}}
	f.startApp(pod, appRunning)

	f.patch("gated", `{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/healthz"}}}]}}`)
	f.waitFor("gated", "ContainersReady", func(p *v1.Pod) bool { return condition(p, v1.ContainersReady) == v1.ConditionTrue })
	f.holds("gated", "not Ready", 3*time.Second, func(p *v1.Pod) bool { return condition(p, v1.PodReady) != v1.ConditionTrue })

	status := `{"status":{"conditions":[{"type":"` + gate + `","status":"True","lastTransitionTime":"` + time.Now().UTC().Format(time.RFC3339) + `"}]}}`
	if _, err := f.client.CoreV1().Pods(f.ns).Patch(f.ctx, "gated", types.StrategicMergePatchType, []byte(status), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	f.waitFor("gated", "Ready", func(p *v1.Pod) bool { return condition(p, v1.PodReady) == v1.ConditionTrue })
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
