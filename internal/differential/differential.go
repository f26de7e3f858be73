// Package differential compares what ValidatePodUpdate and Pod Security's
// isSignificantPodUpdate say about the same (old Pod, new Pod) pairs in the
// patched tree and in the base tree. Each tree writes one Record per pair
// (test/sidebyside/testdata/validation_differential_test.go); Compare checks:
//
//   - gate off: the patched tree's errors equal the base's, each error's
//     type, field, detail and bad value;
//   - gate on, the metamorphic property: the patched tree accepts the pair
//     if and only if the base accepts it with the new Pod's probes reset to
//     the old ones, the new probes are valid, and, when a probe changed, the
//     Pod is neither terminating, terminal nor a mirror Pod;
//   - Pod Security: the patched tree finds an update significant if and only
//     if the base does or a probe of a container it compares changed.
package differential

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"mutableprobes/internal/differential/record"
)

// Record and Error are what each tree writes (package record).
type (
	Record = record.Record
	Error  = record.Error
)

// States and ContainerKinds are the values of Record.State and
// Record.ProbeChangedIn that the corpus must each cover.
var (
	States         = record.States
	ContainerKinds = record.ContainerKinds
)

// Difference is one pair on which a check failed.
type Difference struct {
	I     int
	Check string // gate-off, gate-on, pod-security
	Desc  string
	Text  string // what each side said
}

// Stats describe the corpus, so that a run that tests nothing shows.
type Stats struct {
	Pairs, OldValid                    int
	AcceptedOff, AcceptedOn            int
	MutableProbesChanged, ProbeChanged int
	AcceptedProbeChanges               int
	ForbiddenState                     int
	Significant                        int
	// ByState counts the pairs by the old Pod's state; ProbeChangesIn the
	// pairs with a probe change, by kind of container.
	ByState, ProbeChangesIn map[string]int
}

func (s Stats) String() string {
	return fmt.Sprintf("%d pairs: old Pod valid in %d; accepted with the gate off %d, on %d; "+
		"a probe of a regular or restartable init container changed in %d (accepted with the gate on: %d); "+
		"any probe changed in %d; old Pod terminating, terminal or mirror in %d; significant for Pod Security (patched) %d; "+
		"by state %s; probe changes by container kind %s",
		s.Pairs, s.OldValid, s.AcceptedOff, s.AcceptedOn, s.MutableProbesChanged, s.AcceptedProbeChanges,
		s.ProbeChanged, s.ForbiddenState, s.Significant, counts(States, s.ByState), counts(ContainerKinds, s.ProbeChangesIn))
}

func counts(names []string, n map[string]int) string {
	var parts []string
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %d", name, n[name]))
	}
	return strings.Join(parts, ", ")
}

// Check fails when the corpus is too small, or leaves out a kind of pair that the checks are
// about: probe changes accepted and rejected, updates accepted with the gate off, Pods that are
// terminating, terminal or mirror Pods, each state of the old Pod, probe changes on each kind of
// container, and updates that Pod Security finds significant. The minimums are shares of the
// pairs, well below what the generator gives.
func (s Stats) Check() error {
	if s.Pairs < 1000 {
		return fmt.Errorf("%d pairs; the checks need at least 1000", s.Pairs)
	}
	type minimum struct {
		what     string
		n        int
		permille int
	}
	var per []minimum
	for _, state := range States {
		per = append(per, minimum{"pairs whose old Pod is " + state, s.ByState[state], 50})
	}
	for _, kind := range ContainerKinds {
		per = append(per, minimum{"probe changes of " + kind, s.ProbeChangesIn[kind], 5})
	}
	for _, m := range append([]minimum{
		{"old Pods that are valid", s.OldValid, 500},
		{"pairs accepted with the gate off", s.AcceptedOff, 50},
		{"pairs accepted with the gate on", s.AcceptedOn, 50},
		{"probe changes of regular or restartable init containers", s.MutableProbesChanged, 100},
		{"probe changes accepted with the gate on", s.AcceptedProbeChanges, 20},
		{"probe changes rejected with the gate on", s.MutableProbesChanged - s.AcceptedProbeChanges, 20},
		{"old Pods that are terminating, terminal or mirror Pods", s.ForbiddenState, 50},
		{"updates significant for Pod Security", s.Significant, 50},
	}, per...) {
		if m.n*1000 < s.Pairs*m.permille {
			return fmt.Errorf("the corpus has %d %s in %d pairs; the checks need at least %.1f%%", m.n, m.what, s.Pairs, float64(m.permille)/10)
		}
	}
	return nil
}

// ReadFile reads the records a tree wrote, one JSON object per line.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// optionalFields are the fields a record may leave out: gateOn, which only the patched tree
// writes, and leaves out when it accepts the pair.
var optionalFields = map[string]bool{"gateOn": true}

