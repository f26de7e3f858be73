package probeplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"
)

// namedPods returns Pods like webPod, with the given names.
func namedPods(names ...string) []*v1.Pod {
	var out []*v1.Pod
	for _, n := range names {
		p := webPod()
		p.Name, p.UID = n, types.UID("uid-"+n)
		out = append(out, p)
	}
	return out
}

// cluster is a fake API server with the Pods, which records the patches
// it gets: dry runs and real ones apart. refuse, when set, answers a
// patch with an error instead.
type cluster struct {
	*fake.Clientset
	mu      sync.Mutex
	dryRuns []string
	patches []string
	refuse  func(name string, dryRun bool) error
}

func newCluster(pods ...*v1.Pod) *cluster {
	var objects []runtime.Object
	for _, p := range pods {
		objects = append(objects, p)
	}
	c := &cluster{Clientset: fake.NewClientset(objects...)}
	c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchActionImpl)
		dryRun := len(patch.PatchOptions.DryRun) > 0
		c.mu.Lock()
		if dryRun {
			c.dryRuns = append(c.dryRuns, patch.Name)
		} else {
			c.patches = append(c.patches, patch.Name)
		}
		refuse := c.refuse
		c.mu.Unlock()
		if refuse != nil {
			if err := refuse(patch.Name, dryRun); err != nil {
				return true, nil, err
			}
		}
		if dryRun {
			// The fake does not know dry runs: answer with the Pod as it
			// would be stored, and store nothing.
			obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), patch.Namespace, patch.Name)
			if err != nil {
				return true, nil, err
			}
			original, err := json.Marshal(obj)
			if err != nil {
				return true, nil, err
			}
			patched, err := strategicpatch.StrategicMergePatch(original, patch.Patch, &v1.Pod{})
			if err != nil {
				return true, nil, err
			}
			pod := &v1.Pod{}
			return true, pod, json.Unmarshal(patched, pod)
		}
		return false, nil, nil
	})
	return c
}

// pods lists the Pods as they are now: a census of a run's Pods.
func (c *cluster) pods(ctx context.Context) ([]*v1.Pod, error) {
	list, err := c.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var pods []*v1.Pod
	for i := range list.Items {
		pods = append(pods, &list.Items[i])
	}
	return pods, nil
}

func (c *cluster) sent() (dryRuns, patches []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.dryRuns), slices.Clone(c.patches)
}

// fakeProber answers tries with the results for each Pod; a Pod without
// one succeeds.
type fakeProber map[string]tried

func (f fakeProber) try(_ context.Context, pod *v1.Pod, _ *v1.Container, _ *v1.Probe) tried {
	if t, ok := f[pod.Name]; ok {
		return t
	}
	return tried{ok: true, answer: "answered 200 OK"}
}

// testRun is the ID of the runs of newRunner, which begin at testRunTime.
const testRun = "20261204-101502-7f3a"

var testRunTime = time.Date(2026, 12, 4, 10, 15, 2, 0, time.UTC)

// newRunner returns a runner of the change, as kubectl probe set runs it,
// one Pod at a time, with --wait=proven, its default, but proving nothing
// unless the test sets prove; and what it prints on standard output and
// error.
func newRunner(c *cluster, ch change) (*runner, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	r := &runner{
		patcher: &patcher{client: c, fieldManager: "kubectl-probe"},
		change:  recorded{change: ch, run: testRun, time: testRunTime},
		wait:    waitProven,
		largest: 1,
		prober:  fakeProber{},
		cmdline: &commandLine{targets: []string{"deployment/web"}, connection: []string{"-n", "ns"}, run: testRun},
		report:  newTestReporter(&out, &errOut, "", "probes set"),
	}
	// The Pods belong to no workload: the largest limit is the one that
	// the test sets.
	r.census = func(ctx context.Context, _ []floor) ([]*v1.Pod, []floor, int, error) {
		pods, err := c.pods(ctx)
		return pods, nil, r.largest, err
	}
	return r, &out, &errOut
}

// newTestReporter returns the reporter of a run whose changes do
// operation, with -o output.
func newTestReporter(out, errOut io.Writer, output, operation string) *reporter {
	flags := genericclioptions.NewPrintFlags(operation)
	flags.OutputFormat = &output
	r, err := newReporter(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut}, flags, cmdutil.DryRunNone, operation, false)
	if err != nil {
		panic(err)
	}
	return r
}

var relax = setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](10)}}

// moveLiveness points the liveness probe at another path: a failure of the
// new probe is its own, not the old probe's.
var moveLiveness = setChange{types: []probeType{liveness}, settings: settings{handler: &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/livez", Port: httpGet("").HTTPGet.Port}}}}

var moveReadiness = setChange{types: []probeType{readiness}, settings: settings{handler: &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/missing", Port: httpGet("").HTTPGet.Port}}}}

// The rollout stops at the first Pod that fails: the Pods after it are not
// sent, and the error says which Pods were done, failed and not started.
func TestRunStopsAtFirstFailure(t *testing.T) {
	c := newCluster(namedPods("a", "b", "c", "d")...)
	c.refuse = func(name string, dryRun bool) error {
		if name == "b" && !dryRun {
			return apierrors.NewInternalError(errors.New("etcd is gone"))
		}
		return nil
	}
	r, out, errOut := newRunner(c, relax)
	err := r.run(context.Background(), &targets{pods: namedPods("a", "b", "c", "d")})
	if exitStatus(err) != exitStopped {
		t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
	}
	want := "error: stopped at the first Pod that failed\ndone (1): pod/a\nfailed (1): pod/b\nnot started, left as they are (2): pod/c pod/d\n" +
		"to put back the 1 Pod that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n"
	if !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, want)
	}
	dryRuns, patches := c.sent()
	slices.Sort(dryRuns)
	if !slices.Equal(dryRuns, []string{"a", "b", "c", "d"}) || !slices.Equal(patches, []string{"a", "b"}) {
		t.Errorf("dry runs %v and patches %v; want a dry run of each Pod, then patches of a and b only", dryRuns, patches)
	}
	if got := out.String(); got != "pod/a probes set\n" {
		t.Errorf("printed %q", got)
	}
	if got := errOut.String(); !strings.Contains(got, "error: pod/b: Internal error occurred: etcd is gone\n") {
		t.Errorf("printed the error as %q", got)
	}
}

// Before any Pod changes, every Pod passes a server dry run: a Pod that
// fails it stops the run before the first change, with one line per cause
// and the Pods it refused, and a hint; Pods that left, and Pods on nodes
// whose kubelet cannot apply probe changes, are skipped.
func TestPrecheckRefusesBeforeAnyChange(t *testing.T) {
	pods := namedPods("a", "b", "c", "d", "e")
	c := newCluster(pods...)
	c.refuse = func(name string, _ bool) error {
		switch name {
		case "b":
			return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, name, errors.New(`pod update requires features MutableContainerProbes which are not available on node "node-1"`))
		case "c", "d":
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, name, field.ErrorList{field.Forbidden(field.NewPath("spec"), "pod updates may not change fields other than `spec.containers[*].image`\n@@ diff")})
		case "e":
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, name, field.ErrorList{field.Forbidden(field.NewPath("spec", "containers").Index(0).Child("livenessProbe"), "probes cannot be changed on a terminating pod")})
		}
		return nil
	}
	r, out, errOut := newRunner(c, relax)
	r.report = newTestReporter(out, errOut, "json", "probes set")
	err := r.run(context.Background(), &targets{pods: pods})
	if exitStatus(err) != 1 {
		t.Errorf("err = %v (exit status %d), want exit status 1: no Pod changed", err, exitStatus(err))
	}
	if _, patches := c.sent(); len(patches) > 0 {
		t.Errorf("patched %v after the pre-check refused Pods", patches)
	}
	want := "error: the pre-check refused 2 of 5 Pods; no Pod was changed:\n" +
		"- pod/c, pod/d: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`\n" +
		"  hint: the API server does not let probes change: turn the MutableContainerProbes feature gate on in every kube-apiserver\n"
	if diff := cmp.Diff(want, errOut.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	var results resultList
	if err := json.Unmarshal(out.Bytes(), &results); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, item := range results.Items {
		got[item.Metadata.Name] = string(item.Result) + ": " + item.Reason
	}
	wantResults := map[string]string{
		"a": "skipped: not changed: the pre-check refused other Pods",
		"b": `skipped: pod update requires features MutableContainerProbes which are not available on node "node-1"; the kubelet of the Pod's node cannot apply probe changes: turn MutableContainerProbes on in that kubelet (or upgrade it), or replace the Pod`,
		"c": "failed: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`",
		"d": "failed: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`",
		"e": "skipped: terminating",
	}
	if diff := cmp.Diff(wantResults, got); diff != "" || results.Kind != "List" || results.APIVersion != "v1" {
		t.Errorf("-o json results (-want +got):\n%s\n%s", diff, out)
	}
}

// A Pod on a node whose kubelet cannot apply probe changes (a cluster whose
// kubelets are half upgraded) is skipped, with the API server's reason, and
// the others change: the run succeeds.
func TestNodeWithoutFeatureSkipped(t *testing.T) {
	pods := namedPods("a", "b")
	c := newCluster(pods...)
	c.refuse = func(name string, _ bool) error {
		if name == "b" {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, name, errors.New(`pod update requires features MutableContainerProbes which are not available on node "node-2"`))
		}
		return nil
	}
	r, out, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: pods}); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out, errOut)
	}
	if _, patches := c.sent(); !slices.Equal(patches, []string{"a"}) {
		t.Errorf("patched %v, want a only", patches)
	}
	if want := `pod/b skipped: pod update requires features MutableContainerProbes which are not available on node "node-2"; `; !strings.Contains(out.String(), want) {
		t.Errorf("printed %q, want it to say %q", out, want)
	}
}

// The new probe is tried against each Pod before any Pod changes; a Pod
// where it fails is refused, unless the check is skipped.
func TestPrecheckTriesNewProbes(t *testing.T) {
	fails := tried{answer: "answered 404 Not Found"}
	c := newCluster(namedPods("a", "b", "c")...)
	r, _, errOut := newRunner(c, moveReadiness)
	r.prober = fakeProber{"a": fails, "b": fails}
	if err := r.run(context.Background(), &targets{pods: namedPods("a", "b", "c")}); exitStatus(err) != 1 {
		t.Errorf("err = %v (exit status %d), want exit status 1: no Pod changed", err, exitStatus(err))
	}
	want := "error: the pre-check refused 2 of 3 Pods; no Pod was changed:\n" +
		`- pod/a, pod/b: the new readiness probe of container "app" fails now: http-get http://:8080/missing: answered 404 Not Found` + "\n" +
		"  hint: --skip-check stores it anyway\n"
	if diff := cmp.Diff(want, errOut.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	if _, patches := c.sent(); len(patches) > 0 {
		t.Errorf("patched %v", patches)
	}

	// --skip-check.
	r, out, errOut := newRunner(c, moveReadiness)
	r.prober = nil
	if err := r.run(context.Background(), &targets{pods: namedPods("a", "b", "c")}); err != nil {
		t.Fatalf("err = %v\n%s", err, errOut)
	}
	if got := out.String(); got != "pod/a probes set\npod/b probes set\npod/c probes set\n" {
		t.Errorf("printed %q", got)
	}
}

// commandRunner returns the runner of the change that the command builds
// from its flags, the run flags of set: through Complete and newRunner, with
// the cluster as its client; and what it prints on standard error.
func commandRunner(t *testing.T, c *cluster, ch change, flags ...string) (*runner, *bytes.Buffer) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: ns}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	configFlags := newConfigFlags(io.Discard)
	root := &cobra.Command{Use: "probe"}
	configFlags.AddFlags(root.PersistentFlags())
	o := newChangeOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut}, "probes set", true)
	set := &cobra.Command{Use: "set"}
	o.addFlags(set)
	root.AddCommand(set)
	if err := set.ParseFlags(append([]string{"--kubeconfig", kubeconfig}, flags...)); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmdutil.NewFactory(configFlags), set, []string{"deployment/web"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	o.client = c
	r := o.newRunner()
	o.cmdline.run = testRun
	r.change = recorded{change: ch, run: testRun, time: testRunTime}
	r.largest = 1
	r.census = func(ctx context.Context, _ []floor) ([]*v1.Pod, []floor, int, error) {
		pods, err := c.pods(ctx)
		return pods, nil, r.largest, err
	}
	return r, &errOut
}

