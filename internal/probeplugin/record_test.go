package probeplugin

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// A Pod read after a run's change says how its record of the run was
// replaced: by another run's, of any container; removed; by one that
// kubectl probe cannot read; or rewritten under the run's own ID; and, but
// for the last, that no kubectl probe undo of the run puts it back then.
func TestReplacedRecord(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 15, 2, 0, time.UTC)
	stored, err := applyChange(t, webPod(), recorded{change: relax, run: "r1", time: at}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rewritten, err := readRecord(stored)
	if err != nil {
		t.Fatal(err)
	}
	rewritten.Before = containerState{}
	for _, tc := range []struct {
		name string
		now  func(t *testing.T) *v1.Pod
		want string
	}{
		{"the run's", func(*testing.T) *v1.Pod { return stored.DeepCopy() }, ""},
		{"another run's", func(t *testing.T) *v1.Pod {
			again, err := applyChange(t, stored, recorded{change: disableChange{types: []probeType{readiness}}, run: "r2", time: at.Add(time.Minute)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return again
		}, "the Pod's record of this run was replaced, by run r2's; it is left as it is, with that record, and no kubectl probe undo of this run puts it back while that record is there (a put-back in full by that run's --undo-on-failure brings this run's record back)"},
		{"a third run's, after another", func(t *testing.T) *v1.Pod {
			again, err := applyChange(t, stored, recorded{change: disableChange{types: []probeType{readiness}}, run: "r2", time: at.Add(time.Minute)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			third, err := applyChange(t, again, recorded{change: disableChange{types: []probeType{liveness}}, run: "r3", time: at.Add(2 * time.Minute)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return third
		}, "the Pod's record of this run was replaced, by run r3's; it is left as it is, with that record, and no kubectl probe undo of this run puts it back while that record is there"},
		{"removed", func(*testing.T) *v1.Pod {
			now := stored.DeepCopy()
			delete(now.Annotations, lastRunAnnotation)
			return now
		}, "the Pod's record of this run was removed; it is left as it is, and no kubectl probe undo of this run puts it back without that record"},
		{"unreadable", func(*testing.T) *v1.Pod {
			now := stored.DeepCopy()
			now.Annotations[lastRunAnnotation] = "{"
			return now
		}, "the Pod's record of this run was replaced, by one that kubectl probe cannot read; it is left as it is, with that record, and no kubectl probe undo of this run puts it back while that record is there"},
		{"rewritten", func(t *testing.T) *v1.Pod {
			now := stored.DeepCopy()
			if err := rewritten.write(now); err != nil {
				t.Fatal(err)
			}
			return now
		}, "the Pod's record of this run was changed by someone else; it is left as it is, with that record"},
	} {
		if got := replacedRecord(stored, tc.now(t)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A run records what it replaced on each Pod it changes, in the same
// change: the container's probes and kept probes before and after, and
// the runs before it. A change that changes nothing records nothing.
func TestRecorded(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 15, 2, 0, time.UTC)
	changed, err := applyChange(t, webPod(), recorded{change: relax, run: "r1", time: at}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := readRecord(changed)
	if err != nil || r == nil {
		t.Fatalf("readRecord: %+v, %v", r, err)
	}
	relaxed := httpGet("/healthz")
	relaxed.TimeoutSeconds = 10
	want := &runRecord{
		Version: "v1", Run: "r1", Time: metav1.NewTime(at), Container: "app",
		Before: containerState{Probes: map[probeType]*v1.Probe{liveness: httpGet("/healthz"), readiness: httpGet("/ready")}},
		After:  containerState{Probes: map[probeType]*v1.Probe{liveness: relaxed, readiness: httpGet("/ready")}},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}

	// Unchanged: no record.
	same, err := applyChange(t, webPod(), recorded{change: setChange{types: []probeType{liveness}, settings: settings{timeoutSeconds: ptr.To[int32](1)}}, run: "r1", time: at}, nil)
	if err != nil || same.Annotations[lastRunAnnotation] != "" {
		t.Errorf("a change that changes nothing: %v, annotations %v", err, same.Annotations)
	}

	// A second run keeps the first's ID among the earlier ones.
	again, err := applyChange(t, changed, recorded{change: disableChange{types: []probeType{readiness}}, run: "r2", time: at.Add(time.Minute)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := readRecord(again); err != nil || r.Run != "r2" || !slices.Equal(r.Earlier, []string{"r1"}) || r.After.Disabled[readiness] == nil || r.After.Probes[readiness] != nil {
		t.Errorf("the second run's record: %+v, %v", r, err)
	}
}

// undo puts back what its run replaced, on a Pod that nobody changed since,
// and leaves the others alone, saying why.
func TestUndoRun(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 15, 2, 0, time.UTC)
	run := func(pod *v1.Pod, ch change, id string) *v1.Pod {
		t.Helper()
		changed, err := applyChange(t, pod, recorded{change: ch, run: id, time: at}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return changed
	}
	relaxed := run(webPod(), relax, "r1")
	disabled := run(webPod(), disableChange{types: []probeType{liveness}}, "r1")
	editedSince := relaxed.DeepCopy()
	editedSince.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30
	// The API server sets a field that the run left unset when it stores
	// the Pod: an httpGet probe's protocol, with H2CContainerProbe on.
	defaultedSince := relaxed.DeepCopy()
	defaultedSince.Spec.Containers[0].LivenessProbe.HTTPGet.Protocol = ptr.To(v1.HTTPProtocolHTTP1)
	// Someone set a field that the run left unset: not a default.
	headerSince := relaxed.DeepCopy()
	headerSince.Spec.Containers[0].LivenessProbe.HTTPGet.HTTPHeaders = []v1.HTTPHeader{{Name: "Host", Value: "api.internal"}}
	laterRun := run(relaxed, removeChange{types: []probeType{readiness}}, "r2")
	undone, err := applyChange(t, relaxed, undoRun{run: "r1", undoneBy: "u1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	execPod := webPod()
	execPod.Spec.Containers[0].LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"cat", "/tmp/alive"}}}}
	execRelaxed := run(execPod, relax, "r1")
	template := &podTemplate{name: "replicaset.apps/web-1", spec: &execPod.Spec}
	otherTemplate := &podTemplate{name: "replicaset.apps/web-2", spec: &webPod().Spec}

	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		template *podTemplate
		force    bool
		// want is the Pod's container as undo leaves it.
		want     *v1.Pod
		wantKept bool
		wantErr  string
		skipped  bool
	}{{
		name: "a change of a probe",
		pod:  relaxed,
		want: webPod(),
	}, {
		name: "a probe disabled: back, and no longer kept",
		pod:  disabled,
		want: webPod(),
	}, {
		name: "a field that the run left unset, defaulted by the API server",
		pod:  defaultedSince,
		want: webPod(),
	}, {
		name:    "a Pod whose probes someone changed since",
		pod:     editedSince,
		wantErr: `left as it is: the probes of container "app" changed after run r1`,
		skipped: true,
	}, {
		name:    "a Pod whose probes someone gave a field that the run left unset",
		pod:     headerSince,
		wantErr: `left as it is: the probes of container "app" changed after run r1`,
		skipped: true,
	}, {
		name:    "a Pod that a later run changed",
		pod:     laterRun,
		wantErr: "left as it is: run r2 changed it after run r1",
		skipped: true,
	}, {
		name:    "a Pod undone already",
		pod:     undone,
		wantErr: "run r1 is undone already, by u1",
		skipped: true,
	}, {
		name:    "a Pod without a record",
		pod:     webPod(),
		wantErr: "no run of kubectl probe is recorded on it",
		skipped: true,
	}, {
		name:     "an exec probe, the template's",
		pod:      execRelaxed,
		template: template,
		want:     execPod,
	}, {
		name:    "an exec probe, without a template",
		pod:     execRelaxed,
		wantErr: `the liveness probe that run r1 replaced on container "app" runs a command, exec [cat /tmp/alive], and anyone who may patch the Pod may have written its record; with no template to compare it with, only --force puts it back`,
	}, {
		name:     "an exec probe that is not the template's",
		pod:      execRelaxed,
		template: otherTemplate,
		wantErr:  `the liveness probe that run r1 replaced on container "app" runs a command, exec [cat /tmp/alive], that is not the template's, and anyone who may patch the Pod may have written its record; --force puts it back`,
	}, {
		name:  "an exec probe, with --force",
		pod:   execRelaxed,
		force: true,
		want:  execPod,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyChange(t, tc.pod, undoRun{run: "r1", undoneBy: "u2", force: tc.force}, tc.template)
			if tc.wantErr != "" {
				var left *leftAlone
				if err == nil || err.Error() != tc.wantErr || errors.As(err, &left) != tc.skipped {
					t.Errorf("undo: %v, want %q (left alone: %v)", err, tc.wantErr, tc.skipped)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want.Spec.Containers, got.Spec.Containers); diff != "" {
				t.Errorf("containers (-want +got):\n%s", diff)
			}
			if kept := got.Annotations[keptAnnotation]; kept != "" {
				t.Errorf("kept after the undo: %s", kept)
			}
			if r, err := readRecord(got); err != nil || r.UndoneBy != "u2" || r.Run != "r1" {
				t.Errorf("the record after the undo: %+v, %v", r, err)
			}
		})
	}
}

// undo works on the Pods of the last run recorded on the targets, or of the
// run it is given, those that a later run changed again included, and those
// whose record cannot be read, which it leaves alone.
func TestSelectRun(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 15, 2, 0, time.UTC)
	record := func(name, run string, minute int, earlier ...string) *v1.Pod {
		pod := namedPods(name)[0]
		if run != "" {
			if err := (&runRecord{Version: "v1", Run: run, Time: metav1.NewTime(at.Add(time.Duration(minute) * time.Minute)), Container: "app", Earlier: earlier}).write(pod); err != nil {
				t.Fatal(err)
			}
		}
		return pod
	}
	pods := func() []*v1.Pod {
		unreadable := namedPods("e")[0]
		unreadable.Annotations = map[string]string{lastRunAnnotation: "{"}
		return []*v1.Pod{record("a", "r1", 0), record("b", "r2", 5, "r1"), record("c", "r2", 5), record("d", "", 0), unreadable}
	}
	for _, tc := range []struct {
		name, run string
		want      []string
		wantRun   string
		others    int
		wantErr   string
	}{
		{name: "the last run, and a Pod whose record cannot be read", want: []string{"b", "c", "e"}, wantRun: "r2", others: 2},
		{name: "an earlier run, and the Pod a later run changed", run: "r1", want: []string{"a", "b", "e"}, wantRun: "r1", others: 2},
		{name: "a run not recorded", run: "r0", wantErr: "run r0 is not recorded on the 5 Pods; the last run recorded is r2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := &targets{pods: pods()}
			run, others, err := selectRun(tg, tc.run)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("selectRun: %v, want %q", err, tc.wantErr)
				}
				return
			}
			var names []string
			for _, p := range tg.pods {
				names = append(names, p.Name)
			}
			if err != nil || run != tc.wantRun || others != tc.others || !slices.Equal(names, tc.want) {
				t.Errorf("selectRun = %s, %d others, Pods %v, %v; want %s, %d, %v", run, others, names, err, tc.wantRun, tc.others, tc.want)
			}
		})
	}
	if _, _, err := selectRun(&targets{pods: []*v1.Pod{record("d", "", 0)}}, ""); err == nil || err.Error() != "no run of kubectl probe is recorded on the 1 Pod: there is nothing to undo" {
		t.Errorf("selectRun without records: %v", err)
	}
	// Records that cannot be read are not said to be none.
	unreadable := func(name string) *v1.Pod {
		pod := namedPods(name)[0]
		pod.Annotations = map[string]string{lastRunAnnotation: `{"version": "v9"}`}
		return pod
	}
	for pods, want := range map[int]string{
		2: `the record of kubectl probe's last run cannot be read on any of the 2 Pods, so undo cannot tell what to put back (pod/e: annotation ` + lastRunAnnotation + ` has version "v9", which this kubectl probe does not know: a newer kubectl probe wrote it)`,
		3: `no run of kubectl probe is recorded on the 3 Pods that can be read: the record on 2 of them cannot be read (pod/e: annotation ` + lastRunAnnotation + ` has version "v9", which this kubectl probe does not know: a newer kubectl probe wrote it), and the others have none`,
	} {
		tg := &targets{pods: []*v1.Pod{unreadable("e"), unreadable("f"), record("d", "", 0)}[:pods]}
		if _, _, err := selectRun(tg, ""); err == nil || err.Error() != want {
			t.Errorf("selectRun with %d Pods, 2 of whose records cannot be read: %v, want %q", pods, err, want)
		}
	}
}

// One command puts back every Pod of a run that nobody changed since, and
// names the ones it leaves alone.
func TestUndoAWholeRun(t *testing.T) {
	names := []string{"a", "b", "c"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: namedPods(names...)}); err != nil {
		t.Fatalf("set: %v\n%s", err, errOut)
	}
	// Someone changes b's liveness probe since.
	pods := c.CoreV1().Pods("ns")
	b, err := pods.Get(context.Background(), "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Spec.Containers[0].LivenessProbe.PeriodSeconds = 30
	if _, err := pods.Update(context.Background(), b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	list, err := pods.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tg := &targets{}
	for i := range list.Items {
		tg.pods = append(tg.pods, &list.Items[i])
	}
	run, others, err := selectRun(tg, "")
	if err != nil || run != testRun || others != 0 {
		t.Fatalf("selectRun = %s, %d, %v", run, others, err)
	}
	u, out, errOut := newRunner(c, nil)
	u.change, u.cmdline.run = undoRun{run: run, undoneBy: "u1"}, ""
	u.report = newTestReporter(out, errOut, "", "probes put back")
	if err := u.run(context.Background(), tg); err != nil {
		t.Fatalf("undo: %v\n%s", err, errOut)
	}
	want := "pod/b skipped: left as it is: the probes of container \"app\" changed after run " + testRun + "\npod/a probes put back\npod/c probes put back\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	for name, timeout := range map[string]int32{"a": 1, "b": 10, "c": 1} {
		pod, err := pods.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != timeout {
			t.Errorf("pod/%s: liveness timeoutSeconds %d, want %d", name, got, timeout)
		}
	}
}

// An undo that stops before it put back every Pod, here at an interrupt,
// prints the command that finishes it: the same undo, with its --run, which
// leaves alone the Pods put back already.
func TestUndoPrintsItsFinish(t *testing.T) {
	names := []string{"a", "b", "c"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: namedPods(names...)}); err != nil {
		t.Fatalf("set: %v\n%s", err, errOut)
	}
	o, _ := newTestOwners(t)
	undo := func(ctx context.Context) (string, string, error) {
		var out, errOut bytes.Buffer
		opts := newChangeOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "probes put back", false)
		opts.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: o}
		opts.args, opts.wait, opts.skipCheck, opts.maxInFlight = names, waitNone, true, "1"
		opts.report = newTestReporter(&out, &errOut, "", "probes put back")
		opts.cmdline = &commandLine{targets: names, connection: []string{"-n", "ns"}}
		err := opts.run(ctx, undoRun{run: testRun})
		return out.String(), errOut.String(), err
	}

	// Interrupted as it puts back a.
	ctx, interrupt := context.WithCancel(context.Background())
	c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) == 0 {
			interrupt()
		}
		return false, nil, nil
	})
	_, printed, err := undo(ctx)
	if got := exitStatus(err); got != exitInterrupted {
		t.Errorf("exit status %d (%v), want %d", got, err, exitInterrupted)
	}
	finish := "to finish putting back run " + testRun + ": kubectl probe undo a b c -n ns --run " + testRun + "\n"
	for _, want := range []string{
		"Ctrl-C again quits at once\n" + finish,
		"error: interrupted\ndone (1): pod/a\nfailed (0): none\nnot started, left as they are (2): pod/b pod/c\n" + finish,
	} {
		if !strings.Contains(printed, want) {
			t.Errorf("printed\n%s\nwant in it\n%s", printed, want)
		}
	}

	// The command printed finishes it: a is put back already.
	out, printed, err := undo(context.Background())
	if err != nil {
		t.Fatalf("undo again: %v\n%s", err, printed)
	}
	if want := "pod/a skipped: run " + testRun + " is undone already, by "; !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "pod/b probes put back\npod/c probes put back\n") {
		t.Errorf("printed\n%s\nwant a skipped, b and c put back", out)
	}
	for _, name := range names {
		pod, err := c.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != 1 {
			t.Errorf("pod/%s: liveness timeoutSeconds %d, want 1, put back", name, got)
		}
	}
}

