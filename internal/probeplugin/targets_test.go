package probeplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/clientcmd"
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

// asUnstructured returns a typed object of the API as the dynamic client
// reads it.
func asUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	kinds, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(kinds[0])
	return u
}

// rolloutKind is a custom kind of workload: Argo's Rollout, which controls
// its Pods through ReplicaSets as a Deployment does.
var rolloutKind = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout"}

// newTestOwners returns an owners whose dynamic client holds the objects,
// typed ones of the API and Rollouts, and a client whose Pods are the
// Pods among them.
func newTestOwners(t *testing.T, objects ...runtime.Object) (*owners, *fake.Clientset) {
	t.Helper()
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, gvk := range []schema.GroupVersionKind{
		appsv1.SchemeGroupVersion.WithKind("Deployment"), appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
		appsv1.SchemeGroupVersion.WithKind("StatefulSet"), appsv1.SchemeGroupVersion.WithKind("DaemonSet"),
		batchv1.SchemeGroupVersion.WithKind("Job"), batchv1.SchemeGroupVersion.WithKind("CronJob"), rolloutKind,
	} {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	var dynamicObjects, pods []runtime.Object
	for _, obj := range objects {
		if _, ok := obj.(*v1.Pod); ok {
			pods = append(pods, obj)
			continue
		}
		if _, ok := obj.(*unstructured.Unstructured); !ok {
			obj = asUnstructured(t, obj)
		}
		dynamicObjects = append(dynamicObjects, obj)
	}
	dynamicClient := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		rolloutKind.GroupVersion().WithResource("rollouts"): "RolloutList",
	}, dynamicObjects...)
	return newOwners(dynamicClient, mapper), fake.NewClientset(pods...)
}

