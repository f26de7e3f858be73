package differential

import (
	"strings"
	"testing"
)

var forbidden = Error{Type: "FieldValueForbidden", Field: "spec", Detail: "pod updates may not change fields other than ...", BadValue: `""`}

// agreeing returns a patched and a base record that satisfy every check:
// a probe change of a running Pod, accepted with the gate on only.
func agreeing(i int) (Record, Record) {
	p := Record{I: i, Hash: "h", Desc: "d", GateOff: []Error{forbidden}, HasOn: true, Significant: true}
	b := Record{I: i, Hash: "h", Desc: "d", GateOff: []Error{forbidden}, MutableProbesChanged: true, AnyProbeChanged: true}
	return p, b
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(p, b *Record)
		check string // the difference expected, "" for none
	}{
		{name: "agree"},
		{name: "gate off: an extra error", check: "gate-off", edit: func(p, b *Record) {
			p.GateOff = append(p.GateOff, Error{Type: "FieldValueInvalid", Field: "spec.containers[0].livenessProbe"})
		}},
		{name: "gate off: another detail", check: "gate-off", edit: func(p, b *Record) {
			p.GateOff = []Error{{Type: forbidden.Type, Field: forbidden.Field, Detail: forbidden.Detail + "x", BadValue: forbidden.BadValue}}
		}},
		{name: "gate off: another bad value", check: "gate-off", edit: func(p, b *Record) {
			p.GateOff = []Error{{Type: forbidden.Type, Field: forbidden.Field, Detail: forbidden.Detail, BadValue: "1"}}
		}},
		{name: "gate off: nil and empty are the same", edit: func(p, b *Record) {
			p.GateOff, b.GateOff = nil, []Error{}
		}},
		{name: "gate on: accepted on a terminating Pod", check: "gate-on", edit: func(p, b *Record) {
			b.ForbiddenState = true
		}},
		{name: "gate on: rejected on a terminating Pod", edit: func(p, b *Record) {
			b.ForbiddenState = true
			p.GateOn = []Error{{Type: "FieldValueForbidden", Field: "spec.containers[0].livenessProbe"}}
		}},
		{name: "gate on: terminating Pod without a probe change", edit: func(p, b *Record) {
			b.ForbiddenState, b.MutableProbesChanged = true, false
		}},
		{name: "gate on: accepted with an invalid new probe", check: "gate-on", edit: func(p, b *Record) {
			b.ProbeErrors = []Error{{Type: "FieldValueInvalid", Field: "spec.containers[0].livenessProbe.periodSeconds"}}
		}},
		{name: "gate on: accepted though another field changed", check: "gate-on", edit: func(p, b *Record) {
			b.Reset = []Error{forbidden}
		}},
		{name: "gate on: rejected though the base accepts the reset pair", check: "gate-on", edit: func(p, b *Record) {
			p.GateOn = []Error{forbidden}
		}},
		{name: "pod security: probe change not significant", check: "pod-security", edit: func(p, b *Record) {
			p.Significant = false
		}},
		{name: "pod security: significant without a reason", check: "pod-security", edit: func(p, b *Record) {
			b.AnyProbeChanged = false
		}},
		{name: "pod security: significant in the base", edit: func(p, b *Record) {
			b.AnyProbeChanged, b.Significant = false, true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, b := agreeing(0)
			if tc.edit != nil {
				tc.edit(&p, &b)
			}
			st, diffs, err := Compare([]Record{p}, []Record{b})
			if err != nil {
				t.Fatal(err)
			}
			if st.Pairs != 1 {
				t.Errorf("stats count %d pairs, want 1", st.Pairs)
			}
			switch {
			case tc.check == "" && len(diffs) != 0:
				t.Errorf("unexpected differences: %+v", diffs)
			case tc.check != "" && (len(diffs) != 1 || diffs[0].Check != tc.check):
				t.Errorf("differences %+v, want one %s", diffs, tc.check)
			}
		})
	}
}

func TestCompareCorpusMismatch(t *testing.T) {
	p, b := agreeing(0)
	b.Hash = "other"
	if _, _, err := Compare([]Record{p}, []Record{b}); err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Errorf("different pairs: error %v", err)
	}
	b.Hash = p.Hash
	b.ProbeChangedIn = []string{"initContainers"}
	if _, _, err := Compare([]Record{p}, []Record{b}); err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Errorf("different container kinds: error %v", err)
	}
	b.ProbeChangedIn = nil
	if _, _, err := Compare([]Record{p}, nil); err == nil {
		t.Error("different counts: no error")
	}
	p.HasOn = false
	if _, _, err := Compare([]Record{p}, []Record{b}); err == nil {
		t.Error("patched records without the gate-on result: no error")
	}
}

