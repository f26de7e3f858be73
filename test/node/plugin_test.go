//go:build node

package node

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"mutableprobes/test/internal/apiproxy"
	"mutableprobes/test/internal/pluginbuild"
)

// probeCommand returns the command that runs kubectl probe, the project's
// plugin, through the node's kubectl as a user does: kubectl finds
// kubectl-probe on PATH.
func (f *framework) probeCommand(args ...string) *exec.Cmd {
	f.t.Helper()
	return f.probeCommandVia(nodeKubeconfig(), args...)
}

// nodeKubeconfig is the node's kubeconfig.
func nodeKubeconfig() string {
	if kubeconfig := os.Getenv("HARNESS_NODE_KUBECONFIG"); kubeconfig != "" {
		return kubeconfig
	}
	return filepath.Join("..", "..", "_output", "node", "state", "kubeconfig")
}

// probeCommandVia is probeCommand with another kubeconfig.
func (f *framework) probeCommandVia(kubeconfig string, args ...string) *exec.Cmd {
	f.t.Helper()
	dir := built.Dir(f.t, filepath.Join("..", ".."))
	// kubectl takes no flags of its own before a plugin's name: they follow it
	// and reach the plugin.
	cmd := exec.CommandContext(f.ctx, binary("kubectl"), append([]string{"probe", "--kubeconfig", kubeconfig, "-n", f.ns}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// kubectlProbe runs kubectl probe and returns what it printed, standard
// output and error together.
func (f *framework) kubectlProbe(args ...string) (string, error) {
	f.t.Helper()
	cmd := f.probeCommand(args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	f.t.Logf("kubectl probe %s:\n%s", strings.Join(args, " "), out.String())
	return out.String(), err
}

// built is kubectl-probe, which the tests build once (probeCommandVia).
var built pluginbuild.Build

// TestMain removes the plugin that the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	built.Remove()
	os.Exit(code)
}

// pluginTest starts a test of the plugin: the plugin's tests run in
// parallel with each other, after the package's other tests, and need the
// kubelet's gate on.
func pluginTest(t *testing.T) *framework {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
	t.Parallel()
	return newFramework(t)
}

// deployment creates a Deployment of replicas Pods of the container,
// labelled app=NAME, changed by edit if set.
func (f *framework) deployment(name string, replicas int32, c v1.Container, edit func(*appsv1.Deployment)) *appsv1.Deployment {
	f.t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: newPod("", c).Spec},
		},
	}
	if edit != nil {
		edit(d)
	}
	d, err := f.client.AppsV1().Deployments(f.ns).Create(f.ctx, d, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// readinessPath returns the path of the Pod's readiness probe.
func (f *framework) readinessPath(name string) string {
	f.t.Helper()
	p := f.get(name).Spec.Containers[0].ReadinessProbe
	if p == nil || p.HTTPGet == nil {
		return ""
	}
	return p.HTTPGet.Path
}

// readinessDeployment creates the Deployment NAME of replicas Pods of the
// app, labelled app=NAME, whose readiness probe on /readyz fails at
// failureThreshold failures in a row, and waits until its Pods are Ready;
// it returns their names and container IDs (readyPods).
func (f *framework) readinessDeployment(name string, replicas, failureThreshold int32) map[string]string {
	f.t.Helper()
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	c.ReadinessProbe.FailureThreshold = failureThreshold
	f.deployment(name, replicas, c, nil)
	return f.readyPods("app="+name, int(replicas))
}

// TestPluginReadinessAcrossDeployment moves the readiness probe of the three
// Pods of a Deployment with kubectl probe. A path that fails is refused by
// the check before any Pod changes; stored anyway (--skip-check), it stops
// the command at the first Pod, within the new probe's failure threshold
// and a margin, and --undo-on-failure puts that Pod's probe back; the other
// Pods are untouched. A path that works goes through, each Pod confirmed
// by its new probe, without a restart, and the template stays as it was.
func TestPluginReadinessAcrossDeployment(t *testing.T) {
	f := pluginTest(t)
	pods := f.readinessDeployment("web", 3, 2)
	names := sortedNames(pods)
	generations := func() []int64 {
		var gs []int64
		for _, name := range names {
			gs = append(gs, f.get(name).Generation)
		}
		return gs
	}

	// The check tries /missing on each Pod through the API server's Pod
	// proxy: 404, no Pod changes.
	out, err := f.kubectlProbe("set", "deployment/web", "--readiness", "--get-url=http://:8080/missing")
	if err == nil || !strings.Contains(out, "error: the pre-check refused 3 of 3 Pods; no Pod was changed:") ||
		!strings.Contains(out, `the new readiness probe of container "app" fails now: http-get http://:8080/missing: answered 404 Not Found`) {
		t.Errorf("kubectl probe set /missing was not refused by the check (%v):\n%s", err, out)
	}
	if gs := generations(); !slices.Equal(gs, []int64{1, 1, 1}) {
		t.Errorf("generations %v after the refusal, want 1 each", gs)
	}

	// Stored anyway: the first Pod's new probe fails, and the command stops
	// there, puts that Pod's probe back, and leaves the others as they are.
	start := time.Now()
	out, err = f.kubectlProbe("set", "deployment/web", "--readiness", "--get-url=http://:8080/missing", "--skip-check", "--undo-on-failure")
	elapsed := time.Since(start)
	for _, want := range stoppedAtFirstPod(names, `the new readiness probe failed: container "app" is not Ready any more`) {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl probe set --skip-check does not say %q:\n%s", want, out)
		}
	}
	// failureThreshold × (period + timeout), the margin, and the command's
	// own requests.
	if limit := 2*2*time.Second + 5*time.Second + 10*time.Second; err == nil || elapsed > limit {
		t.Errorf("kubectl probe set --skip-check: %v after %s, want a failure within %s", err, elapsed, limit)
	}
	if gs := generations(); !slices.Equal(gs, []int64{3, 1, 1}) {
		t.Errorf("generations %v, want 3 for the changed and undone Pod, 1 for the others", gs)
	}
	if path := f.readinessPath(names[0]); path != "/readyz" {
		t.Errorf("%s: readiness path %q after the undo, want /readyz", names[0], path)
	}
	f.waitFor(names[0], "app Ready again", func(p *v1.Pod) bool { return ready(p, app) })

	// A path that works.
	out, err = f.kubectlProbe("set", "deployment/web", "--readiness", "--get-url=http://:8080/readyz?v=2")
	if err != nil {
		t.Fatalf("kubectl probe set: %v\n%s", err, out)
	}
	if n := strings.Count(out, "; the new readiness probe passed: the container stayed Ready through the probe's failure window (9s)"); n != 3 {
		t.Errorf("%d Pods confirmed by their new readiness probe, want 3:\n%s", n, out)
	}
	if !strings.Contains(out, "pre-check: the new readiness probe succeeds on 3 Pods: http-get http://:8080/readyz?v=2: answered 200 OK") {
		t.Errorf("the pre-check does not say that the new probe succeeds:\n%s", out)
	}
	for name, id := range pods {
		pod := f.get(name)
		if path := f.readinessPath(name); path != "/readyz?v=2" {
			t.Errorf("pod %s: readiness path %q, want the new one", name, path)
		}
		if !ready(pod, app) || !sameContainer(app, id, 0)(pod) {
			t.Errorf("pod %s is not the same Ready container: %s", name, describe(pod))
		}
		f.firstArrival(name, port, "/readyz?v=2", time.Time{})
	}
	d, err := f.client.AppsV1().Deployments(f.ns).Get(f.ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if path := d.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path; path != "/readyz" {
		t.Errorf("the Deployment's template changed: readiness path %q", path)
	}
}

// sortedNames returns the names of pods, sorted, as a workload's Pods are
// changed.
func sortedNames(pods map[string]string) []string {
	return slices.Sorted(maps.Keys(pods))
}

// stoppedAtFirstPod returns what a run over the Pods names says when it
// stopped at the first one, whose change failed with failure, and put its
// probes back (--undo-on-failure): the others are not started.
func stoppedAtFirstPod(names []string, failure string) []string {
	return []string{
		"pod/" + names[0] + " probes set",
		"error: pod/" + names[0] + ": changed, but " + failure,
		"pod/" + names[0] + ": undone: its probes are as they were before",
		"done (0): none", "failed (1): pod/" + names[0],
		fmt.Sprintf("not started, left as they are (%d): pod/%s", len(names)-1, strings.Join(names[1:], " pod/")),
	}
}

// TestPluginLivenessStopsAtFirstPod stores a liveness probe on a path that
// answers 404 on the three Pods of a Deployment, past the pre-check
// (--skip-check), as happens when the pre-check's way to the container
// works and the kubelet's does not. The command stops at the first Pod and
// exits non-zero. With failureThreshold 3 and a 2s period, the new probe
// fails its proof when its failures reach its threshold, which is when the
// kubelet restarts the container; --undo-on-failure then puts the old
// probe back, which the restarted container keeps: the first Pod's
// container restarts once, and no other. With failureThreshold 1, the
// first failure is a restart, and the command stops there too.
func TestPluginLivenessStopsAtFirstPod(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.LivenessProbe = httpProbe("/livez", port)
	c.LivenessProbe.PeriodSeconds = 2
	c.LivenessProbe.FailureThreshold = 3
	f.deployment("live", 3, c, nil)
	pods := f.readyPods("app=live", 3)
	names := sortedNames(pods)
	restartsOf := func() []int32 {
		var counts []int32
		for _, name := range names {
			counts = append(counts, restarts(f.get(name), app))
		}
		return counts
	}

	out, err := f.kubectlProbe("set", "deployment/live", "--liveness", "--get-url=http://:8080/does-not-exist", "--skip-check", "--undo-on-failure")
	for _, want := range stoppedAtFirstPod(names, "") {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("kubectl probe set --liveness /does-not-exist (%v) does not say %q:\n%s", err, want, out)
		}
	}
	if p := f.get(names[0]).Spec.Containers[0].LivenessProbe; p.HTTPGet.Path != "/livez" {
		t.Errorf("%s: liveness path %q after the undo, want /livez", names[0], p.HTTPGet.Path)
	}
	// The kubelet restarted the first Pod's container at the third failure;
	// the restarted container runs the old probe through its failure window,
	// and more, and the other Pods were never changed.
	f.waitFor(names[0], "a restart", func(p *v1.Pod) bool { return restarts(p, app) >= 1 })
	restarted := f.readyPods("app=live", 3)
	f.holds(names[0], "the restarted container, running", 3*(2+1)*time.Second+5*time.Second, sameContainer(app, restarted[names[0]], 1))
	if counts := restartsOf(); !slices.Equal(counts, []int32{1, 0, 0}) {
		t.Errorf("restart counts %v, want one restart of the first Pod's container, at the new probe's threshold", counts)
	}

	// failureThreshold 1: the new probe's first failure restarts the
	// container, and the command stops there.
	out, err = f.kubectlProbe("set", "deployment/live", "--liveness", "--get-url=http://:8080/does-not-exist", "--failure-threshold=1", "--skip-check")
	if err == nil || !strings.Contains(out, fmt.Sprintf("not started, left as they are (2): pod/%s pod/%s", names[1], names[2])) {
		t.Errorf("kubectl probe set --failure-threshold=1 did not stop at the first Pod (%v):\n%s", err, out)
	}
	f.waitFor(names[0], "a second restart", func(p *v1.Pod) bool { return restarts(p, app) >= 2 })
	for _, name := range names[1:] {
		if p := f.get(name); restarts(p, app) != 0 || p.Generation != 1 {
			t.Errorf("%s: %d restarts, generation %d; want it left as it was", name, restarts(p, app), p.Generation)
		}
	}
}

// TestPluginRelaxLivenessDuringFlap relaxes the strict liveness probe of the
// two Pods of a Deployment (failureThreshold 1, a 1s period) to
// failureThreshold 6, as an on-call engineer does while a dependency flaps:
// once the first Pod's kubelet has applied the change, its /livez answers
// 503 three times or more, fewer than 6 in a row, which the old probe would
// have restarted the container for at the first. The new probe only
// tolerates them: the command reports them, goes on to the second Pod, and
// exits 0; both Pods have the new probe, and no container restarted.
func TestPluginRelaxLivenessDuringFlap(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.LivenessProbe = httpProbe("/livez", port)
	// Strict, but not before the app listens, nor at one slow answer on a
	// busy node.
	c.LivenessProbe.InitialDelaySeconds = 3
	c.LivenessProbe.TimeoutSeconds = 5
	f.deployment("flap", 2, c, nil)
	names := sortedNames(f.readyPods("app=flap", 2))
	// The containers as the change finds them, once each app listens and
	// the strict probe has passed on it: a container is Ready as soon as
	// it runs, before its app listens.
	running := map[string]func(*v1.Pod) bool{}
	for _, name := range names {
		f.state(name, port)
		f.firstArrival(name, port, "/livez", time.Time{})
		pod := f.get(name)
		running[name] = sameContainer(app, containerID(pod, app), restarts(pod, app))
	}

	cmd := f.probeCommand("set", "deployment/flap", "--liveness", "--failure-threshold=6", "--undo-on-failure")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The flap, once the first Pod runs the new probe: 503 until the app
	// has answered it 3 times after it was told to fail.
	f.waitFor(names[0], "the change applied", func(p *v1.Pod) bool {
		return p.Generation > 1 && p.Status.ObservedGeneration == p.Generation
	})
	f.tell(names[0], port, "mode", map[string]string{"livez": "fail"})
	failing := time.Now()
	err := wait.PollUntilContextTimeout(f.ctx, 50*time.Millisecond, eventually, true, func(context.Context) (bool, error) {
		n := 0
		for _, at := range f.arrivals(names[0], port)["/livez"] {
			if at.After(failing) {
				n++
			}
		}
		return n >= 3, nil
	})
	f.tell(names[0], port, "mode", map[string]string{"livez": "ok"})
	if err != nil {
		t.Fatalf("%s: /livez was not probed 3 times while it failed: %v", names[0], err)
	}
	err = cmd.Wait()
	t.Logf("kubectl probe set deployment/flap --liveness --failure-threshold=6:\n%s", out.String())
	if err != nil {
		t.Errorf("kubectl probe set exited with %v, want 0: the new probe tolerated the flap", err)
	}
	// Both Pods proven; the flapping one's failures reported, not fatal.
	for i, want := range []string{"; it failed ", "no restart and no liveness failure"} {
		line := fmt.Sprintf("pod/%s: the kubelet applied generation 2; the new liveness probe passed: ", names[i])
		if !strings.Contains(out.String(), line) || !strings.Contains(strings.SplitN(strings.SplitAfter(out.String(), line)[1], "\n", 2)[0], want) {
			t.Errorf("%s is not proven with %q:\n%s", names[i], want, out.String())
		}
	}
	for name, same := range running {
		pod := f.get(name)
		if p := pod.Spec.Containers[0].LivenessProbe; p == nil || p.FailureThreshold != 6 {
			t.Errorf("%s: liveness probe %+v, want failureThreshold 6", name, p)
		}
		if !same(pod) {
			t.Errorf("%s: the container restarted: %s", name, describe(pod))
		}
	}
}

// TestPluginReadinessKeepsToLimits adds a readiness probe to the 12 Pods of
// a Deployment. The kubelet's first result of a readiness probe added to a
// running container is a failure, so each changed Pod is out of readiness
// until the new probe succeeds 3 times in a row. Sampled through the run,
// never more Pods are unready at once than the workload allows: the
// Deployment's maxUnavailable, 25% of 12, 3; and, for a Deployment whose
// maxUnavailable would allow 6, its PodDisruptionBudget's (minAvailable
// 10), 2.
func TestPluginReadinessKeepsToLimits(t *testing.T) {
	f := pluginTest(t)
	for _, tc := range []struct {
		name   string
		budget bool
		most   int
		says   string
	}{
		{name: "rolling", most: 3, says: "up to 3 at a time: maxUnavailable 25% of deployment.apps/rolling's 12 replicas"},
		{name: "budget", budget: true, most: 2, says: "up to 2 at a time: poddisruptionbudget.policy/budget: minAvailable 10 of 12 Pods"},
	} {
		f.deployment(tc.name, 12, targetContainer(app, port), func(d *appsv1.Deployment) {
			if tc.budget {
				d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromString("50%"))}
			}
		})
		selector := "app=" + tc.name
		if tc.budget {
			pdb := &policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Name: tc.name},
				Spec: policyv1.PodDisruptionBudgetSpec{
					MinAvailable: ptr.To(intstr.FromInt32(10)),
					Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": tc.name}},
				},
			}
			if _, err := f.client.PolicyV1().PodDisruptionBudgets(f.ns).Create(f.ctx, pdb, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// Ready as soon as they run, with no readiness probe: the
		// change finds their apps listening, as on a Deployment that has
		// served for a while.
		for name := range f.readyPods(selector, 12) {
			f.state(name, port)
		}

		stop := f.sampleUnready(selector)
		out, err := f.kubectlProbe("set", "deployment/"+tc.name, "--readiness", "--get-url=http://:8080/readyz", "--success-threshold=3")
		most := stop()
		if err != nil {
			t.Fatalf("%s: kubectl probe set: %v\n%s", tc.name, err, out)
		}
		if !strings.Contains(out, tc.says) {
			t.Errorf("%s: kubectl probe set does not say the limit it took, %q:\n%s", tc.name, tc.says, out)
		}
		t.Logf("%s: at most %d Pods unready at once during the run (the limit %d)", tc.name, most, tc.most)
		// At least one Pod out of readiness: the sampler saw the changes.
		if most > tc.most || most < 1 {
			t.Errorf("%s: at most %d Pods unready at once during the run, want 1 to %d", tc.name, most, tc.most)
		}
		if n := strings.Count(out, "the new readiness probe passed"); n != 12 {
			t.Errorf("%s: %d Pods proven, want 12:\n%s", tc.name, n, out)
		}
	}
}