// A workload's Pods are those that it controls, through any chain of
// controllers, whatever their kinds: a Deployment's through its
// ReplicaSets, an Argo Rollout's through its own.
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
	rollout := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "canary"}}}}}
	rollout.SetGroupVersionKind(rolloutKind)
	rollout.SetName("canary")
	rollout.SetNamespace("ns")
	rollout.SetUID("ro")
	rolloutRS := &appsv1.ReplicaSet{ObjectMeta: objectMeta("canary-1", "rs-4", nil, rollout, "Rollout")}
	rolloutRS.OwnerReferences[0].APIVersion = rolloutKind.GroupVersion().String()
	// A custom controller without a selector, whose Pods it owns itself.
	bare := &unstructured.Unstructured{}
	bare.SetGroupVersionKind(rolloutKind)
	bare.SetName("bare")
	bare.SetNamespace("ns")
	bare.SetUID("bare")

	owned := func(name string, labels map[string]string, owner metav1.Object, kind string) *v1.Pod {
		pod := ownedPod(name, labels, owner, kind)
		if owner != nil {
			pod.OwnerReferences[0].APIVersion = map[string]string{"Rollout": rolloutKind.GroupVersion().String(), "Job": "batch/v1"}[kind]
			if pod.OwnerReferences[0].APIVersion == "" {
				pod.OwnerReferences[0].APIVersion = "apps/v1"
			}
		}
		return pod
	}
	for _, rs := range []*appsv1.ReplicaSet{oldRS, newRS, otherRS} {
		rs.OwnerReferences[0].APIVersion = "apps/v1"
	}
	o, client := newTestOwners(t,
		deployment, oldRS, newRS, otherDeployment, otherRS, statefulSet, daemonSet, job, rollout, rolloutRS, bare,
		owned("web-2-b", app, newRS, "ReplicaSet"),
		owned("web-2-a", app, newRS, "ReplicaSet"),
		owned("web-1-a", app, oldRS, "ReplicaSet"),
		owned("other-1-a", app, otherRS, "ReplicaSet"),
		owned("db-0", app, statefulSet, "StatefulSet"),
		owned("agent-x", app, daemonSet, "DaemonSet"),
		owned("once-x", app, job, "Job"),
		owned("canary-1-x", map[string]string{"app": "canary"}, rolloutRS, "ReplicaSet"),
		owned("bare-x", nil, bare, "Rollout"),
		// Selected by the selector, but nobody's, or not the workload's.
		owned("orphan", app, nil, ""),
		owned("db-unlabelled", nil, statefulSet, "StatefulSet"),
	)

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
		{"a custom kind, through its ReplicaSet", rollout, []string{"canary-1-x"}},
		{"a custom kind without a selector", bare, []string{"bare-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := tc.workload.(*unstructured.Unstructured)
			if !ok {
				w = asUnstructured(t, tc.workload)
			}
			pods, _, err := o.podsOf(context.Background(), client, w)
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

	// The top controller of a Rollout's Pod, and a controller that is gone.
	chain, err := o.chain(context.Background(), owned("canary-1-y", nil, rolloutRS, "ReplicaSet"))
	if err != nil || len(chain) != 2 || nameOf(chain[1]) != "rollout.argoproj.io/canary" {
		t.Errorf("chain %v, %v; want the ReplicaSet, then rollout.argoproj.io/canary", chain, err)
	}
	gone := &appsv1.ReplicaSet{ObjectMeta: objectMeta("gone", "gone", nil, nil, "")}
	if chain, err := o.chain(context.Background(), owned("orphaned", nil, gone, "ReplicaSet")); err != nil || len(chain) != 0 {
		t.Errorf("chain of a Pod whose ReplicaSet is gone: %v, %v; want none", chain, err)
	}
}

// Each Pod counts once, under its top workload, the one whose limit it
// keeps to, however it was named: a Deployment's Pods through their
// ReplicaSets, old and new, a StatefulSet's, a CronJob's through its Job;
// a Pod without a controller belongs to none, and comes last.
func TestOwnerWorkloads(t *testing.T) {
	app := map[string]string{"app": "web"}
	deployment := &appsv1.Deployment{ObjectMeta: objectMeta("web", "d", app, nil, ""), Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](12)}}
	rs := &appsv1.ReplicaSet{ObjectMeta: objectMeta("web-1", "rs-1", app, deployment, "Deployment")}
	rs.OwnerReferences[0].APIVersion = "apps/v1"
	rs2 := &appsv1.ReplicaSet{ObjectMeta: objectMeta("web-2", "rs-2", app, deployment, "Deployment")}
	rs2.OwnerReferences[0].APIVersion = "apps/v1"
	statefulSet := &appsv1.StatefulSet{ObjectMeta: objectMeta("db", "ss", nil, nil, ""), Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3)}}
	cronJob := &batchv1.CronJob{ObjectMeta: objectMeta("nightly", "cj", nil, nil, "")}
	job := &batchv1.Job{ObjectMeta: objectMeta("nightly-1", "job", nil, cronJob, "CronJob")}
	job.OwnerReferences[0].APIVersion = "batch/v1"
	owned := func(name string, owner metav1.Object, kind string) *v1.Pod {
		pod := ownedPod(name, app, owner, kind)
		if owner != nil {
			pod.OwnerReferences[0].APIVersion = map[string]string{"Job": "batch/v1"}[kind]
			if pod.OwnerReferences[0].APIVersion == "" {
				pod.OwnerReferences[0].APIVersion = "apps/v1"
			}
		}
		return pod
	}
	o, _ := newTestOwners(t, deployment, rs, rs2, statefulSet, cronJob, job)
	pods := []*v1.Pod{
		owned("web-1-a", rs, "ReplicaSet"), owned("orphan", nil, ""), owned("db-0", statefulSet, "StatefulSet"),
		owned("web-2-a", rs2, "ReplicaSet"), owned("nightly-1-a", job, "Job"), owned("web-1-b", rs, "ReplicaSet"),
	}
	belonging := o.workloadsOf(context.Background(), pods)
	var got []string
	for _, b := range belonging {
		name := "none"
		if b.workload != nil {
			name = nameOf(b.workload)
		}
		for _, pod := range b.pods {
			name += " pod/" + pod.Name
		}
		got = append(got, name)
	}
	want := []string{"deployment.apps/web pod/web-1-a pod/web-2-a pod/web-1-b", "statefulset.apps/db pod/db-0", "cronjob.batch/nightly pod/nightly-1-a", "none pod/orphan"}
	if !cmp.Equal(got, want) {
		t.Errorf("workloads %v; want %v", got, want)
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
			if expectError(t, err, tc.wantErr) {
				return
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

// apiOf is a RESTClientGetter for resolveTargets whose API server is the
// fake client's Pods, served in the process: no network, so that it works in
// a synctest bubble.
type apiOf struct{ client kubernetes.Interface }

func (a apiOf) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: "https://api.test", Transport: a}, nil
}

