package probeplugin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func objectMeta(name, uid string, labels map[string]string, owner metav1.Object, kind string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(uid), Labels: labels}
	if owner != nil {
		meta.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true)}}
	}
	return meta
}

func ownedPod(name string, labels map[string]string, owner metav1.Object, kind string) *v1.Pod {
	return &v1.Pod{ObjectMeta: objectMeta(name, "pod-"+name, labels, owner, kind)}
}

func TestWorkloadPods(t *testing.T) {
	app := map[string]string{"app": "web"}
	selector := &metav1.LabelSelector{MatchLabels: app}

	deployment := &appsv1.Deployment{ObjectMeta: objectMeta("web", "d", app, nil, ""), Spec: appsv1.DeploymentSpec{Selector: selector}}
	oldRS := &appsv1.ReplicaSet{ObjectMeta: objectMeta("web-1", "rs-1", app, deployment, "Deployment"), Spec: appsv1.ReplicaSetSpec{Selector: selector}}
	newRS := &appsv1.ReplicaSet{ObjectMeta: objectMeta("web-2", "rs-2", app, deployment, "Deployment"), Spec: appsv1.ReplicaSetSpec{Selector: selector}}
	// A ReplicaSet that the selector selects but another Deployment owns.
	otherDeployment := &appsv1.Deployment{ObjectMeta: objectMeta("other", "d2", nil, nil, "")}
	otherRS := &appsv1.ReplicaSet{ObjectMeta: objectMeta("other-1", "rs-3", app, otherDeployment, "Deployment"), Spec: appsv1.ReplicaSetSpec{Selector: selector}}
	statefulSet := &appsv1.StatefulSet{ObjectMeta: objectMeta("db", "ss", nil, nil, ""), Spec: appsv1.StatefulSetSpec{Selector: selector}}
	daemonSet := &appsv1.DaemonSet{ObjectMeta: objectMeta("agent", "ds", nil, nil, ""), Spec: appsv1.DaemonSetSpec{Selector: selector}}
	job := &batchv1.Job{ObjectMeta: objectMeta("once", "job", nil, nil, ""), Spec: batchv1.JobSpec{Selector: selector}}

	objects := []runtime.Object{
		deployment, oldRS, newRS, otherDeployment, otherRS, statefulSet, daemonSet, job,
		ownedPod("web-2-b", app, newRS, "ReplicaSet"),
		ownedPod("web-2-a", app, newRS, "ReplicaSet"),
		ownedPod("web-1-a", app, oldRS, "ReplicaSet"),
		ownedPod("other-1-a", app, otherRS, "ReplicaSet"),
		ownedPod("db-0", app, statefulSet, "StatefulSet"),
		ownedPod("agent-x", app, daemonSet, "DaemonSet"),
		ownedPod("once-x", app, job, "Job"),
		// Selected by the selector, but nobody's, or not the workload's.
		ownedPod("orphan", app, nil, ""),
		ownedPod("db-unlabelled", nil, statefulSet, "StatefulSet"),
	}
	client := fake.NewClientset(objects...)

	for _, tc := range []struct {
		name     string
		kind     string
		workload runtime.Object
		want     []string
	}{
		{"Deployment, through its ReplicaSets", "Deployment.apps", deployment, []string{"web-1-a", "web-2-a", "web-2-b"}},
		{"ReplicaSet", "ReplicaSet.apps", newRS, []string{"web-2-a", "web-2-b"}},
		{"StatefulSet", "StatefulSet.apps", statefulSet, []string{"db-0"}},
		{"DaemonSet", "DaemonSet.apps", daemonSet, []string{"agent-x"}},
		{"Job", "Job.batch", job, []string{"once-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := workloadPods(context.Background(), client, schema.ParseGroupKind(tc.kind), tc.workload)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range pods {
				got = append(got, p.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Pods (-want +got):\n%s", diff)
			}
		})
	}

	if _, err := workloadPods(context.Background(), client, schema.GroupKind{Kind: "Service"}, &v1.Service{}); err == nil {
		t.Error("a Service has no Pods to change, but workloadPods returned no error")
	}
}