// undoCommand runs kubectl probe undo of the Pods of those names with
// --run run, as the command builds its run, but without the pre-check and
// the proof, and returns what it printed on standard output and error.
func undoCommand(t *testing.T, c *cluster, run string, names ...string) (string, string, error) {
	t.Helper()
	o, _ := newTestOwners(t)
	var out, errOut bytes.Buffer
	opts := newChangeOptions(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, "probes put back", false)
	opts.clients = clients{namespace: "ns", getter: apiOf{c}, client: c, owners: o}
	opts.args, opts.wait, opts.skipCheck, opts.maxInFlight = names, waitNone, true, "1"
	opts.report = newTestReporter(&out, &errOut, "", "probes put back")
	opts.cmdline = &commandLine{targets: names, connection: []string{"-n", "ns"}}
	err := opts.run(context.Background(), undoRun{run: run})
	return out.String(), errOut.String(), err
}

// An undo of a run that each of whose Pods it skips, as undone already,
// puts nothing back: it fails, and says so of itself, not that no change
// of the run that it undoes stands, which the Pods' lines contradict.
func TestUndoThatSkipsEachPod(t *testing.T) {
	names := []string{"a", "b"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: namedPods(names...)}); err != nil {
		t.Fatalf("set: %v\n%s", err, errOut)
	}
	if out, printed, err := undoCommand(t, c, testRun, names...); err != nil {
		t.Fatalf("undo: %v\n%s%s", err, out, printed)
	}
	out, printed, err := undoCommand(t, c, testRun, names...)
	if want := "no put-back of this undo stands: each Pod was skipped, or put back and then deleted or recreated"; exitStatus(err) != 1 || err == nil || err.Error() != want {
		t.Errorf("undo again: err = %v (exit status %d), want %q (exit status 1)\n%s%s", err, exitStatus(err), want, out, printed)
	}
	for _, name := range names {
		if want := "pod/" + name + " skipped: run " + testRun + " is undone already, by "; !strings.Contains(out, want) {
			t.Errorf("undo again printed\n%s\nwant in it\n%s", out, want)
		}
	}
}

