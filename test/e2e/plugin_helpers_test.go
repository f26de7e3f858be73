//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"mutableprobes/test/internal/apiproxy"
	"mutableprobes/test/internal/pluginbuild"
)

// built is kubectl-probe, which the tests build once (plugin).
var built pluginbuild.Build

// TestMain stops the control plane that the plugin's tests share, and
// removes the plugin that they built.
func TestMain(m *testing.M) {
	code := m.Run()
	shared.stop()
	built.Remove()
	os.Exit(code)
}

// plugin builds kubectl-probe once, into a directory of its own, with its
// completion script, as make install-plugin installs them, and returns the
// directory, for the tests to put on PATH.
func plugin(t *testing.T) string {
	t.Helper()
	return built.Dir(t, root(t))
}

// pluginTest starts a test of kubectl probe: it returns the control plane
// that the plugin's tests share (sharedCluster), with namespace created in
// it for this test alone.
func pluginTest(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := sharedCluster(t)
	newNamespace(t, c, namespace, nil)
	return c
}

// result is what a command printed, and how it ended.
type result struct {
	stdout, stderr string
	err            error
}

func (r result) String() string {
	return "exit: " + errString(r.err) + "\nstdout:\n" + r.stdout + "stderr:\n" + r.stderr
}

func errString(err error) string {
	if err == nil {
		return "0"
	}
	return err.Error()
}

// probe runs "kubectl probe ARGS" with the kubectl under test, which finds
// the plugin on PATH, as a user runs it, against the API server that
// kubeconfig names.
func probe(t *testing.T, c *cluster, kubeconfig string, args ...string) result {
	t.Helper()
	// kubectl probe COMMAND --kubeconfig FILE ARGS: before the ARGS, which
	// may end in "-- COMMAND".
	args = append([]string{"probe", args[0], "--kubeconfig", kubeconfig}, args[1:]...)
	cmd := exec.Command(filepath.Join(c.bin, "kubectl"), args...)
	cmd.Env = append(os.Environ(),
		"PATH="+plugin(t)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECACHEDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// mustProbe is probe that fails the test when the command fails.
func mustProbe(t *testing.T, c *cluster, kubeconfig string, args ...string) result {
	t.Helper()
	r := probe(t, c, kubeconfig, args...)
	if r.err != nil {
		t.Fatalf("kubectl probe %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// failProbe is probe that fails the test when the command succeeds or
// does not print each of want on standard error.
func failProbe(t *testing.T, c *cluster, kubeconfig string, want []string, args ...string) result {
	t.Helper()
	r := probe(t, c, kubeconfig, args...)
	if r.err == nil {
		t.Fatalf("kubectl probe %s succeeded, want it to fail:\n%s", strings.Join(args, " "), r)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("kubectl probe %s: standard error lacks %q:\n%s", strings.Join(args, " "), w, r)
		}
	}
	return r
}

// startProxy starts a proxy to the cluster's API server (apiproxy), which
// authenticates as the cluster's administrator, with a kubeconfig whose
// context has namespace.
func startProxy(t *testing.T, c *cluster, namespace string) *apiproxy.Proxy {
	t.Helper()
	return apiproxy.Start(t, c.kubeconfig, namespace)
}

// underPath reports whether r is to path, or to a path under it if path
// ends in a slash.
func underPath(r apiproxy.Request, path string) bool {
	return r.Path == path || strings.HasSuffix(path, "/") && strings.HasPrefix(r.Path, path)
}

// count returns the number of requests so far through p with the method and
// the path (underPath); a PATCH counts only if it is not a dry run.
func count(p *apiproxy.Proxy, method, path string) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Method == method && underPath(r, path) && !r.DryRun() {
			n++
		}
	}
	return n
}

// dryRuns returns the number of dry runs so far through p of the path
// (underPath).
func dryRuns(p *apiproxy.Proxy, path string) int {
	n := 0
	for _, r := range p.Requests() {
		if r.DryRun() && underPath(r, path) {
			n++
		}
	}
	return n
}

// newNamespace creates a namespace and its default service account (there
// is no controller manager to create it).
func newNamespace(t *testing.T, c *cluster, name string, labels map[string]string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.client.CoreV1().ServiceAccounts(name).Create(ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// appSpec is the Pod spec of the plugin's tests: the container app with a
// liveness and a readiness probe on /healthz.
func appSpec() v1.PodSpec {
	return v1.PodSpec{Containers: []v1.Container{{
		Name:  "app",
		Image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
		Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
			TimeoutSeconds: 1},
		ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}},
	}}}
}

// createAppPod creates a Pod in namespace with spec, labels, and owner as its
// controller if owner is set.
func createAppPod(t *testing.T, c *cluster, namespace, name string, spec v1.PodSpec, labels map[string]string, owner metav1.Object, ownerKind string) *v1.Pod {
	t.Helper()
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}, Spec: spec}
	if owner != nil {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: ownerKind, Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true)}}
	}
	created, err := c.client.CoreV1().Pods(namespace).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// createReplicaSet creates a ReplicaSet with the Pod template spec and no