// What the pre-check found prints in a line or two, and what judges a
// probe that it could not try, as --wait says, in a server dry run too,
// which judges none but says what the run would.
func TestPrecheckSays(t *testing.T) {
	proven := func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) { return "proven", nil }
	const dryRun = "a run without --dry-run judges it after the change, as --wait says"
	for _, tc := range []struct {
		wait, dryRun string
		judge        string
	}{
		{wait: waitProven, judge: "the wait after each change judges it"},
		{wait: waitApplied, judge: "the proof judges it on the Pods that it proves: those of a template until each new probe was proven on one of them, and each Pod whose template is not known (--wait=applied)"},
		{wait: waitNone, judge: "no wait after the change judges it (--wait=none)"},
		{wait: waitProven, dryRun: "server", judge: dryRun},
		{wait: waitApplied, dryRun: "server", judge: dryRun},
		{wait: waitNone, dryRun: "server", judge: "no wait after the change judges it (--wait=none)"},
	} {
		t.Run(tc.wait+tc.dryRun, func(t *testing.T) {
			c := newCluster(namedPods("a", "b", "c")...)
			flags := []string{"--readiness", "--wait=" + tc.wait}
			if tc.dryRun != "" {
				flags = append(flags, "--dry-run="+tc.dryRun)
			}
			r, errOut := commandRunner(t, c, moveReadiness, flags...)
			// The proofs that the command waits on, at once.
			if r.prove != nil {
				r.prove = proven
			}
			if r.applied != nil {
				r.applied = proven
			}
			r.prober = fakeProber{
				"b": tried{notTried: "the container is not running"},
				"c": tried{notTried: `you may not get pods/proxy in namespace "ns"`, forbidden: true},
			}
			if err := r.run(context.Background(), &targets{pods: namedPods("a", "b", "c")}); err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			want := "pre-check: the API server accepts the change to 3 Pods (server dry run)\n" +
				"pre-check: the new readiness probe succeeds on 1 Pod: http-get http://:8080/missing: answered 200 OK\n" +
				"pre-check: the new readiness probe was not tried on 1 Pod: the container is not running; " + tc.judge + "\n" +
				`pre-check: the new probe was not tried: you may not get pods/proxy in namespace "ns"; ` + tc.judge + "\n"
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
			if _, patches := c.sent(); (len(patches) > 0) != (tc.dryRun == "") {
				t.Errorf("patched %v", patches)
			}
		})
	}
}

// Pods that left before the run are skipped and say so; a Pod deleted or
// recreated between the pre-check and its change is skipped, and the run
// goes on.
func TestRunSkipsPodsThatGo(t *testing.T) {
	pods := namedPods("a", "b", "c")
	c := newCluster(pods...)
	c.refuse = func(name string, dryRun bool) error {
		if name == "b" && !dryRun {
			return apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
		}
		return nil
	}
	done := webPod()
	done.Name, done.Status.Phase = "job-x", v1.PodFailed
	r, out, _ := newRunner(c, relax)
	err := r.run(context.Background(), &targets{pods: pods, skipped: []skippedPod{{pod: done, reason: "finished (Failed)"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "pod/job-x skipped: finished (Failed)\npod/a probes set\npod/b skipped: deleted\npod/c probes set\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	// Every Pod skipped: nothing was done, which is an error.
	r, _, _ = newRunner(c, relax)
	if err := r.run(context.Background(), &targets{skipped: []skippedPod{{pod: done, reason: "finished (Failed)"}}}); err == nil {
		t.Error("a run that skipped every Pod succeeded")
	}
}

// A run each of whose Pods was changed, and then deleted during its proof,
// as during the workload's own rollout, leaves no change of it standing:
// it fails, and its last line says so, rather than that no Pod was changed,
// which the line of its Pod contradicts. (One Pod: the fake lists every
// Pod whatever the proof's field selector.)
func TestRunOfPodsChangedThenDeleted(t *testing.T) {
	pod := namedPods("a")[0]
	pod.Spec.NodeName = "node-1"
	c := newCluster(pod)
	// The Pod's watch, which its proof opens, finds it deleted.
	c.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFakeWithChanSize(1, false)
		w.Delete(pod)
		return true, w, nil
	})
	r, errOut := commandRunner(t, c, relax, "--liveness")
	r.prober = fakeProber{}
	err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}})
	if want := "no change of the run stands: each Pod was skipped, or changed and then deleted or recreated"; exitStatus(err) != 1 || err == nil || err.Error() != want {
		t.Errorf("err = %v (exit status %d), want %q (exit status 1)", err, exitStatus(err), want)
	}
	if _, patches := c.sent(); !slices.Equal(patches, []string{"a"}) {
		t.Errorf("patched %v, want a", patches)
	}
	if want := "pod/a: changed, then deleted\n"; !strings.Contains(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
	}
}

// Removing a readiness probe, or the startup probe of a container that has
// not started, warns, and goes on only with --yes or a confirmation.
func TestConfirmRisks(t *testing.T) {
	starting := webPod()
	starting.Name = "starting"
	starting.Spec.Containers[0].StartupProbe = httpGet("/started")
	starting.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Started: ptr.To(false)}}
	for _, tc := range []struct {
		name   string
		change change
		pod    *v1.Pod
		yes    bool
		want   string
	}{
		{"readiness", disableChange{types: []probeType{readiness}}, webPod(), false, "warning: without a readiness probe a container counts as Ready: pod/web join their Services' endpoints whether they serve or not\n"},
		{"startup of a container that has not started", removeChange{types: []probeType{startup}}, starting, false, "warning: the container has not started on pod/starting: without its startup probe, its liveness probe starts at once and may restart it\n"},
		{"readiness, with --yes", disableChange{types: []probeType{readiness}}, webPod(), true, "warning: without a readiness probe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(tc.pod)
			r, _, errOut := newRunner(c, tc.change)
			r.report.yes = tc.yes
			err := r.run(context.Background(), &targets{pods: []*v1.Pod{tc.pod}})
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("printed %q, want %q in it", errOut, tc.want)
			}
			_, patches := c.sent()
			if tc.yes {
				if err != nil || len(patches) != 1 {
					t.Errorf("with --yes: err = %v, patches %v", err, patches)
				}
				return
			}
			if err == nil || err.Error() != "not confirmed: give --yes to go on (there is no terminal to ask on)" || len(patches) > 0 {
				t.Errorf("without --yes or a terminal: err = %v, patches %v", err, patches)
			}
		})
	}
}

// A change whose new readiness probe fails is undone with
// --undo-on-failure, and otherwise the command that undoes it is printed.
func TestUndo(t *testing.T) {
	for _, undo := range []bool{false, true} {
		t.Run(fmt.Sprint(undo), func(t *testing.T) {
			before, _ := changedPods()
			c := newCluster(before)
			k := &kubelet{t: t, watcher: watch.NewFake(), pod: before.DeepCopy()}
			c.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
				return true, k.watcher, nil
			})
			r, _, errOut := newRunner(c, moveReadiness)
			r.prove = (&prover{client: c, timeout: time.Minute, margin: time.Hour}).prove
			r.undoOnFailure = undo
			errc := make(chan error)
			go func() { errc <- r.run(context.Background(), &targets{pods: []*v1.Pod{before}}) }()
			k.report(2, true)
			k.report(2, false)
			// Undone, the run leaves no Pod changed.
			want := exitStopped
			if undo {
				want = 1
			}
			if err := <-errc; exitStatus(err) != want {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), want)
			}
			pod, err := c.CoreV1().Pods("ns").Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			path := pod.Spec.Containers[0].ReadinessProbe.HTTPGet.Path
			if undo {
				if path != "/ready" || !strings.Contains(errOut.String(), "pod/web: undone: its probes are as they were before\n") {
					t.Errorf("readiness path %q after the undo\n%s", path, errOut)
				}
				if record, ok := pod.Annotations[lastRunAnnotation]; ok {
					t.Errorf("the undone change left a record of its run: %s", record)
				}
				return
			}
			if r, err := readRecord(pod); err != nil || r == nil || r.Run != testRun {
				t.Errorf("the failed change is not recorded: %+v, %v", r, err)
			}
			if printed := errOut.String(); path != "/missing" || !strings.Contains(printed, "to undo it: kubectl probe undo pod/web -n ns --run "+testRun+" (or run with --undo-on-failure)\n") {
				t.Errorf("readiness path %q\n%s", path, errOut)
			}
		})
	}
}

// requireResourceVersion makes the cluster answer a patch conditioned on a
// resourceVersion that is not the Pod's with 409 Conflict, as the API
// server does: the fake applies it to whatever is stored. (The fake does
// not give a write a new resourceVersion: a test that writes sets one.)
func requireResourceVersion(c *cluster) {
	c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchActionImpl)
		var sent struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(patch.Patch, &sent); err != nil {
			return true, nil, err
		}
		obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), patch.Namespace, patch.Name)
		if err != nil {
			return true, nil, err
		}
		if rv := obj.(*v1.Pod).ResourceVersion; sent.Metadata.ResourceVersion != "" && sent.Metadata.ResourceVersion != rv {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, patch.Name, fmt.Errorf("the object has been modified: resourceVersion %s, not %s", rv, sent.Metadata.ResourceVersion))
		}
		return false, nil, nil
	})
}

// --undo-on-failure undoes only what the run changed: an edit that someone
// else made to the container's probes while the run waited is not
// overwritten, and the probes that kubectl probe disable kept for other
// containers meanwhile stay kept.
func TestUndoKeepsOthersEdits(t *testing.T) {
	otherKept := keptValue(keptProbes{"sidecar": {liveness: httpGet("/alive")}})
	for _, tc := range []struct {
		name string
		// edit is the change someone else makes while the run waits.
		edit func(*v1.Pod)
		// undone is whether the run's change is undone.
		undone bool
		want   string
	}{{
		name:   "the container's liveness probe",
		edit:   func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 30 },
		want:   "error: pod/web: undoing the change: the probes of container \"app\" changed after this run stored its change; undoing it would overwrite that change, so it is left as it is\n",
		undone: false,
	}, {
		name:   "the container's readiness probe",
		edit:   func(p *v1.Pod) { p.Spec.Containers[0].ReadinessProbe.HTTPGet.Path = "/livez" },
		want:   "error: pod/web: undoing the change: the probes of container \"app\" changed after this run stored its change; undoing it would overwrite that change, so it is left as it is\n",
		undone: false,
	}, {
		name:   "a probe kept for another container",
		edit:   func(p *v1.Pod) { p.Annotations[keptAnnotation] = otherKept },
		want:   "pod/web: undone: its probes are as they were before\n",
		undone: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := changedPods()
			c := newCluster(before)
			requireResourceVersion(c)
			k := &kubelet{t: t, watcher: watch.NewFake(), pod: before.DeepCopy()}
			c.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
				return true, k.watcher, nil
			})
			r, _, errOut := newRunner(c, moveReadiness)
			r.prove = (&prover{client: c, timeout: time.Minute, margin: time.Hour}).prove
			r.undoOnFailure = true
			errc := make(chan error)
			go func() { errc <- r.run(context.Background(), &targets{pods: []*v1.Pod{before}}) }()
			k.report(2, true)
			// The run has stored its change: someone else edits the Pod.
			pods := c.CoreV1().Pods("ns")
			edited, err := pods.Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(edited)
			// The fake keeps the resourceVersion it is sent; the API server
			// gives each write a new one.
			edited.ResourceVersion = "8"
			if edited, err = pods.Update(context.Background(), edited, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			k.report(2, false)
			wantStatus := exitStopped
			if tc.undone {
				wantStatus = 1
			}
			if err := <-errc; exitStatus(err) != wantStatus {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), wantStatus)
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("printed\n%s\nwant %q in it", errOut, tc.want)
			}
			pod, err := pods.Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := edited.DeepCopy()
			if tc.undone {
				want.Spec.Containers[0].ReadinessProbe = before.Spec.Containers[0].ReadinessProbe
			}
			if diff := cmp.Diff(want.Spec.Containers, pod.Spec.Containers); diff != "" {
				t.Errorf("containers (-want +got):\n%s", diff)
			}
			if got := pod.Annotations[keptAnnotation]; got != edited.Annotations[keptAnnotation] {
				t.Errorf("kept annotation %q, want %q", got, edited.Annotations[keptAnnotation])
			}
		})
	}
}

