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
	if _, _, err := Compare([]Record{p}, nil); err == nil {
		t.Error("different counts: no error")
	}
	p.HasOn = false
	if _, _, err := Compare([]Record{p}, []Record{b}); err == nil {
		t.Error("patched records without the gate-on result: no error")
	}
}

func TestRead(t *testing.T) {
	recs, err := Read(strings.NewReader(`{"i":0,"hash":"a","gateOff":[{"type":"t","field":"f","detail":"d","badValue":"1"}]}` + "\n" + `{"i":1,"hash":"b"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].GateOff[0].BadValue != "1" || recs[1].Hash != "b" {
		t.Errorf("read %+v", recs)
	}
	if _, err := Read(strings.NewReader(`{"i":1}` + "\n")); err == nil {
		t.Error("a record out of order: no error")
	}
}