// sampleUnready lists the Pods that selector selects every 100ms until the
// function it returns is called, which returns the most that were not Ready
// at once.
func (f *framework) sampleUnready(selector string) func() int {
	ctx, cancel := context.WithCancel(f.ctx)
	most := make(chan int)
	go func() {
		n := 0
		_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err != nil {
				return false, nil
			}
			unready := 0
			for i := range list.Items {
				if p := &list.Items[i]; p.DeletionTimestamp == nil && !ready(p, app) {
					unready++
				}
			}
			n = max(n, unready)
			return false, nil
		})
		most <- n
	}()
	return func() int {
		cancel()
		return <-most
	}
}

// TestPluginStartupProven changes the startup probe of the two Pods of a
// Deployment whose containers have not started (their startup probe
// fails, with room for 600 failures). A probe on a path that answers 404,
// with failureThreshold 3, makes the kubelet restart the first Pod's
// container, and the command stops there; --undo-on-failure puts the old
// probe back. A probe that succeeds starts each container, which proves it.
func TestPluginStartupProven(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port, "STARTZ=fail")
	c.StartupProbe = httpProbe("/startz", port)
	c.StartupProbe.FailureThreshold = 600
	f.deployment("boot", 2, c, nil)
	var names []string
	err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=boot"})
		if err != nil {
			return false, err
		}
		names = nil
		for i := range list.Items {
			if p := &list.Items[i]; running(p, app) {
				names = append(names, p.Name)
			}
		}
		return len(names) == 2, nil
	})
	if err != nil {
		t.Fatalf("the Deployment's 2 containers do not run: %v", err)
	}
	slices.Sort(names)

	out, err := f.kubectlProbe("set", "deployment/boot", "--startup", "--get-url=http://:8080/does-not-exist", "--failure-threshold=3", "--undo-on-failure")
	// The proof sees the container stop, or, if the kubelet started the
	// next one before it reported the stop, the restart.
	if !regexp.MustCompile(`error: pod/` + names[0] + `: changed, but container "app" (restarted|stopped) before its new startup probe passed`).MatchString(out) {
		t.Errorf("kubectl probe set --startup /does-not-exist (%v) does not say that the container restarted or stopped:\n%s", err, out)
	}
	for _, want := range []string{
		"pod/" + names[0] + ": undone: its probes are as they were before",
		"not started, left as they are (1): pod/" + names[1],
	} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("kubectl probe set --startup /does-not-exist (%v) does not say %q:\n%s", err, want, out)
		}
	}
	if p := f.get(names[0]).Spec.Containers[0].StartupProbe; p.HTTPGet.Path != "/startz" || p.FailureThreshold != 600 {
		t.Errorf("%s: startup probe %+v after the undo, want the old one", names[0], p)
	}
	if p := f.get(names[1]); restarts(p, app) != 0 || p.Generation != 1 {
		t.Errorf("%s: %d restarts, generation %d; want it left as it was", names[1], restarts(p, app), p.Generation)
	}

	// Neither container has started: the first one's restarted with the old probe put back, which
	// fails, and the second one's never had another. The new probe starts each of them.
	out, err = f.kubectlProbe("set", "deployment/boot", "--startup", "--get-url=http://:8080/healthz")
	for _, want := range []string{
		"pod/" + names[0] + ": the kubelet applied generation 4; the new startup probe passed: the container started",
		"pod/" + names[1] + ": the kubelet applied generation 2; the new startup probe passed: the container started",
	} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("kubectl probe set --startup /healthz (%v) does not say %q:\n%s", err, want, out)
		}
	}
}