// A second run on another container of the Pod, during the proof of a run
// whose change then fails, replaces the Pod's record of the first run with
// its own, and changes none of the probes that the first run stored: the
// Pod keeps one record, of its last run, so --undo-on-failure leaves the
// Pod as it is, the first run's change, in whole, and the second run's
// with its record, and says so, and what no undo does: a kubectl probe
// undo of the first run, the second run's undone by its kubectl probe undo
// before it or not, leaves the Pod as it is too. The end names the Pod
// apart, out of the count of the first run's undo, and the run exits with
// status 2, as a change of it stands. The second run's --undo-on-failure,
// though, putting its change back in full, brings back the record that it
// read, the first run's, as the line says: the first run's undo puts the
// Pod back then.
func TestUndoAfterAnotherRunsRecord(t *testing.T) {
	const other = "20261204-101600-beef"
	for _, tc := range []struct {
		name string
		// flap is set for the change of a flap, which relaxes the
		// liveness probe, which would stay, and changes the readiness
		// probe.
		flap bool
		// putBack is set for a second run whose --undo-on-failure puts
		// its change back in full before the undo of the first run, as
		// runner.undo sends it: of a change that made the liveness probe
		// of sidecar stricter, which does not stay.
		putBack bool
	}{{name: "in whole"}, {name: "but for a relaxed probe", flap: true},
		{name: "in whole, the second run put back in full", putBack: true},
		{name: "but for a relaxed probe, the second run put back in full", flap: true, putBack: true}} {
		t.Run(tc.name, func(t *testing.T) {
			pods := namedPods("a", "b", "c")
			var ch change = moveReadiness
			for _, pod := range pods {
				pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: "sidecar", LivenessProbe: httpGet("/alive")})
				if tc.flap {
					pod.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
					ch = setChange{types: []probeType{liveness, readiness}, settings: settings{periodSeconds: ptr.To[int32](20), failureThreshold: ptr.To[int32](6)}}
				}
			}
			c := newCluster(pods...)
			requireResourceVersion(c)
			r, _, errOut := newRunner(c, ch)
			r.container, r.largest = "app", 2
			r.undoOnFailure, r.report.yes = true, true
			before := pods[1].DeepCopy()
			// stored is pod/b as the run stored it, which the second run
			// reads; secondStored is pod/b as the second run stored it.
			var stored, secondStored *v1.Pod
			r.prove = func(ctx context.Context, _, pod *v1.Pod, _ string) (string, error) {
				if pod.Name != "b" {
					return "proven", nil
				}
				stored = pod.DeepCopy()
				// kubectl probe set pod/b -c sidecar, as the command
				// runs it.
				set := settings{timeoutSeconds: ptr.To[int32](5)}
				if tc.putBack {
					set = settings{failureThreshold: ptr.To[int32](1)}
				}
				second := recorded{change: setChange{types: []probeType{liveness}, settings: set}, run: other, time: testRunTime}
				if _, err := (&patcher{client: c, fieldManager: "kubectl-probe"}).apply(ctx, pod, "sidecar", second, nil, false); err != nil {
					return "", err
				}
				// The API server gives each write a new resourceVersion;
				// the fake does not.
				obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "b")
				if err != nil {
					return "", err
				}
				obj.(*v1.Pod).ResourceVersion = "8"
				if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), obj, "ns"); err != nil {
					return "", err
				}
				secondStored = obj.(*v1.Pod).DeepCopy()
				return "", errors.New("the new readiness probe failed")
			}
			if err := r.run(context.Background(), &targets{pods: pods}); exitStatus(err) != exitStopped {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
			}
			line := "error: pod/b: undoing the change: the probes of container \"app\" are still as this run stored them, and only the Pod's record of this run was replaced, by run " + other + "'s; it is left as it is, with that record, and no kubectl probe undo of this run puts it back while that record is there (a put-back in full by that run's --undo-on-failure brings this run's record back)\n"
			end := "error: stopped at the first Pod that failed\ndone (2): pod/a pod/c\nfailed (0): none\n" +
				"not put back, as their record of this run was replaced or removed since, though their probes are as this run stored them (1): pod/b\n" +
				"not started, left as they are (0): none\n" +
				"to put back the 2 Pods that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n"
			if printed := errOut.String(); !strings.Contains(printed, line) || !strings.HasSuffix(printed, end) {
				t.Errorf("printed\n%s\nwant in it\n%s\nand it to end in\n%s", printed, line, end)
			}
			listedOnce(t, errOut.String(), "a", "b", "c")
			if stored == nil {
				t.Fatal("pod/b was not proven")
			}
			left := func(after string) {
				t.Helper()
				obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "b")
				if err != nil {
					t.Fatal(err)
				}
				now := obj.(*v1.Pod)
				if want := stored.Spec.Containers[0]; !equalProbes(now.Spec.Containers[0].ReadinessProbe, want.ReadinessProbe) || !equalProbes(now.Spec.Containers[0].LivenessProbe, want.LivenessProbe) {
					t.Errorf("%s: the probes of app are %s and %s, want them as the run stored them, %s and %s", after,
						describeProbe(now.Spec.Containers[0].LivenessProbe), describeProbe(now.Spec.Containers[0].ReadinessProbe), describeProbe(want.LivenessProbe), describeProbe(want.ReadinessProbe))
				}
				if record, err := readRecord(now); err != nil || record == nil || record.Run != other || record.Container != "sidecar" {
					t.Errorf("%s: record %+v, %v; want the second run's, of sidecar", after, record, err)
				}
			}
			left("after the run")
			if tc.putBack {
				// The second run's proof fails, and its --undo-on-failure
				// puts sidecar back in full, as runner.undo sends it,
				// which brings back the Pod's record of the run, as the
				// second run read it.
				staying := stays(probesOf(stored, "sidecar"), probesOf(secondStored, "sidecar"), true)
				if len(staying) > 0 {
					t.Fatalf("of the second run's change, %v stays; want it put back in full", staying)
				}
				res, err := (&patcher{client: c, fieldManager: "kubectl-probe"}).apply(context.Background(), secondStored, "sidecar", undoChange{original: stored, changed: secondStored, keep: stayingTypes(staying)}, nil, false)
				if err != nil || !res.changed {
					t.Fatalf("the second run's put-back: %v, changed %v", err, res.changed)
				}
				if record, err := readRecord(res.stored); err != nil || record == nil || record.Run != testRun || record.UndoneBy != "" {
					t.Fatalf("after the second run's put-back: record %+v, %v; want the run's, not undone", record, err)
				}
				if out, printed, err := undoCommand(t, c, testRun, "b"); err != nil || out != "pod/b probes put back\n" {
					t.Errorf("kubectl probe undo pod/b --run %s after the second run's put-back: %v\n%s%s\nwant pod/b put back", testRun, err, out, printed)
				}
				obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "b")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(before.Spec.Containers, obj.(*v1.Pod).Spec.Containers); diff != "" {
					t.Errorf("after the second run's put-back and the undo of the run, containers (-want +got):\n%s", diff)
				}
				return
			}
			skipped := "pod/b skipped: left as it is: run " + other + " changed it after run " + testRun + "\n"
			if out, printed, err := undoCommand(t, c, testRun, "b"); out != skipped || exitStatus(err) != 1 {
				t.Errorf("kubectl probe undo pod/b --run %s: %v\n%s%s\nwant\n%s", testRun, err, out, printed, skipped)
			}
			left("after the undo of the run")
			if out, printed, err := undoCommand(t, c, other, "b"); err != nil || out != "pod/b probes put back\n" {
				t.Fatalf("kubectl probe undo pod/b --run %s: %v\n%s%s", other, err, out, printed)
			}
			if out, printed, err := undoCommand(t, c, testRun, "b"); out != skipped || exitStatus(err) != 1 {
				t.Errorf("kubectl probe undo pod/b --run %s after that of run %s: %v\n%s%s\nwant\n%s", testRun, other, err, out, printed, skipped)
			}
			left("after the undo of run " + other + ", and then of the run")
		})
	}
}

// A restore that cannot read the template of the Pod's controller does not
// put a kept probe back unchecked, as if the Pod had no controller: it fails
// the Pod, and only --force restores it.
func TestRestoreWithUnreadableTemplate(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			pod := webPod()
			pod.Spec.Containers[0].LivenessProbe = nil
			pod.Annotations = map[string]string{keptAnnotation: keptLiveness}
			// Its ReplicaSet is gone, or the user may not read it.
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs", Controller: ptr.To(true)}}
			c := newCluster(pod)
			r, _, errOut := newRunner(c, restoreChange{types: []probeType{liveness}, force: force})
			r.templates = newTemplates(c)
			err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}})
			_, patches := c.sent()
			if force {
				if err != nil || !slices.Equal(patches, []string{pod.Name}) {
					t.Errorf("run = %v, patches %v; want the kept probe restored", err, patches)
				}
				return
			}
			if err == nil || len(patches) != 0 {
				t.Errorf("run = %v, patches %v; want the Pod failed and nothing patched", err, patches)
			}
			if want := "cannot read the template it was created from"; !strings.Contains(errOut.String(), want) {
				t.Errorf("printed %q, want it to contain %q", errOut.String(), want)
			}
		})
	}
}