// An undo whose patch's answer is lost, of a Pod that cannot be read
// again, may have put it back: it prints the same undo of that Pod, which
// leaves it as it is if it was, and exits with status 2.
func TestUndoOutcomeUnknown(t *testing.T) {
	c := newCluster(namedPods("a")...)
	r, _, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: namedPods("a")}); err != nil {
		t.Fatalf("set: %v\n%s", err, errOut)
	}
	pod, err := c.CoreV1().Pods("ns").Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.PrependReactor("patch", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if len(action.(k8stesting.PatchActionImpl).PatchOptions.DryRun) > 0 {
			return false, nil, nil
		}
		return true, nil, apierrors.NewTimeoutError("request did not complete within the allowed duration", 0)
	})
	c.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	u, out, errOut := newRunner(c, nil)
	u.change, u.cmdline.run, u.cmdline.undoing = undoRun{run: testRun, undoneBy: "u1"}, "", testRun
	u.cmdline.flags = []string{"--force=true"}
	u.report = newTestReporter(out, errOut, "", "probes put back")
	err = u.run(context.Background(), &targets{pods: []*v1.Pod{pod}})
	if got := exitStatus(err); got != exitStopped {
		t.Errorf("exit status %d (%v), want %d\n%s", got, err, exitStopped, errOut)
	}
	if want := "pod/a: to put it back, if it was not: kubectl probe undo pod/a -n ns --force=true --run " + testRun + " (it leaves the Pod as it is otherwise)\n"; !strings.Contains(errOut.String(), want) {
		t.Errorf("printed\n%s\nwant in it\n%s", errOut, want)
	}
}

