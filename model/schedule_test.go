package model_test

import (
	"fmt"
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
		{`{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool_name":"x"}]}`, `unknown field "tool_name"`},
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

// TestScheduleDecodingIsStrict: what encoding/json lets through (keys in
// another case, a repeated key, a null body) and what it reports in Go
// terms (a top-level array, a byte-order mark, an empty file) each get an
// error that names the problem.
func TestScheduleDecodingIsStrict(t *testing.T) {
	const ok = `{"version":1,"config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`
	if _, err := model.ParseSchedule([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Replace(ok, `"version"`, `"Version"`, 1), `schedule: field "Version" does not match "version": keys are case-sensitive`},
		{strings.Replace(ok, `"faults"`, `"Faults"`, 1), `schedule: field "Faults" does not match "faults"`},
		{strings.Replace(ok, `"kind"`, `"KIND"`, 1), `schedule: faults[0]: field "KIND" does not match "kind"`},
		{strings.Replace(ok, `"profile"`, `"Profile"`, 1), `config: field "Profile" does not match "profile"`},
		{strings.Replace(ok, `"faults":[`, `"faults":[],"faults":[`, 1), `schedule: key "faults" appears twice`},
		{strings.Replace(ok, `"ordinal":1`, `"ordinal":1,"ordinal":2`, 1), `schedule: faults[0]: key "ordinal" appears twice`},
		{strings.Replace(ok, `"profile":"typed"`, `"profile":"typed","profile":"baseline"`, 1), `key "profile" appears twice`},
		{`null`, "schedule: the top level must be a JSON object, not null"},
		{`[` + ok + `]`, "schedule: the top level must be a JSON object, not an array"},
		{"\xEF\xBB\xBF" + ok, "schedule: the file starts with a UTF-8 byte-order mark; save it without one"},
		{"", "schedule: empty input: the file is empty"},
		{"\n", "schedule: empty input: the file is empty"},
		{strings.Replace(ok, `"ordinal":1`, `"ordinal":"1"`, 1), "schedule: faults.ordinal: want an integer, not a JSON string"},
	} {
		_, err := model.ParseSchedule([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

// TestScheduleFaultLimit: MaxFaults faults decode; one more is refused
// with the limit named.
func TestScheduleFaultLimit(t *testing.T) {
	if model.MaxFaults != 10000 {
		t.Fatalf("MaxFaults %d", model.MaxFaults)
	}
	of := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"version":1,"config":{"profile":"typed"},"faults":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"event":"tool.commit","ordinal":%d,"kind":"timeout_after_commit"}`, i+1)
		}
		b.WriteString("]}")
		return []byte(b.String())
	}
	if s, err := model.ParseSchedule(of(model.MaxFaults)); err != nil || len(s.Faults) != model.MaxFaults {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := model.ParseSchedule(of(model.MaxFaults + 1))
	if err == nil || err.Error() != "schedule: 10001 faults, more than the limit of 10000" {
		t.Errorf("over the limit: %v", err)
	}
}