// recordFields are the JSON names of Record's fields.
var recordFields = func() []string {
	var names []string
	t := reflect.TypeOf(Record{})
	for i := range t.NumField() {
		names = append(names, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
	}
	return names
}()

// Read reads records, one JSON object per line. A record with a field that Record does not
// have, or without one that it has, is an error: a field renamed on one side would otherwise
// read as empty on both, and the checks would pass without comparing it.
func Read(r io.Reader) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<26)
	for sc.Scan() {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &fields); err != nil {
			return nil, fmt.Errorf("record %d: %w", len(out), err)
		}
		// encoding/json matches names case-insensitively; the names must match exactly.
		for name := range fields {
			if !slices.Contains(recordFields, name) {
				return nil, fmt.Errorf("record %d: unknown field %q", len(out), name)
			}
		}
		for _, name := range recordFields {
			if _, ok := fields[name]; !ok && !optionalFields[name] {
				return nil, fmt.Errorf("record %d has no %q", len(out), name)
			}
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("record %d: %w", len(out), err)
		}
		if rec.I != len(out) {
			return nil, fmt.Errorf("record %d has index %d", len(out), rec.I)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// Compare checks the patched records against the base records. It fails
// when the two trees did not see the same corpus.
func Compare(patched, base []Record) (Stats, []Difference, error) {
	st := Stats{ByState: map[string]int{}, ProbeChangesIn: map[string]int{}}
	if len(patched) != len(base) {
		return st, nil, fmt.Errorf("the patched tree evaluated %d pairs, the base tree %d", len(patched), len(base))
	}
	var diffs []Difference
	for i, p := range patched {
		b := base[i]
		if p.Hash != b.Hash || p.Desc != b.Desc || p.State != b.State || !slices.Equal(p.ProbeChangedIn, b.ProbeChangedIn) {
			return st, nil, fmt.Errorf("pair %d differs between the trees (%s %q, %s %q): the corpus generator is not deterministic", i, p.Hash, p.Desc, b.Hash, b.Desc)
		}
		if !p.HasOn {
			return st, nil, fmt.Errorf("pair %d: the patched tree did not evaluate the gate on", i)
		}
		st.Pairs++
		if b.OldValid {
			st.OldValid++
		}
		if len(p.GateOff) == 0 {
			st.AcceptedOff++
		}
		if len(p.GateOn) == 0 {
			st.AcceptedOn++
		}
		if b.MutableProbesChanged {
			st.MutableProbesChanged++
			if len(p.GateOn) == 0 {
				st.AcceptedProbeChanges++
			}
		}
		if b.AnyProbeChanged {
			st.ProbeChanged++
		}
		if b.ForbiddenState {
			st.ForbiddenState++
		}
		if p.Significant {
			st.Significant++
		}
		st.ByState[b.State]++
		for _, kind := range b.ProbeChangedIn {
			st.ProbeChangesIn[kind]++
		}

		if !reflect.DeepEqual(norm(p.GateOff), norm(b.GateOff)) {
			diffs = append(diffs, Difference{I: i, Check: "gate-off", Desc: p.Desc,
				Text: "patched:\n" + errorsText(p.GateOff) + "base:\n" + errorsText(b.GateOff)})
		}
		want := len(b.Reset) == 0 && len(b.ProbeErrors) == 0 && !(b.MutableProbesChanged && b.ForbiddenState)
		if got := len(p.GateOn) == 0; got != want {
			diffs = append(diffs, Difference{I: i, Check: "gate-on", Desc: p.Desc, Text: fmt.Sprintf(
				"patched with the gate on accepts: %v; expected %v from the base: reset pair accepted %v, new probes valid %v, probe changed %v, terminating/terminal/mirror %v\n"+
					"patched with the gate on:\n%sbase, probes reset:\n%sbase, errors of the new probes:\n%s",
				got, want, len(b.Reset) == 0, len(b.ProbeErrors) == 0, b.MutableProbesChanged, b.ForbiddenState,
				errorsText(p.GateOn), errorsText(b.Reset), errorsText(b.ProbeErrors))})
		}
		if want := b.Significant || b.AnyProbeChanged; p.Significant != want {
			diffs = append(diffs, Difference{I: i, Check: "pod-security", Desc: p.Desc, Text: fmt.Sprintf(
				"patched isSignificantPodUpdate: %v; base: %v, a probe changed: %v, expected %v",
				p.Significant, b.Significant, b.AnyProbeChanged, want)})
		}
	}
	return st, diffs, nil
}

// norm treats a nil and an empty error list alike.
func norm(errs []Error) []Error {
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func errorsText(errs []Error) string {
	if len(errs) == 0 {
		return "  (accepted)\n"
	}
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(errorText(e), "\n", "\n    "))
	}
	return b.String()
}

func errorText(e Error) string {
	return fmt.Sprintf("%s %s: %q (value %s)", e.Type, e.Field, e.Detail, e.BadValue)
}