// The printed commands are quoted as the shell of the system reads them
// back: a POSIX shell's, or PowerShell's on Windows, which reads a quote
// in single quotes as two, and a comma or an @ outside them as its own.
func TestShellJoin(t *testing.T) {
	words := []string{"kubectl", "probe", "undo", "-l", "app in (web,api)", "--as=alice@example.com", "--as-group=a,b", "-n", "ns", "--run", "it's", ""}
	for goos, want := range map[string]string{
		"linux":   `kubectl probe undo -l 'app in (web,api)' --as=alice@example.com --as-group=a,b -n ns --run 'it'\''s' ''`,
		"darwin":  `kubectl probe undo -l 'app in (web,api)' --as=alice@example.com --as-group=a,b -n ns --run 'it'\''s' ''`,
		"windows": `kubectl probe undo -l 'app in (web,api)' '--as=alice@example.com' '--as-group=a,b' -n ns --run 'it''s' ''`,
	} {
		if got := shellJoin(goos, words); got != want {
			t.Errorf("%s: shellJoin = %s, want %s", goos, got, want)
		}
	}
}

// Kept probes that cannot be read do not keep set from changing a probe.
func TestRecordedWithUnreadableKept(t *testing.T) {
	pod := webPod()
	pod.Annotations = map[string]string{keptAnnotation: "not JSON"}
	changed, err := applyChange(t, pod, recorded{change: relax, run: "r1", time: time.Now()}, nil)
	if err != nil {
		t.Fatalf("set with kept probes that cannot be read: %v", err)
	}
	if r, err := readRecord(changed); err != nil || r == nil || r.After.Probes[liveness].TimeoutSeconds != 10 {
		t.Errorf("record %+v, %v", r, err)
	}
	if _, err := applyChange(t, changed, undoRun{run: "r1", undoneBy: "u1"}, nil); err == nil || !strings.Contains(err.Error(), "annotation "+keptAnnotation+" is not what kubectl probe disable writes") {
		t.Errorf("undo: %v, want it to say that the kept probes cannot be read", err)
	}
}

