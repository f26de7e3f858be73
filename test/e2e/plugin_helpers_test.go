//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

var (
	pluginOnce sync.Once
	pluginDir  string
	pluginErr  error
)

// TestMain removes the plugin that the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if pluginDir != "" {
		os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}

// plugin builds kubectl-probe once, into a directory of its own, and
// returns the directory, for the tests to put on PATH.
func plugin(t *testing.T) string {
	t.Helper()
	pluginOnce.Do(func() {
		if pluginDir, pluginErr = os.MkdirTemp("", "kubectl-probe-"); pluginErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "kubectl-probe"), "./cmd/kubectl-probe")
		cmd.Dir = root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			pluginErr = &buildError{err: err, out: string(out)}
		}
	})
	if pluginErr != nil {
		t.Fatalf("building kubectl-probe: %v", pluginErr)
	}
	return pluginDir
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

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

// request is one request that went through a proxy.
type request struct {
	method, path string
}

// proxy sits between the plugin and the API server: it records each
// request and, with before set, calls it before it forwards a request.
type proxy struct {
	kubeconfig string
	mu         sync.Mutex
	requests   []request
	before     func(r *http.Request)
}

// startProxy starts a proxy to the cluster's API server, which
// authenticates as the cluster's administrator, and writes a kubeconfig
// for it.
func startProxy(t *testing.T, c *cluster, namespace string) *proxy {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(config)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(config.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{}
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.Transport = transport
	forward.FlushInterval = -1 // watches stream
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests = append(p.requests, request{method: r.Method, path: r.URL.Path})
		before := p.before
		p.mu.Unlock()
		if before != nil {
			before(r)
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)

	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: server.URL}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy", Namespace: namespace}
	kc.CurrentContext = "proxy"
	p.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, p.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return p
}

// count returns the number of requests so far with the method and the
// path, or with a path under it if path ends in a slash.
func (p *proxy) count(method, path string) int {
	n := 0
	for _, r := range p.snapshot() {
		if r.method == method && (r.path == path || strings.HasSuffix(path, "/") && strings.HasPrefix(r.path, path)) {
			n++
		}
	}
	return n
}

// snapshot returns the requests so far.
func (p *proxy) snapshot() []request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// reset forgets the requests so far.
func (p *proxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
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