// --undo-on-failure never puts back a probe that would restart the container
// sooner than the new one, nor a readiness probe that would keep it out of
// readiness more: of each probe type that the change changed, it puts back
// the old probe unless the old one is sooner in a way and the new one in
// none. A relaxed probe whose proof failed stays, and the run says why and
// how to put the old one back anyway; a stricter new probe that fails is put
// back, whatever the change did to the other types. Without a startup
// probe, the liveness probe runs from the container's start: adding a
// startup probe relaxes it, and removing one may make it stricter. What
// stays of the change stays the run's: the Pod's record of the run holds
// it, for kubectl probe undo.
func TestUndoNeverPutsBackAStricterProbe(t *testing.T) {
	// probe is an httpGet probe with failureThreshold n and
	// initialDelaySeconds delay, of 10s periods.
	probe := func(n, delay int32) *v1.Probe {
		p := httpGet("/healthz")
		p.FailureThreshold, p.InitialDelaySeconds = n, delay
		return p
	}
	all := []probeType{liveness, readiness, startup}
	undone := "pod/web: undone: its probes are as they were before\n"
	for _, tc := range []struct {
		name string
		// startup is the Pod's startup probe before the change, if any;
		// liveness and readiness its others, 3×10s when nil.
		startup, liveness, readiness *v1.Probe
		change                       change
		// back are the probe types whose old probes are put back; the
		// others keep the change.
		back    []probeType
		printed string
	}{{
		name:    "liveness relaxed from 3 to 6",
		change:  setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](6)}},
		printed: "pod/web: not undone: its old probes would restart the container sooner than the new ones (the liveness probe: failureThreshold 3, the new one 6); to put it back anyway: kubectl probe undo pod/web -n ns --run " + testRun + "\n",
	}, {
		// The readiness probe, from 10 to 6, is stricter, and may be what
		// failed: it is put back; the liveness probe stays.
		name:      "liveness relaxed from 3 to 6, and readiness made stricter, from 10 to 6",
		readiness: probe(10, 0),
		change:    setChange{types: []probeType{liveness, readiness}, settings: settings{failureThreshold: ptr.To[int32](6)}},
		back:      []probeType{readiness},
		printed:   "pod/web: undone but for its liveness probe, as the old one would restart the container sooner than the new one (the liveness probe: failureThreshold 3, the new one 6); to put it back anyway: kubectl probe undo pod/web -n ns --run " + testRun + "\n",
	}, {
		// In a flap, both probes given 6 failures of 20s: the readiness
		// probe's other period holds a container that failed it out of
		// readiness longer, and is put back; the liveness probe that
		// restarted the container at its first failure is not.
		name:     "liveness from 1×10s, and readiness from 3×10s, to 6×20s",
		liveness: probe(1, 0),
		change:   setChange{types: []probeType{liveness, readiness}, settings: settings{periodSeconds: ptr.To[int32](20), failureThreshold: ptr.To[int32](6)}},
		back:     []probeType{readiness},
		printed:  "(the liveness probe: failureThreshold 1, the new one 6; periodSeconds 10s, the new one 20s)",
	}, {
		// A longer delay holds a container that starts out of readiness
		// longer: no relaxation of a readiness probe.
		name:    "liveness relaxed, and the readiness probe given a longer delay",
		change:  setChange{types: []probeType{liveness, readiness}, settings: settings{initialDelaySeconds: ptr.To[int32](60)}},
		back:    []probeType{readiness},
		printed: "pod/web: undone but for its liveness probe, as the old one would restart the container sooner than the new one (the liveness probe: initialDelaySeconds 0s, the new one 60s)",
	}, {
		// A longer period holds a container that failed it out of
		// readiness longer, until its successes in a row.
		name:    "liveness relaxed, and the readiness probe given a longer period",
		change:  setChange{types: []probeType{liveness, readiness}, settings: settings{periodSeconds: ptr.To[int32](60)}},
		back:    []probeType{readiness},
		printed: "(the liveness probe: periodSeconds 10s, the new one 60s)",
	}, {
		// Both relaxed: neither is put back.
		name:    "liveness and readiness relaxed from 3 to 6",
		change:  setChange{types: []probeType{liveness, readiness}, settings: settings{failureThreshold: ptr.To[int32](6)}},
		printed: "pod/web: not undone: its old probes would restart the container sooner, and keep it out of readiness more, than the new ones (the liveness probe: failureThreshold 3, the new one 6; the readiness probe: failureThreshold 3, the new one 6)",
	}, {
		// The readiness probe alone relaxed, failing as the old one
		// would, and sooner.
		name:    "readiness relaxed from 3 to 6",
		change:  setChange{types: []probeType{readiness}, settings: settings{failureThreshold: ptr.To[int32](6)}},
		printed: "pod/web: not undone: its old probes would keep the container out of readiness more than the new ones (the readiness probe: failureThreshold 3, the new one 6)",
	}, {
		// Each type on its own: the liveness probe, from 6 to 3, is put
		// back; the readiness probe, from 1 to 3, stays.
		name:      "liveness made stricter, from 6 to 3, and readiness relaxed, from 1 to 3",
		liveness:  probe(6, 0),
		readiness: probe(1, 0),
		change:    setChange{types: []probeType{liveness, readiness}, settings: settings{failureThreshold: ptr.To[int32](3)}},
		back:      []probeType{liveness},
		printed:   "pod/web: undone but for its readiness probe, as the old one would keep the container out of readiness more than the new one (the readiness probe: failureThreshold 1, the new one 3)",
	}, {
		name:    "readiness removed",
		change:  removeChange{types: []probeType{readiness}},
		printed: "(the change removed the readiness probe)",
	}, {
		name:    "liveness made stricter, from 3 to 1",
		change:  setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](1)}},
		back:    all,
		printed: undone,
	}, {
		// The old probe fails sooner on a slow answer, and waits longer
		// for failures in a row; the new one the other way round: it is
		// no relaxation, and the old one is put back.
		name:     "liveness from a timeout of 10s and 1×10s to 1s and 2×10s",
		liveness: func() *v1.Probe { p := probe(1, 0); p.TimeoutSeconds = 10; return p }(),
		change:   setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](1), failureThreshold: ptr.To[int32](2)}},
		back:     all,
		printed:  undone,
	}, {
		// Fewer failures of a longer period: 2 × 30s is longer than 3 ×
		// 10s, but a probe that fails at once restarts the container after
		// 2 failures, not 3: the new probe is stricter in a way, no
		// relaxation, and the old one is put back.
		name:    "liveness from 3×10s to 2×30s",
		change:  setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](2), periodSeconds: ptr.To[int32](30)}},
		back:    all,
		printed: undone,
	}, {
		name:    "liveness given a delay",
		change:  setChange{types: []probeType{liveness}, settings: settings{initialDelaySeconds: ptr.To[int32](60)}},
		printed: "(the liveness probe: initialDelaySeconds 0s, the new one 60s)",
	}, {
		// The new handler asks another thing, and failed: the old one is
		// put back, though it waits less for an answer.
		name:    "liveness given another handler and a longer timeout",
		change:  setChange{types: []probeType{liveness}, settings: settings{handler: &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/livez", Port: intstr.FromInt32(8081)}}, timeoutSeconds: ptr.To[int32](5)}},
		back:    all,
		printed: undone,
	}, {
		name:    "liveness removed",
		change:  removeChange{types: []probeType{liveness}},
		printed: "(the change removed the liveness probe)",
	}, {
		name:    "startup relaxed from 30 to 90",
		startup: probe(30, 0),
		change:  setChange{types: []probeType{startup}, settings: settings{failureThreshold: ptr.To[int32](90)}},
		printed: "(the startup probe: failureThreshold 30, the new one 90)",
	}, {
		name:    "startup added, giving a start 120s, not the liveness probe's 30s",
		change:  setChange{types: []probeType{startup}, settings: settings{probe: probe(12, 0)}},
		printed: "(what checks a starting container, the liveness probe, and with the new probes the startup probe: failureThreshold 3, the new one 12)",
	}, {
		name:    "startup added, giving a start 20s, less than the liveness probe's 30s",
		change:  setChange{types: []probeType{startup}, settings: settings{probe: probe(2, 0)}},
		back:    all,
		printed: undone,
	}, {
		// What checks a starting container asks another thing: the
		// startup probe that failed is taken away, whatever its timing.
		name:    "startup added with another handler than the liveness probe's",
		change:  setChange{types: []probeType{startup}, settings: settings{probe: func() *v1.Probe { p := probe(60, 0); p.HTTPGet.Path = "/started"; return p }()}},
		back:    all,
		printed: undone,
	}, {
		name:    "startup of 300s removed: the liveness probe's 30s from the start",
		startup: probe(30, 0),
		change:  removeChange{types: []probeType{startup}},
		back:    all,
		printed: undone,
	}, {
		// Each type on its own: with the old startup probe put back, the
		// container gets 300s to start again; the liveness probe, from 3
		// to 6, stays.
		name:    "startup made stricter, from 30 to 6, and liveness relaxed, from 3 to 6",
		startup: probe(30, 0),
		change:  setChange{types: []probeType{liveness, startup}, settings: settings{probe: probe(6, 0)}},
		back:    []probeType{startup},
		printed: "pod/web: undone but for its liveness probe, as the old one would restart the container sooner than the new one (the liveness probe: failureThreshold 3, the new one 6)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := webPod()
			pod.Spec.Containers[0].StartupProbe = tc.startup
			if tc.liveness != nil {
				pod.Spec.Containers[0].LivenessProbe = tc.liveness
			}
			if tc.readiness != nil {
				pod.Spec.Containers[0].ReadinessProbe = tc.readiness
			}
			changed, err := applyChange(t, pod, tc.change, nil)
			if err != nil {
				t.Fatal(err)
			}
			// want is the container as the change left it, with the old
			// probes of the types put back.
			want := changed.Spec.Containers[0].DeepCopy()
			for _, pt := range tc.back {
				*pt.of(want) = *pt.of(&pod.Spec.Containers[0])
			}
			c := newCluster(pod)
			r, _, errOut := newRunner(c, tc.change)
			r.undoOnFailure, r.report.yes = true, true
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
				return "", errors.New("the new probes have not passed")
			}
			undone := apiequality.Semantic.DeepEqual(want, &pod.Spec.Containers[0])
			wantStatus := exitStopped
			if undone {
				wantStatus = 1
			}
			if err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}}); exitStatus(err) != wantStatus {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), wantStatus)
			}
			got, err := c.CoreV1().Pods("ns").Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, &got.Spec.Containers[0]); diff != "" {
				t.Errorf("container (-want +got):\n%s\n%s", diff, errOut)
			}
			if !strings.Contains(errOut.String(), tc.printed) {
				t.Errorf("printed\n%s\nwant %q in it", errOut, tc.printed)
			}
			// The record of the run holds what stays of its change, for
			// kubectl probe undo; a change put back whole leaves none.
			record, err := readRecord(got)
			switch {
			case err != nil:
				t.Errorf("record: %v", err)
			case undone && record != nil:
				t.Errorf("the undone change left a record of its run: %+v", record)
			case undone:
			case record == nil || record.Run != testRun:
				t.Errorf("record %+v, want one of run %s", record, testRun)
			default:
				before, _ := stateAt(pod, "app")
				now, _ := stateAt(got, "app")
				if !record.Before.equal(before) || !record.After.heldBy(now) {
					t.Errorf("record before %+v, after %+v; want before %+v, after %+v", record.Before, record.After, before, now)
				}
			}
		})
	}
}