// TestPluginRolloutInBatches changes the readiness probe of the 20 Pods of
// a Deployment, with a failure window of 2 × (1s + 1s) and 5s, 9s. A path
// that answers 404, past the pre-check (--skip-check), stops the command at
// the first Pod, which alone changed. A path that works goes to the first
// Pod alone, then to batches of 2, 4, 5, 5 and 3 Pods, each once the batch
// before it is proven: never more than the Deployment's maxUnavailable
// (25% of 20, 5) at once, 6 failure windows.
func TestPluginRolloutInBatches(t *testing.T) {
	f := pluginTest(t)
	pods := f.readinessDeployment("fleet", 20, 2)
	changed := func() []string {
		var names []string
		for _, name := range sortedNames(pods) {
			if f.get(name).Generation != 1 {
				names = append(names, name)
			}
		}
		return names
	}

	out, err := f.kubectlProbe("set", "deployment/fleet", "--readiness", "--get-url=http://:8080/does-not-exist", "--skip-check", "--undo-on-failure")
	if err == nil || !strings.Contains(out, "not started, left as they are (19): ") {
		t.Errorf("kubectl probe set /does-not-exist (%v) did not stop at the first Pod:\n%s", err, out)
	}
	if names := changed(); len(names) != 1 {
		t.Errorf("Pods changed by the wrong probe: %v, want one", names)
	}
	f.readyPods("app=fleet", 20)

	start := time.Now()
	out, err = f.kubectlProbe("set", "deployment/fleet", "--readiness", "--get-url=http://:8080/readyz?v=2")
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("kubectl probe set: %v\n%s", err, out)
	}
	// The batches: the Pods set between two proofs.
	if batches := provenBatches(out, "readiness"); !slices.Equal(batches, []int{1, 2, 4, 5, 5, 3}) {
		t.Errorf("batches of %v Pods, want 1, 2, 4, 5, 5 and 3, each once the one before it is proven:\n%s", batches, out)
	}
	if want := "up to 5 at a time: maxUnavailable 25% of deployment.apps/fleet's 20 replicas"; !strings.Contains(out, want) {
		t.Errorf("kubectl probe set does not say the limit it took from the Deployment, %q:\n%s", want, out)
	}
	if n := strings.Count(out, "; the new readiness probe passed: the container stayed Ready through the probe's failure window (9s)"); n != 20 {
		t.Errorf("%d Pods proven, want 20:\n%s", n, out)
	}
	// 6 windows, and the pre-check, the requests and the kubelet's
	// reports on a busy node.
	if limit := 6*9*time.Second + 20*time.Second; elapsed > limit {
		t.Errorf("kubectl probe set took %s for 20 Pods, want at most 6 failure windows (54s) and 20s", elapsed)
	}
	if names := changed(); len(names) != 20 {
		t.Errorf("%d Pods changed, want 20", len(names))
	}
}

