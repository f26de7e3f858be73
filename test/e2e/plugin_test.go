//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"mutableprobes/test/internal/apiproxy"
)

// keptAnnotation is where kubectl probe disable keeps the probes it removes,
// and legacyKeptAnnotation where kubectl probe 0.2 kept them.
const (
	keptAnnotation       = "kubectl-probe.x-k8s.io/disabled"
	legacyKeptAnnotation = "probes.kep-6318.example/disabled"
)

// The tests of this file run kubectl probe, the plugin built from
// cmd/kubectl-probe, as a user does: through kubectl, which finds it on
// PATH, against the patched kube-apiserver with MutableContainerProbes on,
// which they share, each in namespaces of its own (pluginTest). No node
// runs: Pods stay Pending, unless a test plays their kubelet (fakeKubelet)
// or writes their status (running), with the host's address as their IP
// for the API server's Pod proxy to reach an app in the test (startApp).

// newWorkload starts a test (pluginTest) with, in namespace, the
// ReplicaSet web, its Pods web-a and web-b, and solo, a Pod that its
// selector selects but that it does not own.
func newWorkload(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := pluginTest(t, namespace)
	app := map[string]string{"app": "web"}
	rs := createReplicaSet(t, c, namespace, "web", appSpec(), app, nil)
	createAppPod(t, c, namespace, "web-a", appSpec(), app, rs, "ReplicaSet")
	createAppPod(t, c, namespace, "web-b", appSpec(), app, rs, "ReplicaSet")
	// Selected by the ReplicaSet's selector, but not its Pod.
	createAppPod(t, c, namespace, "solo", appSpec(), app, nil, "")
	return c
}

// setWorkload changes the liveness timeout of the Pods of newWorkload's
// ReplicaSet to 10s.
func setWorkload(t *testing.T, c *cluster, namespace string) result {
	t.Helper()
	return mustProbe(t, c, c.kubeconfig, "set", "-n", namespace, "replicaset/web", "--liveness", "--timeout-seconds=10")
}

// changedWorkload is newWorkload after setWorkload.
func changedWorkload(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := newWorkload(t, namespace)
	setWorkload(t, c, namespace)
	return c
}

// TestPluginSetWorkloadChangesOwnPods changes the liveness probe of a
// ReplicaSet's Pods: its own Pods change, and not a Pod that its selector
// selects without owning it. The pre-check says what it checked; the API
// server's warning that the Pods have a controller, and the command that
// changes the ReplicaSet's template too (the Pods that replace these come
// from it), are printed once for all the Pods, not once a Pod.
func TestPluginSetWorkloadChangesOwnPods(t *testing.T) {
	c := newWorkload(t, "rs")
	r := setWorkload(t, c, "rs")
	if r.stdout != "pod/web-a probes set\npod/web-b probes set\n" {
		t.Errorf("stdout:\n%s", r)
	}
	for _, want := range []string{
		"pre-check: the API server accepts the change to 2 Pods (server dry run)\n",
		"pre-check: the new liveness probe was not tried on 2 Pods: the container is not running; the wait after each change judges it\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r)
		}
	}
	warning := `Warning: spec.containers[0]: probes changed on a pod controlled by ReplicaSet "web"`
	if n := strings.Count(r.stderr, warning); n != 1 {
		t.Errorf("the server's warning is printed %d times, want once:\n%s", n, r)
	}
	if n := strings.Count(r.stderr, "replicaset.apps/web: Pods that replace these get its template's liveness probe, not the new one; to change the template too, if it has not changed since the run read it (the patch fails otherwise, and changes nothing): kubectl patch replicaset.apps/web -n rs "); n != 1 {
		t.Errorf("the change of the template is printed %d times, want once:\n%s", n, r)
	}
	for name, want := range map[string]int32{"web-a": 10, "web-b": 10, "solo": 1} {
		pod := c.pod(t, "rs", name)
		if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != want {
			t.Errorf("%s: liveness timeoutSeconds = %d, want %d", name, got, want)
		}
	}
}

// TestPluginSetWorkloadAgainChangesNothing makes the same change of a
// ReplicaSet's Pods twice: the second time there is nothing to change, so
// no request changes the Pods (they stay at generation 2), and no change
// of the template is printed.
func TestPluginSetWorkloadAgainChangesNothing(t *testing.T) {
	c := changedWorkload(t, "rs-again")
	r := setWorkload(t, c, "rs-again")
	if r.stdout != "pod/web-a unchanged\npod/web-b unchanged\n" || strings.Contains(r.stderr, "Pods that replace these") {
		t.Errorf("a repeated change:\n%s", r)
	}
	if g := c.pod(t, "rs-again", "web-a").Generation; g != 2 {
		t.Errorf("web-a is at generation %d, want 2", g)
	}
}

// TestPluginShowWorkloadMarksProbesThatDiffer shows the probes of a
// ReplicaSet's Pods after a change: a header, and a line for each of its
// own Pods alone, with the container's probes, that its liveness probe
// differs from the template's, and the Pod's generation.
func TestPluginShowWorkloadMarksProbesThatDiffer(t *testing.T) {
	c := changedWorkload(t, "rs-show")
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "rs-show", "replicaset/web")
	lines := tableLines(r.stdout)
	for _, want := range [][]string{
		{"POD", "CONTAINER", "READY", "RESTARTS", "LIVENESS", "READINESS", "STARTUP", "TEMPLATE", "GENERATION", "LAST", "PROBE", "EVENT"},
		{"web-a", "app", "false", "0", "http-get", "http://:8080/healthz", "http-get", "http://:8080/healthz", "<none>", "differs:liveness", "2/0", "<none>"},
		{"web-b", "app", "false", "0", "http-get", "http://:8080/healthz", "http-get", "http://:8080/healthz", "<none>", "differs:liveness", "2/0", "<none>"},
	} {
		if !slices.ContainsFunc(lines, func(l []string) bool { return slices.Equal(l, want) }) {
			t.Errorf("show lacks the line %q:\n%s", want, r)
		}
	}
	if len(lines) != 3 {
		t.Errorf("show printed %d lines, want a header and 1 for each of the 2 Pods:\n%s", len(lines), r)
	}
}

// TestPluginShowWideShowsTiming shows the probes of a ReplicaSet's Pods
// after a change with -o wide, which adds each probe's timing: the new
// liveness timeout among them.
func TestPluginShowWideShowsTiming(t *testing.T) {
	c := changedWorkload(t, "rs-wide")
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "rs-wide", "replicaset/web", "-o", "wide")
	if !strings.Contains(r.stdout, "http-get http://:8080/healthz delay=0s timeout=10s period=10s #success=1 #failure=3") {
		t.Errorf("show -o wide does not show the probes' timing:\n%s", r)
	}
}

// TestPluginShowJSONPodWithoutController shows with -o json a Pod that no
// controller owns, which a changed ReplicaSet's selector selects: a List
// of one PodProbes, with no template, its probe's template unknown, and
// its probe as it was (the ReplicaSet's change left it alone).
func TestPluginShowJSONPodWithoutController(t *testing.T) {
	c := changedWorkload(t, "rs-json")
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "rs-json", "solo", "-o", "json")
	var list struct {
		APIVersion, Kind string
		Items            []struct {
			APIVersion, Kind string
			Metadata         struct{ Name string }
			Template         string
			Containers       []struct {
				Name   string
				Probes []struct {
					Type     string
					Probe    *v1.Probe
					Template string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("show -o json: %v\n%s", err, r)
	}
	if list.APIVersion != "v1" || list.Kind != "List" || len(list.Items) != 1 {
		t.Fatalf("show -o json is not a List of one item:\n%s", r)
	}
	item := list.Items[0]
	if item.APIVersion != "kubectl-probe.x-k8s.io/v1alpha1" || item.Kind != "PodProbes" || item.Metadata.Name != "solo" || item.Template != "" ||
		item.Containers[0].Probes[0].Template != "unknown" || item.Containers[0].Probes[0].Probe.TimeoutSeconds != 1 {
		t.Errorf("show -o json of a Pod without a controller:\n%s", r)
	}
}

// TestPluginShowYAMLSelectedPods shows with -o yaml the Pods that a label
// selects after a change of a ReplicaSet's: a List of each of them, those
// of the ReplicaSet with its template named, and marked as differing
// from it.
func TestPluginShowYAMLSelectedPods(t *testing.T) {
	c := changedWorkload(t, "rs-yaml")
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "rs-yaml", "-l", "app=web", "-o", "yaml")
	for _, want := range []string{"kind: List", "name: solo", "name: web-a", "name: web-b", "template: replicaset.apps/web", "template: differs"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show -l app=web -o yaml lacks %q:\n%s", want, r)
		}
	}
}