func (a apiOf) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return memory.NewMemCacheClient(&fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}}), nil
}

func (a apiOf) ToRESTMapper() (meta.RESTMapper, error) {
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, gvk := range []schema.GroupVersionKind{
		v1.SchemeGroupVersion.WithKind("Pod"),
		appsv1.SchemeGroupVersion.WithKind("Deployment"), appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
	} {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	return mapper, nil
}

func (a apiOf) ToRawKubeConfigLoader() clientcmd.ClientConfig { return nil }

// RoundTrip answers a read of a Pod, a Deployment or a ReplicaSet, or a
// list of Pods, from the client.
func (a apiOf) RoundTrip(req *http.Request) (*http.Response, error) {
	var (
		obj runtime.Object
		err error
	)
	// /api/v1/namespaces/NS/RESOURCE[/NAME], or /apis/GROUP/VERSION/...
	path := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if path[0] == "apis" {
		path = path[1:]
	}
	switch {
	case len(path) == 5 && path[2] == "namespaces" && path[4] == "pods":
		obj, err = a.client.CoreV1().Pods(path[3]).List(req.Context(), metav1.ListOptions{LabelSelector: req.URL.Query().Get("labelSelector")})
	case len(path) == 6 && path[2] == "namespaces" && path[4] == "pods":
		obj, err = a.client.CoreV1().Pods(path[3]).Get(req.Context(), path[5], metav1.GetOptions{})
	case len(path) == 6 && path[2] == "namespaces" && path[4] == "deployments":
		obj, err = a.client.AppsV1().Deployments(path[3]).Get(req.Context(), path[5], metav1.GetOptions{})
	case len(path) == 6 && path[2] == "namespaces" && path[4] == "replicasets":
		obj, err = a.client.AppsV1().ReplicaSets(path[3]).Get(req.Context(), path[5], metav1.GetOptions{})
	default:
		err = apierrors.NewNotFound(schema.GroupResource{}, req.URL.Path)
	}
	code := http.StatusOK
	if status, ok := err.(apierrors.APIStatus); ok {
		s := status.Status()
		obj, code = &s, int(s.Code)
	} else if err != nil {
		return nil, err
	}
	body, err := runtime.Encode(scheme.Codecs.LegacyCodec(v1.SchemeGroupVersion, appsv1.SchemeGroupVersion, metav1.SchemeGroupVersion), obj)
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
}

// A workload that does not say how many Pods it asks for, such as a Job,
// asks for those it has that are not terminating or finished: its done
// Pods would hold the run's floor out of reach.
func TestCountWorkloadWithoutReplicas(t *testing.T) {
	app := map[string]string{"app": "batch"}
	job := &batchv1.Job{ObjectMeta: objectMeta("batch", "job", nil, nil, ""), Spec: batchv1.JobSpec{Selector: &metav1.LabelSelector{MatchLabels: app}}}
	pod := func(name string, phase v1.PodPhase) *v1.Pod {
		p := ownedPod(name, app, job, "Job")
		p.OwnerReferences[0].APIVersion = "batch/v1"
		p.Status.Phase = phase
		return p
	}
	done := pod("batch-done", v1.PodSucceeded)
	failed := pod("batch-failed", v1.PodFailed)
	terminating := pod("batch-terminating", v1.PodRunning)
	terminating.DeletionTimestamp = ptr.To(metav1.Now())
	o, client := newTestOwners(t, job, pod("batch-a", v1.PodRunning), pod("batch-b", v1.PodRunning), done, failed, terminating)
	pods, _, err := o.podsOf(context.Background(), client, asUnstructured(t, job))
	if err != nil {
		t.Fatal(err)
	}
	if f := newWorkloadFloor(asUnstructured(t, job), workloadPods{pods: pods}).floor; f.of != 2 || len(f.pods) != 2 {
		t.Errorf("%d Pods counted of %d replicas, want 2 of 2: the Job's Pods that are neither terminating nor finished", len(f.pods), f.of)
	}
}

// A CronJob, which has no selector, controls the Pods of its Jobs: podsOf
// lists the namespace's Jobs, keeps those that the CronJob controls, and
// lists each one's Pods by its selector; it lists no other Pod, and so
// reads no controller of another Pod, which may not be readable: here a
// stray Pod's ReplicaSet, which the user may not read.
func TestCronJobPodsListsOnlyItsJobs(t *testing.T) {
	cronJob := &batchv1.CronJob{ObjectMeta: objectMeta("nightly", "cj", nil, nil, "")}
	other := &batchv1.CronJob{ObjectMeta: objectMeta("hourly", "cj-2", nil, nil, "")}
	job := func(name, uid string, owner metav1.Object) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: objectMeta(name, uid, nil, owner, "CronJob"), Spec: batchv1.JobSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: uid}},
		}}
		j.OwnerReferences[0].APIVersion = "batch/v1"
		return j
	}
	mine, theirs := job("nightly-1", "job-1", cronJob), job("hourly-1", "job-2", other)
	pod := func(name string, j *batchv1.Job) *v1.Pod {
		p := ownedPod(name, map[string]string{batchv1.ControllerUidLabel: string(j.UID)}, j, "Job")
		p.OwnerReferences[0].APIVersion = "batch/v1"
		return p
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: objectMeta("stray-1", "rs", nil, nil, "")}
	stray := ownedPod("stray", nil, rs, "ReplicaSet")
	stray.OwnerReferences[0].APIVersion = "apps/v1"
	o, client := newTestOwners(t, cronJob, other, rs, pod("nightly-1-b", mine), pod("nightly-1-a", mine), pod("hourly-1-a", theirs), stray)
	o.dynamic.(*dynamicfake.FakeDynamicClient).PrependReactor("get", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "stray-1", errors.New("not yours"))
	})
	for _, j := range []*batchv1.Job{mine, theirs} {
		if err := client.Tracker().Add(j); err != nil {
			t.Fatal(err)
		}
	}
	pods, unread, err := o.podsOf(context.Background(), client, asUnstructured(t, cronJob))
	var got []string
	for _, p := range pods {
		got = append(got, p.Name)
	}
	if err != nil || unread != nil || !cmp.Equal(got, []string{"nightly-1-a", "nightly-1-b"}) {
		t.Errorf("Pods %v, %v, %v; want nightly-1-a and nightly-1-b", got, unread, err)
	}
	for _, a := range client.Actions() {
		if list, ok := a.(k8stesting.ListActionImpl); ok && a.GetResource().Resource == "pods" && list.ListOptions.LabelSelector == "" {
			t.Errorf("listed every Pod of the namespace")
		}
	}
}