// TestPluginInterruptAndUndo interrupts (SIGINT) a readiness change of the
// 8 Pods of a Deployment while its second batch is in flight: no Pod
// changes after it, the 2 in flight are proven to the end, and the command
// lists the 3 Pods it changed, and the undo that puts them back, which
// does.
func TestPluginInterruptAndUndo(t *testing.T) {
	f := pluginTest(t)
	pods := f.readinessDeployment("halt", 8, 3)
	names := sortedNames(pods)

	cmd := f.probeCommand("set", "deployment/halt", "--readiness", "--get-url=http://:8080/readyz?v=2")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var lines []string
	scanner := bufio.NewScanner(r)
	proven, set := 0, 0
	for scanner.Scan() {
		line := scanner.Text()
		lines = append(lines, line)
		switch {
		case strings.Contains(line, "; the new readiness probe passed: "):
			proven++
		case strings.HasSuffix(line, " probes set"):
			set++
		}
		// The first Pod is proven, and the 2 of the second batch are in
		// flight.
		if proven == 1 && set == 3 {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			set++
		}
	}
	err = cmd.Wait()
	out := strings.Join(lines, "\n")
	t.Logf("kubectl probe set deployment/halt, interrupted:\n%s", out)
	// The command names the kubeconfig the run was given, if any.
	undo := "kubectl probe undo deployment/halt -n " + f.ns + " "
	for _, want := range []string{
		"interrupted: no more Pods change, and the 2 in flight are proven first; Ctrl-C again quits at once",
		"error: interrupted",
		fmt.Sprintf("done (3): pod/%s pod/%s pod/%s", names[0], names[1], names[2]),
		"not started, left as they are (5): ",
		"to put back the 3 Pods that this run changed: " + undo,
	} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("the interrupted run (%v) does not say %q", err, want)
		}
	}
	if n := strings.Count(out, " probes set"); n != 3 {
		t.Errorf("%d Pods changed, want 3: none after the interrupt", n)
	}
	for _, name := range names[3:] {
		if g := f.get(name).Generation; g != 1 {
			t.Errorf("%s: generation %d, want 1: changed after the interrupt", name, g)
		}
	}

	// The undo that the run printed puts the 3 Pods back.
	var args []string
	for _, line := range lines {
		if i := strings.Index(line, undo); i >= 0 {
			args = strings.Fields(strings.TrimPrefix(line[i:], "kubectl probe "))
		}
	}
	if args == nil {
		t.Fatal("the run printed no undo")
	}
	out, err = f.kubectlProbe(args...)
	if err != nil || strings.Count(out, " probes put back") != 3 {
		t.Errorf("%s (%v) did not put back 3 Pods:\n%s", strings.Join(args, " "), err, out)
	}
	for _, name := range names {
		if path := f.readinessPath(name); path != "/readyz" {
			t.Errorf("%s: readiness path %q after the undo, want /readyz", name, path)
		}
		if p := f.get(name); restarts(p, app) != 0 || containerID(p, app) != pods[name] {
			t.Errorf("%s: the container did not keep running: %s", name, describe(p))
		}
	}
}

