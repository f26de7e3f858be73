//go:build node

// Package node holds the node tests of KEP-6318 that cannot live upstream:
// the version skew of a kubelet with the gate off next to an API server with
// it on, and the measurements of docs/performance.md. They run on a real
// kubelet, containerd and runc. The feature's behaviour on the node is
// tested by its e2e specs in the series (test/e2e/common/node/
// container_probe_mutable.go), which 'make test-node' runs on the same node.
// Run these with 'make test-node' or 'make measure-node', which build and
// start the single-node cluster of hack/node-up.sh and set
// HARNESS_NODE_KUBECONFIG.
package node

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// probeImage is the project's test image (test/images/probe-target), which
// hack/node-up.sh imports into the node's containerd.
const probeImage = "registry.k8s.invalid/kep-6318/probe-target:1.0"

// eventually bounds every wait for the cluster to reach a state.
const eventually = 90 * time.Second

// kubeletGate reports whether the node's kubelet runs with
// MutableContainerProbes on (HARNESS_NODE_KUBELET_GATE, default true).
func kubeletGate() bool { return os.Getenv("HARNESS_NODE_KUBELET_GATE") != "false" }

// framework is one test's client and namespace.
type framework struct {
	t      *testing.T
	ctx    context.Context
	client kubernetes.Interface
	ns     string
}

// binary is the path of the node's binary NAME: in the base's directory
// (HARNESS_BIN, which make test-node sets; _output/bin by default).
func binary(name string) string {
	dir := os.Getenv("HARNESS_BIN")
	if dir == "" {
		dir = filepath.Join("..", "..", "_output", "bin")
	}
	return filepath.Join(dir, name)
}

func newFramework(t *testing.T) *framework {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", nodeKubeconfig())
	if err != nil {
		t.Fatalf("no cluster (run 'make test-node'): %v", err)
	}
	config.QPS, config.Burst = 50, 100
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	f := &framework{t: t, ctx: t.Context(), client: client}
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	ns, err := client.CoreV1().Namespaces().Create(f.ctx, &v1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: strings.TrimSuffix(name, "-") + "-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.ns = ns.Name
	t.Cleanup(func() {
		// Delete the Pods at once so the namespace goes quickly; the next
		// test does not wait for it.
		ctx := context.Background()
		zero := int64(0)
		_ = client.CoreV1().Pods(f.ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		_ = client.CoreV1().Namespaces().Delete(ctx, f.ns, metav1.DeleteOptions{})
	})
	return f
}

// httpProbe probes path on the container's port every second.
func httpProbe(path string, port int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(port),
		}},
		PeriodSeconds: 1, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1,
	}
}

// targetContainer runs the test image on port; env sets the initial modes of
// its endpoints, for example "READYZ=fail".
func targetContainer(name string, port int32, env ...string) v1.Container {
	c := v1.Container{
		Name:            name,
		Image:           probeImage,
		ImagePullPolicy: v1.PullNever,
		Args:            []string{"-listen", fmt.Sprintf(":%d", port), "-state-dir", "/state/" + name},
		VolumeMounts:    []v1.VolumeMount{{Name: "state", MountPath: "/state"}},
	}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		c.Env = append(c.Env, v1.EnvVar{Name: k, Value: v})
	}
	return c
}

// newPod returns a Pod running containers; an emptyDir keeps each
// container's start count across restarts.
func newPod(name string, containers ...v1.Container) *v1.Pod {
	grace := int64(1)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PodSpec{
			Containers:                    containers,
			TerminationGracePeriodSeconds: &grace,
			Volumes:                       []v1.Volume{{Name: "state", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}},
		},
	}
}

func (f *framework) create(pod *v1.Pod) *v1.Pod {
	f.t.Helper()
	pod, err := f.client.CoreV1().Pods(f.ns).Create(f.ctx, pod, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatalf("creating pod: %v", err)
	}
	return pod
}

func (f *framework) get(name string) *v1.Pod {
	f.t.Helper()
	pod, err := f.client.CoreV1().Pods(f.ns).Get(f.ctx, name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatalf("getting pod %s: %v", name, err)
	}
	return pod
}

// waitFor polls the Pod until cond holds, and returns it.
func (f *framework) waitFor(name, what string, cond func(*v1.Pod) bool) *v1.Pod {
	f.t.Helper()
	var last *v1.Pod
	err := wait.PollUntilContextTimeout(f.ctx, 100*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		pod, err := f.client.CoreV1().Pods(f.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = pod
		return cond(pod), nil
	})
	if err != nil {
		f.t.Fatalf("pod %s: waiting for %s: %v\nlast status: %s", name, what, err, describe(last))
	}
	return last
}

// holds checks that cond holds on every poll for d: the way to observe that
// something does not happen, such as a restart.
func (f *framework) holds(name, what string, d time.Duration, cond func(*v1.Pod) bool) *v1.Pod {
	f.t.Helper()
	var last *v1.Pod
	ctx, cancel := context.WithTimeout(f.ctx, d)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pod, err := f.client.CoreV1().Pods(f.ns).Get(f.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = pod
		if !cond(pod) {
			return false, fmt.Errorf("no longer %s", what)
		}
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		f.t.Fatalf("pod %s: %v\nstatus: %s", name, err, describe(last))
	}
	return last
}

