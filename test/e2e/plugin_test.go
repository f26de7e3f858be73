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
)

// keptAnnotation is where kubectl probe disable keeps the probes it removes,
// and legacyKeptAnnotation where kubectl probe 0.2 kept them.
const (
	keptAnnotation       = "kubectl-probe.x-k8s.io/disabled"
	legacyKeptAnnotation = "probes.kep-6318.example/disabled"
)

// TestPlugin runs kubectl probe, the plugin built from cmd/kubectl-probe, as
// a user does: through kubectl, which finds it on PATH, against the patched
// kube-apiserver with MutableContainerProbes on. No node runs: Pods stay
// Pending, unless a test plays their kubelet (fakeKubelet) or writes their
// status (running), with the host's address as their IP for the API
// server's Pod proxy to reach an app in the test (startApp).
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
		for _, want := range []string{
			"pre-check: the API server accepts the change to 2 Pods (server dry run)\n",
			"pre-check: the new liveness probe was not tried on 2 Pods: the container is not running\n",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r)
			}
		}
		warning := `Warning: spec.containers[0]: probes changed on a pod controlled by ReplicaSet "web"`
		if n := strings.Count(r.stderr, warning); n != 1 {
			t.Errorf("the server's warning is printed %d times, want once:\n%s", n, r)
		}
		if n := strings.Count(r.stderr, "replicaset.apps/web: Pods that replace these get its template's liveness probe, not the new one; to change the template too: kubectl patch replicaset.apps/web -n rs "); n != 1 {
			t.Errorf("the change of the template is printed %d times, want once:\n%s", n, r)
		}
		for name, want := range map[string]int32{"web-a": 10, "web-b": 10, "solo": 1} {
			pod := c.pod(t, "rs", name)
			if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != want {
				t.Errorf("%s: liveness timeoutSeconds = %d, want %d", name, got, want)
			}
		}

		// Again: nothing to change, no request that changes the Pods.
		r = mustProbe(t, c, kc, "set", "-n", "rs", "replicaset/web", "--liveness", "--timeout-seconds=10")
		if r.stdout != "pod/web-a unchanged\npod/web-b unchanged\n" || strings.Contains(r.stderr, "Pods that replace these") {
			t.Errorf("a repeated change:\n%s", r)
		}
		if g := c.pod(t, "rs", "web-a").Generation; g != 2 {
			t.Errorf("web-a is at generation %d, want 2", g)
		}

		r = mustProbe(t, c, kc, "show", "-n", "rs", "replicaset/web")
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
		r = mustProbe(t, c, kc, "show", "-n", "rs", "replicaset/web", "-o", "wide")
		if !strings.Contains(r.stdout, "http-get http://:8080/healthz delay=0s timeout=10s period=10s #success=1 #failure=3") {
			t.Errorf("show -o wide does not show the probes' timing:\n%s", r)
		}

		r = mustProbe(t, c, kc, "show", "-n", "rs", "solo", "-o", "json")
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
		r = mustProbe(t, c, kc, "show", "-n", "rs", "-l", "app=web", "-o", "yaml")
		for _, want := range []string{"kind: List", "name: solo", "name: web-a", "name: web-b", "template: replicaset.apps/web", "template: differs"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("show -l app=web -o yaml lacks %q:\n%s", want, r)
			}
		}
	})

	t.Run("undo", func(t *testing.T) {
		newNamespace(t, c, "undo", nil)
		app := map[string]string{"app": "web"}
		rs := createReplicaSet(t, c, "undo", "web", appSpec(), app, nil)
		for _, name := range []string{"web-a", "web-b", "web-c"} {
			createAppPod(t, c, "undo", name, appSpec(), app, rs, "ReplicaSet")
		}
		mustProbe(t, c, kc, "set", "-n", "undo", "replicaset/web", "--liveness", "--timeout-seconds=10")
		// Then someone else changes web-b's liveness probe.
		c.mustKubectl(t, "", "-n", "undo", "patch", "pod", "web-b", "-p", `{"spec":{"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":20}}]}}`)

		r := mustProbe(t, c, kc, "undo", "-n", "undo", "replicaset/web")
		want := "pod/web-b skipped: left as it is: the probes of container \"app\" changed after run "
		if !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.stdout, "pod/web-a probes put back\n") || !strings.Contains(r.stdout, "pod/web-c probes put back\n") {
			t.Errorf("undo does not put back web-a and web-c, and name web-b:\n%s", r)
		}
		for name, want := range map[string]int32{"web-a": 1, "web-b": 20, "web-c": 1} {
			if got := c.pod(t, "undo", name).Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != want {
				t.Errorf("%s: liveness timeoutSeconds %d after undo, want %d", name, got, want)
			}
		}
		// The run is undone: nothing more to put back.
		r = failProbe(t, c, kc, []string{"error: no Pod was changed: each one was skipped"}, "undo", "-n", "undo", "replicaset/web")
		if !strings.Contains(r.stdout, "pod/web-a skipped: run ") || !strings.Contains(r.stdout, " is undone already, by ") {
			t.Errorf("a second undo:\n%s", r)
		}
	})

	t.Run("set", func(t *testing.T) {
		newNamespace(t, c, "set", nil)
		createAppPod(t, c, "set", "web", appSpec(), nil, nil, "")
		set := func(args ...string) result {
			return mustProbe(t, c, kc, append([]string{"set", "-n", "set", "web"}, args...)...)
		}

		// A new handler replaces the old one; the other fields stay.
		set("--readiness", "--get-url=http://:http/readyz")
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
		// Removing the startup probe of a container that has not started
		// needs a confirmation: there is no terminal here.
		failProbe(t, c, kc, []string{
			"warning: the container has not started on pod/web: without its startup probe, its liveness probe starts at once and may restart it",
			"error: not confirmed: give --yes to go on",
		}, "set", "-n", "set", "web", "--startup", "--remove")
		set("--startup", "--remove", "--yes")
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
		for _, want := range []string{"kind: List", "kind: PodProbeResult", "result: changed", "tcpSocket:\n"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("client dry run -o yaml lacks %q:\n%s", want, r)
			}
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

		// The field manager, kubectl-probe unless --field-manager says.
		set("--liveness", "--period-seconds=30", "--field-manager=oncall")
		set("--readiness", "--period-seconds=40")
		var managers []string
		for _, m := range c.pod(t, "set", "web").ManagedFields {
			managers = append(managers, m.Manager)
		}
		if !slices.Contains(managers, "kubectl-probe") || !slices.Contains(managers, "oncall") {
			t.Errorf("field managers %v, want kubectl-probe and oncall among them", managers)
		}

		// --timeout still works, and says it is deprecated.
		r = set("--liveness", "--period-seconds=50", "--timeout=1m")
		if !strings.Contains(r.stderr, "Flag --timeout has been deprecated, use --wait-timeout instead") {
			t.Errorf("--timeout does not say it is deprecated:\n%s", r)
		}
	})

	t.Run("disable and restore", func(t *testing.T) {
		newNamespace(t, c, "keep", nil)
		created := createAppPod(t, c, "keep", "api", appSpec(), nil, nil, "")
		original := created.Spec.Containers[0].LivenessProbe
		p := startProxy(t, c, "keep")
		path := "/api/v1/namespaces/keep/pods/api"
		patches := func() (int, int) {
			defer p.Reset()
			return dryRuns(p, path), count(p, http.MethodPatch, path)
		}

		mustProbe(t, c, p.Kubeconfig, "disable", "api", "--liveness")
		if dry, real := patches(); dry != 1 || real != 1 {
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
		if r := mustProbe(t, c, kc, "show", "-n", "keep", "api"); !slices.ContainsFunc(tableLines(r.stdout), func(l []string) bool {
			return len(l) > 4 && l[0] == "api" && l[4] == "<disabled>"
		}) {
			t.Errorf("show does not mark the disabled probe:\n%s", r)
		}

		r := mustProbe(t, c, p.Kubeconfig, "restore", "api", "--liveness")
		if dry, real := patches(); dry != 1 || real != 1 {
			t.Errorf("restore sent %d dry runs and %d patches, want 1 each", dry, real)
		}
		want := `restore: puts back on pod/api the liveness probe of container "app": http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3 (the Pod has no template to compare it with)`
		if !strings.Contains(r.stderr, want) {
			t.Errorf("restore does not show what it puts back, %q:\n%s", want, r)
		}
		pod = c.pod(t, "keep", "api")
		if diff := cmp.Diff(original, pod.Spec.Containers[0].LivenessProbe); diff != "" {
			t.Errorf("restored liveness probe (-want +got):\n%s", diff)
		}
		if _, ok := pod.Annotations[keptAnnotation]; ok || pod.Generation != 3 {
			t.Errorf("after restore: generation %d, annotations %v", pod.Generation, pod.Annotations)
		}

		failProbe(t, c, kc, []string{`error: pod/api: container "app" has no liveness probe kept by kubectl probe disable; there is nothing to restore`},
			"restore", "-n", "keep", "api", "--liveness")

		// Someone sets a liveness probe after disable: restore refuses to
		// replace it, unless --force, and disable refuses to replace the
		// kept one.
		mustProbe(t, c, kc, "disable", "-n", "keep", "api", "--liveness")
		c.mustKubectl(t, "", "-n", "keep", "patch", "pod", "api", "-p", `{"spec":{"containers":[{"name":"app","livenessProbe":{"tcpSocket":{"port":8080}}}]}}`)
		failProbe(t, c, kc, []string{`error: pod/api: container "app" keeps a liveness probe that an earlier disable removed, and has another one set since`},
			"disable", "-n", "keep", "api", "--liveness")
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

	t.Run("planted annotation", func(t *testing.T) {
		newNamespace(t, c, "planted", nil)
		labels := map[string]string{"app": "web"}
		rs := createReplicaSet(t, c, "planted", "web", appSpec(), labels, nil)
		createAppPod(t, c, "planted", "web-a", appSpec(), labels, rs, "ReplicaSet")
		createAppPod(t, c, "planted", "bare", appSpec(), nil, nil, "")
		mustProbe(t, c, kc, "disable", "-n", "planted", "web-a", "bare", "--liveness")
		// Someone who may patch Pods, and not exec into them, plants a
		// command in the kept copy: on web-a as this version keeps it, on
		// bare as kubectl probe 0.2 did.
		planted := `{"app":{"liveness":{"exec":{"command":["sh","-c","cat /var/run/secrets/kubernetes.io/serviceaccount/token > /tmp/x"]},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}}`
		for name, annotations := range map[string]map[string]any{
			"web-a": {keptAnnotation: `{"version":"v1","containers":` + planted + `}`},
			"bare":  {keptAnnotation: nil, legacyKeptAnnotation: planted},
		} {
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
			c.mustKubectl(t, "", "-n", "planted", "patch", "pod", name, "-p", string(patch))
		}
		failProbe(t, c, kc, []string{
			"error: the pre-check refused 2 of 2 Pods; no Pod was changed:",
			`- pod/bare: the liveness probe kept for container "app" runs a command, exec [sh -c cat /var/run/secrets/kubernetes.io/serviceaccount/token > /tmp/x], and anyone who may patch the Pod may have written it; with no template to compare it with, only --force puts it back`,
			`- pod/web-a: the liveness probe kept for container "app" is not the one of the template of replicaset.apps/web, and anyone who may patch the Pod may have written it: kept exec [sh -c cat`,
		}, "restore", "-n", "planted", "bare", "web-a", "--liveness")
		for _, name := range []string{"web-a", "bare"} {
			if p := c.pod(t, "planted", name).Spec.Containers[0].LivenessProbe; p != nil {
				t.Errorf("%s: a refused restore installed %+v", name, p)
			}
		}
		// --from-template puts back the template's probe, and drops the
		// planted one.
		r := mustProbe(t, c, kc, "restore", "-n", "planted", "web-a", "--liveness", "--from-template")
		if !strings.Contains(r.stderr, `restore: puts back on pod/web-a the liveness probe of container "app": http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3 (the template's)`) {
			t.Errorf("restore --from-template does not show what it puts back:\n%s", r)
		}
		pod := c.pod(t, "planted", "web-a")
		if diff := cmp.Diff(rs.Spec.Template.Spec.Containers[0].LivenessProbe, pod.Spec.Containers[0].LivenessProbe); diff != "" || pod.Annotations[keptAnnotation] != "" {
			t.Errorf("after restore --from-template: annotations %v, liveness probe (-want +got):\n%s", pod.Annotations, diff)
		}
		// --force installs it: the user said so.
		mustProbe(t, c, kc, "restore", "-n", "planted", "bare", "--liveness", "--force")
		if p := c.pod(t, "planted", "bare").Spec.Containers[0].LivenessProbe; p == nil || p.Exec == nil {
			t.Errorf("restore --force did not put the kept probe back: %+v", p)
		}
	})

	t.Run("template of the Pod's revision", func(t *testing.T) {
		newNamespace(t, c, "revision", nil)
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
		r := mustProbe(t, c, kc, "show", "-n", "revision", "statefulset/db", "-o", "yaml")
		if !strings.Contains(r.stdout, "template: statefulset.apps/db (revision db-r1)") || strings.Contains(r.stdout, "template: differs") {
			t.Errorf("show does not compare db-0 with its own revision, db-r1:\n%s", r)
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

		// Two containers can have probes: the pre-check refuses both Pods.
		failProbe(t, c, kc, []string{
			"error: the pre-check refused 2 of 2 Pods; no Pod was changed:\n- pod/front-1-a, pod/front-1-b: has 2 containers that can have probes (proxy, app): choose one with -c\n",
		}, "set", "-n", "deploy", "deployment/front", "--liveness", "--timeout-seconds=5")

		r := mustProbe(t, c, kc, "set", "-n", "deploy", "deployment/front", "-c", "proxy", "--readiness", "--open-tcp=9000")
		// The Deployment, the top controller of the Pods, not their
		// ReplicaSet, makes the new probe durable; its sidecar is the
		// first init container.
		if !strings.Contains(r.stderr, `deployment.apps/front: Pods that replace these get its template's readiness probe, not the new one; to change the template too: kubectl patch deployment.apps/front -n deploy `) ||
			!strings.Contains(r.stderr, `--type=json -p '[{"op":"test","path":"/spec/template/spec/initContainers/0/name","value":"proxy"},{"op":"add","path":"/spec/template/spec/initContainers/0/readinessProbe","value":{"tcpSocket":{"port":9000},`) {
			t.Errorf("no change of the Deployment's template:\n%s", r)
		}
		for _, name := range []string{"front-1-a", "front-1-b"} {
			p := c.pod(t, "deploy", name).Spec.InitContainers[0].ReadinessProbe
			if p == nil || p.TCPSocket == nil || p.TCPSocket.Port != intstr.FromInt32(9000) {
				t.Errorf("%s: the sidecar's readiness probe is %+v", name, p)
			}
		}
		r = mustProbe(t, c, kc, "show", "-n", "deploy", "deployment/front", "-c", "proxy")
		if !slices.ContainsFunc(tableLines(r.stdout), func(l []string) bool {
			return slices.Equal(l, []string{"front-1-b", "proxy", "false", "0", "<none>", "tcp-socket", ":9000", "<none>", "differs:readiness", "2/0", "<none>"})
		}) {
			t.Errorf("show -c proxy does not mark the sidecar's changed readiness probe:\n%s", r)
		}

		// kubectl.kubernetes.io/default-container chooses.
		c.mustKubectl(t, "", "-n", "deploy", "annotate", "pod", "front-1-a", "kubectl.kubernetes.io/default-container=app")
		mustProbe(t, c, kc, "set", "-n", "deploy", "front-1-a", "--liveness", "--timeout-seconds=5")
		if p := c.pod(t, "deploy", "front-1-a").Spec.Containers[0].LivenessProbe; p.TimeoutSeconds != 5 {
			t.Errorf("the default container's liveness probe: %+v", p)
		}
	})

	t.Run("readiness wait", func(t *testing.T) {
		newNamespace(t, c, "wait", nil)
		// The kubelet of node wait: a readiness or liveness probe on
		// /missing fails.
		startFakeKubelet(t, c, "wait", "wait", func(p *v1.Pod) string {
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
			createAppPod(t, c, "wait", name, spec, map[string]string{"app": "wait"}, nil, "")
		}
		waitFor(t, "the fake kubelet to report the Pods Ready", func() bool {
			for _, name := range []string{"a", "b", "c"} {
				if p := c.pod(t, "wait", name); p.Status.ObservedGeneration != 1 {
					return false
				}
			}
			return true
		})
		path := func(name string) string {
			return c.pod(t, "wait", name).Spec.Containers[0].ReadinessProbe.HTTPGet.Path
		}

		// The new probe fails on the first Pod: the command stops there,
		// and b and c are not started.
		start := time.Now()
		failProbe(t, c, kc, []string{
			"error: pod/a: changed, but the new readiness probe failed: container \"app\" is not Ready any more; its last Unhealthy event, ",
			"ago: Readiness probe failed: HTTP probe failed with statuscode: 404\n",
			"to undo it: kubectl probe undo pod/a -n wait --kubeconfig " + kc + " --run ",
			"done (0): none", "failed (1): pod/a", "not started, left as they are (2): pod/b pod/c",
		}, "set", "-n", "wait", "-l", "app=wait", "--readiness", "--get-url=http://:8080/missing", "--skip-check")
		if elapsed := time.Since(start); elapsed > 30*time.Second {
			t.Errorf("the command took %s to stop", elapsed)
		}
		if path("a") != "/missing" || path("b") != "/healthz" || path("c") != "/healthz" {
			t.Errorf("readiness paths: a %s (want /missing), b %s and c %s (want /healthz, not started)", path("a"), path("b"), path("c"))
		}

		// --undo-on-failure puts a's probe back.
		c.mustKubectl(t, "", "-n", "wait", "patch", "pod", "a", "-p", `{"spec":{"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/healthz"}}}]}}`)
		waitFor(t, "a Ready again", func() bool { return ready(c.pod(t, "wait", "a")) })
		r := failProbe(t, c, kc, []string{"pod/a: undone: its probes are as they were before"},
			"set", "-n", "wait", "-l", "app=wait", "--readiness", "--get-url=http://:8080/missing", "--skip-check", "--undo-on-failure", "-o", "json")
		if path("a") != "/healthz" {
			t.Errorf("a's readiness path after --undo-on-failure: %s", path("a"))
		}
		if !strings.Contains(r.stdout, `"result": "failed"`) || !strings.Contains(r.stdout, "; undone") {
			t.Errorf("-o json does not say a failed and was undone:\n%s", r)
		}

		// A probe that does not fail passes once the Pod stayed Ready
		// through its failure window.
		waitFor(t, "a Ready again", func() bool { return ready(c.pod(t, "wait", "a")) })
		r = mustProbe(t, c, kc, "set", "-n", "wait", "a", "--readiness", "--timeout-seconds=2", "--skip-check")
		if !strings.Contains(r.stderr, "pod/a: the kubelet applied generation ") ||
			!strings.Contains(r.stderr, "; the new readiness probe passed: the container stayed Ready through the probe's failure window (8s)") {
			t.Errorf("the readiness change was not confirmed:\n%s", r)
		}
		// A liveness change passes once the container ran through its
		// failure window, 1 × (1s + 3s) and the margin, without a restart
		// and an Unhealthy event of the new probe.
		r = mustProbe(t, c, kc, "set", "-n", "wait", "b", "--liveness", "--timeout-seconds=3", "--period-seconds=1", "--failure-threshold=1", "--skip-check")
		if !strings.Contains(r.stderr, "pod/b: the kubelet applied generation 2; the new liveness probe passed: no restart and no liveness failure through the probe's failure window (9s)\n") {
			t.Errorf("the liveness change was not proven:\n%s", r)
		}
		// A liveness probe that fails stops the command at the first
		// Pod once its failures in a row reach its failureThreshold, and
		// --undo-on-failure puts the old probe back: it would not restart
		// the container sooner than the new one, whose threshold is the
		// same, 1.
		livenessPath := func(name string) string {
			return c.pod(t, "wait", name).Spec.Containers[0].LivenessProbe.HTTPGet.Path
		}
		start = time.Now()
		failProbe(t, c, kc, []string{
			"error: pod/b: changed, but the new liveness probe of container \"app\" reached its failureThreshold, 1 failure in a row: the kubelet restarts the container; its last Unhealthy event, ",
			"ago: Liveness probe failed: HTTP probe failed with statuscode: 404\n",
			"pod/b: undone: its probes are as they were before",
			"done (0): none", "failed (1): pod/b", "not started, left as they are (1): pod/c",
		}, "set", "-n", "wait", "b", "c", "--liveness", "--get-url=http://:8080/missing", "--period-seconds=1", "--failure-threshold=1", "--skip-check", "--undo-on-failure")
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Errorf("the command took %s to stop at the first failure", elapsed)
		}
		if livenessPath("b") != "/healthz" || livenessPath("c") != "/healthz" {
			t.Errorf("liveness paths after --undo-on-failure: b %s, c %s; want /healthz", livenessPath("b"), livenessPath("c"))
		}

		// A liveness probe relaxed to failureThreshold 6 is judged by it:
		// its three failures in a row are reported, and the proof passes
		// at the end of its window, 6 × (1s + 1s) and the margin.
		r = mustProbe(t, c, kc, "set", "-n", "wait", "c", "--liveness", "--get-url=http://:8080/missing", "--period-seconds=1", "--failure-threshold=6", "--skip-check")
		if !strings.Contains(r.stderr, "pod/c: the kubelet applied generation 2; the new liveness probe passed: no restart through the probe's failure window (17s); it failed 3 times, at most 3 in a row, below its failureThreshold of 6\n") {
			t.Errorf("the relaxed liveness probe was not proven, or its failures not reported:\n%s", r)
		}

		// A Pod whose kubelet does not report the change.
		silent := appSpec()
		silent.NodeName = "silent"
		startFakeKubelet(t, c, "none", "silent", func(*v1.Pod) string { return "" })
		createAppPod(t, c, "wait", "d", silent, nil, nil, "")
		failProbe(t, c, kc, []string{`error: pod/d: changed, but the kubelet did not report generation 2 within 2s (--wait-timeout)`},
			"set", "-n", "wait", "d", "--liveness", "--timeout-seconds=3", "--wait-timeout=2s")
	})

	t.Run("try the new probe", func(t *testing.T) {
		a := startApp(t)
		newNamespace(t, c, "try", nil)
		running(t, c.client, createAppPod(t, c, "try", "web", appSpecOn(a.port), nil, nil, ""), a.ip)
		port := fmt.Sprint(a.port)

		failProbe(t, c, kc, []string{
			"error: pod/web: the new readiness probe of container \"app\" fails now: http-get http://:" + port + "/missing: answered 404 Not Found\n",
			"hint: --skip-check stores it anyway\n",
		}, "set", "-n", "try", "web", "--readiness", "--get-url=http://:"+port+"/missing")
		if g := c.pod(t, "try", "web").Generation; g != 1 || a.count("/missing") != 1 {
			t.Errorf("generation %d after the refusal (want 1), the app was asked %d times (want once)", g, a.count("/missing"))
		}

		r := mustProbe(t, c, kc, "set", "-n", "try", "web", "--readiness", "--get-url=http://:"+port+"/readyz")
		if !strings.Contains(r.stderr, "pre-check: the new readiness probe succeeds: http-get http://:"+port+"/readyz: answered 200 OK\n") {
			t.Errorf("the pre-check does not say the new probe succeeds:\n%s", r)
		}
		mustProbe(t, c, kc, "set", "-n", "try", "web", "--readiness", "--get-url=http://:"+port+"/missing", "--skip-check")
		if p := c.pod(t, "try", "web").Spec.Containers[0].ReadinessProbe; p.HTTPGet.Path != "/missing" {
			t.Errorf("--skip-check did not store the probe: %+v", p)
		}

		// A user who may patch Pods, but not use the Pod proxy: one line,
		// and the change goes on.
		grant(t, c, "try", "bob", []string{"get", "list", "watch", "patch"})
		r = mustProbe(t, c, kc, "set", "-n", "try", "web", "--liveness", "--get-url=http://:"+port+"/readyz", "--as=bob")
		if !strings.Contains(r.stderr, `pre-check: the new probe was not tried: you may not get pods/proxy in namespace "try"; the wait after each change still proves it`) {
			t.Errorf("no line about the missing permission:\n%s", r)
		}
	})

	t.Run("pre-check summary", func(t *testing.T) {
		newNamespace(t, c, "mixed", nil)
		mixed := map[string]string{"app": "mixed"}
		// A node whose kubelet does not declare the feature.
		if _, err := c.client.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "old-node"}}, metav1.CreateOptions{}); err != nil {
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

		r := failProbe(t, c, kc, []string{
			"error: the pre-check refused 3 of 4 Pods; no Pod was changed:\n" +
				`- pod/old-1, pod/old-2: pod update requires features MutableContainerProbes which are not available on node "old-node"` + "\n" +
				"  hint: the kubelet of the Pod's node cannot apply probe changes: turn MutableContainerProbes on in that kubelet (or upgrade it), or replace the Pod\n" +
				"- pod/two: has 2 containers that can have probes (app, log): choose one with -c\n",
		}, "set", "-n", "mixed", "-l", "app=mixed", "--liveness", "--timeout-seconds=5")
		if r.stdout != "pod/leaving skipped: terminating\n" {
			t.Errorf("stdout:\n%s", r)
		}
		for _, name := range []string{"old-1", "old-2", "two", "fine"} {
			if g := c.pod(t, "mixed", name).Generation; g != 1 {
				t.Errorf("%s is at generation %d after the refusal", name, g)
			}
		}
	})

	t.Run("hints", func(t *testing.T) {
		newNamespace(t, c, "hints", nil)
		set := []string{"set", "-n", "hints", "--liveness", "--timeout-seconds=5"}

		// A terminating Pod, and a finished one: skipped, nothing done.
		terminating(t, c, createAppPod(t, c, "hints", "leaving", appSpec(), nil, nil, ""))
		r := failProbe(t, c, kc, []string{"error: no Pod was changed: each one was skipped"}, append(set, "leaving")...)
		if r.stdout != "pod/leaving skipped: terminating\n" {
			t.Errorf("a terminating Pod:\n%s", r)
		}
		done := createAppPod(t, c, "hints", "done", appSpec(), nil, nil, "")
		done.Status.Phase = v1.PodSucceeded
		if _, err := c.client.CoreV1().Pods("hints").UpdateStatus(ctx, done, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		r = failProbe(t, c, kc, []string{"error: no Pod was changed: each one was skipped"}, append(set, "done")...)
		if r.stdout != "pod/done skipped: finished (Succeeded)\n" {
			t.Errorf("a finished Pod:\n%s", r)
		}

		// A user who may read Pods but not patch them.
		createAppPod(t, c, "hints", "web", appSpec(), nil, nil, "")
		grant(t, c, "hints", "alice", []string{"get", "list", "watch"})
		failProbe(t, c, kc, []string{`User "alice" cannot patch resource "pods"`, "hint: you may not patch Pods in this namespace"},
			append(set, "web", "--as=alice")...)

		// Pod Security: at baseline, a probe may not name a host.
		newNamespace(t, c, "baseline", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"})
		createAppPod(t, c, "baseline", "web", appSpec(), nil, nil, "")
		failProbe(t, c, kc, []string{`violates PodSecurity "baseline:latest"`, `hint: a probe or lifecycle handler names a host, which the namespace's Pod Security level "baseline:latest" forbids: leave out the host`},
			"set", "-n", "baseline", "web", "--readiness", "--get-url=http://169.254.169.254:80/")
		if p := c.pod(t, "baseline", "web").Spec.Containers[0].ReadinessProbe; p.HTTPGet.Host != "" {
			t.Errorf("a refused change was stored: %+v", p)
		}
		// The level raised after the Pod was created: no probe change fixes
		// that.
		newNamespace(t, c, "raised", nil)
		createAppPod(t, c, "raised", "web", appSpec(), nil, nil, "")
		c.mustKubectl(t, "", "label", "namespace", "raised", "pod-security.kubernetes.io/enforce=restricted")
		failProbe(t, c, kc, []string{`violates PodSecurity "restricted:latest"`, `hint: the Pod breaks the namespace's Pod Security level "restricted:latest" for reasons no probe causes (allowPrivilegeEscalation != false, `},
			"set", "-n", "raised", "web", "--liveness", "--timeout-seconds=5")
	})

	t.Run("pods that come and go", func(t *testing.T) {
		newNamespace(t, c, "churn", nil)
		labels := map[string]string{"app": "once"}
		job, err := c.client.BatchV1().Jobs("churn").Create(ctx, &batchv1.Job{
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
		failed := createAppPod(t, c, "churn", "once-a", job.Spec.Template.Spec, labels, job, "Job")
		failed.Status.Phase = v1.PodFailed
		if _, err := c.client.CoreV1().Pods("churn").UpdateStatus(ctx, failed, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		createAppPod(t, c, "churn", "once-b", job.Spec.Template.Spec, labels, job, "Job")
		r := mustProbe(t, c, kc, "set", "-n", "churn", "job/once", "--liveness", "--timeout-seconds=5")
		if r.stdout != "pod/once-a skipped: finished (Failed)\npod/once-b probes set\n" {
			t.Errorf("a Job with a failed Pod:\n%s", r)
		}

		// Pods deleted, and deleted and created again, between the
		// pre-check and their change.
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
		r = mustProbe(t, c, p.Kubeconfig, "set", "-l", "app=web", "--liveness", "--timeout-seconds=5", "-o", "json")
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
	})

	t.Run("conflict", func(t *testing.T) {
		newNamespace(t, c, "conflict", nil)
		createAppPod(t, c, "conflict", "web", appSpec(), nil, nil, "")
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
				if _, err := c.client.CoreV1().Pods("conflict").Patch(ctx, "web", types.StrategicMergePatchType,
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
		if patches, gets := count(p, http.MethodPatch, path), count(p, http.MethodGet, path); patches != 2 || gets != 2 {
			t.Errorf("%d patches and %d gets of the Pod; want 2 each: the target, the conflict, then the Pod read again and patched", patches, gets)
		}
	})

	t.Run("completion", func(t *testing.T) {
		newNamespace(t, c, "complete", nil)
		createAppPod(t, c, "complete", "web-1", appSpec(), nil, nil, "")
		cmd := exec.Command(filepath.Join(c.bin, "kubectl"), "__complete", "probe", "set", "--kubeconfig", kc, "-n", "complete", "")
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
	})
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
