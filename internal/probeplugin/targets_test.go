package probeplugin

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
		workload runtime.Object
		want     []string
	}{
		{"Deployment, through its ReplicaSets", deployment, []string{"web-1-a", "web-2-a", "web-2-b"}},
		{"ReplicaSet", newRS, []string{"web-2-a", "web-2-b"}},
		{"StatefulSet", statefulSet, []string{"db-0"}},
		{"DaemonSet", daemonSet, []string{"agent-x"}},
		{"Job", job, []string{"once-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := workloadPods(context.Background(), client, tc.workload)
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

	if _, err := workloadPods(context.Background(), client, &v1.Service{}); err == nil {
		t.Error("a Service has no Pods to change, but workloadPods returned no error")
	}
}
