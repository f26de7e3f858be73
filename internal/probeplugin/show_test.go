package probeplugin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"
)

// The table has a line for each container: its state, its probes, which
// differ from the template, the generations, and its last probe event.
func TestShow(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	sidecar := v1.Container{Name: "proxy", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways), StartupProbe: httpGet("/started")}
	spec := webPod().Spec
	spec.InitContainers = []v1.Container{sidecar}
	template := &podTemplate{name: "replicaset.apps/web-1", spec: &spec}

	relaxed := webPod()
	relaxed.Name, relaxed.UID, relaxed.Generation = "web-1-a", "a", 3
	relaxed.Spec.InitContainers = []v1.Container{sidecar}
	relaxed.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 10
	relaxed.Status.ObservedGeneration = 2
	relaxed.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Ready: true, RestartCount: 4, Started: ptr.To(true)}}
	disabled := relaxed.DeepCopy()
	disabled.Name, disabled.UID = "web-1-b", "b"
	disabled.Spec.Containers[0].LivenessProbe = nil
	disabled.Annotations = map[string]string{keptAnnotation: keptLiveness}
	bare := webPod()

	at := func(ago time.Duration) metav1.Time { return metav1.NewTime(now.Add(-ago)) }
	events := []v1.Event{
		{InvolvedObject: v1.ObjectReference{UID: "a", FieldPath: "spec.containers{app}"}, Reason: "Unhealthy", Message: "Liveness probe failed: Get \"http://10.88.0.5:8080/healthz\": context deadline exceeded\nmore", LastTimestamp: at(2 * time.Minute)},
		{InvolvedObject: v1.ObjectReference{UID: "a", FieldPath: "spec.containers{app}"}, Reason: "ContainerProbeChanged", Message: `Liveness probe updated for container "app"`, LastTimestamp: at(30 * time.Second)},
		// Not a probe event; and another container's.
		{InvolvedObject: v1.ObjectReference{UID: "a", FieldPath: "spec.containers{app}"}, Reason: "Pulled", Message: "pulled", LastTimestamp: at(time.Second)},
		{InvolvedObject: v1.ObjectReference{UID: "a", FieldPath: "spec.initContainers{proxy}"}, Reason: "Unhealthy", Message: "Startup probe failed", LastTimestamp: at(5 * time.Minute)},
	}
	var reports []*podProbes
	for _, tc := range []struct {
		pod      *v1.Pod
		template *podTemplate
	}{{relaxed, template}, {disabled, template}, {bare, nil}} {
		kept, err := readKept(tc.pod)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, describePod(tc.pod, "", tc.template, kept, events))
	}
	if got := reports[1].Containers[1].Probes[0].Kept; !cmp.Equal(got, httpGet("/healthz")) {
		t.Errorf("the kept liveness probe is %+v", got)
	}

	var out bytes.Buffer
	if err := printTable(&out, reports, false, now); err != nil {
		t.Fatal(err)
	}
	want := `POD       CONTAINER   READY   RESTARTS   LIVENESS                        READINESS                     STARTUP                         TEMPLATE           GENERATION   LAST PROBE EVENT
web-1-a   proxy       false   0          <none>                          <none>                        http-get http://:8080/started   same               3/2          5m ago Unhealthy: Startup probe failed
web-1-a   app         true    4          http-get http://:8080/healthz   http-get http://:8080/ready   <none>                          differs:liveness   3/2          30s ago ContainerProbeChanged: Liveness probe updated for container "app"
web-1-b   proxy       false   0          <none>                          <none>                        http-get http://:8080/started   same               3/2          <none>
web-1-b   app         true    4          <disabled>                      http-get http://:8080/ready   <none>                          differs:liveness   3/2          <none>
web       app         false   0          http-get http://:8080/healthz   http-get http://:8080/ready   <none>                          -                  1/0          <none>
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}

	out.Reset()
	if err := printTable(&out, reports[2:], true, now); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3") {
		t.Errorf("-o wide does not show the probe's timing:\n%s", out.String())
	}

	list := probesList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: reports[:2]}
	for _, tc := range []struct {
		output string
		want   []string
	}{{
		output: "yaml",
		want: []string{
			"apiVersion: v1\nitems:\n- apiVersion: kubectl-probe.x-k8s.io/v1alpha1\n  containers:",
			"  kind: PodProbes\n  metadata:\n    generation: 3\n    name: web-1-a\n",
			"  observedGeneration: 2\n  template: replicaset.apps/web-1\n",
			"  - lastProbeEvent:\n      message: Liveness probe updated for container \"app\"\n      reason: ContainerProbeChanged\n",
			"kind: List\n",
		},
	}, {
		output: "json",
		want:   []string{`"kind": "List"`, `"name": "web-1-b"`, `"template": "differs"`},
	}, {
		output: `jsonpath={range .items[*]}{.metadata.name} {.containers[1].probes[0].template}{"\n"}{end}`,
		want:   []string{"web-1-a differs\nweb-1-b differs\n"},
	}, {
		output: "custom-columns=POD:.metadata.name,TIMEOUT:.containers[1].probes[0].probe.timeoutSeconds",
		want:   []string{"POD       TIMEOUT\nweb-1-a   10\nweb-1-b   <none>\n"},
	}, {
		output: "go-template={{range .items}}{{.metadata.name}},{{end}}",
		want:   []string{"web-1-a,web-1-b,"},
	}} {
		t.Run(tc.output, func(t *testing.T) {
			o := newShowOptions(genericiooptions.NewTestIOStreamsDiscard())
			o.output = tc.output
			if err := o.toPrinter(); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := printAs(o.printer, &out, list); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("-o %s lacks %q:\n%s", tc.output, want, out.String())
				}
			}
		})
	}
}

// show -o name prints the Pods, for other kubectl commands; a format that
// show does not know is refused, and the formats it knows are named.
func TestShowOutputFormats(t *testing.T) {
	o := newShowOptions(genericiooptions.NewTestIOStreamsDiscard())
	o.output = "name"
	if err := o.toPrinter(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := o.printer.PrintObj(webPod(), &out); err != nil || out.String() != "pod/web\n" {
		t.Errorf("-o name printed %q, %v; want pod/web", out.String(), err)
	}
	o = newShowOptions(genericiooptions.NewTestIOStreamsDiscard())
	o.output = "table"
	want := "-o table: give one of custom-columns, custom-columns-file, go-template, go-template-file, json, jsonpath, jsonpath-as-json, jsonpath-file, kyaml, name, template, templatefile, wide, yaml, or leave it out for a table"
	if err := o.toPrinter(); err == nil || err.Error() != want {
		t.Errorf("-o table: %v, want %q", err, want)
	}
}

// The example of show's help that prints the probes that differ from the
// template, as jsonpath, works on show's List: each Pod, with the types of
// its probes that differ, in any of its containers.
func TestShowExampleJSONPath(t *testing.T) {
	root := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0")
	show, _, err := root.Find([]string{"show"})
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(show.Example, "-o jsonpath='")
	if !ok {
		t.Fatalf("show's help has no jsonpath example:\n%s", show.Example)
	}
	jsonpath, _, _ := strings.Cut(example, "'")

	spec := webPod().Spec
	spec.InitContainers = []v1.Container{{Name: "proxy", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways), StartupProbe: httpGet("/started")}}
	template := &podTemplate{name: "replicaset.apps/web-1", spec: &spec}
	relaxed, same := webPod(), webPod()
	relaxed.Name, same.Name = "web-1-a", "web-1-b"
	relaxed.Spec, same.Spec = *spec.DeepCopy(), *spec.DeepCopy()
	relaxed.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 10
	relaxed.Spec.Containers[0].ReadinessProbe = nil
	list := probesList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, pod := range []*v1.Pod{relaxed, same} {
		list.Items = append(list.Items, describePod(pod, "", template, nil, nil))
	}

	o := newShowOptions(genericiooptions.NewTestIOStreamsDiscard())
	o.output = "jsonpath=" + jsonpath
	if err := o.toPrinter(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printAs(o.printer, &out, list); err != nil {
		t.Fatalf("-o jsonpath='%s': %v", jsonpath, err)
	}
	if want := "web-1-a liveness readiness\nweb-1-b \n"; out.String() != want {
		t.Errorf("-o jsonpath='%s' printed %q, want %q", jsonpath, out.String(), want)
	}
}

// A Pod whose kept probes cannot be read, as an annotation that a newer
// kubectl probe wrote, is warned of, and shown with the others: its
// probes are still there to show.
func TestShowWarnsOfKeptProbesItCannotRead(t *testing.T) {
	pods := namedPods("a", "b")
	pods[0].Annotations = map[string]string{keptAnnotation: `{"version":"v2","containers":{}}`}
	c := newCluster(pods...)
	owners, _ := newTestOwners(t)
	var out, errOut bytes.Buffer
	o := newShowOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
	o.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: owners}
	o.args = []string{"a", "b"}
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("show: %v\n%s", err, &errOut)
	}
	if want := `warning: pod/a: cannot read the probes that kubectl probe disable kept: annotation kubectl-probe.x-k8s.io/disabled has version "v2", which this kubectl probe does not know: a newer kubectl probe wrote it; a probe that it removed shows as <none>` + "\n"; errOut.String() != want {
		t.Errorf("printed on stderr\n%s\nwant\n%s", &errOut, want)
	}
	for _, pod := range []string{"a", "b"} {
		if !strings.Contains(out.String(), "\n"+pod+" ") {
			t.Errorf("printed\n%s\nwant a line of pod/%s", &out, pod)
		}
	}
}

// show -c leaves out, after a warning, a Pod without the container, as a
// rollout that adds a sidecar leaves the old Pods without it, and shows the
// others, in each output; it is an error only when no Pod has it.
func TestShowLeavesOutPodsWithoutTheContainer(t *testing.T) {
	for _, tc := range []struct {
		output, want string
	}{
		{output: "", want: "\na "}, // the table
		{output: "json", want: `"name": "a"`},
		{output: "name", want: "pod/a\n"},
	} {
		t.Run("-o="+tc.output, func(t *testing.T) {
			pods := namedPods("a", "b")
			pods[0].Spec.Containers = append(pods[0].Spec.Containers, v1.Container{Name: "proxy"})
			c := newCluster(pods...)
			owners, _ := newTestOwners(t)
			var out, errOut bytes.Buffer
			o := newShowOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
			o.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: owners}
			o.args, o.container, o.output = []string{"a", "b"}, "proxy", tc.output
			if err := o.toPrinter(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(context.Background()); err != nil {
				t.Fatalf("show: %v\n%s", err, &errOut)
			}
			if want := `warning: pod/b: has no container "proxy"; its containers with probes are: app; it is left out` + "\n"; errOut.String() != want {
				t.Errorf("printed on stderr\n%s\nwant\n%s", &errOut, want)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("printed\n%s\nwant pod/a (%q)", &out, tc.want)
			}
			if strings.Contains(out.String(), "\nb ") || strings.Contains(out.String(), `"b"`) || strings.Contains(out.String(), "pod/b") {
				t.Errorf("printed\n%s\nwant no pod/b", &out)
			}
		})
	}

	t.Run("no Pod has it", func(t *testing.T) {
		c := newCluster(namedPods("a", "b")...)
		owners, _ := newTestOwners(t)
		var out, errOut bytes.Buffer
		o := newShowOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
		o.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: owners}
		o.args, o.container = []string{"a", "b"}, "proxy"
		want := `pod/a: has no container "proxy"; its containers with probes are: app` + "\n" +
			`pod/b: has no container "proxy"; its containers with probes are: app`
		if err := o.Run(context.Background()); err == nil || err.Error() != want {
			t.Errorf("show: %v, want\n%s", err, want)
		}
		if out.Len()+errOut.Len() != 0 {
			t.Errorf("printed\n%s%s\nwant only the error", &out, &errOut)
		}
	})
}