// TestMeasurePluginRollout measures kubectl probe set --readiness on the 100
// healthy Pods of a Deployment, once with each --wait mode: the wall time,
// the failure windows it took, and the requests, counted by kind by a proxy
// in front of the API server. 100 Pods is about what the node holds (its
// kubelet takes 110), so the Deployment is all there is in the namespace.
// The readiness probe has a 10s period, a 1s timeout and failureThreshold
// 3: a failure window of 3 × (10s + 1s) and the plugin's 5s margin, 38s.
// Each run has the default batch limit, the Deployment's maxUnavailable, 25%
// of 100, 25; the first Pod changes alone, and each batch after it is twice
// the one before, up to the limit: 1, 2, 4, 8, 16, 25, 25 and 19 Pods.
//
//   - --wait=proven, the default: each batch starts once every change of
//     the batch before it is proven through its window: 8 windows, 5 min 4 s
//     at least. One Pod at a time, it would take 100 windows, 63 minutes.
//   - --wait=applied: the first Pod is proven, one window, and each batch
//     after it is waited on only until the kubelet reports its changes'
//     generation, a second or two: under a minute.
//   - --wait=none: no wait, not even for the first Pod; the batches go as
//     fast as the requests, a dry run, a try and a PATCH for each Pod, which
//     the plugin sends at 50 a second after a burst of 100 (the tries
//     through the Pod proxy aside): a few seconds. The kubelet applies the
//     changes after the command has returned, which the test times.
//
// Each mode also has the plugin's requests, which take seconds: with a
// wait, a LIST and a WATCH of each Pod, and a LIST of the Pods before each
// batch.
//
// Each run moves the probe to a URL with a query of its own, /readyz?run=N,
// so that it changes every Pod. That path answers 200, so no container may
// turn unready or restart. The last run proves nothing: after it, the test
// watches every Pod for one more window, in which a new probe that failed
// would have made its container unready, and checks that each runs the
// container it started with.
func TestMeasurePluginRollout(t *testing.T) {
	measuring(t)
	f := newFramework(t)
	const replicas = 100
	// failureThreshold × (periodSeconds + timeoutSeconds), and the margin.
	const window = 3*(10+1)*time.Second + 5*time.Second
	f.roomFor(replicas)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	c.ReadinessProbe.PeriodSeconds = 10
	c.ReadinessProbe.FailureThreshold = 3
	f.deployment("fleet", replicas, c, nil)
	err := wait.PollUntilContextTimeout(f.ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := f.client.AppsV1().Deployments(f.ns).Get(ctx, "fleet", metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas == replicas, err
	})
	if err != nil {
		t.Fatalf("%d Ready Pods: %v", replicas, err)
	}
	pods := f.readyPods("app=fleet", replicas)

	p := apiproxy.Start(t, nodeKubeconfig(), "")
	for i, run := range []struct {
		wait string
		// limit bounds the run, far above what it should take.
		limit time.Duration
	}{
		{"proven", 8*window + 2*time.Minute},
		{"applied", window + 2*time.Minute},
		{"none", 2 * time.Minute},
	} {
		p.Reset()
		uri := fmt.Sprintf("/readyz?run=%d", i+1)
		args := []string{"set", "deployment/fleet", "--readiness", fmt.Sprintf("--get-url=http://:%d%s", port, uri), "--wait=" + run.wait}
		start := time.Now()
		out, elapsed, err := runPlugin(t, f.probeCommandVia(p.Kubeconfig, args...), run.limit)
		if err != nil {
			t.Fatalf("kubectl probe %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		requests := countRequests(p, f.ns)
		if want := fmt.Sprintf("up to 25 at a time: maxUnavailable 25%% of deployment.apps/fleet's %d replicas", replicas); !strings.Contains(out, want) {
			t.Errorf("--wait=%s: the run does not say the limit it took from the Deployment, %q:\n%s", run.wait, want, out)
		}
		if n := len(setLines(out)); n != replicas {
			t.Errorf("--wait=%s: %d Pods changed, want %d:\n%s", run.wait, n, replicas, out)
		}
		passed := strings.Count(out, "; the new readiness probe passed: the container stayed Ready through the probe's failure window (38s)")
		applied := strings.Count(out, "; its new probes are not proven (--wait=applied)")
		switch run.wait {
		case "proven":
			if passed != replicas {
				t.Errorf("--wait=proven: %d Pods proven, want %d:\n%s", passed, replicas, out)
			}
			if batches := provenBatches(out, "readiness"); !slices.Equal(batches, []int{1, 2, 4, 8, 16, 25, 25, 19}) {
				t.Errorf("--wait=proven: batches of %v Pods, want 1, 2, 4, 8, 16, 25, 25 and 19, each once the one before it is proven:\n%s", batches, out)
			}
		case "applied":
			if passed != 1 || applied != replicas-1 {
				t.Errorf("--wait=applied: %d Pods proven and %d waited on until applied, want the first proven and the %d others applied:\n%s", passed, applied, replicas-1, out)
			}
		case "none":
			if n := strings.Count(out, "the kubelet applied generation"); n != 0 {
				t.Errorf("--wait=none: %d Pods waited on, want none:\n%s", n, out)
			}
		}
		// Polled from the end of the command: with --wait=none, when the
		// kubelet had applied what the command only stored.
		every := f.allApplied("app=fleet", replicas, uri, 2*time.Minute)
		t.Logf("measure: kubectl probe set deployment/fleet --readiness --wait=%s, %d healthy Pods in batches of up to 25: %s (%.1f failure windows of %s); the kubelet had reported every change %s after the start; %s",
			run.wait, replicas, elapsed.Round(100*time.Millisecond), elapsed.Seconds()/window.Seconds(), window,
			every.Sub(start).Round(100*time.Millisecond), perPod(requests, replicas))
	}
	f.holdsAll("app=fleet", replicas, "the same Ready container", window, func(p *v1.Pod) bool {
		return ready(p, app) && sameContainer(app, pods[p.Name], 0)(p)
	})
}

// TestMeasurePluginCrashLoop measures kubectl probe stopping the restart
// loop of the 50 Pods of a Deployment. Their liveness probe asks /livez every
// second with failureThreshold 1, and /livez answers 503 (LIVEZ=fail), as a
// health check does that asks after a dependency that is down while the
// process itself serves: the kubelet kills each container a second or two
// after it starts, and waits out its back-off before the next start, 10s
// after the second run, doubling with each restart up to 5 minutes. Once
// every Pod has restarted, the on-call engineer's change:
//
//	kubectl probe set deployment/loop --liveness --get-url=http://:8080/healthz --initial-delay-seconds=10 --failure-threshold=3 --wait=applied
//
// points the probe at /healthz, which answers while the process serves: it
// stops the restarts, and still restarts a process that hangs. A higher
// failureThreshold on /livez alone would only put each restart off, by
// failureThreshold × periodSeconds: the pre-check lets it through, since it
// fails now as the old probe does, and the first Pod's proof fails when the
// new probe reaches its threshold, which is when the kubelet restarts the
// container anyway. Removing the probe (kubectl
// probe disable) would leave a hung process running. failureThreshold 3
// keeps one slow answer on a busy node from restarting a container, and
// keeps one failure of the old probe, reported in the second in which the
// change was stored, from failing the first Pod's proof; initialDelaySeconds
// 10 lets a container that the loop starts again listen first, which on a
// node restarting 50 containers takes more than the 3 s of three periods
// (the guide's advice for a relaxation during a crash loop).
//
// --wait=applied, the fast path that the guide gives for an incident,
// proves the first Pod alone: the plugin waits for its container's next
// start, after the back-off still to come, up to 40 s or 80 s at this point
// of the loop, then through the new probe's window, 3 × (1s + 1s) and the 5s
// margin, 11s. Each Pod after it is waited on only until its kubelet reports
// the change, in batches of 1, 2, 4, 8, 12, 12 and 11 Pods (the Deployment's
// maxUnavailable, 25% of 50, 12; the Pods that are not Ready, in a restart
// loop nearly all of them, change first): the run takes that back-off, 11s
// and a few seconds a batch, a minute or two. A probe change does not cut a
// back-off short: a container that waits when its change arrives starts
// when its back-off ends, up to 160 s for the Pods that the loop has
// restarted five times by then, and then keeps running: the restarts should
// stop within about 4 minutes of the command's start, the last Pods'
// back-off after the last batch. The test measures the run's wall time and
// when the restarts stopped: when the old probe killed its last container,
// and when the last container started that kept running, until every
// container has run for 20s, more than three windows of the new probe
// (6s), without a restart.
//
// The default, --wait=proven, is not measured: each batch waits, for each of
// its Pods, for its container's next start and the new probe's window, and
// the Pods that the run has not reached yet keep crash-looping meanwhile, so
// each batch waits out a longer back-off than the one before. From a minute
// into the loop, the 7 batches wait about 40 s, 80 s and 160 s, then 5
// minutes each: about 25 minutes, nearly half of the 60 minutes that the
// harness gives every measurement together, while the restarts that the
// change is meant to stop go on.
//
// The pre-check tries the new probe on each container that the API server
// reports running. In a restart loop every such container started seconds
// ago, within the time the new probe gives it to start, and may not listen
// yet, or be killed before the try reaches it: a try it refuses is not an
// answer of the new probe, and the run goes on (the test fails if the
// pre-check refuses it), the proof judging the first Pod.
func TestMeasurePluginCrashLoop(t *testing.T) {
	measuring(t)
	f := newFramework(t)
	const (
		replicas = 50
		// quiet is how long each container runs without a restart for the
		// restarts to count as stopped.
		quiet = 20 * time.Second
		// longest is the kubelet's longest back-off.
		longest = 5 * time.Minute
	)
	f.roomFor(replicas)
	c := targetContainer(app, port, "LIVEZ=fail")
	c.LivenessProbe = httpProbe("/livez", port)
	f.deployment("loop", replicas, c, nil)
	created := time.Now()
	var looping []v1.Pod
	restarted := 0
	err := wait.PollUntilContextTimeout(f.ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=loop"})
		if err != nil {
			return false, err
		}
		looping, restarted = list.Items, 0
		for i := range looping {
			if restarts(&looping[i], app) >= 1 {
				restarted++
			}
		}
		return len(looping) == replicas && restarted == replicas, nil
	})
	if err != nil {
		t.Fatalf("%d of %d Pods restarted by their liveness probe, want %d: %v", restarted, len(looping), replicas, err)
	}
	least, most := restarts(&looping[0], app), restarts(&looping[0], app)
	for i := range looping {
		least, most = min(least, restarts(&looping[i], app)), max(most, restarts(&looping[i], app))
	}
	t.Logf("measure: crash loop: %d Pods restarted by their liveness probe; every one had restarted %s after the Deployment was created, %d to %d times",
		replicas, time.Since(created).Round(time.Second), least, most)

	p := apiproxy.Start(t, nodeKubeconfig(), "")
	args := []string{"set", "deployment/loop", "--liveness", fmt.Sprintf("--get-url=http://:%d/healthz", port), "--initial-delay-seconds=10", "--failure-threshold=3", "--wait=applied"}
	// The first Pod's proof waits out a back-off, at most the longest.
	limit := longest + 2*time.Minute
	start := time.Now()
	out, elapsed, err := runPlugin(t, f.probeCommandVia(p.Kubeconfig, args...), limit)
	if err != nil {
		t.Fatalf("kubectl probe %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	requests := countRequests(p, f.ns)
	list, err := f.client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: "app=loop"})
	if err != nil {
		t.Fatal(err)
	}
	atEnd := map[string]int32{}
	for i := range list.Items {
		atEnd[list.Items[i].Name] = restarts(&list.Items[i], app)
	}
	if n := len(setLines(out)); n != replicas {
		t.Errorf("%d Pods changed, want %d:\n%s", n, replicas, out)
	}
	first := firstLine(out, "; the new liveness probe passed: ")
	if passed, applied := strings.Count(out, "; the new liveness probe passed: "), strings.Count(out, "; its new probes are not proven (--wait=applied)"); passed != 1 || applied != replicas-1 {
		t.Errorf("%d Pods proven and %d waited on until applied, want the first proven and the %d others applied:\n%s", passed, applied, replicas-1, out)
	}

	// A Pod whose container waited out its back-off when the run ended
	// starts once more; after that start, no container may restart.
	settled := f.settled("app=loop", replicas, quiet, longest+quiet+time.Minute)
	var lastKill, lastStart time.Time
	waited := 0
	highest := int32(0)
	for i := range settled {
		pod := &settled[i]
		before, ok := atEnd[pod.Name]
		if !ok {
			t.Errorf("pod %s was not there when the run ended", pod.Name)
			continue
		}
		if probe := pod.Spec.Containers[0].LivenessProbe; probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != "/healthz" || probe.FailureThreshold != 3 || probe.InitialDelaySeconds != 10 {
			t.Errorf("pod %s: liveness probe %+v, want the relaxed one", pod.Name, probe)
		}
		if pod.Status.ObservedGeneration != pod.Generation {
			t.Errorf("pod %s: the kubelet reports generation %d, want %d", pod.Name, pod.Status.ObservedGeneration, pod.Generation)
		}
		switch n := restarts(pod, app); {
		case n > before+1:
			t.Errorf("pod %s restarted %d times after the run ended, want at most once, the start that ended its back-off: %s", pod.Name, n-before, describe(pod))
		case n == before+1:
			waited++
		}
		highest = max(highest, restarts(pod, app))
		s := containerStatus(pod, app)
		if ended := s.LastTerminationState.Terminated; ended != nil && ended.FinishedAt.After(lastKill) {
			lastKill = ended.FinishedAt.Time
		}
		if s.State.Running.StartedAt.After(lastStart) {
			lastStart = s.State.Running.StartedAt.Time
		}
	}
	t.Logf("measure: crash loop: kubectl probe %s, %d Pods: %s, %d waits for Ready Pods before a batch; %s; the first Pod: %s",
		strings.Join(args, " "), replicas, elapsed.Round(100*time.Millisecond), strings.Count(out, "batches: waiting for Pods to turn Ready"), cmp.Or(strings.TrimSpace(firstLine(out, "pre-check: the new liveness probe was not tried")), "pre-check: tried on every Pod"), strings.TrimSpace(first))
	t.Logf("measure: crash loop: the restarts stopped %s after the command started, when the last container that kept running started; the old probe's last kill ended %s after the start; %d Pods waited out a back-off after the command had ended; restart counts up to %d; %s",
		lastStart.Sub(start).Round(time.Second), lastKill.Sub(start).Round(time.Second), waited, highest, perPod(requests, replicas))
}

// firstLine returns the first line of out that contains s, or "".
func firstLine(out, s string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// settled waits until each of the n Pods that selector selects has run the
// same container app for quiet, without a restart, and returns them as they
// were then.
func (f *framework) settled(selector string, n int, quiet, limit time.Duration) []v1.Pod {
	f.t.Helper()
	type seen struct {
		container string
		since     time.Time
	}
	last := map[string]seen{}
	var pods []v1.Pod
	calm := 0
	err := wait.PollUntilContextTimeout(f.ctx, time.Second, limit, true, func(ctx context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		now := time.Now()
		pods, calm = list.Items, 0
		for i := range pods {
			pod := &pods[i]
			container := ""
			if running(pod, app) {
				container = fmt.Sprintf("%s, restart %d", containerID(pod, app), restarts(pod, app))
			}
			if s, ok := last[pod.Name]; !ok || s.container != container {
				last[pod.Name] = seen{container: container, since: now}
			}
			if container != "" && now.Sub(last[pod.Name].since) >= quiet {
				calm++
			}
		}
		return len(pods) == n && calm == n, nil
	})
	if err != nil {
		f.t.Fatalf("%d of %d Pods of %s ran for %s without a restart, want %d: %v", calm, len(pods), selector, quiet, n, err)
	}
	return pods
}

// runPlugin runs the command of kubectl probe, and returns what it printed,
// standard output and error together, and how long it ran. A run still going
// after limit, far longer than the test expects, is interrupted as Ctrl-C
// does (no Pod changes after it), and the test fails: the harness gives
// every measurement 60 minutes together.
func runPlugin(t *testing.T, cmd *exec.Cmd, limit time.Duration) (string, time.Duration, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	late := time.AfterFunc(limit, func() { _ = cmd.Process.Signal(os.Interrupt) })
	err := cmd.Wait()
	elapsed := time.Since(start)
	if !late.Stop() {
		t.Fatalf("%s: still running after %s, interrupted (%v):\n%s", strings.Join(cmd.Args, " "), limit, err, out.String())
	}
	return out.String(), elapsed, err
}

// setLines returns the lines of a run's output that say that a Pod changed.
func setLines(out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, " probes set") {
			lines = append(lines, line)
		}
	}
	return lines
}

