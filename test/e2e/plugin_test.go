//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// keptAnnotation is where kubectl probe disable keeps the probes it removes.
const keptAnnotation = "probes.kep-6318.example/disabled"

// TestPlugin runs kubectl probe, the plugin built from cmd/kubectl-probe, as
// a user does: through kubectl, which finds it on PATH, against the patched
// kube-apiserver with MutableContainerProbes on. No node runs, so the Pods
// stay Pending.
func TestPlugin(t *testing.T) {
	c := startCluster(t, true)
	kc := c.kubeconfig
	ctx := context.Background()

	t.Run("workload", func(t *testing.T) {
		newNamespace(t, c, "rs", nil)
		app := map[string]string{"app": "web"}
		rs := createReplicaSet(t, c, "rs", "web", appSpec(), app, nil)
		createAppPod(t, c, "rs", "web-a", appSpec(), app, rs, "ReplicaSet")
		createAppPod(t, c, "rs", "web-b", appSpec(), app, rs, "ReplicaSet")
		// Selected by the ReplicaSet's selector, but not its Pod.
		createAppPod(t, c, "rs", "solo", appSpec(), app, nil, "")

		r := mustProbe(t, c, kc, "set", "-n", "rs", "replicaset/web", "--liveness", "--timeout-seconds=10")
		if r.stdout != "pod/web-a probes set\npod/web-b probes set\n" {
			t.Errorf("stdout:\n%s", r)
		}
		warning := `Warning: spec.containers[0]: probes changed on a pod controlled by ReplicaSet "web"`
		if n := strings.Count(r.stderr, warning); n != 1 {
			t.Errorf("the server's warning is printed %d times, want once:\n%s", n, r)
		}
		if n := strings.Count(r.stderr, "replicaset.apps/web: its Pod template is unchanged"); n != 1 {
			t.Errorf("the note that the template is unchanged is printed %d times, want once:\n%s", n, r)
		}
		for name, want := range map[string]int32{"web-a": 10, "web-b": 10, "solo": 1} {
			pod := c.pod(t, "rs", name)
			if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != want {
				t.Errorf("%s: liveness timeoutSeconds = %d, want %d", name, got, want)
			}
		}

		// Again: nothing to change, no request that changes the Pods.
		r = mustProbe(t, c, kc, "set", "-n", "rs", "replicaset/web", "--liveness", "--timeout-seconds=10")
		if r.stdout != "pod/web-a unchanged\npod/web-b unchanged\n" || strings.Contains(r.stderr, "template is unchanged") {
			t.Errorf("a repeated change:\n%s", r)
		}
		if g := c.pod(t, "rs", "web-a").Generation; g != 2 {
			t.Errorf("web-a is at generation %d, want 2", g)
		}

		r = mustProbe(t, c, kc, "show", "-n", "rs", "replicaset/web")
		lines := tableLines(r.stdout)
		for _, want := range [][]string{
			{"POD", "CONTAINER", "PROBE", "HANDLER", "DELAY", "PERIOD", "TIMEOUT", "SUCCESS", "FAILURE", "TEMPLATE"},
			{"web-a", "app", "liveness", "http-get", "http://:8080/healthz", "0s", "10s", "10s", "1", "3", "differs"},
			{"web-a", "app", "readiness", "http-get", "http://:8080/healthz", "0s", "10s", "1s", "1", "3", "same"},
			{"web-a", "app", "startup", "<none>", "same"},
			{"web-b", "app", "liveness", "http-get", "http://:8080/healthz", "0s", "10s", "10s", "1", "3", "differs"},
		} {
			if !slices.ContainsFunc(lines, func(l []string) bool { return slices.Equal(l, want) }) {
				t.Errorf("show lacks the line %q:\n%s", want, r)
			}
		}
		if len(lines) != 7 {
			t.Errorf("show printed %d lines, want a header and 3 for each of the 2 Pods:\n%s", len(lines), r)
		}

		r = mustProbe(t, c, kc, "show", "-n", "rs", "solo", "-o", "json")
		var reports []struct {
			Pod        string
			Template   string
			Containers []struct {
				Name   string
				Probes []struct {
					Type  string
					Probe *v1.Probe
					Drift string
				}
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &reports); err != nil {
			t.Fatalf("show -o json: %v\n%s", err, r)
		}
		if len(reports) != 1 || reports[0].Pod != "solo" || reports[0].Template != "" ||
			reports[0].Containers[0].Probes[0].Drift != "unknown" || reports[0].Containers[0].Probes[0].Probe.TimeoutSeconds != 1 {
			t.Errorf("show -o json of a Pod without a controller:\n%s", r)
		}
		r = mustProbe(t, c, kc, "show", "-n", "rs", "-l", "app=web", "-o", "yaml")
		for _, want := range []string{"pod: solo", "pod: web-a", "pod: web-b", "template: replicaset.apps/web", "drift: differs"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("show -l app=web -o yaml lacks %q:\n%s", want, r)
			}
		}
	})

	t.Run("set", func(t *testing.T) {
		newNamespace(t, c, "set", nil)
		createAppPod(t, c, "set", "web", appSpec(), nil, nil, "")
		set := func(args ...string) result {
			return mustProbe(t, c, kc, append([]string{"set", "-n", "set", "web"}, args...)...)
		}

		// A new handler replaces the old one; the other fields stay.
		set("--readiness", "--get-url=http://:http/readyz", "--wait=false")
		want := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http"), Scheme: v1.URISchemeHTTP}},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
		if diff := cmp.Diff(want, c.pod(t, "set", "web").Spec.Containers[0].ReadinessProbe); diff != "" {
			t.Errorf("readiness probe (-want +got):\n%s", diff)
		}

		// An absent probe is added with its handler; the API server defaults
		// the fields not given.
		set("--startup", "--failure-threshold=30", "--", "cat", "/tmp/started")
		want = &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"cat", "/tmp/started"}}},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 30}
		if diff := cmp.Diff(want, c.pod(t, "set", "web").Spec.Containers[0].StartupProbe); diff != "" {
			t.Errorf("startup probe (-want +got):\n%s", diff)
		}
		set("--startup", "--remove")
		if p := c.pod(t, "set", "web").Spec.Containers[0].StartupProbe; p != nil {
			t.Errorf("the startup probe is still there after --remove: %+v", p)
		}
		failProbe(t, c, kc, []string{`error: pod/web: container "app" has no startup probe; to add one, give its handler`},
			"set", "-n", "set", "web", "--startup", "--timeout-seconds=5")

		// Dry runs change nothing.
		before := c.pod(t, "set", "web")
		r := set("--liveness", "--grpc-port=9000", "--dry-run=server")
		if r.stdout != "pod/web probes set (server dry run)\n" {
			t.Errorf("server dry run:\n%s", r)
		}
		r = set("--liveness", "--open-tcp=8080", "--dry-run=client", "-o", "yaml")
		if !strings.Contains(r.stdout, "tcpSocket:\n") || !strings.Contains(r.stdout, "kind: Pod") {
			t.Errorf("client dry run -o yaml does not print the changed Pod:\n%s", r)
		}
		if after := c.pod(t, "set", "web"); after.ResourceVersion != before.ResourceVersion {
			t.Errorf("a dry run changed the Pod: resourceVersion %s, then %s", before.ResourceVersion, after.ResourceVersion)
		}
		r = set("--liveness", "--initial-delay-seconds=3", "--period-seconds=20", "-o", "name")
		if r.stdout != "pod/web\n" {
			t.Errorf("-o name:\n%s", r)
		}
		if p := c.pod(t, "set", "web").Spec.Containers[0].LivenessProbe; p.InitialDelaySeconds != 3 || p.PeriodSeconds != 20 || p.TimeoutSeconds != 1 {
			t.Errorf("liveness probe after setting the delay and period: %+v", p)
		}
	})

	t.Run("disable and restore", func(t *testing.T) {
		newNamespace(t, c, "keep", nil)
		created := createAppPod(t, c, "keep", "api", appSpec(), nil, nil, "")
		original := created.Spec.Containers[0].LivenessProbe
		p := startProxy(t, c, "keep")
		patches := func() int {
			defer p.reset()
			return p.count(http.MethodPatch, "/api/v1/namespaces/keep/pods/api")
		}

		mustProbe(t, c, p.kubeconfig, "disable", "api", "--liveness")
		if n := patches(); n != 1 {
			t.Errorf("disable sent %d patches, want 1", n)
		}
		pod := c.pod(t, "keep", "api")
		if pod.Spec.Containers[0].LivenessProbe != nil || pod.Generation != 2 {
			t.Errorf("after disable: generation %d, liveness probe %+v", pod.Generation, pod.Spec.Containers[0].LivenessProbe)
		}
		var kept map[string]map[string]*v1.Probe
		if err := json.Unmarshal([]byte(pod.Annotations[keptAnnotation]), &kept); err != nil {
			t.Fatalf("the annotation %s: %v", keptAnnotation, err)
		}
		if diff := cmp.Diff(original, kept["app"]["liveness"]); diff != "" {
			t.Errorf("kept liveness probe (-want +got):\n%s", diff)
		}
		if r := mustProbe(t, c, kc, "show", "-n", "keep", "api"); !slices.ContainsFunc(tableLines(r.stdout), func(l []string) bool {
			return slices.Equal(l, []string{"api", "app", "liveness", "<disabled>", "-"})
		}) {
			t.Errorf("show does not mark the disabled probe:\n%s", r)
		}

		mustProbe(t, c, p.kubeconfig, "restore", "api", "--liveness")
		if n := patches(); n != 1 {
			t.Errorf("restore sent %d patches, want 1", n)
		}
		pod = c.pod(t, "keep", "api")
		if diff := cmp.Diff(original, pod.Spec.Containers[0].LivenessProbe); diff != "" {
			t.Errorf("restored liveness probe (-want +got):\n%s", diff)
		}
		if _, ok := pod.Annotations[keptAnnotation]; ok || pod.Generation != 3 {
			t.Errorf("after restore: generation %d, annotations %v", pod.Generation, pod.Annotations)
		}

		failProbe(t, c, kc, []string{`error: pod/api: container "app" has no liveness probe kept by kubectl probe disable`},
			"restore", "-n", "keep", "api", "--liveness")

		// Someone sets a liveness probe after disable: restore refuses to
		// replace it, unless --force.
		mustProbe(t, c, kc, "disable", "-n", "keep", "api", "--liveness")
		c.mustKubectl(t, "", "-n", "keep", "patch", "pod", "api", "-p", `{"spec":{"containers":[{"name":"app","livenessProbe":{"tcpSocket":{"port":8080}}}]}}`)
		failProbe(t, c, kc, []string{`error: pod/api: container "app" has a liveness probe again, set after kubectl probe disable kept the old one; --force replaces it`},
			"restore", "-n", "keep", "api", "--liveness")
		if p := c.pod(t, "keep", "api").Spec.Containers[0].LivenessProbe; p.TCPSocket == nil {
			t.Errorf("a refused restore changed the probe: %+v", p)
		}
		mustProbe(t, c, kc, "restore", "-n", "keep", "api", "--liveness", "--force")
		if diff := cmp.Diff(original, c.pod(t, "keep", "api").Spec.Containers[0].LivenessProbe); diff != "" {
			t.Errorf("liveness probe after restore --force (-want +got):\n%s", diff)
		}
	})

	t.Run("deployment and containers", func(t *testing.T) {
		newNamespace(t, c, "deploy", nil)
		labels := map[string]string{"app": "front"}
		spec := appSpec()
		spec.InitContainers = []v1.Container{{Name: "proxy", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)}}
		d, err := c.client.AppsV1().Deployments("deploy").Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "front"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs := createReplicaSet(t, c, "deploy", "front-1", spec, labels, d)
		createAppPod(t, c, "deploy", "front-1-a", spec, labels, rs, "ReplicaSet")
		createAppPod(t, c, "deploy", "front-1-b", spec, labels, rs, "ReplicaSet")

		// Two containers can have probes: the command stops at the first Pod.
		failProbe(t, c, kc, []string{
			"error: pod/front-1-a: has 2 containers that can have probes (proxy, app): choose one with -c",
			"done (0): none", "failed (1): pod/front-1-a", "not started, left as they are (1): pod/front-1-b",
		}, "set", "-n", "deploy", "deployment/front", "--liveness", "--timeout-seconds=5")

		r := mustProbe(t, c, kc, "set", "-n", "deploy", "deployment/front", "-c", "proxy", "--readiness", "--open-tcp=9000", "--wait=false")
		if !strings.Contains(r.stderr, "deployment.apps/front: its Pod template is unchanged") {
			t.Errorf("no note that the template is unchanged:\n%s", r)
		}
		for _, name := range []string{"front-1-a", "front-1-b"} {
			p := c.pod(t, "deploy", name).Spec.InitContainers[0].ReadinessProbe
			if p == nil || p.TCPSocket == nil || p.TCPSocket.Port != intstr.FromInt32(9000) {
				t.Errorf("%s: the sidecar's readiness probe is %+v", name, p)
			}
		}
		r = mustProbe(t, c, kc, "show", "-n", "deploy", "deployment/front", "-c", "proxy")
		if !slices.ContainsFunc(tableLines(r.stdout), func(l []string) bool {
			return slices.Equal(l, []string{"front-1-b", "proxy", "readiness", "tcp-socket", ":9000", "0s", "10s", "1s", "1", "3", "differs"})
		}) {
			t.Errorf("show -c proxy does not mark the sidecar's changed readiness probe:\n%s", r)
		}

		// kubectl.kubernetes.io/default-container chooses, as for kubectl exec.
		c.mustKubectl(t, "", "-n", "deploy", "annotate", "pod", "front-1-a", "kubectl.kubernetes.io/default-container=app")
		mustProbe(t, c, kc, "set", "-n", "deploy", "front-1-a", "--liveness", "--timeout-seconds=5")
		if p := c.pod(t, "deploy", "front-1-a").Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 5 {
			t.Errorf("the default container's liveness probe: %+v", p)
		}
	})

	t.Run("readiness wait", func(t *testing.T) {
		newNamespace(t, c, "wait", nil)
		createAppPod(t, c, "wait", "a", appSpec(), nil, nil, "")
		createAppPod(t, c, "wait", "b", appSpec(), nil, nil, "")
		period := func(name string) int32 {
			return c.pod(t, "wait", name).Spec.Containers[0].ReadinessProbe.PeriodSeconds
		}

		// The Pods stay Pending: a changes, is never Ready, and b is not
		// started.
		failProbe(t, c, kc, []string{
			"error: pod/a: changed, but not Ready within 2s (--timeout)",
			"done (0): none", "failed (1): pod/a", "not started, left as they are (1): pod/b",
		}, "set", "-n", "wait", "a", "pod/b", "--readiness", "--period-seconds=5", "--timeout=2s")
		if period("a") != 5 || period("b") != 10 {
			t.Errorf("readiness periodSeconds: a %d (want 5), b %d (want 10, not started)", period("a"), period("b"))
		}

		r := mustProbe(t, c, kc, "set", "-n", "wait", "a", "pod/b", "--readiness", "--period-seconds=5", "--wait=false", "--max-in-flight=2")
		if !strings.Contains(r.stdout, "pod/a unchanged\n") || !strings.Contains(r.stdout, "pod/b probes set\n") || period("b") != 5 {
			t.Errorf("--wait=false:\n%s", r)
		}
	})

	t.Run("conflict", func(t *testing.T) {
		newNamespace(t, c, "conflict", nil)
		createAppPod(t, c, "conflict", "web", appSpec(), nil, nil, "")
		p := startProxy(t, c, "conflict")
		// Just before the plugin's first patch arrives, someone else
		// changes the readiness probe: the patch, computed from the Pod
		// before that, conflicts.
		var once sync.Once
		p.before = func(r *http.Request) {
			if r.Method != http.MethodPatch {
				return
			}
			once.Do(func() {
				if _, err := c.client.CoreV1().Pods("conflict").Patch(ctx, "web", types.StrategicMergePatchType,
					[]byte(`{"spec":{"containers":[{"name":"app","readinessProbe":{"timeoutSeconds":7}}]}}`), metav1.PatchOptions{}); err != nil {
					t.Errorf("the concurrent edit: %v", err)
				}
			})
		}
		mustProbe(t, c, p.kubeconfig, "set", "web", "--liveness", "--timeout-seconds=10")
		pod := c.pod(t, "conflict", "web").Spec.Containers[0]
		if pod.LivenessProbe.TimeoutSeconds != 10 || pod.ReadinessProbe.TimeoutSeconds != 7 {
			t.Errorf("want the plugin's liveness timeout 10 and the other edit's readiness timeout 7, got %d and %d",
				pod.LivenessProbe.TimeoutSeconds, pod.ReadinessProbe.TimeoutSeconds)
		}
		path := "/api/v1/namespaces/conflict/pods/web"
		if patches, gets := p.count(http.MethodPatch, path), p.count(http.MethodGet, path); patches != 2 || gets != 2 {
			t.Errorf("%d patches and %d gets of the Pod; want 2 each: the target, the conflict, then the Pod read again and patched", patches, gets)
		}
	})

	t.Run("hints", func(t *testing.T) {
		newNamespace(t, c, "hints", nil)
		set := []string{"set", "-n", "hints", "--liveness", "--timeout-seconds=5"}

		// A node whose kubelet does not declare the feature.
		if _, err := c.client.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		bound := appSpec()
		bound.NodeName = "node-1"
		createAppPod(t, c, "hints", "bound", bound, nil, nil, "")
		failProbe(t, c, kc, []string{
			`requires features MutableContainerProbes which are not available on node "node-1"`,
			"hint: the kubelet of the Pod's node cannot apply probe changes",
		}, append(set, "bound")...)

		// A terminating Pod: a finalizer keeps it.
		leaving := createAppPod(t, c, "hints", "leaving", appSpec(), nil, nil, "")
		leaving.Finalizers = []string{"e2e.kep-6318.example/hold"}
		if _, err := c.client.CoreV1().Pods("hints").Update(ctx, leaving, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.client.CoreV1().Pods("hints").Delete(ctx, "leaving", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		failProbe(t, c, kc, []string{"probes cannot be changed on a terminating pod", "hint: the Pod is terminating or has finished"}, append(set, "leaving")...)
		if _, err := c.client.CoreV1().Pods("hints").Patch(ctx, "leaving", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}

		// A finished Pod.
		done := createAppPod(t, c, "hints", "done", appSpec(), nil, nil, "")
		done.Status.Phase = v1.PodSucceeded
		if _, err := c.client.CoreV1().Pods("hints").UpdateStatus(ctx, done, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		failProbe(t, c, kc, []string{"probes cannot be changed on a pod in phase Succeeded", "hint: the Pod is terminating or has finished"}, append(set, "done")...)

		// A user who may read Pods but not patch them.
		createAppPod(t, c, "hints", "web", appSpec(), nil, nil, "")
		if _, err := c.client.RbacV1().Roles("hints").Create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.client.RbacV1().RoleBindings("hints").Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "alice-reads-pods"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pod-reader"},
			Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "alice"}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		failProbe(t, c, kc, []string{`User "alice" cannot patch resource "pods"`, "hint: you may not patch Pods in this namespace"},
			append(set, "web", "--as=alice")...)

		// Pod Security: at baseline, a probe may not name a host.
		newNamespace(t, c, "baseline", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"})
		createAppPod(t, c, "baseline", "web", appSpec(), nil, nil, "")
		failProbe(t, c, kc, []string{`violates PodSecurity "baseline:latest"`, "hint: the Pod with the new probe breaks the namespace's Pod Security level"},
			"set", "-n", "baseline", "web", "--readiness", "--get-url=http://169.254.169.254:80/", "--wait=false")
		if p := c.pod(t, "baseline", "web").Spec.Containers[0].ReadinessProbe; p.HTTPGet.Host != "" {
			t.Errorf("a refused change was stored: %+v", p)
		}
	})
}

// TestPluginGateOff checks what kubectl probe says when the API server has
// MutableContainerProbes off.
func TestPluginGateOff(t *testing.T) {
	c := startCluster(t, false)
	newNamespace(t, c, "off", nil)
	createAppPod(t, c, "off", "web", appSpec(), nil, nil, "")
	failProbe(t, c, c.kubeconfig, []string{
		"error: pod/web: ",
		"pod updates may not change fields other than",
		"hint: the API server does not let probes change: turn the MutableContainerProbes feature gate on in every kube-apiserver",
	}, "set", "-n", "off", "web", "--liveness", "--timeout-seconds=10")
	if p := c.pod(t, "off", "web").Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 1 {
		t.Errorf("the refused change was stored: %+v", p)
	}
	// Showing needs no gate.
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "off", "web")
	if !strings.Contains(r.stdout, "http-get http://:8080/healthz") {
		t.Errorf("show:\n%s", r)
	}
}

// tableLines splits a table into its lines' fields.
func tableLines(table string) [][]string {
	var lines [][]string
	for _, l := range strings.Split(strings.TrimSpace(table), "\n") {
		lines = append(lines, strings.Fields(l))
	}
	return lines
}
