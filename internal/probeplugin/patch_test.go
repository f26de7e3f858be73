package probeplugin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func httpGet(path string) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:   v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8080), Scheme: v1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
	}
}

// webPod is a Pod at resourceVersion 7 whose container app has a liveness
// and a readiness probe and no startup probe.
func webPod() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: "7", Generation: 1},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name:           "app",
			LivenessProbe:  httpGet("/healthz"),
			ReadinessProbe: httpGet("/ready"),
		}}},
	}
}

// applyChange applies c to a copy of pod and returns the copy.
func applyChange(t *testing.T, pod *v1.Pod, c change) (*v1.Pod, error) {
	t.Helper()
	modified := pod.DeepCopy()
	container, err := chooseContainer(modified, "")
	if err != nil {
		t.Fatal(err)
	}
	return modified, c.apply(modified, container)
}

// jsonEqual compares two JSON documents as values.
func jsonEqual(t *testing.T, want string, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation %s: %v", want, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("bad patch %s: %v", got, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("patch %s (-want +got):\n%s", got, diff)
	}
}

const order = `"$setElementOrder/containers":[{"name":"app"}]`

// keptLiveness is the annotation that disabling the liveness probe of
// webPod writes.
var keptLiveness = func() string {
	b, _ := json.Marshal(keptProbes{"app": {liveness: httpGet("/healthz")}})
	return string(b)
}()

func TestPatches(t *testing.T) {
	disabled := webPod()
	disabled.Spec.Containers[0].LivenessProbe = nil
	disabled.Annotations = map[string]string{keptAnnotation: keptLiveness}
	bothKept, err := json.Marshal(keptProbes{"app": {liveness: httpGet("/healthz"), readiness: httpGet("/ready")}})
	if err != nil {
		t.Fatal(err)
	}
	disabledBoth := webPod()
	disabledBoth.Spec.Containers[0].LivenessProbe = nil
	disabledBoth.Spec.Containers[0].ReadinessProbe = nil
	disabledBoth.Annotations = map[string]string{keptAnnotation: string(bothKept), "team": "web"}
	setAgain := disabled.DeepCopy()
	setAgain.Spec.Containers[0].LivenessProbe = httpGet("/livez")

	for _, tc := range []struct {
		name    string
		pod     *v1.Pod
		change  change
		want    string // the patch; empty for none
		wantErr string
	}{{
		name:   "a field of a probe",
		pod:    webPod(),
		change: setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](10), failureThreshold: ptr.To[int32](6)}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":10,"failureThreshold":6}}]}}`,
	}, {
		name:   "the same field of two probes",
		pod:    webPod(),
		change: setChange{types: []probeType{liveness, readiness}, settings: settings{periodSeconds: ptr.To[int32](5)}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":{"periodSeconds":5},"readinessProbe":{"periodSeconds":5}}]}}`,
	}, {
		name:   "a new handler replaces the old one",
		pod:    webPod(),
		change: setChange{types: []probeType{liveness}, settings: settings{handler: &v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":{"exec":{"command":["true"]},"httpGet":null}}]}}`,
	}, {
		name:   "a handler of the same kind is replaced as a whole",
		pod:    webPod(),
		change: setChange{types: []probeType{readiness}, settings: settings{handler: &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http")}}}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/readyz","port":"http","scheme":null}}}]}}`,
	}, {
		name:   "an absent probe is added",
		pod:    webPod(),
		change: setChange{types: []probeType{startup}, settings: settings{handler: &v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000}}, failureThreshold: ptr.To[int32](30)}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","startupProbe":{"grpc":{"port":9000,"service":null},"failureThreshold":30}}]}}`,
	}, {
		name:    "an absent probe needs a handler",
		pod:     webPod(),
		change:  setChange{types: []probeType{startup}, settings: settings{timeoutSeconds: ptr.To[int32](5)}},
		wantErr: `container "app" has no startup probe; to add one, give its handler`,
	}, {
		name:   "values the probe has already",
		pod:    webPod(),
		change: setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](1)}},
	}, {
		name:   "remove",
		pod:    webPod(),
		change: removeChange{types: []probeType{readiness}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":null}]}}`,
	}, {
		name:   "remove an absent probe",
		pod:    webPod(),
		change: removeChange{types: []probeType{startup}},
	}, {
		name:   "disable keeps the probe in the annotation in the same patch",
		pod:    webPod(),
		change: disableChange{types: []probeType{liveness}},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":` + strconvQuote(keptLiveness) + `}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":null}]}}`,
	}, {
		name:   "disable a disabled probe",
		pod:    disabled,
		change: disableChange{types: []probeType{liveness}},
	}, {
		name:   "disable a second probe adds it to the annotation",
		pod:    disabled,
		change: disableChange{types: []probeType{readiness}},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":` + strconvQuote(string(bothKept)) + `}},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":null}]}}`,
	}, {
		name:    "disable an absent probe",
		pod:     webPod(),
		change:  disableChange{types: []probeType{startup}},
		wantErr: `container "app" has no startup probe to disable`,
	}, {
		name:   "restore puts the probe back and drops the annotation in the same patch",
		pod:    disabled,
		change: restoreChange{types: []probeType{liveness}},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":null}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":` + mustJSON(httpGet("/healthz")) + `}]}}`,
	}, {
		name:   "restore one of two kept probes keeps the other",
		pod:    disabledBoth,
		change: restoreChange{types: []probeType{readiness}},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":` + strconvQuote(keptLiveness) + `}},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":` + mustJSON(httpGet("/ready")) + `}]}}`,
	}, {
		name:    "restore with nothing kept",
		pod:     webPod(),
		change:  restoreChange{types: []probeType{liveness}},
		wantErr: `container "app" has no liveness probe kept by kubectl probe disable`,
	}, {
		name:    "restore over a probe set after disable",
		pod:     setAgain,
		change:  restoreChange{types: []probeType{liveness}},
		wantErr: `container "app" has a liveness probe again, set after kubectl probe disable kept the old one; --force replaces it`,
	}, {
		name:   "restore --force over a probe set after disable",
		pod:    setAgain,
		change: restoreChange{types: []probeType{liveness}, force: true},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":null}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":{"httpGet":{"path":"/healthz"}}}]}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			modified, err := applyChange(t, tc.pod, tc.change)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			patch, err := podPatch(tc.pod, modified)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if patch != nil {
					t.Fatalf("want no patch, got %s", patch)
				}
				return
			}
			jsonEqual(t, tc.want, patch)
		})
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A conflict makes the patcher read the Pod again and apply its change to
// what it read: the concurrent edit stays, and the second patch is
// conditioned on the new resourceVersion.
func TestPatcherRetriesOnConflict(t *testing.T) {
	pod := webPod()
	client := fake.NewClientset(pod)
	var patches []string
	client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patches = append(patches, string(action.(k8stesting.PatchAction).GetPatch()))
		if len(patches) > 1 {
			return false, nil, nil
		}
		// Someone else changes the readiness probe first.
		concurrent := webPod()
		concurrent.ResourceVersion = "8"
		concurrent.Spec.Containers[0].ReadinessProbe = httpGet("/readyz")
		if err := client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), concurrent, "ns"); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "web", nil)
	})
	p := &patcher{client: client, change: setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](10)}}, dryRun: dryRunNone}
	stored, didChange, err := p.apply(context.Background(), pod)
	if err != nil {
		t.Fatal(err)
	}
	if !didChange {
		t.Error("apply says nothing changed")
	}
	if len(patches) != 2 {
		t.Fatalf("sent %d patches, want 2: %v", len(patches), patches)
	}
	jsonEqual(t, `{"metadata":{"resourceVersion":"8"},"spec":{`+order+`,"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":10}}]}}`, []byte(patches[1]))
	c := stored.Spec.Containers[0]
	if c.LivenessProbe.TimeoutSeconds != 10 || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("want the new liveness timeout and the concurrent readiness path, got liveness %+v, readiness %+v", c.LivenessProbe, c.ReadinessProbe)
	}
}

