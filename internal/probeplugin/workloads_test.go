package probeplugin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// webDeployment returns the Deployment web, whose template is webPod's,
// with a sidecar proxy.
func webDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	app := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: objectMeta("web", "d", app, nil, ""), Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: app}}}
	d.Spec.Template.Spec = webPod().Spec
	d.Spec.Template.Spec.InitContainers = []v1.Container{{Name: "proxy", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)}}
	return d
}

// The change of a workload's template that gives it the probes that a run
// left on its Pods: it tests that the container is where it was read, and
// that each probe that it changes is as it was read, or, when it adds a
// probe, that the container is as a whole, and adds, replaces or removes
// each probe that differs.
func TestTemplatePatch(t *testing.T) {
	d := asUnstructured(t, webDeployment(t))
	test := `{"op":"test","path":"/spec/template/spec/containers/0/name","value":"app"}`
	// The template's probes, as read: JSON writes a map's keys in order.
	livenessProbe := `{"failureThreshold":3,"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1}`
	readinessProbe := `{"failureThreshold":3,"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1}`
	for _, tc := range []struct {
		name      string
		container string
		types     []probeType
		probes    map[probeType]*v1.Probe
		workload  *unstructured.Unstructured
		want      string
		wantErr   string
	}{{
		name:      "a readiness probe moved, and a startup probe added",
		container: "app",
		types:     []probeType{readiness, startup},
		probes:    map[probeType]*v1.Probe{readiness: httpGet("/readyz"), startup: {ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(8080)}}}},
		workload:  d,
		want: `[{"op":"test","path":"/spec/template/spec/containers/0","value":{"livenessProbe":` + livenessProbe + `,"name":"app","readinessProbe":` + readinessProbe + `,"resources":{}}}` +
			`,{"op":"add","path":"/spec/template/spec/containers/0/readinessProbe","value":{"httpGet":{"path":"/readyz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}` +
			`,{"op":"add","path":"/spec/template/spec/containers/0/startupProbe","value":{"tcpSocket":{"port":8080}}}]`,
	}, {
		name:      "a readiness probe moved",
		container: "app",
		types:     []probeType{readiness},
		probes:    map[probeType]*v1.Probe{readiness: httpGet("/readyz")},
		workload:  d,
		want: "[" + test + `,{"op":"test","path":"/spec/template/spec/containers/0/readinessProbe","value":` + readinessProbe + `}` +
			`,{"op":"add","path":"/spec/template/spec/containers/0/readinessProbe","value":{"httpGet":{"path":"/readyz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}]`,
	}, {
		name:      "a liveness probe removed; the readiness probe the template's",
		container: "app",
		types:     []probeType{liveness, readiness},
		probes:    map[probeType]*v1.Probe{readiness: httpGet("/ready")},
		workload:  d,
		want:      "[" + test + `,{"op":"test","path":"/spec/template/spec/containers/0/livenessProbe","value":` + livenessProbe + `},{"op":"remove","path":"/spec/template/spec/containers/0/livenessProbe"}]`,
	}, {
		name:      "a sidecar's",
		container: "proxy",
		types:     []probeType{liveness},
		probes:    map[probeType]*v1.Probe{liveness: httpGet("/alive")},
		workload:  d,
		want: `[{"op":"test","path":"/spec/template/spec/initContainers/0","value":{"name":"proxy","resources":{},"restartPolicy":"Always"}},{"op":"add","path":"/spec/template/spec/initContainers/0/livenessProbe",` +
			`"value":{"httpGet":{"path":"/alive","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}]`,
	}, {
		name:      "the template has the probes: nothing to change",
		container: "app",
		types:     []probeType{liveness},
		probes:    map[probeType]*v1.Probe{liveness: httpGet("/healthz")},
		workload:  d,
	}, {
		name:      "a container the template lacks",
		container: "debug",
		types:     []probeType{liveness},
		workload:  d,
		wantErr:   `its Pod template has no container "debug"`,
	}, {
		// A Job's spec.template cannot change.
		name:      "a Job's",
		container: "app",
		types:     []probeType{liveness},
		probes:    map[probeType]*v1.Probe{liveness: httpGet("/alive")},
		workload:  asUnstructured(t, &batchv1.Job{ObjectMeta: objectMeta("batch", "job", nil, nil, ""), Spec: batchv1.JobSpec{Template: webDeployment(t).Spec.Template}}),
		wantErr:   "a Job's Pod template cannot change once the Job is created",
	}, {
		name:      "a CronJob's, of the Jobs it creates",
		container: "app",
		types:     []probeType{liveness},
		probes:    map[probeType]*v1.Probe{liveness: httpGet("/alive")},
		workload: asUnstructured(t, &batchv1.CronJob{ObjectMeta: objectMeta("nightly", "cj", nil, nil, ""), Spec: batchv1.CronJobSpec{
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: webDeployment(t).Spec.Template}}}}),
		want: `[{"op":"test","path":"/spec/jobTemplate/spec/template/spec/containers/0/name","value":"app"},{"op":"test","path":"/spec/jobTemplate/spec/template/spec/containers/0/livenessProbe","value":` + livenessProbe + `},{"op":"add","path":"/spec/jobTemplate/spec/template/spec/containers/0/livenessProbe",` +
			`"value":{"httpGet":{"path":"/alive","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}]`,
	}, {
		name:      "a workload without a template at spec.template",
		container: "app",
		types:     []probeType{liveness},
		workload:  &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"workloadRef": map[string]any{"name": "web"}}}},
		wantErr:   "it has no Pod template at spec.template to change",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := templatePatch(tc.workload, tc.container, tc.types, tc.probes)
			if expectError(t, err, tc.wantErr) {
				return
			}
			if got != tc.want {
				t.Errorf("patch\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// The change of the template, read when the run began, fails and changes
// nothing when the template changed since, as in someone's edit of its
// probe, or, for a probe that it adds, of its container: it does not
// overwrite it. Without that edit, it changes the template.
func TestTemplatePatchRefusesATemplateThatChanged(t *testing.T) {
	for _, tc := range []struct {
		name  string
		types []probeType
		// edit is someone's edit of the template after the run read it;
		// nil for none.
		edit func(c *v1.Container)
		// check checks the template's container after the patch.
		check func(c *v1.Container) bool
	}{{
		name:  "a probe changed",
		types: []probeType{readiness},
		check: func(c *v1.Container) bool { return c.ReadinessProbe.HTTPGet.Path == "/readyz" },
	}, {
		name:  "a probe changed, whose template's probe someone changed since",
		types: []probeType{readiness},
		edit:  func(c *v1.Container) { c.ReadinessProbe.FailureThreshold = 10 },
		check: func(c *v1.Container) bool {
			return c.ReadinessProbe.HTTPGet.Path == "/ready" && c.ReadinessProbe.FailureThreshold == 10
		},
	}, {
		name:  "a probe added",
		types: []probeType{startup},
		check: func(c *v1.Container) bool { return c.StartupProbe != nil && c.StartupProbe.HTTPGet.Path == "/readyz" },
	}, {
		name:  "a probe added, which someone added since",
		types: []probeType{startup},
		edit:  func(c *v1.Container) { c.StartupProbe = httpGet("/started") },
		check: func(c *v1.Container) bool { return c.StartupProbe.HTTPGet.Path == "/started" },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d := webDeployment(t)
			read := asUnstructured(t, d)
			client := fake.NewClientset(d)
			if tc.edit != nil {
				edited := d.DeepCopy()
				tc.edit(&edited.Spec.Template.Spec.Containers[0])
				if _, err := client.AppsV1().Deployments("ns").Update(context.Background(), edited, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			probes := map[probeType]*v1.Probe{}
			for _, pt := range tc.types {
				probes[pt] = httpGet("/readyz")
			}
			patch, err := templatePatch(read, "app", tc.types, probes)
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.AppsV1().Deployments("ns").Patch(context.Background(), "web", types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
			if (err == nil) != (tc.edit == nil) {
				t.Errorf("patch: %v; want it to fail only after someone's edit\n%s", err, patch)
			}
			now, err := client.AppsV1().Deployments("ns").Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c := &now.Spec.Template.Spec.Containers[0]; !tc.check(c) {
				t.Errorf("the template's container after the patch: %+v", c)
			}
		})
	}
}

// Once a run ended, it looks at the workloads of the Pods it changed: a
// Pod that the workload created during the run, with its template's probe,
// is named, and so is the change of the template that gives the Pods that
// replace these the new probe; with the flags that reach the same cluster.
func TestAfterRun(t *testing.T) {
	began := time.Date(2026, 12, 4, 10, 15, 2, 0, time.UTC)
	d := webDeployment(t)
	rs := &appsv1.ReplicaSet{ObjectMeta: objectMeta("web-1", "rs", d.Labels, d, "Deployment"), Spec: appsv1.ReplicaSetSpec{Selector: d.Spec.Selector}}
	rs.OwnerReferences[0].APIVersion = "apps/v1"
	pod := func(name string, created time.Time) *v1.Pod {
		p := webPod()
		p.ObjectMeta = objectMeta(name, "pod-"+name, d.Labels, rs, "ReplicaSet")
		p.OwnerReferences[0].APIVersion = "apps/v1"
		p.CreationTimestamp = metav1.NewTime(created)
		return p
	}
	var runs []*podRun
	objects := []runtime.Object{d, rs,
		// Created during the run, with the template's probes; and before
		// it, not part of it (-l chose the others).
		pod("web-1-new", began.Add(time.Minute)), pod("web-1-old", began.Add(-time.Hour)),
	}
	for _, name := range []string{"web-1-a", "web-1-b"} {
		before := pod(name, began.Add(-time.Hour))
		stored := before.DeepCopy()
		stored.Spec.Containers[0].ReadinessProbe = httpGet("/readyz")
		runs = append(runs, &podRun{pod: before, stored: stored, container: "app", result: resultChanged})
		objects = append(objects, stored)
	}
	o, client := newTestOwners(t, objects...)
	var errOut bytes.Buffer
	r := &runner{
		patcher: &patcher{client: client},
		change:  recorded{change: moveReadiness},
		owners:  o,
		runs:    runs,
		report:  &reporter{errOut: &errOut},
	}
	after := r.afterRun(context.Background(), began)
	patch := `[{"op":"test","path":"/spec/template/spec/containers/0/name","value":"app"},` +
		`{"op":"test","path":"/spec/template/spec/containers/0/readinessProbe","value":{"failureThreshold":3,"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1}},` +
		`{"op":"add","path":"/spec/template/spec/containers/0/readinessProbe","value":{"httpGet":{"path":"/readyz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}}]`
	want := []workloadAfter{{name: "deployment.apps/web", types: []probeType{readiness}, container: "app", patch: patch, created: []string{"web-1-new"}}}
	if diff := cmp.Diff(want, after, cmp.AllowUnexported(workloadAfter{})); diff != "" {
		t.Fatalf("after the run (-want +got):\n%s", diff)
	}
	r.report.workload(after[0], &commandLine{connection: []string{"-n", "ns", "--context", "prod"}}, true)
	wantPrinted := "deployment.apps/web: Pods that replace these get its template's readiness probe, not the new one; to change the template too, if it has not changed since the run read it (the patch fails otherwise, and changes nothing): kubectl patch deployment.apps/web -n ns --context prod --type=json -p '" + patch + "'\n" +
		"deployment.apps/web: pod/web-1-new, created during the run, has its template's readiness probe, not the new one: run the command again to change it too\n"
	if diff := cmp.Diff(wantPrinted, errOut.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}

	// A run that failed or was interrupted suggests no change of the
	// template: the workload's rollout would spread a probe that failed.
	errOut.Reset()
	r.report.workload(after[0], &commandLine{}, false)
	wantPrinted = "deployment.apps/web: Pods that replace these get its template's readiness probe, not the new one; the run did not finish, so it suggests no change of the template\n"
	if got := errOut.String(); !strings.HasPrefix(got, wantPrinted) {
		t.Errorf("printed %q, want it to begin with %q", got, wantPrinted)
	}

	// disable changes no template: the Pods that replace these get the
	// template's probe, for a while.
	errOut.Reset()
	r.change = recorded{change: disableChange{types: []probeType{readiness}}}
	after = r.afterRun(context.Background(), began)
	if len(after) != 1 || after[0].patch != "" || !after[0].disabled {
		t.Fatalf("after disable: %+v", after)
	}
	r.report.workload(after[0], &commandLine{}, true)
	if got, want := errOut.String(), "deployment.apps/web: Pods that replace these get its template's readiness probe\n"; !bytes.HasPrefix([]byte(got), []byte(want)) {
		t.Errorf("printed %q, want it to begin with %q", got, want)
	}
}