// full is a record line with every field but gateOn, which only the patched tree writes.
const full = `"hash":"a","desc":"d","oldValid":true,"gateOff":[{"type":"t","field":"f","detail":"d","badValue":"1"}],` +
	`"hasOn":false,"reset":null,"probeErrors":[],"mutableProbesChanged":false,"forbiddenState":false,` +
	`"significant":false,"anyProbeChanged":false,"state":"running","probeChangedIn":[]`

func TestRead(t *testing.T) {
	recs, err := Read(strings.NewReader(`{"i":0,` + full + "}\n" + `{"i":1,` + full + `,"gateOn":[]}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].GateOff[0].BadValue != "1" || recs[1].Hash != "a" || !recs[0].OldValid {
		t.Errorf("read %+v", recs)
	}
	for _, tc := range []struct{ name, line, want string }{
		{"out of order", `{"i":1,` + full + "}", "index 1"},
		// A renamed JSON tag on the writer's side: both trees would read nil and agree.
		{"unknown field", `{"i":0,` + full + `,"gateoff":[]}`, `unknown field "gateoff"`},
		{"missing field", `{"i":0,` + strings.Replace(full, `"probeErrors":[],`, "", 1) + "}", `no "probeErrors"`},
	} {
		if _, err := Read(strings.NewReader(tc.line + "\n")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one that says %q", tc.name, err, tc.want)
		}
	}
}

func TestStatsCheck(t *testing.T) {
	enough := Stats{Pairs: 1000, OldValid: 900, AcceptedOff: 100, AcceptedOn: 300, MutableProbesChanged: 400,
		ProbeChanged: 500, AcceptedProbeChanges: 150, ForbiddenState: 100, Significant: 500,
		ByState:        map[string]int{"running": 200, "pending": 100, "terminating": 200, "succeeded": 200, "failed": 200, "mirror": 100},
		ProbeChangesIn: map[string]int{"containers": 200, "restartableInitContainers": 100, "initContainers": 50, "ephemeralContainers": 50}}
	if err := enough.Check(); err != nil {
		t.Errorf("a corpus that covers every case: %v", err)
	}
	// without returns a copy of n without key.
	without := func(n map[string]int, key string) map[string]int {
		out := map[string]int{}
		for k, v := range n {
			if k != key {
				out[k] = v
			}
		}
		return out
	}
	for name, edit := range map[string]func(*Stats){
		"no mirror Pod":  func(s *Stats) { s.ByState = without(s.ByState, "mirror") },
		"no pending Pod": func(s *Stats) { s.ByState = without(s.ByState, "pending") },
		"no probe change of an ephemeral container": func(s *Stats) {
			s.ProbeChangesIn = without(s.ProbeChangesIn, "ephemeralContainers")
		},
		"no probe change of a restartable init container": func(s *Stats) {
			s.ProbeChangesIn = without(s.ProbeChangesIn, "restartableInitContainers")
		},
		"no accepted probe change":               func(s *Stats) { s.AcceptedProbeChanges = 0 },
		"no terminating, terminal or mirror Pod": func(s *Stats) { s.ForbiddenState = 0 },
		"no rejected probe change":               func(s *Stats) { s.AcceptedProbeChanges = s.MutableProbesChanged },
		"no update accepted with the gate off":   func(s *Stats) { s.AcceptedOff = 0 },
		"too few pairs":                          func(s *Stats) { *s = Stats{Pairs: 10} },
	} {
		s := enough
		edit(&s)
		if err := s.Check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCompareCountsStatesAndContainerKinds(t *testing.T) {
	p, b := agreeing(0)
	p.State, b.State = "mirror", "mirror"
	p.ProbeChangedIn = []string{"containers", "ephemeralContainers"}
	b.ProbeChangedIn = p.ProbeChangedIn
	st, _, err := Compare([]Record{p}, []Record{b})
	if err != nil {
		t.Fatal(err)
	}
	if st.ByState["mirror"] != 1 || st.ProbeChangesIn["containers"] != 1 || st.ProbeChangesIn["ephemeralContainers"] != 1 || st.ProbeChangesIn["initContainers"] != 0 {
		t.Errorf("counted by state %v, by container kind %v", st.ByState, st.ProbeChangesIn)
	}
}