// changedThenEdited starts a test with, in namespace, the ReplicaSet web
// and its Pods web-a, web-b and web-c, whose liveness timeout a run of
// kubectl probe set changed to 10s; then someone else changed web-b's to
// 20s.
func changedThenEdited(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := pluginTest(t, namespace)
	app := map[string]string{"app": "web"}
	rs := createReplicaSet(t, c, namespace, "web", appSpec(), app, nil)
	for _, name := range []string{"web-a", "web-b", "web-c"} {
		createAppPod(t, c, namespace, name, appSpec(), app, rs, "ReplicaSet")
	}
	mustProbe(t, c, c.kubeconfig, "set", "-n", namespace, "replicaset/web", "--liveness", "--timeout-seconds=10")
	// Then someone else changes web-b's liveness probe.
	c.mustKubectl(t, "", "-n", namespace, "patch", "pod", "web-b", "-p", `{"spec":{"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":20}}]}}`)
	return c
}

// TestPluginUndoSkipsPodsChangedSince undoes a run: the Pods that nobody
// changed since get their probes back; the one that someone else changed
// keeps that change, and the command names it.
func TestPluginUndoSkipsPodsChangedSince(t *testing.T) {
	c := changedThenEdited(t, "undo")
	r := mustProbe(t, c, c.kubeconfig, "undo", "-n", "undo", "replicaset/web")
	want := "pod/web-b skipped: left as it is: the probes of container \"app\" changed after run "
	if !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.stdout, "pod/web-a probes put back\n") || !strings.Contains(r.stdout, "pod/web-c probes put back\n") {
		t.Errorf("undo does not put back web-a and web-c, and name web-b:\n%s", r)
	}
	for name, want := range map[string]int32{"web-a": 1, "web-b": 20, "web-c": 1} {
		if got := c.pod(t, "undo", name).Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != want {
			t.Errorf("%s: liveness timeoutSeconds %d after undo, want %d", name, got, want)
		}
	}
}

// TestPluginUndoTwiceSkipsEachPod undoes a run that is undone already:
// there is nothing more to put back, each Pod is skipped with the undo
// that put it back named, and the command fails.
func TestPluginUndoTwiceSkipsEachPod(t *testing.T) {
	c := changedThenEdited(t, "undo-twice")
	mustProbe(t, c, c.kubeconfig, "undo", "-n", "undo-twice", "replicaset/web")
	r := failProbe(t, c, c.kubeconfig, []string{"error: no put-back of this undo stands: each Pod was skipped, or put back and then deleted or recreated"}, "undo", "-n", "undo-twice", "replicaset/web")
	if !strings.Contains(r.stdout, "pod/web-a skipped: run ") || !strings.Contains(r.stdout, " is undone already, by ") {
		t.Errorf("a second undo:\n%s", r)
	}
}

// newWeb starts a test with the Pod web in namespace, of appSpec, which no
// controller owns.
func newWeb(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := pluginTest(t, namespace)
	createAppPod(t, c, namespace, "web", appSpec(), nil, nil, "")
	return c
}

// setWeb runs kubectl probe set on newWeb's Pod with args, and fails the
// test if it fails.
func setWeb(t *testing.T, c *cluster, namespace string, args ...string) result {
	t.Helper()
	return mustProbe(t, c, c.kubeconfig, append([]string{"set", "-n", namespace, "web"}, args...)...)
}

// TestPluginSetHandlerKeepsOtherFields gives the readiness probe another
// handler: it replaces the old one, and the probe's other fields stay.
func TestPluginSetHandlerKeepsOtherFields(t *testing.T) {
	c := newWeb(t, "set-handler")
	setWeb(t, c, "set-handler", "--readiness", "--get-url=http://:http/readyz")
	want := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http"), Scheme: v1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	if diff := cmp.Diff(want, c.pod(t, "set-handler", "web").Spec.Containers[0].ReadinessProbe); diff != "" {
		t.Errorf("readiness probe (-want +got):\n%s", diff)
	}
}

// addStartupProbe gives newWeb's Pod a startup probe that runs a command,
// with room for 30 failures.
func addStartupProbe(t *testing.T, c *cluster, namespace string) {
	t.Helper()
	setWeb(t, c, namespace, "--startup", "--failure-threshold=30", "--", "cat", "/tmp/started")
}

// TestPluginSetAddsAbsentProbe gives a container a startup probe that it
// does not have: it is added with its handler, and the API server
// defaults the fields not given.
func TestPluginSetAddsAbsentProbe(t *testing.T) {
	c := newWeb(t, "set-add")
	addStartupProbe(t, c, "set-add")
	want := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"cat", "/tmp/started"}}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 30}
	if diff := cmp.Diff(want, c.pod(t, "set-add", "web").Spec.Containers[0].StartupProbe); diff != "" {
		t.Errorf("startup probe (-want +got):\n%s", diff)
	}
}

// TestPluginUndoAddedProbe undoes a run that added a probe, whose fields
// not given the API server defaulted when it stored the Pod: the run
// recorded the probe as stored, so the undo finds the Pod as the run left
// it, and removes the probe.
func TestPluginUndoAddedProbe(t *testing.T) {
	c := newWeb(t, "undo-add")
	addStartupProbe(t, c, "undo-add")
	// Its container has not started: removing its startup probe is
	// confirmed.
	r := mustProbe(t, c, c.kubeconfig, "undo", "-n", "undo-add", "web", "--yes")
	if !strings.Contains(r.stdout, "pod/web probes put back\n") {
		t.Errorf("undo of an added probe:\n%s", r)
	}
	if p := c.pod(t, "undo-add", "web").Spec.Containers[0].StartupProbe; p != nil {
		t.Errorf("startup probe %+v after the undo, want none", p)
	}
}

// TestPluginSetRemoveStartupProbeNeedsConfirmation removes the startup
// probe of a container that has not started: without it, its liveness
// probe starts at once and may restart it, so the command asks for a
// confirmation, which fails with no terminal here, and --yes gives.
func TestPluginSetRemoveStartupProbeNeedsConfirmation(t *testing.T) {
	c := newWeb(t, "set-remove")
	addStartupProbe(t, c, "set-remove")
	failProbe(t, c, c.kubeconfig, []string{
		"warning: the container has not started on pod/web: without its startup probe, its liveness probe starts at once and may restart it",
		"error: not confirmed: give --yes to go on",
	}, "set", "-n", "set-remove", "web", "--startup", "--remove")
	setWeb(t, c, "set-remove", "--startup", "--remove", "--yes")
	if p := c.pod(t, "set-remove", "web").Spec.Containers[0].StartupProbe; p != nil {
		t.Errorf("the startup probe is still there after --remove: %+v", p)
	}
}

// TestPluginSetAbsentProbeNeedsHandler changes a field of a startup probe
// that the container does not have (any more: it was added and removed):
// the command fails, and says to give a handler to add one.
func TestPluginSetAbsentProbeNeedsHandler(t *testing.T) {
	c := newWeb(t, "set-absent")
	addStartupProbe(t, c, "set-absent")
	setWeb(t, c, "set-absent", "--startup", "--remove", "--yes")
	failProbe(t, c, c.kubeconfig, []string{`error: pod/web: container "app" has no startup probe; to add one, give its handler`},
		"set", "-n", "set-absent", "web", "--startup", "--timeout-seconds=5")
}

