package probeplugin

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lastRunAnnotation keeps, on each Pod that a run of set, disable or
// restore changed, what the run replaced: the run's ID and time, the
// container, and its probes and the probes that disable kept for it, before
// and after the change. It is written in the same patch as the change, so
// no Pod ever has a change without it; kubectl probe undo reads it to put
// back every Pod of a run that nobody has changed since. A Pod keeps the
// record of its last run, and the IDs of a few runs before.
//
// Anyone who may patch the Pod may write it, so undo does not take it on
// trust: see undoRun.
const lastRunAnnotation = "kubectl-probe.x-k8s.io/last-run"

// recordVersion is the version of lastRunAnnotation's format.
const recordVersion = "v1"

// earlierRuns is how many IDs of earlier runs a record keeps.
const earlierRuns = 5

// runRecord is the content of lastRunAnnotation.
type runRecord struct {
	Version string `json:"version"`
	// Run is the run's ID, and Time when it began.
	Run       string         `json:"run"`
	Time      metav1.Time    `json:"time"`
	Container string         `json:"container"`
	Before    containerState `json:"before"`
	After     containerState `json:"after"`
	// Earlier are the IDs of the runs that changed the Pod before, the
	// latest first.
	Earlier []string `json:"earlier,omitempty"`
	// UndoneBy is the ID of the kubectl probe undo that put back Before.
	UndoneBy string `json:"undoneBy,omitempty"`
}

// containerState is what a run changes of a container: its probes, and the
// probes that disable kept for it.
type containerState struct {
	Probes   map[probeType]*v1.Probe `json:"probes,omitempty"`
	Disabled map[probeType]*v1.Probe `json:"disabled,omitempty"`
}

// stateOf returns the state of the Pod's container c. When the Pod's kept
// probes cannot be read, it returns the container's probes, and the error.
func stateOf(pod *v1.Pod, c *v1.Container) (containerState, error) {
	s := containerState{Probes: map[probeType]*v1.Probe{}, Disabled: map[probeType]*v1.Probe{}}
	for _, t := range probeTypes {
		if p := *t.of(c); p != nil {
			s.Probes[t] = p.DeepCopy()
		}
	}
	kept, err := readKept(pod)
	if err != nil {
		return s, err
	}
	for t, p := range kept[c.Name] {
		s.Disabled[t] = p.DeepCopy()
	}
	return s, nil
}

// only returns the probes and kept probes of s of the given types.
func (s containerState) only(types []probeType) containerState {
	o := containerState{Probes: map[probeType]*v1.Probe{}, Disabled: map[probeType]*v1.Probe{}}
	for _, t := range types {
		if p, ok := s.Probes[t]; ok {
			o.Probes[t] = p
		}
		if p, ok := s.Disabled[t]; ok {
			o.Disabled[t] = p
		}
	}
	return o
}

// with returns a copy of s with the probes and kept probes of the types
// as o has them.
func (s containerState) with(o containerState, types []probeType) containerState {
	w := containerState{Probes: map[probeType]*v1.Probe{}, Disabled: map[probeType]*v1.Probe{}}
	for _, t := range probeTypes {
		from := s
		if slices.Contains(types, t) {
			from = o
		}
		if p, ok := from.Probes[t]; ok {
			w.Probes[t] = p.DeepCopy()
		}
		if p, ok := from.Disabled[t]; ok {
			w.Disabled[t] = p.DeepCopy()
		}
	}
	return w
}

func (s containerState) equal(o containerState) bool {
	return apiequality.Semantic.DeepEqual(s, o)
}

// heldBy reports whether now has the probes and kept probes that s has,
// but for a field that s leaves unset and the API server may have set
// since it stored them: a defaulted field that this client does not know
// (an httpGet probe's protocol, with the alpha H2CContainerProbe gate on).
func (s containerState) heldBy(now containerState) bool {
	same := func(a, b map[probeType]*v1.Probe) bool {
		if len(a) != len(b) {
			return false
		}
		for t, p := range a {
			q, ok := b[t]
			if !ok {
				return false
			}
			if p.HTTPGet != nil && p.HTTPGet.Protocol == nil && q.HTTPGet != nil {
				p = p.DeepCopy()
				p.HTTPGet.Protocol = q.HTTPGet.Protocol
			}
			if !apiequality.Semantic.DeepEqual(p, q) {
				return false
			}
		}
		return true
	}
	return same(s.Probes, now.Probes) && same(s.Disabled, now.Disabled)
}

// set makes the Pod's container c as s has it.
func (s containerState) set(pod *v1.Pod, c *v1.Container) error {
	kept, err := readKept(pod)
	if err != nil {
		return err
	}
	for _, t := range probeTypes {
		*t.of(c) = s.Probes[t].DeepCopy()
	}
	kept[c.Name] = map[probeType]*v1.Probe{}
	for t, p := range s.Disabled {
		kept[c.Name][t] = p.DeepCopy()
	}
	return kept.write(pod)
}