// The partial undo of a change puts back, of each probe type put back,
// what kubectl probe disable kept of it too, and leaves the Pod's record of
// the run as the Pod then is: kubectl probe undo of the run puts back the
// rest. Here restore --force put back a liveness probe of 6 failures over
// one of 1, and a readiness probe; the readiness probe goes back to being
// kept, and the liveness probe stays.
func TestUndoPutsBackWhatDisableKeptOfEachType(t *testing.T) {
	pod := webPod()
	strict := httpGet("/healthz")
	strict.FailureThreshold = 1
	relaxed := httpGet("/healthz")
	relaxed.FailureThreshold = 6
	pod.Spec.Containers[0].LivenessProbe, pod.Spec.Containers[0].ReadinessProbe = strict, nil
	pod.Annotations = map[string]string{keptAnnotation: keptValue(keptProbes{"app": {liveness: relaxed, readiness: httpGet("/ready")}})}
	c := newCluster(pod)
	r, _, errOut := newRunner(c, restoreChange{types: []probeType{liveness, readiness}, force: true})
	r.undoOnFailure, r.report.yes = true, true
	r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
		return "", errors.New("the new probes have not passed")
	}
	if err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}}); exitStatus(err) != exitStopped {
		t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
	}
	if want := "pod/web: undone but for its liveness probe, as the old one would restart the container sooner than the new one (the liveness probe: failureThreshold 1, the new one 6)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant %q in it", errOut, want)
	}
	got, err := c.CoreV1().Pods("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now, err := stateAt(got, "app")
	if err != nil {
		t.Fatal(err)
	}
	want := containerState{Probes: map[probeType]*v1.Probe{liveness: relaxed}, Disabled: map[probeType]*v1.Probe{readiness: httpGet("/ready")}}
	if diff := cmp.Diff(want, now); diff != "" {
		t.Errorf("probes and kept probes (-want +got):\n%s", diff)
	}
	record, err := readRecord(got)
	if err != nil || record == nil || record.Run != testRun || !record.After.heldBy(now) {
		t.Fatalf("record %+v, %v; want one of run %s whose after is %+v", record, err, testRun, now)
	}
	// kubectl probe undo of the run puts back the rest.
	undone, _, err := modify(got, "", undoRun{run: testRun, undoneBy: "undo"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := stateAt(pod, "app")
	if after, _ := stateAt(undone, "app"); !after.equal(before) {
		t.Errorf("after kubectl probe undo: %+v, want %+v", after, before)
	}
}

// A kubectl probe undo whose own change failed its proof, and that
// --undo-on-failure put back in part, leaves the run it undid as not undone,
// with the container as it then is as that run's after, so that a kubectl
// probe undo of that run puts back the rest.
func TestPartialUndoOfAnUndoLeavesTheRunToUndo(t *testing.T) {
	strict, relaxed := httpGet("/healthz"), httpGet("/healthz")
	strict.FailureThreshold, relaxed.FailureThreshold = 1, 6
	// Run testRun relaxed the liveness probe and added a readiness probe.
	changed := webPod()
	changed.Spec.Containers[0].LivenessProbe = relaxed
	record := runRecord{
		Version:   recordVersion,
		Run:       testRun,
		Container: "app",
		Before:    containerState{Probes: map[probeType]*v1.Probe{liveness: strict}},
		After:     containerState{Probes: map[probeType]*v1.Probe{liveness: relaxed, readiness: httpGet("/ready")}},
	}
	changed.Annotations = map[string]string{}
	if err := record.write(changed); err != nil {
		t.Fatal(err)
	}
	// kubectl probe undo of it put back the strict liveness probe and
	// removed the readiness probe; its proof failed, and the undo of that
	// puts back the relaxed liveness probe and keeps the readiness probe
	// removed (stays).
	undone, _, err := modify(changed, "", undoRun{run: testRun, undoneBy: "u1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	staying := stays(probesOf(changed, "app"), probesOf(undone, "app"), true)
	if diff := cmp.Diff([]probeType{readiness}, stayingTypes(staying)); diff != "" {
		t.Fatalf("types that stay (-want +got):\n%s", diff)
	}
	partly, _, err := modify(undone, "app", undoChange{original: changed, changed: undone, keep: stayingTypes(staying)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readRecord(partly)
	if err != nil || got == nil || got.Run != testRun || got.UndoneBy != "" {
		t.Fatalf("record %+v, %v; want one of run %s, not undone", got, err, testRun)
	}
	// kubectl probe undo of the run puts back the rest.
	rest, _, err := modify(partly, "", undoRun{run: testRun, undoneBy: "u2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := stateAt(rest, "app"); !now.equal(record.Before) {
		t.Errorf("after kubectl probe undo: %+v, want %+v", now, record.Before)
	}
}

// An undo whose put-back fails its proof says how the Pod gets the run's
// change again: an undo keeps no record of its own, so no kubectl probe
// undo puts its put-back back; the run's change is to be made again, or
// --undo-on-failure gives it back at once, but for the probes that the
// put-back only relaxed.
func TestUndoThatFailsSaysHowToGiveTheChangeBack(t *testing.T) {
	c := newCluster(namedPods("a", "b")...)
	r, _, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: namedPods("a", "b")}); err != nil {
		t.Fatalf("set: %v\n%s", err, errOut)
	}
	pods, err := c.pods(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, out, errOut := newRunner(c, nil)
	u.change, u.cmdline.run, u.cmdline.undoing = undoRun{run: testRun, undoneBy: "u1"}, "", testRun
	u.report = newTestReporter(out, errOut, "", "probes put back")
	u.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
		return "", errors.New("the new liveness probe of container \"app\" reached its failureThreshold")
	}
	if err := u.run(context.Background(), &targets{pods: pods}); exitStatus(err) != exitStopped {
		t.Errorf("exit status %d (%v), want %d\n%s", exitStatus(err), err, exitStopped, errOut)
	}
	want := "to give it run " + testRun + "'s change again, make that change again, as its annotation kubectl-probe.x-k8s.io/last-run keeps it (after): no kubectl probe undo puts back an undo (or run the undo with --undo-on-failure, which gives a Pod whose put-back fails the change back at once, but for the probes that the put-back only relaxed, which stay)\n"
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
	}
}

// An undo whose put-back only relaxed a probe, of a run that made it
// stricter, and fails its proof, keeps the relaxed probe with
// --undo-on-failure, as the put-back of any change that only relaxed it:
// the run's change is not given back, and the hint of the undo without
// --undo-on-failure says so.
func TestUndoThatRelaxedAndFailsKeepsWhatItRelaxed(t *testing.T) {
	tighten := setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](1)}}
	for _, undoOnFailure := range []bool{true, false} {
		t.Run(fmt.Sprintf("--undo-on-failure=%t", undoOnFailure), func(t *testing.T) {
			c := newCluster(namedPods("a")...)
			r, _, errOut := newRunner(c, tighten)
			if err := r.run(context.Background(), &targets{pods: namedPods("a")}); err != nil {
				t.Fatalf("set: %v\n%s", err, errOut)
			}
			pods, err := c.pods(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			u, out, errOut := newRunner(c, nil)
			u.change, u.cmdline.run, u.cmdline.undoing = undoRun{run: testRun, undoneBy: "u1"}, "", testRun
			u.report = newTestReporter(out, errOut, "", "probes put back")
			u.undoOnFailure = undoOnFailure
			u.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
				return "", errors.New("the new liveness probe of container \"app\" reached its failureThreshold")
			}
			if err := u.run(context.Background(), &targets{pods: pods}); exitStatus(err) != exitStopped {
				t.Errorf("exit status %d (%v), want %d\n%s", exitStatus(err), err, exitStopped, errOut)
			}
			pods, err = c.pods(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := pods[0].Spec.Containers[0].LivenessProbe.FailureThreshold; got != 3 {
				t.Errorf("the liveness probe's failureThreshold is %d, want the relaxed 3 that the undo put back\n%s", got, errOut)
			}
			if undoOnFailure {
				return
			}
			want := "(or run the undo with --undo-on-failure, which gives a Pod whose put-back fails the change back at once, but for the probes that the put-back only relaxed, which stay)\n"
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
		})
	}
}

// A run of kubectl probe undo of one Pod that stops at it says how to
// finish it when the Pod's run is still to undo, as a run of several Pods
// does: when --undo-on-failure put back the undo's change; not when the
// undo's change stands, which the same command would skip.
func TestUndoOfOnePodThatStopsSaysHowToFinish(t *testing.T) {
	for _, tc := range []struct {
		name          string
		undoOnFailure bool
		// refused is set when the API server refuses the undo's patch;
		// putBackLost when the answer to --undo-on-failure's put-back is
		// lost, and the Pod cannot be read again.
		refused, putBackLost bool
		want                 bool
	}{
		{name: "the undo's change stands"},
		{name: "--undo-on-failure put it back", undoOnFailure: true, want: true},
		{name: "the undo's change was refused", refused: true, want: true},
		{name: "--undo-on-failure's put-back may have been stored", undoOnFailure: true, putBackLost: true, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := namedPods("a")[0]
			after, err := stateAt(pod, "app")
			if err != nil {
				t.Fatal(err)
			}
			strict := httpGet("/healthz")
			strict.FailureThreshold = 1
			record := runRecord{Version: recordVersion, Run: testRun, Container: "app", Before: containerState{Probes: map[probeType]*v1.Probe{liveness: strict}}, After: after}
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			if err := record.write(pod); err != nil {
				t.Fatal(err)
			}
			c := newCluster(pod)
			if tc.refused {
				c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
					if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) == 0 {
						return true, nil, apierrors.NewInternalError(errors.New("failed calling webhook"))
					}
					return false, nil, nil
				})
			}
			if tc.putBackLost {
				patches := 0
				c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
					if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) > 0 {
						return false, nil, nil
					}
					if patches++; patches == 1 {
						return false, nil, nil
					}
					return true, nil, apierrors.NewTimeoutError("request did not complete within the allowed duration", 0)
				})
				c.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					if patches < 2 {
						return false, nil, nil
					}
					return true, nil, errors.New("connection refused")
				})
			}
			r, _, errOut := newRunner(c, nil)
			r.change = undoRun{run: testRun, undoneBy: "u1"}
			r.cmdline.run, r.cmdline.undoing, r.cmdline.targets = "", testRun, []string{"pod/a"}
			r.undoOnFailure, r.report.yes = tc.undoOnFailure, true
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
				return "", errors.New("the new probes have not passed")
			}
			if err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}}); exitStatus(err) == 0 {
				t.Errorf("err = %v, want a failure", err)
			}
			want := "to finish putting back run " + testRun + ": kubectl probe undo pod/a -n ns --run " + testRun + "\n"
			if got := strings.Contains(errOut.String(), want); got != tc.want {
				t.Errorf("printed\n%s\n%q in it: %t, want %t", errOut, want, got, tc.want)
			}
		})
	}
}

