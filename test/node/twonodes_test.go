//go:build node

package node

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The nodes of make node-up NODES=2: the first runs the patched kubelet with
// the gate on; the second, by default (NODE2_GATE=base), the kubelet of the
// unpatched base release, which does not declare the feature.
const (
	firstNode  = "kep-node"
	secondNode = "kep-node-2"
)

// twoNodes skips the test unless the cluster has the second node, Ready and
// without the MutableContainerProbes feature.
func twoNodes(t *testing.T) *framework {
	t.Helper()
	f := newFramework(t)
	node, err := f.client.CoreV1().Nodes().Get(f.ctx, secondNode, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		t.Skipf("the cluster has one node; make test-node NODES=2 runs this test")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, feature := range node.Status.DeclaredFeatures {
		if feature == "MutableContainerProbes" {
			t.Skipf("node %s declares MutableContainerProbes (NODE2_GATE=on); this test wants the base release's kubelet there", secondNode)
		}
	}
	return f
}

// daemonSet runs container c on every node, and returns its Pods by node
// once each is Ready.
func (f *framework) daemonSet(name string, c v1.Container) map[string]*v1.Pod {
	f.t.Helper()
	labels := map[string]string{"app": name}
	pod := newPod(name, c)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod.Spec},
		},
	}
	if _, err := f.client.AppsV1().DaemonSets(f.ns).Create(f.ctx, ds, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	byNode := map[string]*v1.Pod{}
	err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		pods, err := f.client.CoreV1().Pods(f.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return false, err
		}
		clear(byNode)
		for i := range pods.Items {
			if p := &pods.Items[i]; ready(p, c.Name) {
				byNode[p.Spec.NodeName] = p
			}
		}
		return byNode[firstNode] != nil && byNode[secondNode] != nil, nil
	})
	if err != nil {
		f.t.Fatalf("daemonset %s: waiting for a Ready Pod on %s and on %s: %v (Ready: %v)", name, firstNode, secondNode, err, byNode)
	}
	return byNode
}

// kubectlExec runs command in the Pod's container app with kubectl exec.
func (f *framework) kubectlExec(pod string, command ...string) (string, error) {
	f.t.Helper()
	args := append([]string{"--kubeconfig", nodeKubeconfig(), "-n", f.ns, "exec", pod, "-c", app, "--"}, command...)
	out, err := exec.CommandContext(f.ctx, binary("kubectl"), args...).CombinedOutput()
	return string(out), err
}

