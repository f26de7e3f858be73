//go:build node

package node

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// kubectlProbe runs kubectl probe, the project's plugin, through the node's
// kubectl as a user does: kubectl finds kubectl-probe on PATH.
func (f *framework) kubectlProbe(args ...string) (string, error) {
	f.t.Helper()
	dir := pluginDir(f.t)
	kubeconfig := os.Getenv("KEP_NODE_KUBECONFIG")
	if kubeconfig == "" {
		kubeconfig = filepath.Join("..", "..", "_output", "node", "state", "kubeconfig")
	}
	kubectl := filepath.Join("..", "..", "_output", "bin", "kubectl")
	// kubectl takes no flags of its own before a plugin's name: they follow it
	// and reach the plugin.
	cmd := exec.CommandContext(f.ctx, kubectl, append([]string{"probe", "--kubeconfig", kubeconfig, "-n", f.ns}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// pluginDir builds kubectl-probe into a directory of the test's, once per
// test.
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "kubectl-probe"), "./cmd/kubectl-probe")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-probe: %v\n%s", err, out)
	}
	return dir
}

// TestPluginStopsRestartLoop disables the liveness probe of a container in a
// restart loop with kubectl probe, checks that the restarts stop and the
// container keeps what it holds in memory, then restores the probe from the
// copy the plugin kept on the Pod.
func TestPluginStopsRestartLoop(t *testing.T) {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
	f := newFramework(t)
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
	if _, err := f.app("loop", port, "POST", "memory", map[string]string{"value": "inspect-me"}); err != nil {
		t.Fatal(err)
	}
	f.holds("loop", "the same running container", 15*time.Second, sameContainer(app, id, count))
	if s := f.state("loop", port); s.Memory != "inspect-me" {
		t.Errorf("the container lost what it held: memory %q", s.Memory)
	}

	// The app is fixed; the kept probe comes back as it was.
	if _, err := f.app("loop", port, "POST", "mode", map[string]string{"livez": "ok"}); err != nil {
		t.Fatal(err)
	}
	if out, err := f.kubectlProbe("restore", "loop", "--liveness"); err != nil {
		t.Fatalf("kubectl probe restore: %v\n%s", err, out)
	}
	pod = f.waitApplied("loop")
	if p := pod.Spec.Containers[0].LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/livez" {
		t.Fatalf("kubectl probe restore did not put the liveness probe back: %+v", p)
	}
	if len(pod.Annotations) != 0 {
		t.Errorf("annotations left after kubectl probe restore: %v", pod.Annotations)
	}
	f.holds("loop", "the same running container", 10*time.Second, sameContainer(app, id, count))
}

// TestPluginReadinessAcrossDeployment changes the readiness probe of the two
// Pods of a Deployment with kubectl probe, which waits for each Pod to be
// Ready again before it changes the next: no container restarts, and the
// template is left as it was.
func TestPluginReadinessAcrossDeployment(t *testing.T) {
	if !kubeletGate() {
		t.Skip("the kubelet runs with MutableContainerProbes off")
	}
	f := newFramework(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	labels := map[string]string{"app": "web"}
	template := newPod("", c)
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: template.Spec},
		},
	}
	if _, err := f.client.AppsV1().Deployments(f.ns).Create(f.ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := f.readyPods("app=web", 2)

	out, err := f.kubectlProbe("set", "deployment/web", "--readiness", "--get-url=http://:8080/readyz?v=2", "--timeout", "2m")
	if err != nil {
		t.Fatalf("kubectl probe set: %v\n%s", err, out)
	}
	if !strings.Contains(out, "template") {
		t.Errorf("kubectl probe did not say that the Deployment's template is unchanged:\n%s", out)
	}
	for name, id := range pods {
		pod := f.get(name)
		if p := pod.Spec.Containers[0].ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz?v=2" {
			t.Errorf("pod %s: readiness probe %+v, want the new path", name, p)
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
	if out, err := f.kubectlProbe("show", "deployment/web"); err != nil || strings.Count(out, "/readyz?v=2") != 2 {
		t.Errorf("kubectl probe show does not show the new probe on both Pods (%v):\n%s", err, out)
	}
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