// A run of one Pod whose change failed its proof, and whose put-back by
// --undo-on-failure failed too, or may have (its answer lost, the Pod not
// readable), says how to put the Pod back, as the Pod's change stands, in
// whole or in part: a run of one Pod prints no list of Pods with the undo
// of the run. A put-back refused since someone else changed the probes
// meanwhile, or of a Pod deleted or recreated meanwhile, says no undo: the
// undo of the Pod would leave it as it is too, or find nothing.
func TestPutBackThatFailsSaysHowToUndo(t *testing.T) {
	earlier := "20261201-090000-0001"
	for _, tc := range []struct {
		name string
		// earlier is set for a Pod that an earlier run changed, which
		// the put-back puts back as that run's record.
		earlier bool
		// flap is set for the change of a flap, the liveness probe
		// relaxed from 1×10s to 6×20s, and the readiness probe from
		// 3×10s: the put-back leaves the liveness probe (stays), which
		// the undo of the Pod puts back too.
		flap bool
		// meanwhile, when set, is what happens to the Pod after its
		// change, before its put-back, which the API server then answers
		// as it would.
		meanwhile func(t *testing.T, c *cluster)
		// putBack, when set, is the error of the put-back's patch, which
		// stores nothing; unread is set when the Pod cannot be read after
		// it.
		putBack error
		unread  bool
		// want is how the output ends; status is the run's exit status.
		want   string
		status int
	}{{
		name:    "refused by a webhook",
		putBack: apierrors.NewInternalError(errors.New("failed calling webhook")),
		want:    "pod/a: to put it back: kubectl probe undo pod/a -n ns --run " + testRun + "\n",
	}, {
		name:    "timed out, and not stored",
		putBack: apierrors.NewTimeoutError("request did not complete within the allowed duration", 0),
		want:    "pod/a: to put it back: kubectl probe undo pod/a -n ns --run " + testRun + "\n",
	}, {
		name:    "its answer lost, the Pod not readable",
		earlier: true,
		putBack: errors.New("read tcp 10.0.0.1:51234->10.0.0.2:6443: read: connection reset by peer"),
		unread:  true,
		want:    "pod/a: to put back what stands of it, whether or not the put-back was stored: kubectl probe undo pod/a -n ns --run " + testRun + "\n",
	}, {
		name:    "of all but a relaxed probe, refused by a webhook",
		flap:    true,
		putBack: apierrors.NewInternalError(errors.New("failed calling webhook")),
		want:    "pod/a: the put-back was to leave its liveness probe, as the old one would restart the container sooner than the new one (the liveness probe: failureThreshold 1, the new one 6; periodSeconds 10s, the new one 20s); to put it back anyway: kubectl probe undo pod/a -n ns --run " + testRun + "\n",
	}, {
		name:    "of all but a relaxed probe, its answer lost, the Pod not readable",
		flap:    true,
		putBack: errors.New("read tcp 10.0.0.1:51234->10.0.0.2:6443: read: connection reset by peer"),
		unread:  true,
		want:    "pod/a: the put-back was to leave its liveness probe, as the old one would restart the container sooner than the new one (the liveness probe: failureThreshold 1, the new one 6; periodSeconds 10s, the new one 20s); to put back what stands of it anyway, whether or not the put-back was stored: kubectl probe undo pod/a -n ns --run " + testRun + "\n",
	}, {
		name: "refused, as someone else changed the probes",
		meanwhile: func(t *testing.T, c *cluster) {
			obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
			if err != nil {
				t.Fatal(err)
			}
			pod := obj.(*v1.Pod)
			pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 30
			pod.ResourceVersion = "8"
			if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "ns"); err != nil {
				t.Fatal(err)
			}
		},
		want: "error: pod/a: undoing the change: the probes of container \"app\" changed after this run stored its change; undoing it would overwrite that change, so it is left as it is\n",
	}, {
		name: "deleted",
		meanwhile: func(t *testing.T, c *cluster) {
			if err := c.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a"); err != nil {
				t.Fatal(err)
			}
		},
		want:   "error: pod/a: undoing the change: deleted\n",
		status: 1,
	}, {
		name: "recreated",
		meanwhile: func(t *testing.T, c *cluster) {
			if err := c.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a"); err != nil {
				t.Fatal(err)
			}
			pod := namedPods("a")[0]
			pod.UID, pod.ResourceVersion = "uid-a-again", "9"
			if err := c.Tracker().Add(pod); err != nil {
				t.Fatal(err)
			}
		},
		want:   "error: pod/a: undoing the change: recreated: another Pod has its name now\n",
		status: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := namedPods("a")[0]
			var ch change = moveReadiness
			if tc.flap {
				pod.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
				ch = setChange{types: []probeType{liveness, readiness}, settings: settings{periodSeconds: ptr.To[int32](20), failureThreshold: ptr.To[int32](6)}}
			}
			if tc.earlier {
				after, err := stateAt(pod, "app")
				if err != nil {
					t.Fatal(err)
				}
				strict := httpGet("/healthz")
				strict.FailureThreshold = 1
				record := runRecord{Version: recordVersion, Run: earlier, Container: "app", Before: containerState{Probes: map[probeType]*v1.Probe{liveness: strict}}, After: after}
				pod.Annotations = map[string]string{}
				if err := record.write(pod); err != nil {
					t.Fatal(err)
				}
			}
			c := newCluster(pod)
			requireResourceVersion(c)
			patches := 0
			c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) > 0 {
					return false, nil, nil
				}
				if patches++; patches == 1 || tc.putBack == nil {
					return false, nil, nil
				}
				return true, nil, tc.putBack
			})
			c.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				if !tc.unread || patches < 2 {
					return false, nil, nil
				}
				return true, nil, errors.New("dial tcp 10.0.0.2:6443: connect: connection refused")
			})
			r, _, errOut := newRunner(c, ch)
			r.cmdline.targets = []string{"pod/a"}
			r.undoOnFailure, r.report.yes = true, true
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
				if tc.meanwhile != nil {
					tc.meanwhile(t, c)
				}
				return "", errors.New("the new readiness probe failed")
			}
			status := exitStopped
			if tc.status != 0 {
				status = tc.status
			}
			if err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}}); exitStatus(err) != status {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), status)
			}
			if patches != 2 {
				t.Fatalf("%d patches, want the change and its put-back\n%s", patches, errOut)
			}
			if status == exitStopped {
				stored, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
				if err != nil {
					t.Fatal(err)
				}
				if record, err := readRecord(stored.(*v1.Pod)); err != nil || record == nil || record.Run != testRun {
					t.Fatalf("the change is not stored: %+v, %v", record, err)
				}
			}
			if !strings.Contains(errOut.String(), "error: pod/a: undoing the change: ") || !strings.HasSuffix(errOut.String(), tc.want) {
				t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, tc.want)
			}
		})
	}
}

// A run of several Pods that stops at a Pod whose put-back --undo-on-failure
// left alone, since someone else changed its probes meanwhile, names that
// Pod on its own line, not with the Pods that failed, each Pod on one
// list, and leaves it out of the count of the undo of the run, which
// leaves it as it is too; its change may stand, in part, and the run exits
// with status 2.
func TestRunListsAPutBackLeftAlone(t *testing.T) {
	c := newCluster(namedPods("a", "b", "c")...)
	requireResourceVersion(c)
	r, _, errOut := newRunner(c, moveReadiness)
	r.largest = 2
	r.undoOnFailure, r.report.yes = true, true
	r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		if stored.Name != "b" {
			return "proven", nil
		}
		obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "b")
		if err != nil {
			return "", err
		}
		pod := obj.(*v1.Pod)
		pod.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30
		pod.ResourceVersion = "8"
		if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "ns"); err != nil {
			return "", err
		}
		return "", errors.New("the new readiness probe failed")
	}
	if err := r.run(context.Background(), &targets{pods: namedPods("a", "b", "c")}); exitStatus(err) != exitStopped {
		t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
	}
	want := "error: stopped at the first Pod that failed\ndone (2): pod/a pod/c\nfailed (0): none\n" +
		"not put back, as someone else changed their probes after this run did, which kubectl probe undo leaves as they are too (1): pod/b\n" +
		"not started, left as they are (0): none\n" +
		"to put back the 2 Pods that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n"
	if !strings.Contains(errOut.String(), "error: pod/b: undoing the change: the probes of container \"app\" changed after this run stored its change") || !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, want)
	}
	listedOnce(t, errOut.String(), "a", "b", "c")
}

// A run of several Pods that stops lists the Pods skipped during it on a
// list of their own, each Pod on one list: pod/a, deleted during its
// proof, in the first batch, and, meanwhile, pod/b deleted and pod/c's
// probes changed by someone else, each skipped before its patch. The exit
// status is the help's: 2 when a change stands (pod/d's, which failed), 1
// when none does (pod/d's put back by --undo-on-failure), and 3 after an
// interrupt.
func TestRunListsPodsSkippedDuringIt(t *testing.T) {
	skipped := "skipped during the run, deleted, recreated or left as they are (3): pod/a pod/b pod/c\n"
	for _, tc := range []struct {
		name          string
		undoOnFailure bool
		// interrupt interrupts the run during pod/d's proof, which
		// passes; otherwise pod/d fails it.
		interrupt bool
		want      string
		status    int
	}{{
		name: "stopped at a change that stands",
		want: "error: stopped at the first Pod that failed\ndone (0): none\nfailed (1): pod/d\n" + skipped +
			"not started, left as they are (1): pod/e\n" +
			"to put back the 1 Pod that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n",
		status: exitStopped,
	}, {
		name:          "stopped at a change put back",
		undoOnFailure: true,
		want: "error: stopped at the first Pod that failed\ndone (0): none\nfailed (1): pod/d\n" + skipped +
			"not started, left as they are (1): pod/e\n",
		status: 1,
	}, {
		name:      "interrupted",
		interrupt: true,
		want: "error: interrupted\ndone (1): pod/d\nfailed (0): none\n" + skipped +
			"not started, left as they are (1): pod/e\n" +
			"to put back the 1 Pod that this run changed: kubectl probe undo deployment/web -n ns --run " + testRun + "\n",
		status: exitInterrupted,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"a", "b", "c", "d", "e"}
			c := newCluster(namedPods(names...)...)
			pods := v1.SchemeGroupVersion.WithResource("pods")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, out, errOut := newRunner(c, moveReadiness)
			r.undoOnFailure, r.report.yes = tc.undoOnFailure, true
			r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				switch stored.Name {
				case "a":
					obj, err := c.Tracker().Get(pods, "ns", "c")
					if err != nil {
						return "", err
					}
					edited := obj.(*v1.Pod)
					edited.Spec.Containers[0].ReadinessProbe.PeriodSeconds = 30
					edited.ResourceVersion = "8"
					for _, err := range []error{
						c.Tracker().Update(pods, edited, "ns"),
						c.Tracker().Delete(pods, "ns", "b"),
						c.Tracker().Delete(pods, "ns", "a"),
					} {
						if err != nil {
							return "", err
						}
					}
					return "", &podGoneError{reason: "deleted"}
				case "d":
					if !tc.interrupt {
						return "", errors.New("the new readiness probe failed")
					}
					cancel()
				}
				return "proven", nil
			}
			if err := r.run(ctx, &targets{pods: namedPods(names...)}); exitStatus(err) != tc.status {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), tc.status)
			}
			said := "pod/b skipped: deleted\n" + `pod/c skipped: left as it is: someone else changed the probes of container "app" since the pre-check` + "\n"
			if !strings.Contains(out.String(), said) || !strings.Contains(errOut.String(), "pod/a: changed, then deleted\n") {
				t.Errorf("printed\n%s\nand\n%s\nwant pod/a changed, then deleted, and in the first\n%s", out, errOut, said)
			}
			if !strings.HasSuffix(errOut.String(), tc.want) {
				t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, tc.want)
			}
			listedOnce(t, errOut.String(), names...)
		})
	}
}

// endLists matches a list of Pods at the end of a run that stopped
// (reporter.finished): its name, count and Pods.
var endLists = regexp.MustCompile(`(?m)^(done|failed|kept, [^(]*|not put back, [^(]*|put back, in flight when interrupted|skipped during the run, [^(]*|not started, left as they are) \((\d+)\): (.*)$`)

// listedOnce checks that the lists at the end of a run that stopped name
// each of the Pods once, and no other, each list as many as it counts.
func listedOnce(t *testing.T, printed string, names ...string) {
	t.Helper()
	listed := map[string]int{}
	for _, m := range endLists.FindAllStringSubmatch(printed, -1) {
		var pods []string
		if m[3] != "none" {
			pods = strings.Fields(m[3])
		}
		if n, _ := strconv.Atoi(m[2]); n != len(pods) {
			t.Errorf("%q counts %d Pods, and lists %d", m[0], n, len(pods))
		}
		for _, pod := range pods {
			listed[strings.TrimPrefix(pod, "pod/")]++
		}
	}
	want := map[string]int{}
	for _, name := range names {
		want[name] = 1
	}
	if !maps.Equal(listed, want) {
		t.Errorf("the lists at the end name %v, want each of %v once:\n%s", listed, names, printed)
	}
}