// Each kind of controller's Pod template is the one of the Pod's own
// revision, and a Pod whose controller has none has no template.
func TestTemplates(t *testing.T) {
	template := func(image string) v1.PodTemplateSpec {
		return v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: image}}}}
	}
	meta := func(name, uid string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(uid)}
	}
	// A revision holds its template as a patch that replaces the
	// workload's as a whole.
	revision := func(name, hash, image string, owner metav1.Object) *appsv1.ControllerRevision {
		data, err := json.Marshal(map[string]any{"spec": map[string]any{"template": func() map[string]any {
			var m map[string]any
			b, _ := json.Marshal(template(image))
			_ = json.Unmarshal(b, &m)
			m["$patch"] = "replace"
			return m
		}()}})
		if err != nil {
			t.Fatal(err)
		}
		r := &appsv1.ControllerRevision{ObjectMeta: objectMeta(name, "cr-"+name, map[string]string{appsv1.ControllerRevisionHashLabelKey: hash}, owner, "StatefulSet")}
		r.Data.Raw = data
		return r
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: meta("web-5d4", "rs"), Spec: appsv1.ReplicaSetSpec{Template: template("rs")}}
	rs.Spec.Template.Labels = map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "5d4"}
	// Under OnDelete, the StatefulSet's template is newer than db-0's.
	ss := &appsv1.StatefulSet{ObjectMeta: meta("db", "ss"), Spec: appsv1.StatefulSetSpec{Template: template("ss-new")}}
	ds := &appsv1.DaemonSet{ObjectMeta: meta("agent", "ds"), Spec: appsv1.DaemonSetSpec{Template: template("ds-new")}}
	job := &batchv1.Job{ObjectMeta: meta("once", "job"), Spec: batchv1.JobSpec{Template: template("job")}}
	client := fake.NewClientset(rs, ss, ds, job,
		revision("db-7f9c", "7f9c", "ss-old", ss),
		revision("agent-6d5f", "6d5f", "ds-old", ds))
	tmpl := newTemplates(client)
	for _, tc := range []struct {
		name       string
		apiVersion string
		kind       string
		owner      metav1.Object
		labels     map[string]string
		wantName   string
		wantImage  string
		wantErr    string
	}{
		{"ReplicaSet", "apps/v1", "ReplicaSet", rs, map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "5d4"}, "replicaset.apps/web-5d4", "rs", ""},
		{"ReplicaSet whose template changed since", "apps/v1", "ReplicaSet", rs, map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "0ld"}, "", "", "the template of replicaset.apps/web-5d4 changed since it created the Pod"},
		{"StatefulSet, by the revision's name", "apps/v1", "StatefulSet", ss, map[string]string{appsv1.ControllerRevisionHashLabelKey: "db-7f9c"}, "statefulset.apps/db (revision db-7f9c)", "ss-old", ""},
		{"DaemonSet, by the revision's hash", "apps/v1", "DaemonSet", ds, map[string]string{appsv1.ControllerRevisionHashLabelKey: "6d5f"}, "daemonset.apps/agent (revision agent-6d5f)", "ds-old", ""},
		{"StatefulSet Pod without a revision", "apps/v1", "StatefulSet", ss, nil, "", "", "the Pod has no label controller-revision-hash"},
		{"Job", "batch/v1", "Job", job, nil, "job.batch/once", "job", ""},
		{"a controller of another kind", "v1", "Node", &v1.Node{ObjectMeta: meta("node-1", "node")}, nil, "", "", ""},
		{"a controller that is gone", "apps/v1", "ReplicaSet", &appsv1.ReplicaSet{ObjectMeta: meta("gone", "gone")}, nil, "", "", `replicaset.apps/gone: replicasets.apps "gone" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := webPod()
			pod.Labels = tc.labels
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: tc.apiVersion, Kind: tc.kind, Name: tc.owner.GetName(), UID: tc.owner.GetUID(), Controller: ptr.To(true)}}
			got, err := tmpl.of(context.Background(), pod)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			name, image := "", ""
			if got != nil {
				name, image = got.name, got.spec.Containers[0].Image
			}
			if name != tc.wantName || image != tc.wantImage {
				t.Errorf("template %q with image %q, want %q with %q", name, image, tc.wantName, tc.wantImage)
			}
		})
	}
}

// Terminating and finished Pods are skipped, and say why.
func TestLeaving(t *testing.T) {
	terminating := webPod()
	terminating.DeletionTimestamp = &metav1.Time{}
	failed := webPod()
	failed.Status.Phase = v1.PodFailed
	for pod, want := range map[*v1.Pod]string{webPod(): "", terminating: "terminating", failed: "finished (Failed)"} {
		if got := leaving(pod); got != want {
			t.Errorf("leaving = %q, want %q", got, want)
		}
	}
}