// A workload of a kind that is not built in, as an Argo Rollout, may keep a
// limit that kubectl probe cannot read: its limit is not known, and its Pods
// change one at a time, with a warning, unlike a built-in kind without a
// limit (a ReplicaSet of its own), whose Pods keep to the default; unless
// --max-in-flight says how many may change at once, which a budget still
// lowers.
func TestCustomKindLimitUnknown(t *testing.T) {
	rollout := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(8)}}}
	rollout.SetGroupVersionKind(rolloutKind)
	rollout.SetName("app")
	rollout.SetNamespace("ns")
	rollout.SetUID("ro-app")
	rs := &appsv1.ReplicaSet{ObjectMeta: objectMeta("app-1", "rs-app", nil, rollout, "Rollout")}
	rs.OwnerReferences[0].APIVersion = rolloutKind.GroupVersion().String()
	var pods []*v1.Pod
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		pod := webPod()
		pod.ObjectMeta = objectMeta("app-"+name, "pod-"+name, map[string]string{"app": "app"}, rs, "ReplicaSet")
		pod.OwnerReferences[0].APIVersion = "apps/v1"
		pods = append(pods, pod)
	}
	budget := floor{budget: true, limit: limit{n: 2, why: "poddisruptionbudget.policy/app: maxUnavailable 2 of 8 Pods"}, pods: map[types.UID]bool{}}
	for _, pod := range pods {
		budget.pods[pod.UID] = true
	}
	const unknown = "its limit is not known (its kind is not built in), so one Pod at a time"
	for _, tc := range []struct {
		name    string
		flag    string
		budgets []floor
		want    limit
	}{
		{name: "no flag", want: limit{n: 1, why: unknown}},
		{name: "--max-in-flight=3", flag: "3", want: limit{n: 3, why: "--max-in-flight=3"}},
		{name: "--max-in-flight=50%", flag: "50%", want: limit{n: 4, why: "--max-in-flight=50% of 8 replicas"}},
		{name: "--max-in-flight=3, a budget of 2", flag: "3", budgets: []floor{budget}, want: limit{n: 2, why: budget.limit.why + ", fewer than --max-in-flight=3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := newTestOwners(t, rollout, rs)
			c := newCluster(pods...)
			tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", nil, "app=app")
			if err != nil {
				t.Fatal(err)
			}
			largest, err := tg.chooseLimits(tc.flag, tc.budgets)
			if err != nil {
				t.Fatal(err)
			}
			if len(tg.floors) != 1 || tg.floors[0].floor.name != "rollout.argoproj.io/app" || tg.floors[0].floor.limit != tc.want || largest != tc.want.n {
				t.Errorf("floors %+v, largest %d; want rollout.argoproj.io/app's, limit %v", tg.floors, largest, tc.want)
			}
		})
	}

	// A run says so, and how --max-in-flight sets it.
	for flag, want := range map[string]string{
		"":  "warning: rollout.argoproj.io/app: its kind is not built in; its limit is not known, so its Pods change one at a time, unless --max-in-flight says how many may\n",
		"3": "warning: rollout.argoproj.io/app: its kind is not built in; its limit is not known, so --max-in-flight=3 says how many of its Pods may change at once\n",
	} {
		o, _ := newTestOwners(t, rollout, rs)
		c := newCluster(pods...)
		opts, errOut := runOptions(c, o)
		opts.selector, opts.maxInFlight = "app=app", flag
		if err := opts.run(context.Background(), moveLiveness); err != nil {
			t.Errorf("--max-in-flight=%q: run: %v\n%s", flag, err, errOut)
		}
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("--max-in-flight=%q: printed\n%s\nwant in it\n%s", flag, errOut, want)
		}
	}

	// A ReplicaSet of its own, a built-in kind without a limit, keeps to
	// the default.
	own := &appsv1.ReplicaSet{ObjectMeta: objectMeta("own", "rs-own", nil, nil, "")}
	mine := webPod()
	mine.ObjectMeta = objectMeta("own-a", "pod-own-a", map[string]string{"app": "own"}, own, "ReplicaSet")
	mine.OwnerReferences[0].APIVersion = "apps/v1"
	o, _ := newTestOwners(t, own)
	c := newCluster(mine)
	tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", nil, "app=own")
	if err != nil {
		t.Fatal(err)
	}
	if largest, err := tg.chooseLimits("", nil); err != nil || largest != defaultMaxInFlight || tg.floors[0].unknown != "" {
		t.Errorf("a ReplicaSet of its own: largest %d, %v, floors %+v; want the default, %d", largest, err, tg.floors, defaultMaxInFlight)
	}
}