// provenBatches returns the batches of a run's output: how many Pods were
// set between two proofs of their new probe of type probe (readiness,
// liveness).
func provenBatches(out, probe string) []int {
	var batches []int
	set := 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasSuffix(line, " probes set"):
			set++
		case strings.Contains(line, "; the new "+probe+" probe passed: ") && set > 0:
			batches = append(batches, set)
			set = 0
		}
	}
	return batches
}

// roomFor waits until the node can take n more Pods: its allocatable Pods
// less those bound to it, which include the Pods of the tests before this
// one until their namespaces are gone.
func (f *framework) roomFor(n int) {
	f.t.Helper()
	free := 0
	err := wait.PollUntilContextTimeout(f.ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		nodes, err := f.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		if len(nodes.Items) != 1 {
			return false, fmt.Errorf("%d nodes, want the one node", len(nodes.Items))
		}
		node := &nodes.Items[0]
		pods, err := f.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node.Name})
		if err != nil {
			return false, err
		}
		free = int(node.Status.Allocatable.Pods().Value())
		for i := range pods.Items {
			if phase := pods.Items[i].Status.Phase; phase != v1.PodSucceeded && phase != v1.PodFailed {
				free--
			}
		}
		return free >= n, nil
	})
	if err != nil {
		f.t.Fatalf("the node has room for %d more Pods, want %d: %v", free, n, err)
	}
}

// allApplied waits until the n Pods that selector selects have the readiness
// path uri and the kubelet reports their generation, and returns when it saw
// that.
func (f *framework) allApplied(selector string, n int, uri string, limit time.Duration) time.Time {
	f.t.Helper()
	var left []string
	err := wait.PollUntilContextTimeout(f.ctx, 250*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		left = nil
		for i := range list.Items {
			pod := &list.Items[i]
			probe := pod.Spec.Containers[0].ReadinessProbe
			if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != uri || pod.Status.ObservedGeneration != pod.Generation {
				left = append(left, pod.Name)
			}
		}
		return len(list.Items) == n && len(left) == 0, nil
	})
	if err != nil {
		f.t.Fatalf("the change to %s is not applied on %d Pods of %s: %v: %v", uri, len(left), selector, left, err)
	}
	return time.Now()
}

// holdsAll checks that cond holds for each of the n Pods that selector
// selects on every poll for d, as holds does for one Pod.
func (f *framework) holdsAll(selector string, n int, what string, d time.Duration, cond func(*v1.Pod) bool) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.ctx, d)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		if len(list.Items) != n {
			return false, fmt.Errorf("%d Pods of %s, want %d", len(list.Items), selector, n)
		}
		for i := range list.Items {
			if pod := &list.Items[i]; !cond(pod) {
				return false, fmt.Errorf("pod %s: no longer %s\nstatus: %s", pod.Name, what, describe(pod))
			}
		}
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		f.t.Fatal(err)
	}
}

// perPod says how many requests of each kind counts holds, in all and per
// Pod of pods.
func perPod(counts map[string]int, pods int) string {
	total := 0
	var kinds []string
	for _, kind := range slices.Sorted(maps.Keys(counts)) {
		total += counts[kind]
		kinds = append(kinds, fmt.Sprintf("%s %d (%.2f)", kind, counts[kind], float64(counts[kind])/float64(pods)))
	}
	return fmt.Sprintf("%d requests, %.2f per Pod: %s", total, float64(total)/float64(pods), strings.Join(kinds, ", "))
}