func describe(pod *v1.Pod) string {
	if pod == nil {
		return "<none>"
	}
	b, _ := json.MarshalIndent(pod.Status, "", "  ")
	return string(b)
}

// patch applies a strategic merge patch to the Pod, and returns the Pod and
// when the request was sent.
func (f *framework) patch(name, patch string) (*v1.Pod, time.Time) {
	f.t.Helper()
	return f.patchAs(name, types.StrategicMergePatchType, patch)
}

func (f *framework) patchAs(name string, pt types.PatchType, patch string) (*v1.Pod, time.Time) {
	f.t.Helper()
	start := time.Now()
	pod, err := f.client.CoreV1().Pods(f.ns).Patch(f.ctx, name, pt, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		f.t.Fatalf("patching pod %s with %s: %v", name, patch, err)
	}
	return pod, start
}

// appState is what the test image reports on GET /state.
type appState struct {
	Instance string         `json:"instance"`
	Starts   int            `json:"starts"`
	Memory   string         `json:"memory"`
	Hits     map[string]int `json:"hits"`
	// Arrivals is when the latest requests of each request URI of a health
	// endpoint reached the container, oldest first.
	Arrivals map[string][]time.Time `json:"arrivals"`
}

// app talks to a container of the test image through the API server's Pod
// proxy, as a user with kubectl can.
func (f *framework) app(pod string, port int32, method, path string, params map[string]string) ([]byte, error) {
	req := f.client.CoreV1().RESTClient().Verb(method).Namespace(f.ns).Resource("pods").
		Name(fmt.Sprintf("%s:%d", pod, port)).SubResource("proxy").Suffix(path)
	for k, v := range params {
		req = req.Param(k, v)
	}
	return req.DoRaw(f.ctx)
}

// tell sends a POST to the app. A container that has just started may not
// listen yet, and the API server answers 503 for a Pod it cannot reach, so it
// retries for a few seconds; the app's POST handlers set a value, so a
// request sent twice does what one does.
func (f *framework) tell(pod string, port int32, path string, params map[string]string) {
	f.t.Helper()
	var err error
	if werr := wait.PollUntilContextTimeout(f.ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err = f.app(pod, port, "POST", path, params)
		return err == nil, nil
	}); werr != nil {
		f.t.Fatalf("POST %s to %s:%d: %v", path, pod, port, err)
	}
}

// state reads the app's state. A container that has just started may not
// listen yet, and the API server answers 503 for a Pod it cannot reach for a
// moment (on a busy node), so it retries for a few seconds.
func (f *framework) state(pod string, port int32) appState {
	f.t.Helper()
	var b []byte
	err := wait.PollUntilContextTimeout(f.ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		var err error
		b, err = f.app(pod, port, "GET", "state", nil)
		return err == nil, nil
	})
	if err != nil {
		_, err = f.app(pod, port, "GET", "state", nil)
		f.t.Fatalf("reading the state of %s:%d: %v", pod, port, err)
	}
	var s appState
	if err := json.Unmarshal(b, &s); err != nil {
		f.t.Fatalf("reading the state of %s:%d: %v: %s", pod, port, err, b)
	}
	return s
}

// probeEvents returns the messages of the Pod's ContainerProbeChanged events.
func (f *framework) probeEvents(pod string) []string {
	f.t.Helper()
	events, err := f.client.CoreV1().Events(f.ns).List(f.ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + pod + ",reason=ContainerProbeChanged",
	})
	if err != nil {
		f.t.Fatal(err)
	}
	var messages []string
	for _, e := range events.Items {
		messages = append(messages, e.Message)
	}
	return messages
}

func containerStatus(pod *v1.Pod, name string) *v1.ContainerStatus {
	for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

func running(pod *v1.Pod, name string) bool {
	s := containerStatus(pod, name)
	return s != nil && s.State.Running != nil
}

func ready(pod *v1.Pod, name string) bool {
	s := containerStatus(pod, name)
	return s != nil && s.Ready
}

func restarts(pod *v1.Pod, name string) int32 {
	if s := containerStatus(pod, name); s != nil {
		return s.RestartCount
	}
	return -1
}

func containerID(pod *v1.Pod, name string) string {
	if s := containerStatus(pod, name); s != nil {
		return s.ContainerID
	}
	return ""
}

// sameContainer is the condition of a container that kept running: the same
// container ID, no new restart, still running.
func sameContainer(name, id string, restartCount int32) func(*v1.Pod) bool {
	return func(pod *v1.Pod) bool {
		return containerID(pod, name) == id && restarts(pod, name) == restartCount && running(pod, name)
	}
}

func isForbidden(err error) bool { return apierrors.IsForbidden(err) }