// A Pod whose controller, or one of its controllers, cannot be read, as a
// Deployment that the user may not read, belongs to a workload whose limit
// is not known: its Pods change one at a time, whatever --max-in-flight
// says, and the run says why, rather than fail, or keep to no limit.
func TestUnreadableOwnerLimitUnknown(t *testing.T) {
	deployment, rs, pods := deploymentOf("web", 3, intstr.FromInt32(3), []string{"a", "b", "c"})
	o, _ := newTestOwners(t, deployment, rs)
	o.dynamic.(*dynamicfake.FakeDynamicClient).PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("not yours"))
	})
	c := newCluster(pods...)
	tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", nil, "app=web")
	if err != nil {
		t.Fatal(err)
	}
	largest, err := tg.chooseLimits("", nil)
	if err != nil {
		t.Fatal(err)
	}
	why := `cannot read it: deployments.apps "web" is forbidden: not yours`
	if len(tg.floors) != 1 || tg.floors[0].floor.name != "deployment.apps/web" || tg.floors[0].unknown != why || largest != 1 || len(tg.floors[0].floor.pods) != 3 {
		t.Fatalf("floors %+v, largest %d; want deployment.apps/web's, of its 3 Pods, its limit not known: %s", tg.floors, largest, why)
	}
	if want := "its limit is not known (" + why + "), so one Pod at a time"; tg.floors[0].floor.limit.why != want {
		t.Errorf("limit %q, want %q", tg.floors[0].floor.limit.why, want)
	}
	// Nor does --max-in-flight raise it: the floor counts the run's Pods
	// alone, not the rest of the workload.
	if largest, err := tg.chooseLimits("3", nil); err != nil || largest != 1 {
		t.Errorf("with --max-in-flight=3: largest %d, %v; want 1", largest, err)
	}
	// The census reads its Pods again, by name.
	all, floors, largest, err := tg.current(context.Background(), c, o, "3", nil)
	if err != nil || len(all) != 3 || len(floors) != 1 || floors[0].ready != 3 || largest != 1 {
		t.Errorf("census: %d Pods, floors %+v, largest %d, %v; want the 3 Pods, Ready, in the workload's floor, whose limit is 1", len(all), floors, largest, err)
	}

	// A run says so, and goes on.
	opts, errOut := runOptions(c, o)
	opts.selector = "app=web"
	if err := opts.run(context.Background(), moveLiveness); err != nil {
		t.Errorf("run: %v\n%s", err, errOut)
	}
	if _, patches := c.sent(); !cmp.Equal(sortedCopy(patches), []string{"web-a", "web-b", "web-c"}) {
		t.Errorf("patched %v, want the 3 Pods\n%s", patches, errOut)
	}
	for _, want := range []string{
		"warning: deployment.apps/web: " + why + "; its limit is not known, so its Pods change one at a time\n",
		"batches: one Pod at a time: its limit is not known (" + why + "), so one Pod at a time\n",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
		}
	}
}