// countRequests counts the requests so far through p by kind.
func countRequests(p *apiproxy.Proxy, namespace string) map[string]int {
	pods := "/api/v1/namespaces/" + namespace + "/pods"
	counts := map[string]int{}
	for _, r := range p.Requests() {
		query, _ := url.ParseQuery(r.RawQuery)
		kind := "other"
		switch path := r.Path; {
		case r.Method == http.MethodPatch && query.Has("dryRun"):
			kind = "dry run"
		case r.Method == http.MethodPatch:
			kind = "patch"
		case strings.HasPrefix(path, pods+"/") && strings.Contains(path, "/proxy"):
			kind = "try"
		case r.Method == http.MethodGet && strings.HasPrefix(path, pods+"/") && !strings.Contains(strings.TrimPrefix(path, pods+"/"), "/"):
			// A Pod read again after a PATCH that met a conflict.
			kind = "get of a Pod"
		case path == pods && query.Get("watch") == "true":
			kind = "watch of a Pod"
		case path == pods && query.Has("fieldSelector"):
			kind = "list of a Pod"
		case strings.HasSuffix(path, "/events"):
			kind = "events"
		case path == pods || strings.Contains(path, "/deployments") || strings.Contains(path, "/replicasets"):
			kind = "targets"
		case strings.Contains(path, "selfsubjectaccessreviews"):
			kind = "access review"
		case path == "/api" || path == "/apis" || strings.HasPrefix(path, "/openapi"):
			kind = "discovery"
		}
		counts[kind]++
	}
	return counts
}

// TestPluginTriesEachHandler: the check tries each kind of handler against
// the Pod as the kubelet would run it: tcpSocket and grpc through a
// port-forward, exec through exec (httpGet, through the Pod proxy, is tried
// by the other tests), and refuses the ones that fail now.
func TestPluginTriesEachHandler(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.Args = append(c.Args, "-grpc-listen", ":9090")
	c.ReadinessProbe = httpProbe("/readyz", port)
	f.create(newPod("web", c))
	f.waitFor("web", "app Ready", func(p *v1.Pod) bool { return ready(p, app) })
	for _, tc := range []struct {
		args []string
		// want is what the command says; it fails unless ok.
		want string
		ok   bool
	}{
		{[]string{"--open-tcp=8080"}, "pre-check: the new liveness probe succeeds: tcp-socket :8080: connected", true},
		{[]string{"--open-tcp=8081"}, `error: pod/web: the new liveness probe of container "app" fails now: tcp-socket :8081: connection refused`, false},
		{[]string{"--grpc-port=9090"}, "pre-check: the new liveness probe succeeds: grpc :9090: answered SERVING", true},
		{[]string{"--grpc-port=8081"}, `error: pod/web: the new liveness probe of container "app" fails now: grpc :8081: connection refused`, false},
		{[]string{"--", "cat", "/state/app/starts"}, "pre-check: the new liveness probe succeeds: exec [cat /state/app/starts]: exited with 0", true},
		{[]string{"--", "cat", "/missing"}, `error: pod/web: the new liveness probe of container "app" fails now: exec [cat /missing]: exited with 1: cat: can't open '/missing'`, false},
	} {
		generation := f.get("web").Generation
		// The pre-check is what this tests: no wait for the proof.
		out, err := f.kubectlProbe(append([]string{"set", "web", "--liveness", "--wait=false"}, tc.args...)...)
		if (err == nil) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("kubectl probe set web --liveness %s (%v), want it to say %q:\n%s", strings.Join(tc.args, " "), err, tc.want, out)
		}
		if changed := f.get("web").Generation != generation; changed != tc.ok {
			t.Errorf("kubectl probe set web --liveness %s: the Pod changed: %v, want %v", strings.Join(tc.args, " "), changed, tc.ok)
		}
	}
}