// A change that is not valid any more on the Pod as read again fails,
// rather than overwriting what the other writer did.
func TestPatcherRecomputesRestoreAfterConflict(t *testing.T) {
	pod := webPod()
	pod.Spec.Containers[0].LivenessProbe = nil
	pod.Annotations = map[string]string{keptAnnotation: keptLiveness}
	client := fake.NewClientset(pod)
	client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		concurrent := pod.DeepCopy()
		concurrent.ResourceVersion = "8"
		concurrent.Spec.Containers[0].LivenessProbe = httpGet("/livez")
		if err := client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), concurrent, "ns"); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "web", nil)
	})
	p := &patcher{client: client, change: restoreChange{types: []probeType{liveness}}, dryRun: dryRunNone}
	_, _, err := p.apply(context.Background(), pod)
	if err == nil || !strings.Contains(err.Error(), "has a liveness probe again") {
		t.Fatalf("err = %v, want the refusal to replace the probe set meanwhile", err)
	}
	got, err := client.CoreV1().Pods("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Containers[0].LivenessProbe.HTTPGet.Path != "/livez" {
		t.Errorf("the concurrent probe was overwritten: %+v", got.Spec.Containers[0].LivenessProbe)
	}
}

func TestPatcherDryRun(t *testing.T) {
	for _, mode := range []dryRun{dryRunClient, dryRunServer} {
		t.Run(string(mode), func(t *testing.T) {
			pod := webPod()
			client := fake.NewClientset(pod)
			var options []metav1.PatchOptions
			client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				options = append(options, action.(k8stesting.PatchActionImpl).PatchOptions)
				// The fake does not know dry runs: answer as the server would.
				return true, pod, nil
			})
			p := &patcher{client: client, change: removeChange{types: []probeType{liveness}}, dryRun: mode}
			result, didChange, err := p.apply(context.Background(), pod)
			if err != nil || !didChange {
				t.Fatalf("apply = %v, %v", didChange, err)
			}
			switch mode {
			case dryRunClient:
				if len(options) != 0 {
					t.Errorf("a client dry run sent %d patches", len(options))
				}
				if result.Spec.Containers[0].LivenessProbe != nil {
					t.Error("a client dry run returned the Pod without the change")
				}
			case dryRunServer:
				if len(options) != 1 || !cmp.Equal(options[0].DryRun, []string{metav1.DryRunAll}) {
					t.Errorf("a server dry run sent %+v, want one patch with dryRun=All", options)
				}
			}
		})
	}
}
