package probeplugin

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// The table marks the probes that differ from the controller's template,
// and shows a disabled probe as such.
func TestShow(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "ns", UID: "rs"}}
	rs.Spec.Template.Spec = webPod().Spec
	sidecar := v1.Container{Name: "proxy", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways), StartupProbe: httpGet("/started")}
	rs.Spec.Template.Spec.InitContainers = []v1.Container{sidecar}

	relaxed := webPod()
	relaxed.Name = "web-1-a"
	relaxed.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", UID: "rs", Controller: ptr.To(true)}}
	relaxed.Spec.InitContainers = []v1.Container{sidecar}
	relaxed.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 10
	disabled := relaxed.DeepCopy()
	disabled.Name = "web-1-b"
	disabled.Spec.Containers[0].LivenessProbe = nil
	disabled.Annotations = map[string]string{keptAnnotation: keptLiveness}
	bare := webPod()

	client := fake.NewClientset(rs)
	gets := 0
	client.PrependReactor("get", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets++
		return false, nil, nil
	})
	tmpl := &templates{client: client, cache: map[string]templateResult{}}
	var reports []*podReport
	for _, pod := range []*v1.Pod{relaxed, disabled, bare} {
		name, spec, err := tmpl.of(context.Background(), pod)
		if err != nil {
			t.Fatal(err)
		}
		r, err := report(pod, "", name, spec)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, r)
	}
	if gets != 1 {
		t.Errorf("read the ReplicaSet %d times, want once for both of its Pods", gets)
	}
	if reports[0].Template != "replicaset.apps/web-1" || reports[2].Template != "" {
		t.Errorf("templates %q and %q, want replicaset.apps/web-1 and none", reports[0].Template, reports[2].Template)
	}
	if got := reports[1].Containers[1].Probes[0].Kept; !cmp.Equal(got, httpGet("/healthz")) {
		t.Errorf("the kept liveness probe is %+v", got)
	}

	var out bytes.Buffer
	if err := printTable(&out, reports); err != nil {
		t.Fatal(err)
	}
	want := `POD       CONTAINER   PROBE       HANDLER                         DELAY   PERIOD   TIMEOUT   SUCCESS   FAILURE   TEMPLATE
web-1-a   proxy       liveness    <none>                                                                         same
web-1-a   proxy       readiness   <none>                                                                         same
web-1-a   proxy       startup     http-get http://:8080/started   0s      10s      1s        1         3         same
web-1-a   app         liveness    http-get http://:8080/healthz   0s      10s      10s       1         3         differs
web-1-a   app         readiness   http-get http://:8080/ready     0s      10s      1s        1         3         same
web-1-a   app         startup     <none>                                                                         same
web-1-b   proxy       liveness    <none>                                                                         same
web-1-b   proxy       readiness   <none>                                                                         same
web-1-b   proxy       startup     http-get http://:8080/started   0s      10s      1s        1         3         same
web-1-b   app         liveness    <disabled>                                                                     differs
web-1-b   app         readiness   http-get http://:8080/ready     0s      10s      1s        1         3         same
web-1-b   app         startup     <none>                                                                         same
web       app         liveness    http-get http://:8080/healthz   0s      10s      1s        1         3         -
web       app         readiness   http-get http://:8080/ready     0s      10s      1s        1         3         -
web       app         startup     <none>                                                                         -
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// Each kind of controller's Pod template is found, and a Pod whose
// controller has none has no template.
func TestTemplates(t *testing.T) {
	spec := func(image string) v1.PodTemplateSpec {
		return v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: image}}}}
	}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: "ns"} }
	client := fake.NewClientset(
		&appsv1.ReplicaSet{ObjectMeta: meta("rs"), Spec: appsv1.ReplicaSetSpec{Template: spec("rs")}},
		&appsv1.StatefulSet{ObjectMeta: meta("ss"), Spec: appsv1.StatefulSetSpec{Template: spec("ss")}},
		&appsv1.DaemonSet{ObjectMeta: meta("ds"), Spec: appsv1.DaemonSetSpec{Template: spec("ds")}},
		&batchv1.Job{ObjectMeta: meta("job"), Spec: batchv1.JobSpec{Template: spec("job")}},
	)
	tmpl := &templates{client: client, cache: map[string]templateResult{}}
	for _, tc := range []struct {
		kind, name, wantName, wantImage string
	}{
		{"ReplicaSet", "rs", "replicaset.apps/rs", "rs"},
		{"StatefulSet", "ss", "statefulset.apps/ss", "ss"},
		{"DaemonSet", "ds", "daemonset.apps/ds", "ds"},
		{"Job", "job", "job.batch/job", "job"},
		{"Node", "node-1", "", ""},
	} {
		pod := webPod()
		pod.OwnerReferences = []metav1.OwnerReference{{Kind: tc.kind, Name: tc.name, Controller: ptr.To(true)}}
		name, spec, err := tmpl.of(context.Background(), pod)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		image := ""
		if spec != nil {
			image = spec.Containers[0].Image
		}
		if name != tc.wantName || image != tc.wantImage {
			t.Errorf("%s: template %q with image %q, want %q with %q", tc.kind, name, image, tc.wantName, tc.wantImage)
		}
	}
	gone := webPod()
	gone.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "gone", Controller: ptr.To(true)}}
	if _, _, err := tmpl.of(context.Background(), gone); err == nil || err.Error() != `replicaset.apps/gone: replicasets.apps "gone" not found` {
		t.Errorf("a controller that is gone: err = %v", err)
	}
}