// A Pod whose record of its last run cannot be read, as one that another
// tool wrote over, does not keep undo from putting back the others: it is
// left as it is, and skipped with the reason.
func TestUndoSkipsAnUnreadableRecord(t *testing.T) {
	names := []string{"a", "b", "c"}
	c := newCluster(namedPods(names...)...)
	r, _, errOut := newRunner(c, relax)
	if err := r.run(context.Background(), &targets{pods: namedPods(names...)}); err != nil {
		t.Fatalf("set: %v\n%s", err, errOut)
	}
	pods := c.CoreV1().Pods("ns")
	b, err := pods.Get(context.Background(), "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Annotations[lastRunAnnotation] = "{"
	if _, err := pods.Update(context.Background(), b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := pods.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tg := &targets{}
	for i := range list.Items {
		tg.pods = append(tg.pods, &list.Items[i])
	}
	run, others, err := selectRun(tg, "")
	if err != nil || run != testRun || others != 0 {
		t.Fatalf("selectRun = %s, %d, %v; want %s, the run of every Pod", run, others, err, testRun)
	}
	u, out, errOut := newRunner(c, nil)
	u.change, u.cmdline.run = undoRun{run: run, undoneBy: "u1"}, ""
	u.report = newTestReporter(out, errOut, "", "probes put back")
	if err := u.run(context.Background(), tg); err != nil {
		t.Fatalf("undo: %v\n%s", err, errOut)
	}
	want := "pod/b skipped: annotation " + lastRunAnnotation + " is not what kubectl probe writes: unexpected end of JSON input\npod/a probes put back\npod/c probes put back\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
}