// A put-back by --undo-on-failure that finds that someone else put the
// run's change back meanwhile, of each probe type that it changed, by hand
// or with the run's own kubectl probe undo, leaves the Pod as it is, and
// counts it as put back: no change of the run stands, and the run exits
// with status 1. One that finds the run's change there still, under
// someone else's change, leaves it alone with the change standing, and the
// run exits with status 2.
func TestRunOfAPutBackDoneMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name string
		// meanwhile is what someone else does to the Pod, as the run
		// stored it, while its proof runs.
		meanwhile func(t *testing.T, pod *v1.Pod) *v1.Pod
		want      string
		status    int
	}{{
		name: "put back by hand",
		meanwhile: func(_ *testing.T, pod *v1.Pod) *v1.Pod {
			pod.Spec.Containers[0].ReadinessProbe = httpGet("/ready")
			return pod
		},
		want: "pod/a: undone already: someone else put back what this run changed of its probes\n" +
			"error: stopped at the first Pod that failed\ndone (0): none\nfailed (1): pod/a\n" +
			"not started, left as they are (2): pod/b pod/c\n",
		status: 1,
	}, {
		name: "put back by the run's own kubectl probe undo",
		meanwhile: func(t *testing.T, pod *v1.Pod) *v1.Pod {
			undone, _, err := modify(pod, "", undoRun{run: testRun, undoneBy: "20261204-101600-5e1d"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return undone
		},
		want: "pod/a: undone already: someone else put back what this run changed of its probes\n" +
			"error: stopped at the first Pod that failed\ndone (0): none\nfailed (1): pod/a\n" +
			"not started, left as they are (2): pod/b pod/c\n",
		status: 1,
	}, {
		name: "put back by hand, with another probe changed",
		meanwhile: func(_ *testing.T, pod *v1.Pod) *v1.Pod {
			pod.Spec.Containers[0].ReadinessProbe = httpGet("/ready")
			pod.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30
			return pod
		},
		want: "pod/a: undone already: someone else put back what this run changed of its probes\n" +
			"error: stopped at the first Pod that failed\ndone (0): none\nfailed (1): pod/a\n" +
			"not started, left as they are (2): pod/b pod/c\n",
		status: 1,
	}, {
		name: "another probe changed",
		meanwhile: func(_ *testing.T, pod *v1.Pod) *v1.Pod {
			pod.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30
			return pod
		},
		want: "error: pod/a: undoing the change: the probes of container \"app\" changed after this run stored its change; undoing it would overwrite that change, so it is left as it is\n" +
			"error: stopped at the first Pod that failed\ndone (0): none\nfailed (0): none\n" +
			"not put back, as someone else changed their probes after this run did, which kubectl probe undo leaves as they are too (1): pod/a\n" +
			"not started, left as they are (2): pod/b pod/c\n",
		status: exitStopped,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(namedPods("a", "b", "c")...)
			requireResourceVersion(c)
			r, _, errOut := newRunner(c, moveReadiness)
			r.undoOnFailure, r.report.yes = true, true
			r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
				obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
				if err != nil {
					return "", err
				}
				pod := tc.meanwhile(t, obj.(*v1.Pod))
				pod.ResourceVersion = "8"
				if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "ns"); err != nil {
					return "", err
				}
				return "", errors.New("the new readiness probe failed")
			}
			if err := r.run(context.Background(), &targets{pods: namedPods("a", "b", "c")}); exitStatus(err) != tc.status {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), tc.status)
			}
			if !strings.HasSuffix(errOut.String(), tc.want) {
				t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, tc.want)
			}
			listedOnce(t, errOut.String(), "a", "b", "c")
		})
	}
}

// -o json says of a Pod whose put-back --undo-on-failure left alone the
// container's probes after the run: as the Pod has them, with the change
// of whoever changed them meanwhile, not as the run's change stored them.
func TestResultOfAPutBackLeftAlone(t *testing.T) {
	c := newCluster(namedPods("a")...)
	requireResourceVersion(c)
	r, out, errOut := newRunner(c, moveReadiness)
	r.report = newTestReporter(out, errOut, "json", "probes set")
	r.undoOnFailure, r.report.yes = true, true
	r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
		obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
		if err != nil {
			return "", err
		}
		pod := obj.(*v1.Pod)
		pod.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30
		pod.ResourceVersion = "8"
		if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "ns"); err != nil {
			return "", err
		}
		return "", errors.New("the new readiness probe failed")
	}
	if err := r.run(context.Background(), &targets{pods: namedPods("a")}); exitStatus(err) != exitStopped {
		t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
	}
	obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
	if err != nil {
		t.Fatal(err)
	}
	var results resultList
	if err := json.Unmarshal(out.Bytes(), &results); err != nil || len(results.Items) != 1 {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	if want := probesOf(obj.(*v1.Pod), "app"); !apiequality.Semantic.DeepEqual(results.Items[0].Probes, want) {
		t.Errorf("-o json probes:\n%s\nwant the Pod's:\n%v", out, want)
	}
}

// A relaxation whose proof failed, which --undo-on-failure keeps since the
// old probes would restart the container sooner, stops the run, and is
// listed as kept, not with the Pods that failed and were put back. The
// undo of the run, which puts back the relaxed probes too, of a Pod kept
// in whole or in part, or whose put-back, which was to leave them, failed,
// says so, as each Pod's line does, in words true of each Pod that it
// names.
func TestRunListsAKeptRelaxation(t *testing.T) {
	// flap relaxes the liveness probe from 1×10s to 6×20s, and makes the
	// readiness probe's period another: the put-back leaves the liveness
	// probe, and puts back the readiness probe.
	flap := setChange{types: []probeType{liveness, readiness}, settings: settings{periodSeconds: ptr.To[int32](20), failureThreshold: ptr.To[int32](6)}}
	for _, tc := range []struct {
		name   string
		change setChange
		// putBack, when set, is the error of the put-back's patch.
		putBack error
		// thresholds, when set, are the failureThresholds of the
		// liveness and readiness probes of the Pods that fail their
		// proof, in a batch of two; otherwise the liveness probes' is 1,
		// and pod/b fails, alone.
		thresholds map[string][2]int32
		want       string
	}{{
		name:   "kept in whole",
		change: relax,
		want: "done (1): pod/a\nfailed (0): none\n" +
			"kept, though not proven, in whole or in part, as their old probes would restart the container sooner or keep it out of readiness more (1): pod/b\n" +
			"not started, left as they are (1): pod/c\n" +
			"to put back the 2 Pods that this run changed, the relaxed probes of pod/b too, though their old ones would restart the container sooner than the new ones: kubectl probe undo deployment/web -n ns --run " + testRun + "\n",
	}, {
		name:   "put back but for the relaxed probe",
		change: flap,
		want: "done (1): pod/a\nfailed (0): none\n" +
			"kept, though not proven, in whole or in part, as their old probes would restart the container sooner or keep it out of readiness more (1): pod/b\n" +
			"not started, left as they are (1): pod/c\n" +
			"to put back the 2 Pods that this run changed, the relaxed probes of pod/b too, though their old ones would restart the container sooner than the new ones: kubectl probe undo deployment/web -n ns --run " + testRun + "\n",
	}, {
		name:    "a put-back that was to leave the relaxed probe, refused",
		change:  flap,
		putBack: apierrors.NewInternalError(errors.New("failed calling webhook")),
		want: "done (1): pod/a\nfailed (1): pod/b\n" +
			"not started, left as they are (1): pod/c\n" +
			"to put back the 2 Pods that this run changed, the relaxed probes of pod/b too, though their old ones would restart the container sooner than the new ones: kubectl probe undo deployment/web -n ns --run " + testRun + "\n",
	}, {
		// pod/b keeps its relaxed liveness probe, pod/c its relaxed
		// readiness probe: the undo's words are true of each.
		name:       "kept, for reasons that differ between the Pods",
		change:     setChange{types: []probeType{liveness, readiness}, settings: settings{failureThreshold: ptr.To[int32](6)}},
		thresholds: map[string][2]int32{"b": {1, 6}, "c": {6, 3}},
		want: "done (1): pod/a\nfailed (0): none\n" +
			"kept, though not proven, in whole or in part, as their old probes would restart the container sooner or keep it out of readiness more (2): pod/b pod/c\n" +
			"not started, left as they are (0): none\n" +
			"to put back the 3 Pods that this run changed, the relaxed probes of pod/b pod/c too, though their old ones would restart the container sooner or keep it out of readiness more than the new ones: kubectl probe undo deployment/web -n ns --run " + testRun + "\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pods := namedPods("a", "b", "c")
			for _, pod := range pods {
				pod.Spec.Containers[0].LivenessProbe.FailureThreshold = 1
				if th, ok := tc.thresholds[pod.Name]; ok {
					pod.Spec.Containers[0].LivenessProbe.FailureThreshold = th[0]
					pod.Spec.Containers[0].ReadinessProbe.FailureThreshold = th[1]
				}
			}
			c := newCluster(pods...)
			patches := 0
			c.refuse = func(name string, dryRun bool) error {
				if name == "b" && !dryRun {
					if patches++; patches == 2 {
						return tc.putBack
					}
				}
				return nil
			}
			r, _, errOut := newRunner(c, tc.change)
			if tc.thresholds != nil {
				r.largest = 2
			}
			r.undoOnFailure, r.report.yes = true, true
			r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
				if _, fails := tc.thresholds[stored.Name]; fails || stored.Name == "b" {
					return "", errors.New("the new liveness probe reached its failureThreshold")
				}
				return "proven", nil
			}
			if err := r.run(context.Background(), &targets{pods: pods}); exitStatus(err) != exitStopped {
				t.Errorf("err = %v (exit status %d), want exit status %d", err, exitStatus(err), exitStopped)
			}
			if want := "error: stopped at the first Pod that failed\n" + tc.want; !strings.HasSuffix(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant it to end in\n%s", errOut, want)
			}
			listedOnce(t, errOut.String(), "a", "b", "c")
		})
	}
}

// A change interrupted before it was proven, with --undo-on-failure, did
// not fail: its old probes are weighed whatever their handler.
func TestStaysInterrupted(t *testing.T) {
	was := map[probeType]*v1.Probe{liveness: httpGet("/healthz")}
	now := map[probeType]*v1.Probe{liveness: httpGet("/livez")}
	now[liveness].TimeoutSeconds = 5
	if staying := stays(was, now, true); len(staying) > 0 {
		t.Errorf("failed: %q, want the new handler put back", staying)
	}
	want := map[probeType]string{liveness: "the liveness probe: timeoutSeconds 1s, the new one 5s"}
	if staying := stays(was, now, false); !maps.Equal(staying, want) {
		t.Errorf("interrupted: %q, want %q", staying, want)
	}
}

// A change that keeps the probe's handler, and changes only its timing or
// thresholds, asks what the old probe asks: that it fails now is what the
// old probe finds too, which a relaxed liveness probe is meant to tolerate
// while a dependency flaps. Such a failure does not refuse the Pod: the
// command says so, and the proof after the change judges the probe by its
// threshold. A changed handler that fails now still refuses it.
func TestPrecheckFailureOfTheSameHandler(t *testing.T) {
	failing := tried{answer: "answered 503 Service Unavailable"}
	for _, tc := range []struct {
		name    string
		change  setChange
		refused bool
	}{
		{name: "relaxed", change: relax},
		{name: "moved", change: moveLiveness, refused: true},
		// The same handler, but it restarts the container after fewer
		// failures: failing now, it would restart it at once.
		{name: "tightened", change: setChange{types: []probeType{liveness}, settings: settings{failureThreshold: ptr.To[int32](1)}}, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(namedPods("a", "b")...)
			r, _, errOut := newRunner(c, tc.change)
			r.wait = waitNone
			r.prober = fakeProber{"a": failing, "b": {ok: true, answer: "answered 200 OK"}}
			err := r.run(context.Background(), &targets{pods: namedPods("a", "b")})
			_, patches := c.sent()
			if tc.refused {
				if exitStatus(err) != 1 || len(patches) > 0 {
					t.Errorf("run = %v, patched %v; want the run refused\n%s", err, patches, errOut)
				}
				return
			}
			if err != nil || !slices.Equal(patches, []string{"a", "b"}) {
				t.Fatalf("run = %v, patched %v; want a and b changed\n%s", err, patches, errOut)
			}
			want := "pre-check: the new liveness probe fails now on 1 Pod, as the old one does, which asks the same: http-get http://:8080/healthz: answered 503 Service Unavailable; no wait after the change judges it (--wait=none)\n"
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
			}
		})
	}
}

// A pre-check that cannot reach the Pods through the API server refuses
// none: it says that the new probe was not tried, and why, and the run
// changes the Pods, each change proven, which judges the new probe.
func TestPrecheckUnreachableGoesOn(t *testing.T) {
	unreachable := tried{notTried: "the API server cannot reach the Pod: dial tcp 10.88.0.5:8080: i/o timeout"}
	c := newCluster(namedPods("a", "b")...)
	r, out, errOut := newRunner(c, moveReadiness)
	r.prober = fakeProber{"a": unreachable, "b": unreachable}
	var proven []string
	r.prove = func(_ context.Context, _, stored *v1.Pod, _ string) (string, error) {
		proven = append(proven, stored.Name)
		return "the kubelet applied generation 2", nil
	}
	if err := r.run(context.Background(), &targets{pods: namedPods("a", "b")}); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	if want := "pre-check: the new readiness probe was not tried on 2 Pods: the API server cannot reach the Pod: dial tcp 10.88.0.5:8080: i/o timeout; the wait after each change judges it\n"; !strings.Contains(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant %q in it", errOut, want)
	}
	if _, patches := c.sent(); !slices.Equal(patches, []string{"a", "b"}) || !slices.Equal(proven, []string{"a", "b"}) {
		t.Errorf("patched %v and proved %v, want a and b", patches, proven)
	}
	if got := out.String(); got != "pod/a probes set\npod/b probes set\n" {
		t.Errorf("printed %q", got)
	}
}