// TestPluginSetDryRunChangesNothing makes a server and a client dry run:
// each says what it would do, the client one as a List of results with
// -o yaml, and neither changes the Pod.
func TestPluginSetDryRunChangesNothing(t *testing.T) {
	c := newWeb(t, "set-dry-run")
	before := c.pod(t, "set-dry-run", "web")
	r := setWeb(t, c, "set-dry-run", "--liveness", "--grpc-port=9000", "--dry-run=server")
	if r.stdout != "pod/web probes set (server dry run)\n" {
		t.Errorf("server dry run:\n%s", r)
	}
	r = setWeb(t, c, "set-dry-run", "--liveness", "--open-tcp=8080", "--dry-run=client", "-o", "yaml")
	for _, want := range []string{"kind: List", "kind: PodProbeResult", "result: changed", "tcpSocket:\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("client dry run -o yaml lacks %q:\n%s", want, r)
		}
	}
	if after := c.pod(t, "set-dry-run", "web"); after.ResourceVersion != before.ResourceVersion {
		t.Errorf("a dry run changed the Pod: resourceVersion %s, then %s", before.ResourceVersion, after.ResourceVersion)
	}
}

// TestPluginSetOutputName changes the delay and the period of the liveness
// probe with -o name: the command prints the Pod's name alone, and the
// probe has the new delay and period, and its timeout still.
func TestPluginSetOutputName(t *testing.T) {
	c := newWeb(t, "set-name")
	r := setWeb(t, c, "set-name", "--liveness", "--initial-delay-seconds=3", "--period-seconds=20", "-o", "name")
	if r.stdout != "pod/web\n" {
		t.Errorf("-o name:\n%s", r)
	}
	if p := c.pod(t, "set-name", "web").Spec.Containers[0].LivenessProbe; p.InitialDelaySeconds != 3 || p.PeriodSeconds != 20 || p.TimeoutSeconds != 1 {
		t.Errorf("liveness probe after setting the delay and period: %+v", p)
	}
}

// TestPluginSetFieldManager changes probes with and without
// --field-manager: the Pod's managed fields name the manager given, and
// kubectl-probe, the default.
func TestPluginSetFieldManager(t *testing.T) {
	c := newWeb(t, "set-manager")
	setWeb(t, c, "set-manager", "--liveness", "--period-seconds=30", "--field-manager=oncall")
	setWeb(t, c, "set-manager", "--readiness", "--period-seconds=40")
	var managers []string
	for _, m := range c.pod(t, "set-manager", "web").ManagedFields {
		managers = append(managers, m.Manager)
	}
	if !slices.Contains(managers, "kubectl-probe") || !slices.Contains(managers, "oncall") {
		t.Errorf("field managers %v, want kubectl-probe and oncall among them", managers)
	}
}

// TestPluginSetTimeoutFlagDeprecated gives --timeout, which --wait-timeout
// replaced: it still works, and says that it is deprecated.
func TestPluginSetTimeoutFlagDeprecated(t *testing.T) {
	c := newWeb(t, "set-timeout")
	r := setWeb(t, c, "set-timeout", "--liveness", "--period-seconds=50", "--timeout=1m")
	if !strings.Contains(r.stderr, "Flag --timeout has been deprecated, use --wait-timeout instead") {
		t.Errorf("--timeout does not say it is deprecated:\n%s", r)
	}
}

// newAPIPod starts a test with the Pod api in namespace, of appSpec, which
// no controller owns, and returns its liveness probe as it was created.
func newAPIPod(t *testing.T, namespace string) (*cluster, *v1.Probe) {
	t.Helper()
	c := pluginTest(t, namespace)
	created := createAppPod(t, c, namespace, "api", appSpec(), nil, nil, "")
	return c, created.Spec.Containers[0].LivenessProbe
}

// patches returns how many dry runs and how many patches of path went
// through p since it was last reset, and resets it.
func patches(p *apiproxy.Proxy, path string) (int, int) {
	defer p.Reset()
	return dryRuns(p, path), count(p, http.MethodPatch, path)
}

// TestPluginDisableKeepsProbe disables the liveness probe of a Pod: one dry
// run and one patch remove it from the container, and keep it, as it was,
// in the Pod's annotation (format v1), for restore.
func TestPluginDisableKeepsProbe(t *testing.T) {
	c, original := newAPIPod(t, "keep")
	p := startProxy(t, c, "keep")
	mustProbe(t, c, p.Kubeconfig, "disable", "api", "--liveness")
	if dry, real := patches(p, "/api/v1/namespaces/keep/pods/api"); dry != 1 || real != 1 {
		t.Errorf("disable sent %d dry runs and %d patches, want 1 each", dry, real)
	}
	pod := c.pod(t, "keep", "api")
	if pod.Spec.Containers[0].LivenessProbe != nil || pod.Generation != 2 {
		t.Errorf("after disable: generation %d, liveness probe %+v", pod.Generation, pod.Spec.Containers[0].LivenessProbe)
	}
	var kept struct {
		Version    string
		Containers map[string]map[string]*v1.Probe
	}
	if err := json.Unmarshal([]byte(pod.Annotations[keptAnnotation]), &kept); err != nil {
		t.Fatalf("the annotation %s: %v", keptAnnotation, err)
	}
	if diff := cmp.Diff(original, kept.Containers["app"]["liveness"]); diff != "" || kept.Version != "v1" {
		t.Errorf("kept liveness probe, version %q (-want +got):\n%s", kept.Version, diff)
	}
}

// TestPluginShowMarksDisabledProbe shows a Pod whose liveness probe is
// disabled: the liveness column says so.
func TestPluginShowMarksDisabledProbe(t *testing.T) {
	c, _ := newAPIPod(t, "keep-show")
	mustProbe(t, c, c.kubeconfig, "disable", "-n", "keep-show", "api", "--liveness")
	if r := mustProbe(t, c, c.kubeconfig, "show", "-n", "keep-show", "api"); !slices.ContainsFunc(tableLines(r.stdout), func(l []string) bool {
		return len(l) > 4 && l[0] == "api" && l[4] == "<disabled>"
	}) {
		t.Errorf("show does not mark the disabled probe:\n%s", r)
	}
}

// TestPluginRestorePutsBackKeptProbe restores a disabled liveness probe: one
// dry run and one patch put back the probe that disable kept, as it was,
// and remove the annotation; the command shows what it puts back.
func TestPluginRestorePutsBackKeptProbe(t *testing.T) {
	c, original := newAPIPod(t, "keep-restore")
	p := startProxy(t, c, "keep-restore")
	mustProbe(t, c, p.Kubeconfig, "disable", "api", "--liveness")
	p.Reset()

	r := mustProbe(t, c, p.Kubeconfig, "restore", "api", "--liveness")
	if dry, real := patches(p, "/api/v1/namespaces/keep-restore/pods/api"); dry != 1 || real != 1 {
		t.Errorf("restore sent %d dry runs and %d patches, want 1 each", dry, real)
	}
	want := `restore: puts back on pod/api the liveness probe of container "app": http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3 (the Pod has no template to compare it with)`
	if !strings.Contains(r.stderr, want) {
		t.Errorf("restore does not show what it puts back, %q:\n%s", want, r)
	}
	pod := c.pod(t, "keep-restore", "api")
	if diff := cmp.Diff(original, pod.Spec.Containers[0].LivenessProbe); diff != "" {
		t.Errorf("restored liveness probe (-want +got):\n%s", diff)
	}
	if _, ok := pod.Annotations[keptAnnotation]; ok || pod.Generation != 3 {
		t.Errorf("after restore: generation %d, annotations %v", pod.Generation, pod.Annotations)
	}
}

// TestPluginRestoreTwiceFindsNothingKept restores a liveness probe that is
// restored already: nothing is kept any more, and the command fails,
// saying that there is nothing to restore.
func TestPluginRestoreTwiceFindsNothingKept(t *testing.T) {
	c, _ := newAPIPod(t, "keep-twice")
	mustProbe(t, c, c.kubeconfig, "disable", "-n", "keep-twice", "api", "--liveness")
	mustProbe(t, c, c.kubeconfig, "restore", "-n", "keep-twice", "api", "--liveness")
	failProbe(t, c, c.kubeconfig, []string{`error: pod/api: container "app" has no liveness probe kept by kubectl probe disable; there is nothing to restore`},
		"restore", "-n", "keep-twice", "api", "--liveness")
}