// readRecord returns the Pod's record of its last run, or nil when it has
// none.
func readRecord(pod *v1.Pod) (*runRecord, error) {
	value, ok := pod.Annotations[lastRunAnnotation]
	if !ok {
		return nil, nil
	}
	var r runRecord
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		return nil, fmt.Errorf("annotation %s is not what kubectl probe writes: %v", lastRunAnnotation, err)
	}
	if r.Version != recordVersion {
		return nil, fmt.Errorf("annotation %s has version %q, which this kubectl probe does not know: a newer kubectl probe wrote it", lastRunAnnotation, r.Version)
	}
	return &r, nil
}

func (r *runRecord) write(pod *v1.Pod) error {
	return writeAnnotation(pod, lastRunAnnotation, r)
}

// newRunID returns the ID of a run that begins at now: its time, and four
// random hex digits, such as 20261204-101502-7f3a.
func newRunID(now time.Time) string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// recorded is a change that a run makes and records: the Pod that it
// changes keeps what the change replaced, in lastRunAnnotation, written
// with the change.
type recorded struct {
	change
	run  string
	time time.Time
}

// unwrap returns the change that ch records, or ch.
func unwrap(ch change) change {
	if r, ok := ch.(recorded); ok {
		return r.change
	}
	return ch
}

func (r recorded) apply(pod *v1.Pod, c *v1.Container, template *podTemplate) error {
	// Kept probes that cannot be read do not keep set from changing a
	// probe in an incident: the record then has the probes only, and undo
	// says why it cannot check the kept ones.
	before, _ := stateOf(pod, c)
	if err := r.change.apply(pod, c, template); err != nil {
		return err
	}
	after, _ := stateOf(pod, c)
	if after.equal(before) {
		return nil
	}
	record := &runRecord{Version: recordVersion, Run: r.run, Time: metav1.NewTime(r.time), Container: c.Name, Before: before, After: after}
	// A Pod whose record cannot be read gets a new one: the change is
	// what matters, and the record it replaces was not kubectl probe's.
	if last, err := readRecord(pod); err == nil && last != nil && last.Run != r.run {
		record.Earlier = append([]string{last.Run}, last.Earlier...)[:min(len(last.Earlier)+1, earlierRuns)]
	}
	return record.write(pod)
}

// replacedRecord says how now, a Pod as read after the run's change stored
// stored, no longer has the record of the run that stored has, and, when
// the record is not of the run, that no kubectl probe undo of the run puts
// its change back then, as undoRun leaves such a Pod alone; "" when it has
// it. Of a record of another run, a put-back in full by that run's
// --undo-on-failure (undoChange) brings back the record that it read, the
// run's when that run came straight after it, and the undo of the run puts
// the Pod back then; that run's kubectl probe undo marks its record undone
// and keeps it.
func replacedRecord(stored, now *v1.Pod) string {
	if sameRecord(stored, now) {
		return ""
	}
	record, err := readRecord(now)
	switch {
	case err != nil:
		return "the Pod's record of this run was replaced, by one that kubectl probe cannot read; it is left as it is, with that record, and no kubectl probe undo of this run puts it back while that record is there"
	case record == nil:
		return "the Pod's record of this run was removed; it is left as it is, and no kubectl probe undo of this run puts it back without that record"
	}
	ours, _ := readRecord(stored)
	if ours != nil && ours.Run == record.Run {
		return "the Pod's record of this run was changed by someone else; it is left as it is, with that record"
	}
	replaced := fmt.Sprintf("the Pod's record of this run was replaced, by run %s's; it is left as it is, with that record, and no kubectl probe undo of this run puts it back while that record is there", record.Run)
	if ours != nil && len(record.Earlier) > 0 && record.Earlier[0] == ours.Run {
		// That run read this run's record: its put-back in full writes it
		// back.
		replaced += " (a put-back in full by that run's --undo-on-failure brings this run's record back)"
	}
	return replaced
}

// undoRun puts back what run changed on a Pod, as its record has it: the
// container's probes, and what disable kept for it. It marks the record as
// undone by undoneBy. It leaves alone (leftAlone) a Pod whose last run is
// another one, that was undone already, or whose container someone changed
// since the run.
//
// Whoever may patch the Pod may write the record, so, unless force is set,
// undo refuses to put back an exec probe that is not the template's: a
// command planted there would be installed under the name of whoever runs
// undo.
type undoRun struct {
	run, undoneBy string
	force         bool
}

// leftAlone is a Pod that a run leaves as it is, and why: it is skipped;
// one whose failed change it leaves so (undoChange) prints no undo, which
// would leave it alone too, and is not counted in the undo of the run
// (podRun.leftAlone). record is set for such a Pod whose probes are as the
// run stored them, and only whose record of the run was replaced
// (replacedRecord).
type leftAlone struct {
	reason string
	record bool
}