// The census reads each workload again, its replicas and its limit as
// they are now; one that it cannot read again keeps them as last read, as
// does one that is gone, and the census goes on. Here deployment.apps/web
// asks for 4 replicas, of which 1 may be out of readiness, and then for 8,
// of which 2 may be, before the census reads it: the user may then not
// read it, and then it is gone.
func TestCensusReadsTheWorkloadsAgain(t *testing.T) {
	deployment, rs, pods := deploymentOf("web", 4, intstr.FromString("25%"), []string{"a", "b", "c", "d"})
	o, _ := newTestOwners(t, deployment, rs)
	c := newCluster(pods...)
	tg, err := resolveTargets(context.Background(), apiOf{c}, c, o, "ns", []string{"web-a"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if largest, err := tg.chooseLimits("", nil); err != nil || largest != 1 {
		t.Fatalf("largest %d, %v; want 1", largest, err)
	}
	if err := scaleTo(context.Background(), o, "web", 8); err != nil {
		t.Fatal(err)
	}
	var answer error
	o.dynamic.(*dynamicfake.FakeDynamicClient).PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		return answer != nil, nil, answer
	})
	for _, tc := range []struct {
		name   string
		answer error
	}{
		{"read again", nil},
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("not yours"))},
		{"gone", apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web")},
	} {
		answer = tc.answer
		_, floors, largest, err := tg.current(context.Background(), c, o, "", nil)
		want := limit{n: 2, why: "maxUnavailable 25% of deployment.apps/web's 8 replicas"}
		if err != nil || len(floors) != 1 || floors[0].of != 8 || floors[0].limit != want || largest != 2 {
			t.Errorf("%s: floors %+v, largest %d, %v; want deployment.apps/web's, of 8 replicas, limit %v", tc.name, floors, largest, err, want)
		}
	}
}