// TestPluginRestoreKeepsProbeSetSinceDisable: someone sets a liveness probe
// after disable kept the old one. Disable refuses to replace the kept one,
// and restore refuses to replace the new one, unless --force, which puts
// back the kept one.
func TestPluginRestoreKeepsProbeSetSinceDisable(t *testing.T) {
	c, original := newAPIPod(t, "keep-set")
	kc := c.kubeconfig
	mustProbe(t, c, kc, "disable", "-n", "keep-set", "api", "--liveness")
	c.mustKubectl(t, "", "-n", "keep-set", "patch", "pod", "api", "-p", `{"spec":{"containers":[{"name":"app","livenessProbe":{"tcpSocket":{"port":8080}}}]}}`)
	failProbe(t, c, kc, []string{`error: pod/api: container "app" keeps a liveness probe that an earlier disable removed, and has another one set since`},
		"disable", "-n", "keep-set", "api", "--liveness")
	failProbe(t, c, kc, []string{`error: pod/api: container "app" has a liveness probe again, set after kubectl probe disable kept the old one; --force replaces it`},
		"restore", "-n", "keep-set", "api", "--liveness")
	if p := c.pod(t, "keep-set", "api").Spec.Containers[0].LivenessProbe; p.TCPSocket == nil {
		t.Errorf("a refused restore changed the probe: %+v", p)
	}
	mustProbe(t, c, kc, "restore", "-n", "keep-set", "api", "--liveness", "--force")
	if diff := cmp.Diff(original, c.pod(t, "keep-set", "api").Spec.Containers[0].LivenessProbe); diff != "" {
		t.Errorf("liveness probe after restore --force (-want +got):\n%s", diff)
	}
}

// plantedPods starts a test with, in namespace, web-a, a Pod of the
// ReplicaSet web, and bare, a Pod without a controller, whose liveness
// probes kubectl probe disable kept. Then someone who may patch Pods, and
// not exec into them, plants a command in the kept copies: on web-a as
// this version keeps it, on bare as kubectl probe 0.2 did. It returns the
// ReplicaSet.
func plantedPods(t *testing.T, namespace string) (*cluster, *appsv1.ReplicaSet) {
	t.Helper()
	c := pluginTest(t, namespace)
	labels := map[string]string{"app": "web"}
	rs := createReplicaSet(t, c, namespace, "web", appSpec(), labels, nil)
	createAppPod(t, c, namespace, "web-a", appSpec(), labels, rs, "ReplicaSet")
	createAppPod(t, c, namespace, "bare", appSpec(), nil, nil, "")
	mustProbe(t, c, c.kubeconfig, "disable", "-n", namespace, "web-a", "bare", "--liveness")
	planted := `{"app":{"liveness":{"exec":{"command":["sh","-c","cat /var/run/secrets/kubernetes.io/serviceaccount/token > /tmp/x"]},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}}`
	for name, annotations := range map[string]map[string]any{
		"web-a": {keptAnnotation: `{"version":"v1","containers":` + planted + `}`},
		"bare":  {keptAnnotation: nil, legacyKeptAnnotation: planted},
	} {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
		c.mustKubectl(t, "", "-n", namespace, "patch", "pod", name, "-p", string(patch))
	}
	return c, rs
}

// TestPluginRestoreRefusesPlantedProbe restores kept liveness probes that
// run a planted command: the pre-check refuses both Pods, the one without
// a controller for its command, which nothing vouches for, the
// ReplicaSet's for differing from its template, and no probe is installed.
func TestPluginRestoreRefusesPlantedProbe(t *testing.T) {
	c, _ := plantedPods(t, "planted")
	failProbe(t, c, c.kubeconfig, []string{
		"error: the pre-check refused 2 of 2 Pods; no Pod was changed:",
		`- pod/bare: the liveness probe kept for container "app" runs a command, exec [sh -c cat /var/run/secrets/kubernetes.io/serviceaccount/token > /tmp/x], and anyone who may patch the Pod may have written it; with no template to compare it with, only --force puts it back`,
		`- pod/web-a: the liveness probe kept for container "app" is not the one of the template of replicaset.apps/web, and anyone who may patch the Pod may have written it: kept exec [sh -c cat`,
	}, "restore", "-n", "planted", "bare", "web-a", "--liveness")
	for _, name := range []string{"web-a", "bare"} {
		if p := c.pod(t, "planted", name).Spec.Containers[0].LivenessProbe; p != nil {
			t.Errorf("%s: a refused restore installed %+v", name, p)
		}
	}
}

// TestPluginRestoreFromTemplateDropsPlantedProbe restores with
// --from-template the liveness probe of a ReplicaSet's Pod whose kept copy
// runs a planted command: the template's probe comes back, and the planted
// one is dropped with the annotation.
func TestPluginRestoreFromTemplateDropsPlantedProbe(t *testing.T) {
	c, rs := plantedPods(t, "planted-template")
	r := mustProbe(t, c, c.kubeconfig, "restore", "-n", "planted-template", "web-a", "--liveness", "--from-template")
	if !strings.Contains(r.stderr, `restore: puts back on pod/web-a the liveness probe of container "app": http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3 (the template's)`) {
		t.Errorf("restore --from-template does not show what it puts back:\n%s", r)
	}
	pod := c.pod(t, "planted-template", "web-a")
	if diff := cmp.Diff(rs.Spec.Template.Spec.Containers[0].LivenessProbe, pod.Spec.Containers[0].LivenessProbe); diff != "" || pod.Annotations[keptAnnotation] != "" {
		t.Errorf("after restore --from-template: annotations %v, liveness probe (-want +got):\n%s", pod.Annotations, diff)
	}
}

// TestPluginRestoreForceInstallsPlantedProbe restores with --force the kept
// liveness probe of a Pod without a controller, which runs a planted
// command: the user said so, and it is installed.
func TestPluginRestoreForceInstallsPlantedProbe(t *testing.T) {
	c, _ := plantedPods(t, "planted-force")
	mustProbe(t, c, c.kubeconfig, "restore", "-n", "planted-force", "bare", "--liveness", "--force")
	if p := c.pod(t, "planted-force", "bare").Spec.Containers[0].LivenessProbe; p == nil || p.Exec == nil {
		t.Errorf("restore --force did not put the kept probe back: %+v", p)
	}
}