func (e *leftAlone) Error() string { return e.reason }

// containerOf names the container that the run changed.
func (u undoRun) containerOf(pod *v1.Pod) (string, error) {
	r, err := u.record(pod)
	if err != nil {
		return "", err
	}
	return r.Container, nil
}

// record returns the Pod's record of its last run; a Pod that has none, or
// whose record cannot be read, is left alone.
func (u undoRun) record(pod *v1.Pod) (*runRecord, error) {
	r, err := readRecord(pod)
	switch {
	case err != nil:
		return nil, &leftAlone{reason: err.Error()}
	case r == nil:
		return nil, &leftAlone{reason: "no run of kubectl probe is recorded on it"}
	}
	return r, nil
}

func (u undoRun) apply(pod *v1.Pod, c *v1.Container, template *podTemplate) error {
	r, err := u.record(pod)
	if err != nil {
		return err
	}
	switch {
	case r.Run != u.run && slices.Contains(r.Earlier, u.run):
		return &leftAlone{reason: fmt.Sprintf("left as it is: run %s changed it after run %s", r.Run, u.run)}
	case r.Run != u.run:
		return &leftAlone{reason: fmt.Sprintf("its last run is %s, not %s", r.Run, u.run)}
	case r.UndoneBy != "":
		return &leftAlone{reason: fmt.Sprintf("run %s is undone already, by %s", u.run, r.UndoneBy)}
	}
	now, err := stateOf(pod, c)
	if err != nil {
		return err
	}
	if !r.After.heldBy(now) {
		return &leftAlone{reason: fmt.Sprintf("left as it is: the probes of container %q changed after run %s", c.Name, u.run)}
	}
	if !u.force {
		for _, t := range probeTypes {
			p := r.Before.Probes[t]
			if p == nil || p.Exec == nil || equalProbes(p, now.Probes[t]) {
				continue
			}
			switch {
			case template == nil:
				return fmt.Errorf("the %s probe that run %s replaced on container %q runs a command, %s, and anyone who may patch the Pod may have written its record; with no template to compare it with, only --force puts it back",
					t, u.run, c.Name, describeHandler(p))
			case !equalProbes(p, *t.of(template.container(c.Name))):
				return fmt.Errorf("the %s probe that run %s replaced on container %q runs a command, %s, that is not the template's, and anyone who may patch the Pod may have written its record; --force puts it back",
					t, u.run, c.Name, describeHandler(p))
			}
		}
	}
	if err := r.Before.set(pod, c); err != nil {
		return err
	}
	r.UndoneBy = u.undoneBy
	return r.write(pod)
}

// selectRun keeps, of the Pods of t, those of run id, or of the last run
// recorded on them when id is empty, and returns the run and how many other
// Pods it dropped. The Pods of the run include those that a later run
// changed again, and those whose record cannot be read, which may be of
// the run: undo leaves them alone and names them.
func selectRun(t *targets, id string) (string, int, error) {
	records := map[*v1.Pod]*runRecord{}
	var (
		last       *runRecord
		unreadable []*v1.Pod
		why        error
	)
	for _, pod := range t.pods {
		r, err := readRecord(pod)
		if err != nil {
			unreadable = append(unreadable, pod)
			why = cmp.Or(why, fmt.Errorf("pod/%s: %w", pod.Name, err))
			continue
		}
		if r == nil {
			continue
		}
		records[pod] = r
		if last == nil || r.Time.After(last.Time.Time) || r.Time.Equal(&last.Time) && r.Run > last.Run {
			last = r
		}
	}
	switch {
	case last == nil && len(unreadable) == len(t.pods):
		return "", 0, fmt.Errorf("the record of kubectl probe's last run cannot be read on any of the %s, so undo cannot tell what to put back (%v)", pods(len(t.pods)), why)
	case last == nil && len(unreadable) > 0:
		return "", 0, fmt.Errorf("no run of kubectl probe is recorded on the %s that can be read: the record on %d of them cannot be read (%v), and the others have none", pods(len(t.pods)), len(unreadable), why)
	case last == nil:
		return "", 0, fmt.Errorf("no run of kubectl probe is recorded on the %s: there is nothing to undo", pods(len(t.pods)))
	case id == "":
		id = last.Run
	}
	ofRun := func(pod *v1.Pod) bool {
		r := records[pod]
		return r != nil && (r.Run == id || slices.Contains(r.Earlier, id))
	}
	if !slices.ContainsFunc(t.pods, ofRun) {
		return "", 0, fmt.Errorf("run %s is not recorded on the %s; the last run recorded is %s", id, pods(len(t.pods)), last.Run)
	}
	of := slices.DeleteFunc(slices.Clone(t.pods), func(pod *v1.Pod) bool { return !ofRun(pod) && !slices.Contains(unreadable, pod) })
	others := len(t.pods) - len(of)
	t.pods = of
	return id, others, nil
}