// A try that the container refused, reset or closed before it answered is
// no answer of the new probe when the container is starting (within the
// time the new probe gives it to start, its initialDelaySeconds and
// failureThreshold periods, and not found Ready by a readiness probe yet:
// the kubelet would not restart it for that either), or in a restart loop (its last run ended
// within 10 minutes), where it may not listen yet, or stop before the try
// reaches it, whatever its status said. The probe was not tried, at once,
// and the proof after the change judges it. A container that a readiness
// probe found Ready, or that started longer ago, and has not stopped
// lately, refused the try itself, and one that answered answered: those
// refuse the Pod.
func TestPrecheckContainerStarting(t *testing.T) {
	refused := tried{answer: "connection refused", dropped: true}
	for _, tc := range []struct {
		name    string
		got     tried
		started time.Duration
		// initialDelay is the new probe's initialDelaySeconds; it has
		// failureThreshold 3 and periodSeconds 10.
		initialDelay int32
		// ready and restarts are the container's Ready and restart count,
		// and ended how long ago its last run ended; unless ready,
		// restarts is 3, and it never ran before. noReadiness removes
		// the container's readiness probe.
		ready, noReadiness bool
		restarts           int32
		ended              time.Duration
		// notTried is why the pre-check did not try the probe; "" when it
		// refused the Pod.
		notTried string
	}{{
		name: "started 3s ago", got: refused, started: 3 * time.Second,
		notTried: "the container is starting, within the time the new probe gives it to start, and no readiness probe has found it Ready yet, and did not answer (connection refused)",
	}, {
		name: "started 40s ago, within the initial delay", got: refused, started: 40 * time.Second, initialDelay: 20,
		notTried: "the container is starting, within the time the new probe gives it to start, and no readiness probe has found it Ready yet, and did not answer (connection refused)",
	}, {
		name: "started 31s ago", got: refused, started: 31 * time.Second,
	}, {
		name: "started 3s ago, answered", got: tried{answer: "answered 500 Internal Server Error"}, started: 3 * time.Second,
	}, {
		// Ready, and never stopped: it serves, and nothing listens on
		// the port.
		name: "started 3s ago, Ready, never restarted", got: refused, started: 3 * time.Second, ready: true,
	}, {
		// Ready, with no readiness probe: running, listening or not.
		name: "started 3s ago, Ready with no readiness probe", got: refused, started: 3 * time.Second, ready: true, noReadiness: true,
		notTried: "the container is starting, within the time the new probe gives it to start, and no readiness probe has found it Ready yet, and did not answer (connection refused)",
	}, {
		name: "started 31s ago, Ready with no readiness probe", got: refused, started: 31 * time.Second, ready: true, noReadiness: true,
	}, {
		name: "started 3s ago, Ready, its last run ended 5s ago", got: refused, started: 3 * time.Second, ready: true, restarts: 3, ended: 5 * time.Second,
		notTried: "the container is in a restart loop, and did not answer (connection refused)",
	}, {
		name: "Ready, its last run ended 11m ago", got: refused, started: 10 * time.Minute, ready: true, restarts: 3, ended: 11 * time.Minute,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pod := namedPods("a")[0]
				pod.Spec.Containers[0].LivenessProbe.FailureThreshold = 3
				pod.Spec.Containers[0].LivenessProbe.PeriodSeconds = 10
				pod.Spec.Containers[0].LivenessProbe.InitialDelaySeconds = tc.initialDelay
				if tc.noReadiness {
					pod.Spec.Containers[0].ReadinessProbe = nil
				}
				pod.Status.Phase = v1.PodRunning
				started := metav1.NewTime(time.Now().Add(-tc.started))
				restarts := tc.restarts
				if !tc.ready {
					restarts = 3
				}
				pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Ready: tc.ready, RestartCount: restarts, ContainerID: "containerd://1", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: started}}}}
				if tc.ended > 0 {
					pod.Status.ContainerStatuses[0].LastTerminationState.Terminated = &v1.ContainerStateTerminated{ExitCode: 137, FinishedAt: metav1.NewTime(time.Now().Add(-tc.ended))}
				}
				c := newCluster(pod)
				r, _, errOut := newRunner(c, moveLiveness)
				r.wait = waitNone
				r.prober = proberFunc(func(context.Context, *v1.Pod, *v1.Container, *v1.Probe) tried { return tc.got })
				began := time.Now()
				err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}})
				checkTried(t, c, err, errOut.String(), tc.got.answer, tc.notTried)
				// Not tried, it did not wait for the kubelet to report a stop.
				if waited := time.Since(began); tc.notTried != "" && waited >= stopGrace {
					t.Errorf("the pre-check waited %s", waited)
				}
			})
		})
	}
}

// A try that the container refused, reset or closed before it answered is
// no answer of the new probe when the container restarted or stopped since
// the Pod was read, as a crash-looping one does a second or two after it
// starts: the probe was not tried, and the run goes on, the proof after the
// change judging it. The kubelet reports the stop a moment after it, so the
// pre-check reads the Pod again for a while. A container that runs on, as
// it was, refused the try itself, and one that answered answered: those
// refuse the Pod.
func TestPrecheckContainerStoppedDuringTry(t *testing.T) {
	restart := func(s *v1.ContainerStatus) {
		s.RestartCount++
		s.ContainerID = "containerd://2"
	}
	backOff := func(s *v1.ContainerStatus) {
		s.State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: crashLoopBackOff}}
	}
	refused := tried{answer: "connection refused", dropped: true}
	for _, tc := range []struct {
		name string
		got  tried
		// stop changes the container's status, reported after reported;
		// nil for never.
		stop     func(*v1.ContainerStatus)
		reported time.Duration
		// notTried is why the pre-check did not try the probe; "" when it
		// refused the Pod.
		notTried string
	}{{
		name: "restarted, reported at once", got: refused, stop: restart,
		notTried: "the container restarted while it was tried (connection refused)",
	}, {
		name: "restarted, reported 2s later", got: tried{answer: "connection reset by peer", dropped: true}, stop: restart, reported: 2 * time.Second,
		notTried: "the container restarted while it was tried (connection reset by peer)",
	}, {
		name: "stopped, waiting out its back-off", got: tried{answer: "EOF", dropped: true}, stop: backOff, reported: time.Second,
		notTried: "the container stopped while it was tried (EOF)",
	}, {
		name: "runs on: nothing listens on the port", got: refused,
	}, {
		name: "answered, then restarted", got: tried{answer: "answered 500 Internal Server Error"}, stop: restart,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pod := namedPods("a")[0]
				pod.Status.Phase = v1.PodRunning
				pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", RestartCount: 3, ContainerID: "containerd://1", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
				c := newCluster(pod)
				r, _, errOut := newRunner(c, moveLiveness)
				r.wait = waitNone
				reported := make(chan struct{})
				r.prober = proberFunc(func(ctx context.Context, _ *v1.Pod, _ *v1.Container, _ *v1.Probe) tried {
					if tc.stop == nil {
						close(reported)
					} else {
						go func() {
							defer close(reported)
							time.Sleep(tc.reported)
							now, err := c.CoreV1().Pods("ns").Get(ctx, "a", metav1.GetOptions{})
							if err != nil {
								t.Error(err)
								return
							}
							tc.stop(&now.Status.ContainerStatuses[0])
							if _, err := c.CoreV1().Pods("ns").UpdateStatus(ctx, now, metav1.UpdateOptions{}); err != nil {
								t.Error(err)
							}
						}()
					}
					return tc.got
				})
				err := r.run(context.Background(), &targets{pods: []*v1.Pod{pod}})
				<-reported
				checkTried(t, c, err, errOut.String(), tc.got.answer, tc.notTried)
			})
		})
	}
}

// checkTried checks how a run on pod/a whose pre-check tried a new liveness
// probe on it, which answered answer, ended: with the Pod refused and
// nothing patched when notTried is "", and otherwise with the Pod changed
// and the try said to be not tried, for notTried, and judged by nothing
// after the change, as the run waits for none.
func checkTried(t *testing.T, c *cluster, err error, printed, answer, notTried string) {
	t.Helper()
	_, patches := c.sent()
	if notTried == "" {
		want := `error: pod/a: the new liveness probe of container "app" fails now: http-get http://:8080/livez: ` + answer + "\nhint: --skip-check stores it anyway\n"
		if exitStatus(err) != 1 || len(patches) > 0 || !strings.HasSuffix(printed, want) {
			t.Errorf("run = %v, patched %v, printed\n%s\nwant the Pod refused, nothing patched, and it to end in\n%s", err, patches, printed, want)
		}
		return
	}
	if err != nil || !slices.Equal(patches, []string{"a"}) {
		t.Errorf("run = %v, patched %v; want pod/a changed\n%s", err, patches, printed)
	}
	if want := "pre-check: the new liveness probe was not tried on 1 Pod: " + notTried + "; no wait after the change judges it (--wait=none)\n"; !strings.Contains(printed, want) {
		t.Errorf("printed\n%s\nwant in it\n%s", printed, want)
	}
}

// A Pod on a node that is not Ready, whose kubelet stopped reporting, keeps
// its container running in its status, but not Ready: it would go first,
// as a Pod that is not Ready, and its kubelet would never report the
// change, so the run would stop at it after --wait-timeout. The pre-check
// skips it, and the others change; unless the user may not read Nodes,
// which leaves it as before.
func TestPrecheckSkipsPodsOnNodesNotReady(t *testing.T) {
	for _, tc := range []struct {
		name            string
		forbidden, none bool
		patched         []string
	}{
		{name: "the node read", patched: []string{"b"}},
		{name: "Nodes forbidden", forbidden: true, patched: []string{"a", "b"}},
		// A run that waits on no change stores it, for the kubelet to
		// apply when it reports again.
		{name: "--wait=none", none: true, patched: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := namedPods("a", "b")
			pods[0].Spec.NodeName, pods[1].Spec.NodeName = "lost", "up"
			c := newCluster(pods...)
			for name, status := range map[string]v1.ConditionStatus{"lost": v1.ConditionUnknown, "up": v1.ConditionTrue} {
				node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: status, Reason: "NodeStatusUnknown"}}}}
				if _, err := c.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.forbidden {
				c.PrependReactor("get", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "lost", errors.New("not yours"))
				})
			}
			r, out, errOut := newRunner(c, moveLiveness)
			r.nodes = newNodeReadiness(c, r.report.nodesUnread)
			if tc.none {
				r.wait = waitNone
			}
			if err := r.run(context.Background(), &targets{pods: pods}); err != nil {
				t.Fatalf("run: %v\n%s", err, errOut)
			}
			if _, patches := c.sent(); !slices.Equal(patches, tc.patched) {
				t.Errorf("patched %v, want %v\n%s", patches, tc.patched, errOut)
			}
			skipped := `pod/a skipped: its node "lost" is not Ready (NodeStatusUnknown): its kubelet cannot apply the change until it is; run the command again then, or replace the Pod`
			if want := !tc.forbidden && !tc.none; strings.Contains(out.String(), skipped) != want {
				t.Errorf("printed\n%s\nwant %q in it: %t", out, skipped, want)
			}
			// Once, though neither node can be read.
			unread := "warning: cannot read the Pods' nodes, so a Pod on a node that is not Ready is not skipped"
			if got, want := strings.Count(errOut.String(), unread), map[bool]int{true: 1}[tc.forbidden && !tc.none]; got != want {
				t.Errorf("warned %d times that the nodes cannot be read, want %d\n%s", got, want, errOut)
			}
		})
	}
}