// On a cluster whose kubelets are half upgraded, a DaemonSet has a Pod on
// each: the API server takes a probe change to the Pod whose kubelet
// declares the feature, which applies it without a restart, and refuses the
// same change to the Pod on the old kubelet's node, storing nothing; each
// Pod reaches the other's over the Pod network; and kubectl probe changes
// the first Pod, skips the second with the API server's reason, and exits 0.
func TestTwoNodesSkew(t *testing.T) {
	f := twoNodes(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	pods := f.daemonSet("web", c)
	patched, old := pods[firstNode], pods[secondNode]
	patchedID, oldID := containerID(patched, app), containerID(old, app)

	// The old kubelet's Pod: refused, nothing stored.
	_, err := f.client.CoreV1().Pods(f.ns).Patch(f.ctx, old.Name, types.StrategicMergePatchType,
		[]byte(`{"spec":{"containers":[{"name":"app","readinessProbe":{"periodSeconds":3}}]}}`), metav1.PatchOptions{})
	if want := fmt.Sprintf("MutableContainerProbes which are not available on node %q", secondNode); !isForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("the change to %s on %s: want it forbidden with %q, got %v", old.Name, secondNode, want, err)
	}
	if got := f.get(old.Name); got.Generation != old.Generation || got.Spec.Containers[0].ReadinessProbe.PeriodSeconds != 1 {
		t.Errorf("the refused change was stored: generation %d (was %d), period %d", got.Generation, old.Generation, got.Spec.Containers[0].ReadinessProbe.PeriodSeconds)
	}

	// The patched kubelet's Pod: its new readiness probe asks the other
	// node's Pod, so it holds only while one node's Pod reaches the other's.
	reach := fmt.Sprintf(`printf 'GET /readyz HTTP/1.0\r\n\r\n' | nc -w 1 %s %d | grep -q '200 OK'`, old.Status.PodIP, port)
	patch := fmt.Sprintf(`{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":null,"exec":{"command":["sh","-c",%q]},"timeoutSeconds":2}}]}}`, reach)
	f.patch(patched.Name, patch)
	f.waitFor(patched.Name, "the change applied", func(p *v1.Pod) bool { return len(f.probeEvents(p.Name)) > 0 })
	// Not Ready once the other node's Pod answers 503, and Ready again once
	// it answers 200: the new probe runs, across the nodes.
	f.tell(old.Name, port, "mode", map[string]string{"readyz": "fail"})
	f.waitFor(patched.Name, "not Ready: the Pod on the other node answers 503", func(p *v1.Pod) bool { return !ready(p, app) })
	f.tell(old.Name, port, "mode", map[string]string{"readyz": "ok"})
	f.waitFor(patched.Name, "Ready again", func(p *v1.Pod) bool { return ready(p, app) })
	f.holds(patched.Name, "the same container", time.Second, sameContainer(app, patchedID, 0))

	// The other node's Pod reaches this one's too.
	back := fmt.Sprintf(`printf 'GET /readyz HTTP/1.0\r\n\r\n' | nc -w 1 %s %d | grep -q '200 OK'`, patched.Status.PodIP, port)
	out, err := f.kubectlExec(old.Name, "sh", "-c", back)
	if err != nil {
		t.Errorf("%s on %s does not reach %s on %s: %v\n%s", old.Name, secondNode, patched.Name, firstNode, err, out)
	}

	// kubectl probe on the DaemonSet: the first Pod changes, the second is
	// skipped with the API server's reason, and the run succeeds.
	out, err = f.kubectlProbe("set", "daemonset/web", "--readiness", "--period-seconds=2")
	if err != nil {
		t.Errorf("kubectl probe set daemonset/web: %v\n%s", err, out)
	}
	for _, want := range []string{
		fmt.Sprintf("pod/%s skipped: ", old.Name),
		fmt.Sprintf("MutableContainerProbes which are not available on node %q", secondNode),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl probe set daemonset/web does not say %q:\n%s", want, out)
		}
	}
	if got := f.get(patched.Name).Spec.Containers[0].ReadinessProbe.PeriodSeconds; got != 2 {
		t.Errorf("%s: readiness period %d after kubectl probe set, want 2", patched.Name, got)
	}
	if got := f.get(old.Name); got.Generation != old.Generation {
		t.Errorf("%s: generation %d after kubectl probe set, want %d: the skipped Pod changed", old.Name, got.Generation, old.Generation)
	}
	f.holds(patched.Name, "the same container", time.Second, sameContainer(app, patchedID, 0))
	f.holds(old.Name, "the same container", time.Second, sameContainer(app, oldID, 0))
}

// restartNode runs hack/node-restart-SCRIPT.sh with args: the rollout
// order's steps, which restart a kubelet or the API server. The two-node
// tests run one after another, on their own (make test-node NODES=2).
func (f *framework) restartNode(script string, args ...string) {
	f.t.Helper()
	if !strings.HasPrefix(f.t.Name(), "TestTwoNodes") {
		f.t.Fatalf("%s restarts a node's component: name it TestTwoNodes..., which make test-node NODES=2 runs alone", f.t.Name())
	}
	out, err := exec.Command(filepath.Join("..", "..", "hack", "node-restart-"+script+".sh"), args...).CombinedOutput()
	if err != nil {
		f.t.Fatalf("hack/node-restart-%s.sh %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
}

// declares waits until the node's Ready kubelet declares the
// MutableContainerProbes feature, or does not.
func (f *framework) declares(node string, want bool) {
	f.t.Helper()
	err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
		n, err := f.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		return err == nil && nodeReady(n) && slices.Contains(n.Status.DeclaredFeatures, "MutableContainerProbes") == want, nil
	})
	if err != nil {
		f.t.Fatalf("node %s: waiting for it Ready, and declaring MutableContainerProbes %v: %v", node, want, err)
	}
}

// nodesReady waits until both nodes are Ready: after a restart of the API
// server, the node lifecycle controller may have found their status old.
func (f *framework) nodesReady() {
	f.t.Helper()
	for _, node := range []string{firstNode, secondNode} {
		err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(ctx context.Context) (bool, error) {
			n, err := f.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			return err == nil && nodeReady(n), nil
		})
		if err != nil {
			f.t.Fatalf("node %s: waiting for it Ready: %v", node, err)
		}
	}
}

func nodeReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// The KEP's rollout order on a cluster of two nodes, and back: the kubelets
// first, then the API server. Probe changes are refused while the API
// server has the gate off, whatever the kubelets; accepted and applied on
// both nodes once it has it on. A node whose kubelet lags behind (here
// downgraded on its own) has its Pods' changes refused by the skew guard,
// and the other node's accepted. Rolled back in the opposite order, each
// step refuses again what it refused on the way up, the probes already
// stored stay, and no container restarts at any step.
func TestTwoNodesRolloutOrder(t *testing.T) {
	f := twoNodes(t)
	// The cluster as make node-up NODES=2 starts it, for what runs after.
	t.Cleanup(func() {
		f.restartNode("apiserver", "true")
		f.restartNode("kubelet", "--kubelet=patched", "true")
		f.restartNode("kubelet", "--node=2", "--kubelet=base")
	})

	// Change sets the readiness probe's period of the Pod, and returns the
	// API server's refusal, if any; an accepted change is waited on until
	// the Pod's kubelet reports its generation. (A kubelet that had just
	// restarted may get the Pod with the change already in it, and start
	// its probe workers so: it applies no change, and says none.)
	change := func(pod *v1.Pod, period int32) error {
		t.Helper()
		p, err := f.client.CoreV1().Pods(f.ns).Patch(f.ctx, pod.Name, types.StrategicMergePatchType,
			[]byte(fmt.Sprintf(`{"spec":{"containers":[{"name":"app","readinessProbe":{"periodSeconds":%d}}]}}`, period)), metav1.PatchOptions{})
		if err != nil {
			return err
		}
		f.waitFor(p.Name, fmt.Sprintf("generation %d applied", p.Generation), func(q *v1.Pod) bool {
			return q.Status.ObservedGeneration >= p.Generation
		})
		return nil
	}
	immutable := func(err error) bool {
		return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "pod updates may not change fields")
	}
	skew := func(node string) func(error) bool {
		return func(err error) bool {
			return isForbidden(err) && strings.Contains(err.Error(), fmt.Sprintf("MutableContainerProbes which are not available on node %q", node))
		}
	}
	accepted := func(err error) bool { return err == nil }

	// All old: the API server's gate off, and both kubelets the base
	// release's (the second's is already).
	f.restartNode("apiserver", "false")
	f.restartNode("kubelet", "--kubelet=base")
	f.declares(firstNode, false)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	pods := f.daemonSet("web", c)
	first, second := pods[firstNode], pods[secondNode]
	firstID, secondID := containerID(first, app), containerID(second, app)

	for _, step := range []struct {
		name          string
		restart       []string // the script, then its arguments
		node          string   // whose declared feature the restart changes
		declares      bool
		first, second func(error) bool
		period        int32 // what each change sets
	}{
		// The KEP's order: the kubelets first, then the API server.
		{name: "all old", first: immutable, second: immutable, period: 2},
		{name: "the first kubelet upgraded", restart: []string{"kubelet", "--kubelet=patched", "true"}, node: firstNode, declares: true,
			first: immutable, second: immutable, period: 2},
		{name: "the second kubelet upgraded", restart: []string{"kubelet", "--node=2", "--kubelet=patched", "true"}, node: secondNode, declares: true,
			first: immutable, second: immutable, period: 2},
		{name: "the API server's gate on", restart: []string{"apiserver", "true"},
			first: accepted, second: accepted, period: 2},
		// A node that lags behind the rollout, or is rolled back on its own:
		// the skew guard keeps its Pods as they are.
		{name: "the second kubelet downgraded on its own", restart: []string{"kubelet", "--node=2", "--kubelet=base"}, node: secondNode, declares: false,
			first: accepted, second: skew(secondNode), period: 3},
		{name: "the second kubelet upgraded again", restart: []string{"kubelet", "--node=2", "--kubelet=patched", "true"}, node: secondNode, declares: true,
			first: accepted, second: accepted, period: 4},
		// Back in the opposite order: the API server first, then the
		// kubelets.
		{name: "the API server's gate off", restart: []string{"apiserver", "false"},
			first: immutable, second: immutable, period: 5},
		{name: "the second kubelet downgraded", restart: []string{"kubelet", "--node=2", "--kubelet=base"}, node: secondNode, declares: false,
			first: immutable, second: immutable, period: 5},
		{name: "the first kubelet downgraded", restart: []string{"kubelet", "--kubelet=base"}, node: firstNode, declares: false,
			first: immutable, second: immutable, period: 5},
	} {
		if len(step.restart) > 0 {
			f.restartNode(step.restart[0], step.restart[1:]...)
		}
		if step.node != "" {
			f.declares(step.node, step.declares)
		}
		// After an API server restart, the nodes are Ready again before
		// their Pods are asked about; after a kubelet's, its Pod is Ready
		// again once its readiness probe has passed.
		f.nodesReady()
		for _, p := range []*v1.Pod{first, second} {
			f.waitFor(p.Name, step.name+": Ready", func(p *v1.Pod) bool { return ready(p, app) })
		}
		for _, p := range []struct {
			pod  *v1.Pod
			want func(error) bool
		}{{first, step.first}, {second, step.second}} {
			before := f.get(p.pod.Name).Spec.Containers[0].ReadinessProbe.PeriodSeconds
			err := change(p.pod, step.period)
			if !p.want(err) {
				t.Fatalf("%s: the change to %s on %s: got %v", step.name, p.pod.Name, p.pod.Spec.NodeName, err)
			}
			if err != nil {
				if got := f.get(p.pod.Name).Spec.Containers[0].ReadinessProbe.PeriodSeconds; got != before {
					t.Errorf("%s: %s: the refused change was stored: period %d, was %d", step.name, p.pod.Name, got, before)
				}
			}
		}
		f.holds(first.Name, step.name+": the same container, Ready", time.Second, func(p *v1.Pod) bool { return sameContainer(app, firstID, 0)(p) && ready(p, app) })
		f.holds(second.Name, step.name+": the same container, Ready", time.Second, func(p *v1.Pod) bool { return sameContainer(app, secondID, 0)(p) && ready(p, app) })
	}
	// What the kubelets applied on the way up stays stored on the way down.
	for _, p := range []*v1.Pod{first, second} {
		if got := f.get(p.Name).Spec.Containers[0].ReadinessProbe.PeriodSeconds; got != 4 {
			t.Errorf("%s: readiness period %d at the end, want 4, the last accepted", p.Name, got)
		}
	}
}