// replicas (no controller manager runs to create them); the tests create
// its Pods.
func createReplicaSet(t *testing.T, c *cluster, namespace, name string, spec v1.PodSpec, labels map[string]string, owner *appsv1.Deployment) *appsv1.ReplicaSet {
	t.Helper()
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
		},
	}
	if owner != nil {
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)}}
	}
	created, err := c.client.AppsV1().ReplicaSets(namespace).Create(context.Background(), rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func (c *cluster) pod(t *testing.T, namespace, name string) *v1.Pod {
	t.Helper()
	pod, err := c.client.CoreV1().Pods(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// appSpecOn is appSpec with its port and probes on port.
func appSpecOn(port int32) v1.PodSpec {
	spec := appSpec()
	c := &spec.Containers[0]
	c.Ports[0].ContainerPort = port
	c.LivenessProbe.HTTPGet.Port = intstr.FromInt32(port)
	c.ReadinessProbe.HTTPGet.Port = intstr.FromInt32(port)
	return spec
}

// app is an HTTP server on this host that stands in for the container of
// Pods whose IP is the host's, for the API server's Pod proxy to reach:
// /healthz and /readyz answer 200, other paths 404.
type app struct {
	ip   string
	port int32
	mu   sync.Mutex
	hits []string
}

// startApp starts the app, or skips the test when this host has no address
// that the API server proxies to (a global unicast one).
func startApp(t *testing.T) *app {
	t.Helper()
	a := &app{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range addrs {
		if ipNet, ok := addr.(*net.IPNet); ok && ipNet.IP.To4() != nil && ipNet.IP.IsGlobalUnicast() {
			a.ip = ipNet.IP.String()
			break
		}
	}
	if a.ip == "" {
		t.Skip("this host has no global unicast IPv4 address for the API server's Pod proxy to reach")
	}
	l, err := net.Listen("tcp", net.JoinHostPort(a.ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	a.port = int32(l.Addr().(*net.TCPAddr).Port)
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits = append(a.hits, r.URL.Path)
		a.mu.Unlock()
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
			return
		}
		http.NotFound(w, r)
	})}
	go func() { _ = server.Serve(l) }()
	t.Cleanup(func() { _ = server.Close() })
	return a
}

// count returns how many requests for path the app answered.
func (a *app) count(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, h := range a.hits {
		if h == path {
			n++
		}
	}
	return n
}

// running writes the status of a Pod whose container app runs at ip, Ready,
// as its kubelet would.
func running(t *testing.T, client kubernetes.Interface, pod *v1.Pod, ip string) *v1.Pod {
	t.Helper()
	pod = pod.DeepCopy()
	pod.Status = v1.PodStatus{
		Phase:              v1.PodRunning,
		PodIP:              ip,
		PodIPs:             []v1.PodIP{{IP: ip}},
		ObservedGeneration: pod.Generation,
		Conditions:         []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}},
		ContainerStatuses: []v1.ContainerStatus{{
			Name: "app", Image: pod.Spec.Containers[0].Image, Ready: true, Started: ptr.To(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}},
		}},
	}
	updated, err := client.CoreV1().Pods(pod.Namespace).UpdateStatus(context.Background(), pod, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return updated
}

// fakeKubelet plays the kubelet of a Node that declares
// MutableContainerProbes, for the Pods bound to it in a namespace: it
// reports each generation of a Pod as observed, keeping the container's
// Ready state, as the kubelet does after a probe change; then, when
// failing says that the Pod's new readiness probe fails, it makes the
// container not Ready and records the Unhealthy event that says why, and
// when it says that the new liveness probe fails, it records an Unhealthy
// event of it once a second, three times, as a kubelet probing every second
// does up to a failureThreshold of 3.
type fakeKubelet struct {
	node string
	// failing says which new probe of the Pod fails: "readiness",
	// "liveness" or "".
	failing func(*v1.Pod) string
}

