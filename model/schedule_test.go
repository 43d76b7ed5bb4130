package model_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
)

func TestScheduleCanonicalRoundTrip(t *testing.T) {
	inputs := []string{
		`{"version":1,"seed":"a","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`,
		`{"version":1,"seed":"","config":{"controls":["evidence_gate","idempotency"]},"faults":[]}`,
		`{"version":1,"seed":"x","config":{"controls":[]},"faults":[{"id":"one","event":"checkpoint.write","ordinal":2,"kind":"checkpoint_rollback"},{"event":"proposal","ordinal":1,"kind":"subject_swap"}]}`,
	}
	for _, in := range inputs {
		s, err := model.ParseSchedule([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		canon := model.Format(s)
		s2, err := model.ParseSchedule(canon)
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, canon)
		}
		if diff := cmp.Diff(s, s2); diff != "" {
			t.Errorf("Parse(Format(s)) != s (-want +got):\n%s", diff)
		}
		if again := model.Format(s2); string(again) != string(canon) {
			t.Errorf("decoding then encoding changed the bytes:\n%s\n%s", canon, again)
		}
	}
	// controls are canonicalised to catalogue order
	s, _ := model.ParseSchedule([]byte(inputs[1]))
	if want := `"controls": [
      "idempotency",
      "evidence_gate"
    ]`; !strings.Contains(string(model.Format(s)), want) {
		t.Errorf("controls not in canonical order:\n%s", model.Format(s))
	}
}

func TestScheduleErrorsNameTheProblem(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "empty input"},
		{`{"version":1,`, "truncated JSON"},
		{`{"version":1 "seed":"x"}`, "malformed JSON at line 1, column 14"},
		{`{"version":1,"seed":"x","config":{"profile":"typed"},"faults":[],"extra":1}`, `unknown field "extra"`},
		{`{"version":2,"config":{"profile":"typed"},"faults":[]}`, "unsupported version 2"},
		{`{"seed":"x","config":{"profile":"typed"},"faults":[]}`, `missing "version"`},
		{`{"version":1,"faults":[]}`, `missing "config"`},
		{`{"version":1,"config":{},"faults":[]}`, `needs "profile" or "controls"`},
		{`{"version":1,"config":{"profile":"typed","controls":[]},"faults":[]}`, "not both"},
		{`{"version":1,"config":{"profile":"paranoid"},"faults":[]}`, `unknown profile "paranoid"`},
		{`{"version":1,"config":{"controls":["bind_identity","magic"]},"faults":[]}`, `unknown control "magic"`},
		{`{"version":1,"config":{"profile":"typed"}}`, `missing "faults"`},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.comit","ordinal":1,"kind":"timeout_after_commit"}]}`, `faults[0]: unknown event "tool.comit"`},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":0,"kind":"timeout_after_commit"}]}`, "faults[0]: ordinal 0 must be 1 or more"},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":-3,"kind":"timeout_after_commit"}]}`, "ordinal -3"},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"gremlin"}]}`, `unknown fault kind "gremlin"`},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"proposal","ordinal":1,"kind":"timeout_after_commit"}]}`, `kind "timeout_after_commit" cannot be injected at event "proposal"`},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"x"}]}`, `unknown field "tool"`},
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"id":"a","event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"},{"id":"a","event":"proposal","ordinal":1,"kind":"subject_swap"}]}`, `fault id "a" is used twice`},
		{`{"version":1,"config":{"profile":"typed"},"faults":[]} {}`, "trailing data"},
	}
	for _, c := range cases {
		_, err := model.ParseSchedule([]byte(c.in))
		if err == nil {
			t.Errorf("%s: no error, want %q", c.in, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.in, err, c.want)
		}
	}
}