// endpointsReady returns, by Pod name, whether the Service's EndpointSlices
// have the Pod's endpoint ready.
func (f *framework) endpointsReady(service string) map[string]bool {
	f.t.Helper()
	list, err := f.client.DiscoveryV1().EndpointSlices(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
	if err != nil {
		f.t.Fatal(err)
	}
	ready := map[string]bool{}
	for _, s := range list.Items {
		for _, e := range s.Endpoints {
			if e.TargetRef != nil {
				ready[e.TargetRef.Name] = e.Conditions.Ready != nil && *e.Conditions.Ready
			}
		}
	}
	return ready
}

// A Deployment spread over the two nodes, behind a Service: the Service's
// endpoints follow each Pod's readiness, on the node whose kubelet applies
// probe changes as its probe changes, and on the old kubelet's node as its
// app answers.
func TestTwoNodesServiceEndpoints(t *testing.T) {
	f := twoNodes(t)
	c := targetContainer(app, port)
	c.ReadinessProbe = httpProbe("/readyz", port)
	f.deployment("spread", 2, c, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: d.Spec.Selector,
		}}
	})
	if _, err := f.client.CoreV1().Services(f.ns).Create(f.ctx, &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "spread"},
		Spec: v1.ServiceSpec{
			Selector: map[string]string{"app": "spread"},
			Ports:    []v1.ServicePort{{Port: port, TargetPort: intstr.FromInt32(port)}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	byNode := map[string]string{}
	for name := range f.readyPods("app=spread", 2) {
		byNode[f.get(name).Spec.NodeName] = name
	}
	patched, old := byNode[firstNode], byNode[secondNode]
	if patched == "" || old == "" {
		t.Fatalf("the Deployment's Pods are not one on each node: %v", byNode)
	}
	endpoints := func(what string, want map[string]bool) {
		t.Helper()
		var got map[string]bool
		if err := wait.PollUntilContextTimeout(f.ctx, 200*time.Millisecond, eventually, true, func(context.Context) (bool, error) {
			got = f.endpointsReady("spread")
			return maps.Equal(got, want), nil
		}); err != nil {
			t.Fatalf("%s: the Service's endpoints ready %v, want %v", what, got, want)
		}
	}
	endpoints("both Ready", map[string]bool{patched: true, old: true})
	f.patch(patched, `{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/missing"}}}]}}`)
	endpoints("the first node's Pod probed at a missing path", map[string]bool{patched: false, old: true})
	f.patch(patched, `{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/readyz"}}}]}}`)
	endpoints("its probe back", map[string]bool{patched: true, old: true})
	f.tell(old, port, "mode", map[string]string{"readyz": "fail"})
	endpoints("the second node's app not ready", map[string]bool{patched: true, old: false})
	f.tell(old, port, "mode", map[string]string{"readyz": "ok"})
	endpoints("both Ready again", map[string]bool{patched: true, old: true})
}