// startFakeKubelet creates the Node and plays its kubelet until the test
// ends.
func startFakeKubelet(t *testing.T, c *cluster, namespace, node string, failing func(*v1.Pod) string) *fakeKubelet {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := c.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
		n, err := c.client.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Status.DeclaredFeatures = []string{"MutableContainerProbes"}
		if _, err := c.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	k := &fakeKubelet{node: node, failing: failing}
	w, err := c.client.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Stop()
		for e := range w.ResultChan() {
			pod, ok := e.Object.(*v1.Pod)
			if !ok || e.Type == watch.Deleted || pod.DeletionTimestamp != nil || pod.Status.ObservedGeneration >= pod.Generation {
				continue
			}
			k.sync(ctx, c.client, pod)
		}
	}()
	return k
}

func (k *fakeKubelet) sync(ctx context.Context, client kubernetes.Interface, pod *v1.Pod) {
	pods := client.CoreV1().Pods(pod.Namespace)
	pod = pod.DeepCopy()
	ready := pod.Status.Phase != v1.PodRunning || len(pod.Status.ContainerStatuses) == 0 || pod.Status.ContainerStatuses[0].Ready
	setReady := func(ready bool) {
		status := v1.ConditionFalse
		if ready {
			status = v1.ConditionTrue
		}
		pod.Status.Phase = v1.PodRunning
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: status}}
		pod.Status.ContainerStatuses = []v1.ContainerStatus{{
			Name: "app", Image: pod.Spec.Containers[0].Image, Ready: ready, Started: ptr.To(true),
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}},
		}}
	}
	// The change applied: the generation, with the Ready state kept.
	pod.Status.ObservedGeneration = pod.Generation
	setReady(ready)
	updated, err := pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	if err != nil {
		return
	}
	unhealthy := func(message string) {
		now := metav1.Now()
		_, _ = client.CoreV1().Events(pod.Namespace).Create(ctx, &v1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: pod.Name + "-", Namespace: pod.Namespace},
			InvolvedObject: v1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, FieldPath: "spec.containers{app}"},
			Reason:         "Unhealthy", Type: v1.EventTypeWarning, Message: message,
			FirstTimestamp: now, LastTimestamp: now, Count: 1,
			Source: v1.EventSource{Component: "kubelet", Host: k.node},
		}, metav1.CreateOptions{})
	}
	switch k.failing(pod) {
	case "readiness":
		// The new readiness probe reached its failure threshold.
		unhealthy("Readiness probe failed: HTTP probe failed with statuscode: 404")
		pod = updated.DeepCopy()
		setReady(false)
		_, _ = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	case "liveness":
		// The new liveness probe fails every second, as long as it is
		// the Pod's; this kubelet does not restart the container.
		generation := pod.Generation
		go func() {
			for range 3 {
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return
				}
				if p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{}); err != nil || p.Generation != generation {
					return
				}
				unhealthy("Liveness probe failed: HTTP probe failed with statuscode: 404")
			}
		}()
	default:
		// The new readiness probe reached its success threshold.
		if !ready {
			pod = updated.DeepCopy()
			setReady(true)
			_, _ = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		}
	}
}

// waitFor polls cond until it holds, for at most 30 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// ready says whether the kubelet reports the Pod Ready.
func ready(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// grant lets user do verbs on the Pods of namespace.
func grant(t *testing.T, c *cluster, namespace, user string, verbs []string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.client.RbacV1().Roles(namespace).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: verbs}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.client.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// terminating makes the Pod terminating: a finalizer keeps it until the
// test ends.
func terminating(t *testing.T, c *cluster, pod *v1.Pod) {
	t.Helper()
	ctx := context.Background()
	pods := c.client.CoreV1().Pods(pod.Namespace)
	if _, err := pods.Patch(ctx, pod.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":["e2e.kep-6318.example/hold"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = pods.Patch(ctx, pod.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
}

// deletePod deletes a Pod at once (no kubelet waits for it).
func deletePod(t *testing.T, c *cluster, namespace, name string) {
	t.Helper()
	if err := c.client.CoreV1().Pods(namespace).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Error(err)
	}
}