// TestPluginShowComparesPodWithItsRevision shows the Pod of a StatefulSet
// whose template moved on to a newer revision since the Pod was created
// from the older one: show compares the Pod with its own revision's
// template, which it has, not with the StatefulSet's.
func TestPluginShowComparesPodWithItsRevision(t *testing.T) {
	c := pluginTest(t, "revision")
	ctx := context.Background()
	labels := map[string]string{"app": "db"}
	// The StatefulSet's template moved to a newer revision; db-0 was
	// created from the older one, and OnDelete leaves it so. The
	// revisions hold the templates as the API server defaulted them.
	ss, err := c.client.AppsV1().StatefulSets("revision").Create(ctx, &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:       ptr.To[int32](1),
			ServiceName:    "db",
			Selector:       &metav1.LabelSelector{MatchLabels: labels},
			Template:       v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: appSpec()},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	templates := []v1.PodTemplateSpec{*ss.Spec.Template.DeepCopy()}
	ss.Spec.Template.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 5
	if ss, err = c.client.AppsV1().StatefulSets("revision").Update(ctx, ss, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	templates = append(templates, ss.Spec.Template)
	for i, template := range templates {
		var fields map[string]any
		raw, _ := json.Marshal(template)
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		fields["$patch"] = "replace"
		data, err := json.Marshal(map[string]any{"spec": map[string]any{"template": fields}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.client.AppsV1().ControllerRevisions("revision").Create(ctx, &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("db-r%d", i+1), Labels: map[string]string{"controller-revision-hash": fmt.Sprintf("r%d", i+1)},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: ss.UID, Controller: ptr.To(true)}}},
			Data:     runtime.RawExtension{Raw: data},
			Revision: int64(i + 1),
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	podLabels := map[string]string{"app": "db", "controller-revision-hash": "db-r1"}
	createAppPod(t, c, "revision", "db-0", appSpec(), podLabels, ss, "StatefulSet")
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "revision", "statefulset/db", "-o", "yaml")
	if !strings.Contains(r.stdout, "template: statefulset.apps/db (revision db-r1)") || strings.Contains(r.stdout, "template: differs") {
		t.Errorf("show does not compare db-0 with its own revision, db-r1:\n%s", r)
	}
}

// sidecarDeployment starts a test with, in namespace, the Deployment
// front, whose Pods have two containers that can have probes: a sidecar,
// proxy (an init container that restarts always), and app. It has the
// ReplicaSet front-1, whose Pods are front-1-a and front-1-b.
func sidecarDeployment(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := pluginTest(t, namespace)
	labels := map[string]string{"app": "front"}
	spec := appSpec()
	spec.InitContainers = []v1.Container{{Name: "proxy", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)}}
	d, err := c.client.AppsV1().Deployments(namespace).Create(context.Background(), &appsv1.Deployment{
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
	rs := createReplicaSet(t, c, namespace, "front-1", spec, labels, d)
	createAppPod(t, c, namespace, "front-1-a", spec, labels, rs, "ReplicaSet")
	createAppPod(t, c, namespace, "front-1-b", spec, labels, rs, "ReplicaSet")
	return c
}

// setSidecarReadiness gives the sidecar of sidecarDeployment's Pods a
// readiness probe that opens a connection to port 9000.
func setSidecarReadiness(t *testing.T, c *cluster, namespace string) result {
	t.Helper()
	return mustProbe(t, c, c.kubeconfig, "set", "-n", namespace, "deployment/front", "-c", "proxy", "--readiness", "--open-tcp=9000")
}

// TestPluginSetNeedsContainerOfTwo changes a probe of a Deployment's Pods
// without -c: two containers can have probes, so the pre-check refuses
// both Pods, and asks to choose one.
func TestPluginSetNeedsContainerOfTwo(t *testing.T) {
	c := sidecarDeployment(t, "deploy-pick")
	failProbe(t, c, c.kubeconfig, []string{
		"error: the pre-check refused 2 of 2 Pods; no Pod was changed:\n- pod/front-1-a, pod/front-1-b: has 2 containers that can have probes (proxy, app): choose one with -c\n",
	}, "set", "-n", "deploy-pick", "deployment/front", "--liveness", "--timeout-seconds=5")
}

// TestPluginSetSidecarHintsDeploymentTemplate changes, with -c, the
// readiness probe of the sidecar of a Deployment's Pods: the sidecars
// change, and the command printed to change the template too is the
// Deployment's, the top controller of the Pods, not their ReplicaSet's,
// and patches the sidecar as the first init container, once it tested
// that the sidecar is as the run read it, since the probe is new to it.
// Run as printed, by a shell, it changes the template; run again, once
// the template changed, the API server refuses it, and it changes nothing.
func TestPluginSetSidecarHintsDeploymentTemplate(t *testing.T) {
	c := sidecarDeployment(t, "deploy")
	r := setSidecarReadiness(t, c, "deploy")
	prefix := `deployment.apps/front: Pods that replace these get its template's readiness probe, not the new one; to change the template too, if it has not changed since the run read it (the patch fails otherwise, and changes nothing): `
	var command string
	for _, line := range strings.Split(r.stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			command = rest
		}
	}
	if !strings.HasPrefix(command, "kubectl patch deployment.apps/front -n deploy ") ||
		!strings.Contains(command, `--type=json -p '[{"op":"test","path":"/spec/template/spec/initContainers/0","value":{"image":"registry.k8s.io/e2e-test-images/agnhost:2.53",`) ||
		!strings.Contains(command, `{"op":"add","path":"/spec/template/spec/initContainers/0/readinessProbe","value":{"tcpSocket":{"port":9000},`) {
		t.Fatalf("no change of the Deployment's template:\n%s", r)
	}
	for _, name := range []string{"front-1-a", "front-1-b"} {
		p := c.pod(t, "deploy", name).Spec.InitContainers[0].ReadinessProbe
		if p == nil || p.TCPSocket == nil || p.TCPSocket.Port != intstr.FromInt32(9000) {
			t.Errorf("%s: the sidecar's readiness probe is %+v", name, p)
		}
	}
	run := func() (string, error) {
		cmd := exec.Command("sh", "-c", command)
		cmd.Env = append(os.Environ(), "PATH="+c.bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECACHEDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	d, err := c.client.AppsV1().Deployments("deploy").Get(context.Background(), "front", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := d.Spec.Template.Spec.InitContainers[0].ReadinessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port != intstr.FromInt32(9000) {
		t.Errorf("the template's sidecar readiness probe is %+v after the patch", p)
	}
	if out, err := run(); err == nil || !strings.Contains(out, "The request is invalid") {
		t.Errorf("the patch, run again once the template changed: %v\n%s; want the API server to refuse it", err, out)
	}
	again, err := c.client.AppsV1().Deployments("deploy").Get(context.Background(), "front", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Generation != d.Generation {
		t.Errorf("the Deployment's generation is %d after the patch failed, was %d", again.Generation, d.Generation)
	}
}

// TestPluginShowSidecarMarksChangedProbe shows, with -c, the sidecar of a
// Deployment's Pods after a change of its readiness probe: its new probe,
// and that it differs from the template's.
func TestPluginShowSidecarMarksChangedProbe(t *testing.T) {
	c := sidecarDeployment(t, "deploy-show")
	setSidecarReadiness(t, c, "deploy-show")
	r := mustProbe(t, c, c.kubeconfig, "show", "-n", "deploy-show", "deployment/front", "-c", "proxy")
	if !slices.ContainsFunc(tableLines(r.stdout), func(l []string) bool {
		return slices.Equal(l, []string{"front-1-b", "proxy", "false", "0", "<none>", "tcp-socket", ":9000", "<none>", "differs:readiness", "2/0", "<none>"})
	}) {
		t.Errorf("show -c proxy does not mark the sidecar's changed readiness probe:\n%s", r)
	}
}

// TestPluginSetDefaultContainer changes a probe of a Pod with two
// containers that can have probes, without -c: the
// kubectl.kubernetes.io/default-container annotation chooses the one that
// changes.
func TestPluginSetDefaultContainer(t *testing.T) {
	c := sidecarDeployment(t, "deploy-default")
	c.mustKubectl(t, "", "-n", "deploy-default", "annotate", "pod", "front-1-a", "kubectl.kubernetes.io/default-container=app")
	mustProbe(t, c, c.kubeconfig, "set", "-n", "deploy-default", "front-1-a", "--liveness", "--timeout-seconds=5")
	if p := c.pod(t, "deploy-default", "front-1-a").Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 5 {
		t.Errorf("the default container's liveness probe: %+v", p)
	}
}

// waitingPods starts a test with, in namespace, the Pods a, b and c,
// labelled app=wait, on the node wait, whose kubelet the test plays
// (startFakeKubelet). Their readiness probe runs every second, and fails
// at its first failure. It returns once the kubelet reported the Pods
// Ready.
func waitingPods(t *testing.T, namespace string) *cluster {
	t.Helper()
	c := pluginTest(t, namespace)
	// The kubelet of node wait: a readiness or liveness probe on
	// /missing fails.
	startFakeKubelet(t, c, namespace, "wait", func(p *v1.Pod) string {
		for _, t := range []struct {
			name  string
			probe *v1.Probe
		}{{"readiness", p.Spec.Containers[0].ReadinessProbe}, {"liveness", p.Spec.Containers[0].LivenessProbe}} {
			if t.probe != nil && t.probe.HTTPGet != nil && t.probe.HTTPGet.Path == "/missing" {
				return t.name
			}
		}
		return ""
	})
	spec := appSpec()
	spec.NodeName = "wait"
	spec.Containers[0].ReadinessProbe.PeriodSeconds = 1
	spec.Containers[0].ReadinessProbe.FailureThreshold = 1
	for _, name := range []string{"a", "b", "c"} {
		createAppPod(t, c, namespace, name, spec, map[string]string{"app": "wait"}, nil, "")
	}
	waitFor(t, "the fake kubelet to report the Pods Ready", func() bool {
		for _, name := range []string{"a", "b", "c"} {
			if p := c.pod(t, namespace, name); p.Status.ObservedGeneration != 1 {
				return false
			}
		}
		return true
	})
	return c
}

// readinessPath returns the path of the readiness probe of the Pod.
func readinessPath(t *testing.T, c *cluster, namespace, name string) string {
	t.Helper()
	return c.pod(t, namespace, name).Spec.Containers[0].ReadinessProbe.HTTPGet.Path
}

// livenessPath returns the path of the liveness probe of the Pod.
func livenessPath(t *testing.T, c *cluster, namespace, name string) string {
	t.Helper()
	return c.pod(t, namespace, name).Spec.Containers[0].LivenessProbe.HTTPGet.Path
}

// TestPluginSetStopsAtFailingReadinessProbe stores, past the pre-check
// (--skip-check), a readiness probe that fails, on the Pods of a label:
// the first Pod's container is not Ready any more, and the command stops
// there, soon, with the kubelet's event that says why and the command that
// undoes the change; the other Pods are not started.
func TestPluginSetStopsAtFailingReadinessProbe(t *testing.T) {
	c := waitingPods(t, "wait")
	kc := c.kubeconfig
	path := func(name string) string { return readinessPath(t, c, "wait", name) }

	// The new probe fails on the first Pod: the command stops there,
	// and b and c are not started.
	start := time.Now()
	failProbe(t, c, kc, []string{
		"error: pod/a: changed, but the new readiness probe failed: container \"app\" is not Ready any more; its last Unhealthy event, ",
		"ago: Readiness probe failed: HTTP probe failed with statuscode: 404\n",
		"to undo it: kubectl probe undo pod/a -n wait --context kep --kubeconfig " + kc + " --run ",
		"done (0): none", "failed (1): pod/a", "not started, left as they are (2): pod/b pod/c",
	}, "set", "-n", "wait", "-l", "app=wait", "--readiness", "--get-url=http://:8080/missing", "--skip-check")
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("the command took %s to stop", elapsed)
	}
	if path("a") != "/missing" || path("b") != "/healthz" || path("c") != "/healthz" {
		t.Errorf("readiness paths: a %s (want /missing), b %s and c %s (want /healthz, not started)", path("a"), path("b"), path("c"))
	}
}

// TestPluginSetUndoOnFailurePutsBackReadinessProbe stores the failing
// readiness probe of TestPluginSetStopsAtFailingReadinessProbe with
// --undo-on-failure: the first Pod's probe is put back, and -o json says
// that it failed and was undone.
func TestPluginSetUndoOnFailurePutsBackReadinessProbe(t *testing.T) {
	c := waitingPods(t, "wait-undo")
	r := failProbe(t, c, c.kubeconfig, []string{"pod/a: undone: its probes are as they were before"},
		"set", "-n", "wait-undo", "-l", "app=wait", "--readiness", "--get-url=http://:8080/missing", "--skip-check", "--undo-on-failure", "-o", "json")
	if path := readinessPath(t, c, "wait-undo", "a"); path != "/healthz" {
		t.Errorf("a's readiness path after --undo-on-failure: %s", path)
	}
	if !strings.Contains(r.stdout, `"result": "failed"`) || !strings.Contains(r.stdout, "; undone") {
		t.Errorf("-o json does not say a failed and was undone:\n%s", r)
	}
}

// TestPluginSetProvesReadinessProbe changes a readiness probe that does not
// fail: the change passes once the kubelet applied it and the Pod stayed
// Ready through the probe's failure window.
func TestPluginSetProvesReadinessProbe(t *testing.T) {
	c := waitingPods(t, "wait-ready")
	r := mustProbe(t, c, c.kubeconfig, "set", "-n", "wait-ready", "a", "--readiness", "--timeout-seconds=2", "--skip-check")
	if !strings.Contains(r.stderr, "pod/a: the kubelet applied generation ") ||
		!strings.Contains(r.stderr, "; the new readiness probe passed: the container stayed Ready through the probe's failure window (8s)") {
		t.Errorf("the readiness change was not confirmed:\n%s", r)
	}
}

// setProvenLiveness is the liveness change of
// TestPluginSetProvesLivenessProbe, of the Pod, with more args.
func setProvenLiveness(t *testing.T, c *cluster, namespace, pod string, args ...string) result {
	t.Helper()
	return mustProbe(t, c, c.kubeconfig, append([]string{"set", "-n", namespace, pod, "--liveness", "--timeout-seconds=3", "--period-seconds=1", "--failure-threshold=1", "--skip-check"}, args...)...)
}

// TestPluginSetProvesLivenessProbe changes a liveness probe that does not
// fail: the change passes once the container ran through the probe's
// failure window, 1 × (1s + 3s) and the margin, without a restart and an
// Unhealthy event of the new probe.
func TestPluginSetProvesLivenessProbe(t *testing.T) {
	c := waitingPods(t, "wait-live")
	r := setProvenLiveness(t, c, "wait-live", "b")
	if !strings.Contains(r.stderr, "pod/b: the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (9s)\n") {
		t.Errorf("the liveness change was not proven:\n%s", r)
	}
}

// TestPluginSetStopsAtFailingLivenessProbe stores, with --undo-on-failure,
// a liveness probe that fails on two Pods. The command stops at the first
// Pod, soon, once the new probe's failures in a row reach its
// failureThreshold, and puts the old probe back: it would not restart the
// container sooner than the new one, whose threshold is the same, 1 (the
// first Pod has the liveness probe of TestPluginSetProvesLivenessProbe).
func TestPluginSetStopsAtFailingLivenessProbe(t *testing.T) {
	c := waitingPods(t, "wait-live-fail")
	setProvenLiveness(t, c, "wait-live-fail", "b", "--wait=none")
	waitFor(t, "the fake kubelet to report b's change", func() bool { return c.pod(t, "wait-live-fail", "b").Status.ObservedGeneration == 2 })

	start := time.Now()
	failProbe(t, c, c.kubeconfig, []string{
		"error: pod/b: changed, but the new liveness probe of container \"app\" reached its failureThreshold, 1 failure in a row: the kubelet restarts the container; its last Unhealthy event, ",
		"ago: Liveness probe failed: HTTP probe failed with statuscode: 404\n",
		"pod/b: undone: its probes are as they were before",
		"done (0): none", "failed (1): pod/b", "not started, left as they are (1): pod/c",
	}, "set", "-n", "wait-live-fail", "b", "c", "--liveness", "--get-url=http://:8080/missing", "--period-seconds=1", "--failure-threshold=1", "--skip-check", "--undo-on-failure")
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("the command took %s to stop at the first failure", elapsed)
	}
	if pathB, pathC := livenessPath(t, c, "wait-live-fail", "b"), livenessPath(t, c, "wait-live-fail", "c"); pathB != "/healthz" || pathC != "/healthz" {
		t.Errorf("liveness paths after --undo-on-failure: b %s, c %s; want /healthz", pathB, pathC)
	}
}

// TestPluginSetJudgesLivenessProbeByItsThreshold changes a liveness probe
// that fails, relaxed to failureThreshold 6: it is judged by it. Its three
// failures are reported, and the proof passes at the end of its window, 6 ×
// (1s + 1s) and the margin. With a 1s period and a 1s timeout, the
// failures' times cannot tell a run from failures with a success between
// them: only the kubelet's kill would have failed it.
func TestPluginSetJudgesLivenessProbeByItsThreshold(t *testing.T) {
	c := waitingPods(t, "wait-relaxed")
	r := mustProbe(t, c, c.kubeconfig, "set", "-n", "wait-relaxed", "c", "--liveness", "--get-url=http://:8080/missing", "--period-seconds=1", "--failure-threshold=6", "--skip-check")
	if !strings.Contains(r.stderr, "pod/c: the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (17s); it failed 3 times, and the kubelet did not restart the container\n") {
		t.Errorf("the relaxed liveness probe was not proven, or its failures not reported:\n%s", r)
	}
}

// TestPluginSetWaitTimeoutWithoutKubeletReport changes a probe of a Pod
// whose kubelet does not report the change: the command fails once
// --wait-timeout passed.
func TestPluginSetWaitTimeoutWithoutKubeletReport(t *testing.T) {
	c := pluginTest(t, "wait-silent")
	silent := appSpec()
	silent.NodeName = "silent"
	// The kubelet of node silent plays only the Pods of another
	// namespace.
	startFakeKubelet(t, c, "none", "silent", func(*v1.Pod) string { return "" })
	createAppPod(t, c, "wait-silent", "d", silent, nil, nil, "")
	failProbe(t, c, c.kubeconfig, []string{`error: pod/d: changed, but the kubelet did not report generation 2 within 2s (--wait-timeout)`},
		"set", "-n", "wait-silent", "d", "--liveness", "--timeout-seconds=3", "--wait-timeout=2s")
}

// runningWeb starts a test with the Pod web in namespace, running and
// Ready at the address of an app in the test that stands in for its
// container (startApp), and returns the app.
func runningWeb(t *testing.T, namespace string) (*cluster, *app) {
	t.Helper()
	a := startApp(t)
	c := pluginTest(t, namespace)
	running(t, c.client, createAppPod(t, c, namespace, "web", appSpecOn(a.port), nil, nil, ""), a.ip)
	return c, a
}

// TestPluginSetRefusesProbeThatFailsNow changes a readiness probe to a
// path that the container does not serve: the pre-check tries it once,
// through the API server's Pod proxy, and refuses it before the Pod
// changes, with a hint at --skip-check.
func TestPluginSetRefusesProbeThatFailsNow(t *testing.T) {
	c, a := runningWeb(t, "try-fail")
	port := fmt.Sprint(a.port)
	failProbe(t, c, c.kubeconfig, []string{
		"error: pod/web: the new readiness probe of container \"app\" fails now: http-get http://:" + port + "/missing: answered 404 Not Found\n",
		"hint: --skip-check stores it anyway\n",
	}, "set", "-n", "try-fail", "web", "--readiness", "--get-url=http://:"+port+"/missing")
	if g := c.pod(t, "try-fail", "web").Generation; g != 1 || a.count("/missing") != 1 {
		t.Errorf("generation %d after the refusal (want 1), the app was asked %d times (want once)", g, a.count("/missing"))
	}
}

// TestPluginSetTriesNewProbe changes a readiness probe to a path that the
// container serves: the pre-check tries it, and says that it succeeds.
func TestPluginSetTriesNewProbe(t *testing.T) {
	c, a := runningWeb(t, "try-ok")
	port := fmt.Sprint(a.port)
	r := mustProbe(t, c, c.kubeconfig, "set", "-n", "try-ok", "web", "--readiness", "--get-url=http://:"+port+"/readyz")
	if !strings.Contains(r.stderr, "pre-check: the new readiness probe succeeds: http-get http://:"+port+"/readyz: answered 200 OK\n") {
		t.Errorf("the pre-check does not say the new probe succeeds:\n%s", r)
	}
}

// TestPluginSetSkipCheckStoresFailingProbe stores with --skip-check a
// readiness probe on a path that the container does not serve, which the
// pre-check would refuse.
func TestPluginSetSkipCheckStoresFailingProbe(t *testing.T) {
	c, a := runningWeb(t, "try-skip")
	port := fmt.Sprint(a.port)
	mustProbe(t, c, c.kubeconfig, "set", "-n", "try-skip", "web", "--readiness", "--get-url=http://:"+port+"/missing", "--skip-check")
	if p := c.pod(t, "try-skip", "web").Spec.Containers[0].ReadinessProbe; p.HTTPGet.Path != "/missing" {
		t.Errorf("--skip-check did not store the probe: %+v", p)
	}
}

// TestPluginSetWithoutPodProxyPermission changes a probe as a user who may
// patch Pods, but not use the Pod proxy: the pre-check cannot try the new
// probe and says so in one line, and the change goes on.
func TestPluginSetWithoutPodProxyPermission(t *testing.T) {
	c, a := runningWeb(t, "try")
	port := fmt.Sprint(a.port)
	grant(t, c, "try", "bob", []string{"get", "list", "watch", "patch"})
	r := mustProbe(t, c, c.kubeconfig, "set", "-n", "try", "web", "--liveness", "--get-url=http://:"+port+"/readyz", "--as=bob")
	if !strings.Contains(r.stderr, `pre-check: the new probe was not tried: you may not get pods/proxy in namespace "try"; the wait after each change judges it`) {
		t.Errorf("no line about the missing permission:\n%s", r)
	}
}

// TestPluginSetPreCheckListsRefusals changes the Pods of a label, of which
// the pre-check refuses one with two containers that can have probes. No
// Pod changes; the error lists the refused Pods by reason, each reason
// once, with a hint; a terminating Pod is skipped, and so are two on a
// node whose kubelet does not declare MutableContainerProbes, with the API
// server's reason.
func TestPluginSetPreCheckListsRefusals(t *testing.T) {
	c := pluginTest(t, "mixed")
	mixed := map[string]string{"app": "mixed"}
	// A node whose kubelet does not declare the feature.
	if _, err := c.client.CoreV1().Nodes().Create(context.Background(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "old-node"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bound := appSpec()
	bound.NodeName = "old-node"
	createAppPod(t, c, "mixed", "old-1", bound, mixed, nil, "")
	createAppPod(t, c, "mixed", "old-2", bound, mixed, nil, "")
	twoContainers := appSpec()
	twoContainers.Containers = append(twoContainers.Containers, v1.Container{Name: "log", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53"})
	createAppPod(t, c, "mixed", "two", twoContainers, mixed, nil, "")
	createAppPod(t, c, "mixed", "fine", appSpec(), mixed, nil, "")
	terminating(t, c, createAppPod(t, c, "mixed", "leaving", appSpec(), mixed, nil, ""))

	r := failProbe(t, c, c.kubeconfig, []string{
		"error: the pre-check refused 1 of 4 Pods; no Pod was changed:\n" +
			"- pod/two: has 2 containers that can have probes (app, log): choose one with -c\n",
	}, "set", "-n", "mixed", "-l", "app=mixed", "--liveness", "--timeout-seconds=5")
	oldNode := `skipped: pod update requires features MutableContainerProbes which are not available on node "old-node"; ` +
		"the kubelet of the Pod's node cannot apply probe changes: turn MutableContainerProbes on in that kubelet (or upgrade it), or replace the Pod\n"
	if want := "pod/leaving skipped: terminating\npod/old-1 " + oldNode + "pod/old-2 " + oldNode; r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	for _, name := range []string{"old-1", "old-2", "two", "fine"} {
		if g := c.pod(t, "mixed", name).Generation; g != 1 {
			t.Errorf("%s is at generation %d after the refusal", name, g)
		}
	}
}

// TestPluginSetSkipsPodsThatCannotChange changes a Pod that is
// terminating, and one that finished: each is skipped, saying why, and as
// no Pod changed, the command fails.
func TestPluginSetSkipsPodsThatCannotChange(t *testing.T) {
	c := pluginTest(t, "hints")
	for _, tc := range []struct {
		what, pod string
		// end makes the Pod one that cannot change any more.
		end  func(t *testing.T, pod *v1.Pod)
		want string
	}{
		{"a terminating Pod", "leaving", func(t *testing.T, pod *v1.Pod) { terminating(t, c, pod) }, "pod/leaving skipped: terminating\n"},
		{"a finished Pod", "done", func(t *testing.T, pod *v1.Pod) {
			pod.Status.Phase = v1.PodSucceeded
			if _, err := c.client.CoreV1().Pods("hints").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, "pod/done skipped: finished (Succeeded)\n"},
	} {
		t.Run(tc.pod, func(t *testing.T) {
			tc.end(t, createAppPod(t, c, "hints", tc.pod, appSpec(), nil, nil, ""))
			r := failProbe(t, c, c.kubeconfig, []string{"error: no change of the run stands: each Pod was skipped, or changed and then deleted or recreated"},
				"set", "-n", "hints", "--liveness", "--timeout-seconds=5", tc.pod)
			if r.stdout != tc.want {
				t.Errorf("%s:\n%s", tc.what, r)
			}
		})
	}
}

// TestPluginSetHintsAtPatchPermission changes a probe as a user who may
// read Pods but not patch them: the API server's refusal, and a hint that
// says why.
func TestPluginSetHintsAtPatchPermission(t *testing.T) {
	c := newWeb(t, "hints-rbac")
	grant(t, c, "hints-rbac", "alice", []string{"get", "list", "watch"})
	failProbe(t, c, c.kubeconfig, []string{`User "alice" cannot patch resource "pods"`, "hint: you may not patch Pods in this namespace"},
		"set", "-n", "hints-rbac", "--liveness", "--timeout-seconds=5", "web", "--as=alice")
}

// TestPluginSetHintsAtPodSecurityHost gives a probe a host in a namespace
// whose Pod Security level, baseline, forbids it: the API server refuses
// the change, nothing is stored, and a hint says to leave out the host.
func TestPluginSetHintsAtPodSecurityHost(t *testing.T) {
	c := sharedCluster(t)
	newNamespace(t, c, "baseline", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"})
	createAppPod(t, c, "baseline", "web", appSpec(), nil, nil, "")
	failProbe(t, c, c.kubeconfig, []string{`violates PodSecurity "baseline:latest"`, `hint: a probe or lifecycle handler names a host, which the namespace's Pod Security level "baseline:latest" forbids: leave out the host`},
		"set", "-n", "baseline", "web", "--readiness", "--get-url=http://169.254.169.254:80/")
	if p := c.pod(t, "baseline", "web").Spec.Containers[0].ReadinessProbe; p.HTTPGet.Host != "" {
		t.Errorf("a refused change was stored: %+v", p)
	}
}

// TestPluginSetHintsAtPodSecurityRaised changes a probe of a Pod in a
// namespace whose Pod Security level was raised, to restricted, after the
// Pod was created: the API server refuses any change of it, and the hint
// says that no probe change fixes that, with the reasons the Pod breaks
// the level for.
func TestPluginSetHintsAtPodSecurityRaised(t *testing.T) {
	c := newWeb(t, "raised")
	c.mustKubectl(t, "", "label", "namespace", "raised", "pod-security.kubernetes.io/enforce=restricted")
	failProbe(t, c, c.kubeconfig, []string{`violates PodSecurity "restricted:latest"`, `hint: the Pod breaks the namespace's Pod Security level "restricted:latest" for reasons no probe causes (allowPrivilegeEscalation != false, `},
		"set", "-n", "raised", "web", "--liveness", "--timeout-seconds=5")
}

// TestPluginSetSkipsFailedPodOfJob changes the Pods of a Job, one of which
// failed: that one is skipped, and the other changes.
func TestPluginSetSkipsFailedPodOfJob(t *testing.T) {
	c := pluginTest(t, "churn-job")
	ctx := context.Background()
	labels := map[string]string{"app": "once"}
	job, err := c.client.BatchV1().Jobs("churn-job").Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "once"},
		Spec: batchv1.JobSpec{
			ManualSelector: ptr.To(true),
			Selector:       &metav1.LabelSelector{MatchLabels: labels},
			Suspend:        ptr.To(true),
			Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: func() v1.PodSpec {
				s := appSpec()
				s.RestartPolicy = v1.RestartPolicyNever
				return s
			}()},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	failed := createAppPod(t, c, "churn-job", "once-a", job.Spec.Template.Spec, labels, job, "Job")
	failed.Status.Phase = v1.PodFailed
	if _, err := c.client.CoreV1().Pods("churn-job").UpdateStatus(ctx, failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	createAppPod(t, c, "churn-job", "once-b", job.Spec.Template.Spec, labels, job, "Job")
	r := mustProbe(t, c, c.kubeconfig, "set", "-n", "churn-job", "job/once", "--liveness", "--timeout-seconds=5")
	if r.stdout != "pod/once-a skipped: finished (Failed)\npod/once-b probes set\n" {
		t.Errorf("a Job with a failed Pod:\n%s", r)
	}
}

// TestPluginSetSkipsDeletedAndRecreatedPods changes the Pods of a label,
// two of which go between the pre-check and their change: one deleted,
// one deleted and created again under its name. Both are skipped, saying
// why, and the new Pod keeps its probe.
func TestPluginSetSkipsDeletedAndRecreatedPods(t *testing.T) {
	c := pluginTest(t, "churn")
	web := map[string]string{"app": "web"}
	for _, name := range []string{"web-a", "web-b", "web-c"} {
		createAppPod(t, c, "churn", name, appSpec(), web, nil, "")
	}
	p := startProxy(t, c, "churn")
	var once sync.Map
	p.Before(func(r *http.Request) {
		if r.Method != http.MethodPatch || strings.Contains(r.URL.RawQuery, "dryRun") {
			return
		}
		name := filepath.Base(r.URL.Path)
		if _, done := once.LoadOrStore(name, true); done {
			return
		}
		switch name {
		case "web-b":
			deletePod(t, c, "churn", name)
		case "web-c":
			deletePod(t, c, "churn", name)
			createAppPod(t, c, "churn", name, appSpec(), web, nil, "")
		}
	})
	r := mustProbe(t, c, p.Kubeconfig, "set", "-l", "app=web", "--liveness", "--timeout-seconds=5", "-o", "json")
	var results struct {
		Items []struct {
			Metadata       struct{ Name string }
			Result, Reason string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil {
		t.Fatalf("-o json: %v\n%s", err, r)
	}
	got := map[string]string{}
	for _, item := range results.Items {
		got[item.Metadata.Name] = item.Result + ": " + item.Reason
	}
	want := map[string]string{"web-a": "changed: ", "web-b": "skipped: deleted", "web-c": "skipped: recreated: another Pod has its name now"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s\n%s", diff, r)
	}
	if p := c.pod(t, "churn", "web-c").Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 1 {
		t.Errorf("the new web-c was changed: %+v", p)
	}
}

// TestPluginSetRetriesAfterConflict: someone else changes the Pod's
// readiness probe just before the plugin's patch arrives, after its dry
// run. The patch, computed from the Pod before that, conflicts; the plugin
// reads the Pod again and patches it, and both changes are kept.
func TestPluginSetRetriesAfterConflict(t *testing.T) {
	c := newWeb(t, "conflict")
	p := startProxy(t, c, "conflict")
	// Just before the plugin's patch arrives, after its dry run,
	// someone else changes the readiness probe: the patch, computed
	// from the Pod before that, conflicts.
	var once sync.Once
	p.Before(func(r *http.Request) {
		if r.Method != http.MethodPatch || strings.Contains(r.URL.RawQuery, "dryRun") {
			return
		}
		once.Do(func() {
			if _, err := c.client.CoreV1().Pods("conflict").Patch(context.Background(), "web", types.StrategicMergePatchType,
				[]byte(`{"spec":{"containers":[{"name":"app","readinessProbe":{"timeoutSeconds":7}}]}}`), metav1.PatchOptions{}); err != nil {
				t.Errorf("the concurrent edit: %v", err)
			}
		})
	})
	mustProbe(t, c, p.Kubeconfig, "set", "web", "--liveness", "--timeout-seconds=10")
	pod := c.pod(t, "conflict", "web").Spec.Containers[0]
	if pod.LivenessProbe.TimeoutSeconds != 10 || pod.ReadinessProbe.TimeoutSeconds != 7 {
		t.Errorf("want the plugin's liveness timeout 10 and the other edit's readiness timeout 7, got %d and %d",
			pod.LivenessProbe.TimeoutSeconds, pod.ReadinessProbe.TimeoutSeconds)
	}
	path := "/api/v1/namespaces/conflict/pods/web"
	if patches, gets := count(p, http.MethodPatch, path), count(p, http.MethodGet, path); patches != 2 || gets != 3 {
		t.Errorf("%d patches and %d gets of the Pod; want 2 patches and 3 gets: the target, the Pod read again before its batch, the conflict, then the Pod read again and patched", patches, gets)
	}
}

// TestPluginCompletesPodsAndWorkloads completes the target of kubectl
// probe set through kubectl's completion of plugins
// (kubectl_complete-probe): the namespace's Pods, and the kinds of
// workload.
func TestPluginCompletesPodsAndWorkloads(t *testing.T) {
	c := pluginTest(t, "complete")
	createAppPod(t, c, "complete", "web-1", appSpec(), nil, nil, "")
	cmd := exec.Command(filepath.Join(c.bin, "kubectl"), "__complete", "probe", "set", "--kubeconfig", c.kubeconfig, "-n", "complete", "")
	cmd.Env = append(cmd.Environ(), "PATH="+plugin(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl __complete probe set: %v\n%s", err, out)
	}
	for _, want := range []string{"web-1\n", "deployment/\n", "statefulset/\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the completion of kubectl probe set lacks %q:\n%s", want, out)
		}
	}
}

// TestPluginGateOff checks what kubectl probe says when the API server has
// MutableContainerProbes off.
func TestPluginGateOff(t *testing.T) {
	c := startCluster(t, false)
	newNamespace(t, c, "off", nil)
	createAppPod(t, c, "off", "web", appSpec(), nil, nil, "")
	failProbe(t, c, c.kubeconfig, []string{
		"error: pod/web: spec: Forbidden: pod updates may not change fields other than",
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