// TestPluginMidRollout works on a Deployment in the middle of a rollout:
// restore after a rollout (nothing kept on the new Pod: unchanged), restore
// --from-template (each Pod from its own revision), and a terminating Pod
// skipped.
func TestPluginMidRollout(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	c.LivenessProbe = httpProbe("/livez", port)
	c.LivenessProbe.FailureThreshold = 3
	// Old Pods take their time to terminate.
	c.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sleep", "60"}}}}
	f.deployment("roll", 2, c, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](60)
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
	})
	old := f.readyPods("app=roll", 2)

	if out, err := f.kubectlProbe("disable", "deployment/roll", "--liveness"); err != nil {
		t.Fatalf("kubectl probe disable: %v\n%s", err, out)
	}

	// A rollout that stalls: the new template's Pods are never Ready, and
	// their liveness probe is slower.
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"READYZ","value":"fail"}],"livenessProbe":{"periodSeconds":2}}]}}}}`
	if _, err := f.client.AppsV1().Deployments(f.ns).Patch(f.ctx, "roll", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var fresh string
	err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=roll"})
		if err != nil {
			return false, err
		}
		for i := range list.Items {
			if p := &list.Items[i]; old[p.Name] == "" && running(p, app) {
				fresh = p.Name
			}
		}
		return fresh != "", nil
	})
	if err != nil {
		t.Fatalf("no Pod of the new template runs: %v", err)
	}

	// The new Pod has nothing kept, and the template's probes: unchanged.
	out, err := f.kubectlProbe("restore", "deployment/roll", "--liveness")
	if err != nil || !strings.Contains(out, "pod/"+fresh+" unchanged") || strings.Count(out, " probes restored") != 2 {
		t.Errorf("kubectl probe restore after a rollout (%v):\n%s", err, out)
	}
	for name := range old {
		if p := f.get(name).Spec.Containers[0].LivenessProbe; p == nil || p.PeriodSeconds != 1 {
			t.Errorf("pod %s: the liveness probe was not restored: %+v", name, p)
		}
	}

	// --from-template: each Pod gets its own revision's probe.
	if out, err := f.kubectlProbe("set", "deployment/roll", "--liveness", "--timeout-seconds=5"); err != nil {
		t.Fatalf("kubectl probe set: %v\n%s", err, out)
	}
	if out, err := f.kubectlProbe("restore", "deployment/roll", "--liveness", "--from-template"); err != nil {
		t.Fatalf("kubectl probe restore --from-template: %v\n%s", err, out)
	}
	if p := f.get(fresh).Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 1 || p.PeriodSeconds != 2 {
		t.Errorf("pod %s: liveness probe %+v, want its own template's (timeout 1s, period 2s)", fresh, p)
	}
	for name := range old {
		if p := f.get(name).Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 1 || p.PeriodSeconds != 1 {
			t.Errorf("pod %s: liveness probe %+v, want its own template's (timeout 1s, period 1s)", name, p)
		}
	}

	// An old Pod terminating: skipped, and the others change.
	var leaving string
	for name := range old {
		leaving = name
		break
	}
	if err := f.client.CoreV1().Pods(f.ns).Delete(f.ctx, leaving, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err = f.kubectlProbe("set", "deployment/roll", "--liveness", "--timeout-seconds=4")
	if err != nil || !strings.Contains(out, "pod/"+leaving+" skipped: terminating") || !strings.Contains(out, "pod/"+fresh+" probes set") {
		t.Errorf("kubectl probe set on a Deployment with a terminating Pod (%v):\n%s", err, out)
	}
}

// TestPluginPlantedAnnotation: a command that someone who may patch the Pod
// wrote into the kept copy is not installed by restore.
func TestPluginPlantedAnnotation(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.LivenessProbe = httpProbe("/livez", port)
	f.create(newPod("web", c))
	f.waitFor("web", "app running", func(p *v1.Pod) bool { return running(p, app) })
	if out, err := f.kubectlProbe("disable", "web", "--liveness"); err != nil {
		t.Fatalf("kubectl probe disable: %v\n%s", err, out)
	}
	planted := `{"app":{"liveness":{"exec":{"command":["sh","-c","touch /tmp/planted"]},"timeoutSeconds":1,"periodSeconds":1,"successThreshold":1,"failureThreshold":1}}}`
	// As kubectl probe 0.2 kept it, which this version reads too.
	f.patchAs("web", types.MergePatchType, fmt.Sprintf(`{"metadata":{"annotations":{%q:null,%q:%q}}}`, "kubectl-probe.x-k8s.io/disabled", "probes.kep-6318.example/disabled", planted))
	generation := f.get("web").Generation

	out, err := f.kubectlProbe("restore", "web", "--liveness")
	if err == nil || !strings.Contains(out, `error: pod/web: the liveness probe kept for container "app" runs a command, exec [sh -c touch /tmp/planted], and anyone who may patch the Pod may have written it`) {
		t.Errorf("kubectl probe restore installed a planted command (%v):\n%s", err, out)
	}
	if pod := f.get("web"); pod.Generation != generation || pod.Spec.Containers[0].LivenessProbe != nil {
		t.Errorf("the refused restore changed the Pod: generation %d (was %d), liveness probe %+v", pod.Generation, generation, pod.Spec.Containers[0].LivenessProbe)
	}
}

// TestPluginJobWithFailedPod: the failed Pod of a Job is skipped, its
// running Pods change.
func TestPluginJobWithFailedPod(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.LivenessProbe = httpProbe("/livez", port)
	c.LivenessProbe.FailureThreshold = 3
	template := newPod("", c)
	template.Spec.RestartPolicy = v1.RestartPolicyNever
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](2), Completions: ptr.To[int32](2), BackoffLimit: ptr.To[int32](6),
			Template: v1.PodTemplateSpec{Spec: template.Spec},
		},
	}
	if _, err := f.client.BatchV1().Jobs(f.ns).Create(f.ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := f.readyPods("job-name=batch", 2)
	var failed string
	for name := range pods {
		failed = name
		break
	}
	// The process fails: its Pod, which does not restart, has failed. The app
	// exits without answering, so the request is sent again until the Pod has
	// failed, in case the first one never reached the container.
	f.waitFor(failed, "the Pod failed", func(p *v1.Pod) bool {
		if p.Status.Phase == v1.PodFailed {
			return true
		}
		_, _ = f.app(failed, port, "POST", "exit", map[string]string{"code": "1"})
		return false
	})

	out, err := f.kubectlProbe("set", "job/batch", "--liveness", "--timeout-seconds=5")
	if err != nil || !strings.Contains(out, "pod/"+failed+" skipped: finished (Failed)") {
		t.Errorf("kubectl probe set on a Job with a failed Pod (%v):\n%s", err, out)
	}
	for name := range pods {
		if name != failed {
			if p := f.get(name).Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 5 {
				t.Errorf("the running pod %s was not changed: %+v", name, p)
			}
		}
	}
}

// TestPluginStatefulSetPodRecreated: a StatefulSet's Pod deleted and
// created again under the same name while kubectl probe waits for the Pod
// before it is skipped; the new Pod is not changed.
func TestPluginStatefulSetPodRecreated(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	labels := map[string]string{"app": "db"}
	ss := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To[int32](2),
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			Template:            v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: newPod("", c).Spec},
		},
	}
	if _, err := f.client.AppsV1().StatefulSets(f.ns).Create(f.ctx, ss, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.readyPods("app=db", 2)
	before := f.get("db-1").UID

	// The readiness change of db-0 is confirmed after its failure window,
	// 1 × (1s + 5s) and the margin: time enough for db-1 to be recreated.
	cmd := f.probeCommand("set", "statefulset/db", "--readiness", "--timeout-seconds=5", "--skip-check")
	var out bytes.Buffer
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	scanner := bufio.NewScanner(stdout)
	for scanner.Scan() {
		lines = append(lines, scanner.Text())
		if scanner.Text() != "pod/db-0 probes set" {
			continue
		}
		if err := f.client.CoreV1().Pods(f.ns).Delete(f.ctx, "db-1", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(f.ctx, 100*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
			p, err := f.client.CoreV1().Pods(f.ns).Get(ctx, "db-1", metav1.GetOptions{})
			return err == nil && p.UID != before, nil
		})
		if err != nil {
			t.Fatalf("db-1 was not recreated: %v", err)
		}
	}
	err = cmd.Wait()
	printed := strings.Join(lines, "\n") + "\n" + out.String()
	t.Logf("kubectl probe set statefulset/db:\n%s", printed)
	if err != nil || !slices.Contains(lines, "pod/db-1 skipped: recreated: another Pod has its name now") {
		t.Errorf("kubectl probe set did not skip the recreated db-1 (%v):\n%s", err, printed)
	}
	if p := f.get("db-1").Spec.Containers[0].ReadinessProbe; p.TimeoutSeconds != 1 {
		t.Errorf("the new db-1 was changed: %+v", p)
	}
	if p := f.get("db-0").Spec.Containers[0].ReadinessProbe; p.TimeoutSeconds != 5 {
		t.Errorf("db-0 was not changed: %+v", p)
	}
}

// TestPluginStopsRestartLoop disables the liveness probe of a container in a
// restart loop with kubectl probe, checks that the restarts stop and the
// container keeps what it holds in memory, then restores the probe from the
// copy the plugin kept on the Pod.
func TestPluginStopsRestartLoop(t *testing.T) {
	f := pluginTest(t)
	c := targetContainer(app, port, "LIVEZ=fail")
	c.LivenessProbe = httpProbe("/livez", port)
	f.create(newPod("loop", c))
	f.waitFor("loop", "a restart", func(p *v1.Pod) bool { return restarts(p, app) >= 1 && running(p, app) })

	if out, err := f.kubectlProbe("disable", "loop", "--liveness"); err != nil {
		t.Fatalf("kubectl probe disable: %v\n%s", err, out)
	}
	pod := f.waitApplied("loop")
	if pod.Spec.Containers[0].LivenessProbe != nil {
		t.Fatalf("the liveness probe is still in the spec after kubectl probe disable")
	}
	pod = f.waitFor("loop", "app running", func(p *v1.Pod) bool { return running(p, app) })
	id, count := containerID(pod, app), restarts(pod, app)
	f.tell("loop", port, "memory", map[string]string{"value": "inspect-me"})
	f.holds("loop", "the same running container", 15*time.Second, sameContainer(app, id, count))
	if s := f.state("loop", port); s.Memory != "inspect-me" {
		t.Errorf("the container lost what it held: memory %q", s.Memory)
	}

	// The kept probe fails still: the check refuses to put it back.
	out, err := f.kubectlProbe("restore", "loop", "--liveness")
	if err == nil || !strings.Contains(out, `the new liveness probe of container "app" fails now: http-get http://:8080/livez: answered 503 Service Unavailable`) {
		t.Errorf("kubectl probe restore of a failing probe was not refused (%v):\n%s", err, out)
	}
	// The app is fixed; the kept probe comes back as it was.
	f.tell("loop", port, "mode", map[string]string{"livez": "ok"})
	if out, err := f.kubectlProbe("restore", "loop", "--liveness"); err != nil {
		t.Fatalf("kubectl probe restore: %v\n%s", err, out)
	}
	pod = f.waitApplied("loop")
	if p := pod.Spec.Containers[0].LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/livez" {
		t.Fatalf("kubectl probe restore did not put the liveness probe back: %+v", p)
	}
	// The kept probe is gone; the record of the run that restored it stays, for its undo.
	for key := range pod.Annotations {
		if key != "kubectl-probe.x-k8s.io/last-run" {
			t.Errorf("annotation %s left after kubectl probe restore: %v", key, pod.Annotations)
		}
	}
	f.holds("loop", "the same running container", 10*time.Second, sameContainer(app, id, count))
}

// readyPods waits until selector selects n Ready Pods, and returns their
// names and container IDs.
func (f *framework) readyPods(selector string, n int) map[string]string {
	f.t.Helper()
	var pods map[string]string
	err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		list, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		pods = map[string]string{}
		for i := range list.Items {
			if p := &list.Items[i]; ready(p, app) && p.DeletionTimestamp == nil {
				pods[p.Name] = containerID(p, app)
			}
		}
		return len(pods) == n, nil
	})
	if err != nil {
		f.t.Fatalf("%d Ready Pods of %s, want %d: %v", len(pods), selector, n, err)
	}
	return pods
}
