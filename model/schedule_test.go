package model_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
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
	// the reference system canonicalises its controls to catalogue order
	s, _ := model.ParseSchedule([]byte(inputs[1]))
	st, err := copperfin.SettingsOf(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	s.Config.System = st.JSON()
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
		{`{"version":3,"config":{"profile":"typed"},"faults":[]}`, "unsupported version 3"},
		{`{"version":2,"config":{"profile":"typed"},"faults":[]}`, `config: unknown field "profile"`},
		{`{"version":2,"config":{"harness":{}},"faults":[]}`, `missing "system"`},
		{`{"version":2,"config":{"harness":{"retries":1},"system":{}},"faults":[]}`, `unknown field "retries"`},
		{`{"version":2,"config":{"harness":{"Fixture":"x"},"system":{}},"faults":[]}`, `field "Fixture" does not match "fixture"`},
		{`{"version":2,"config":{"harness":{"join":"maybe"},"system":{}},"faults":[]}`, `unknown join policy "maybe"`},
		{`{"version":2,"config":{"system":[1]},"faults":[]}`, `"system": the top level must be a JSON object, not an array`},
		{`{"version":2,"config":{"system":{"a":1,"a":2}},"faults":[]}`, `key "a" appears twice`},
		{`{"version":2,"config":{"system":{"profile":"paranoid"}},"faults":[]}`, `unknown profile "paranoid"`},
		{`{"version":2,"config":{"system":{"profile":"typed","mutant":"gremlin"}},"faults":[]}`, `unknown mutant "gremlin"`},
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
		s, err := model.ParseSchedule([]byte(c.in))
		if err == nil {
			// the system part is the reference system's to refuse
			_, err = copperfin.Definition().Factory(s.Config)
		}
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
	oneGoroutine(t)
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

// TestScheduleVersion2: the config has the harness's part and the
// system's own, opaque to the core and held in canonical form (keys
// sorted, numbers as written); version 1's flat config maps onto the two
// parts; Format writes version 2 only; a schedule embedded in an older
// file (decoded with encoding/json) reads its version-1 config alike.
func TestScheduleVersion2(t *testing.T) {
	v2 := `{"version":2,"seed":"s","config":{"harness":{"fixture":"copperfin","retry_budget":1,"deadline_ms":1500,"join":"best_effort"},` +
		`"system":{"z":[1.50,{"b":true,"a":null}],"mutant":"key_per_attempt","profile":"typed"}},"faults":[]}`
	s, err := model.ParseSchedule([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(s.Config.System), `{"mutant":"key_per_attempt","profile":"typed","z":[1.50,{"a":null,"b":true}]}`; got != want {
		t.Errorf("system part %s, want %s", got, want)
	}
	if s.Version != 2 || s.Config.Fixture != "copperfin" || *s.Config.RetryBudget != 1 || *s.Config.Deadline != 1500 || s.Config.Join != model.JoinPolicy("best_effort") {
		t.Errorf("harness part %+v", s.Config)
	}
	canon := model.Format(s)
	again, err := model.ParseSchedule(canon)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, again); diff != "" || string(model.Format(again)) != string(canon) {
		t.Errorf("Parse(Format(s)) != s:\n%s\n%s", diff, canon)
	}
	want := "{\n  \"version\": 2,\n  \"seed\": \"s\",\n  \"config\": {\n    \"harness\": {\n      \"fixture\": \"copperfin\",\n" +
		"      \"retry_budget\": 1,\n      \"deadline_ms\": 1500,\n      \"join\": \"best_effort\"\n    },\n    \"system\": {\n" +
		"      \"mutant\": \"key_per_attempt\",\n      \"profile\": \"typed\",\n      \"z\": [\n        1.50,\n        {\n" +
		"          \"a\": null,\n          \"b\": true\n        }\n      ]\n    }\n  },\n  \"faults\": []\n}\n"
	if string(canon) != want {
		t.Errorf("canonical form:\n%s\nwant:\n%s", canon, want)
	}

	// version 1: profile, controls and mutant go to the system part
	v1 := `{"version":1,"seed":"s","config":{"profile":"typed","mutant":"key_per_attempt","retry_budget":1,"deadline_ms":1500,"join":"best_effort","fixture":"copperfin"},"faults":[]}`
	old, err := model.ParseSchedule([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if string(old.Config.System) != `{"mutant":"key_per_attempt","profile":"typed"}` || old.Version != 2 || old.Config.Fixture != "copperfin" ||
		*old.Config.RetryBudget != 1 || *old.Config.Deadline != 1500 || old.Config.Join != model.JoinPolicy("best_effort") {
		t.Errorf("version 1 decodes to %+v (system %s)", old, old.Config.System)
	}
	if !strings.Contains(string(model.Format(old)), `"version": 2`) {
		t.Errorf("Format wrote:\n%s", model.Format(old))
	}
	ctl, err := model.ParseSchedule([]byte(`{"version":1,"seed":"","config":{"controls":["evidence_gate","idempotency"]},"faults":[]}`))
	if err != nil || string(ctl.Config.System) != `{"controls":["evidence_gate","idempotency"]}` {
		t.Errorf("version 1 controls: %v %s", err, ctl.Config.System)
	}

	// embedded: encoding/json reads either version's config
	var emb model.Schedule
	if err := json.Unmarshal([]byte(v1), &emb); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(emb.Config, old.Config) {
		t.Errorf("embedded version 1 config %+v, want %+v", emb.Config, old.Config)
	}
	if err := json.Unmarshal([]byte(v2), &emb); err != nil || !cmp.Equal(emb.Config, s.Config) {
		t.Errorf("embedded version 2 config %+v (%v)", emb.Config, err)
	}
	if err := json.Unmarshal([]byte(`{"version":1,"config":{"profile":"typed","colour":"red"},"faults":[]}`), &emb); err == nil || !strings.Contains(err.Error(), `unknown field "colour"`) {
		t.Errorf("embedded version 1 with an unknown key: %v", err)
	}

	// the system part is the system's: SystemConfig builds it canonical
	raw, err := model.SystemConfig(map[string]any{"b": 2, "a": []string{"x"}})
	if err != nil || string(raw) != `{"a":["x"],"b":2}` {
		t.Errorf("SystemConfig: %s %v", raw, err)
	}
	if _, err := model.SystemConfig([]int{1}); err == nil || !strings.Contains(err.Error(), "must be a JSON object, not an array") {
		t.Errorf("SystemConfig of an array: %v", err)
	}
	if got := (model.Config{}).String(); got != "system {}" {
		t.Errorf("empty config %q", got)
	}
	rb := 1
	if got := (model.Config{System: raw, RetryBudget: &rb, Join: "best_effort"}).String(); got != `system {"a":["x"],"b":2}, retry_budget 1, join best_effort` {
		t.Errorf("config %q", got)
	}
}

// TestConfigEqual: configs are equal by value: the harness part's
// overrides by value, the system part in canonical form ({} when unset).
func TestConfigEqual(t *testing.T) {
	one, two := 1, 1
	a := model.Config{RetryBudget: &one, System: json.RawMessage(`{"b":1,"a":2}`)}
	b := model.Config{RetryBudget: &two, System: json.RawMessage(`{"a":2,"b":1}`)}
	if !a.Equal(b) || !(model.Config{}).Equal(model.Config{System: json.RawMessage(`{}`)}) {
		t.Error("equal configs compare unequal")
	}
	for _, c := range []model.Config{
		{RetryBudget: &one, System: json.RawMessage(`{"a":2}`)},
		{System: json.RawMessage(`{"b":1,"a":2}`)},
		{RetryBudget: &one, System: json.RawMessage(`{"b":1,"a":2}`), Fixture: "x"},
		{RetryBudget: &one, System: json.RawMessage(`{"b":1,"a":2}`), Join: "best_effort"},
	} {
		if a.Equal(c) {
			t.Errorf("%v equals %v", a, c)
		}
	}
}

// TestSubjectReadAlias: the subject read's earlier name, context.order,
// still decodes in a version-1 and a version-2 file, to context.subject,
// which is the name the canonical form writes; a non-string event is named
// as before.
func TestSubjectReadAlias(t *testing.T) {
	for _, in := range []string{
		`{"version": 1, "seed": "s", "config": {"profile": "typed"}, "faults": [{"event": "context.order", "ordinal": 1, "kind": "concurrent_version_change"}]}`,
		`{"version": 2, "seed": "s", "config": {"harness": {}, "system": {}}, "faults": [{"event": "context.order", "ordinal": 1, "kind": "concurrent_version_change"}]}`,
	} {
		s, err := model.ParseSchedule([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if s.Faults[0].Event != model.EvContextSubject || model.EvContextSubject != "context.subject" {
			t.Fatalf("event %q, want context.subject", s.Faults[0].Event)
		}
		out := string(model.Format(s))
		if !strings.Contains(out, `"event": "context.subject"`) || strings.Contains(out, "context.order") {
			t.Fatalf("canonical form:\n%s", out)
		}
	}
	_, err := model.ParseSchedule([]byte(`{"version": 2, "seed": "s", "config": {"harness": {}, "system": {}}, "faults": [{"event": 7, "ordinal": 1, "kind": "concurrent_version_change"}]}`))
	if err == nil || !strings.Contains(err.Error(), "faults.event: want a string, not a JSON number") {
		t.Fatalf("a numeric event: %v", err)
	}
	if model.CanonicalEvent("context.order") != model.EvContextSubject || model.CanonicalEvent(model.EvToolCommit) != model.EvToolCommit {
		t.Fatal("CanonicalEvent")
	}
}

// TestUnknownKindListsEveryKind: the error for an unknown kind names
// every kind a schedule may name, those outside the catalogue too (it
// listed the catalogue, the world events, the notices and the cache and
// worker kinds only).
func TestUnknownKindListsEveryKind(t *testing.T) {
	_, err := model.Spec("bogus")
	if err == nil {
		t.Fatal("no error")
	}
	for _, kind := range []string{"subject_swap", "clock_advance", "late_notice", "span_carry_over", "do_not_retry", "provider_outage",
		"server_error", "network_error", "forked_run", "deauthorised_evidence", "corrupted_readback", "spec_drift", "policy_fetch_failed", "credential_expired"} {
		if !strings.Contains(err.Error(), " "+kind+",") && !strings.HasSuffix(err.Error(), " "+kind+")") {
			t.Errorf("the error leaves out %s: %v", kind, err)
		}
	}
}

// TestTargetOnAKindThatTakesNoneIsRefused: a target on a kind that would
// ignore it is an error naming the kind and every kind that takes one,
// with what its target is; the kinds that take one still accept theirs.
func TestTargetOnAKindThatTakesNoneIsRefused(t *testing.T) {
	const takers = `memory_loss (a memory key), branch_failure (a branch), clock_advance (logical milliseconds), ` +
		`capability_revocation (a capability id), policy_change (a tenant), state_version_change (a subject), ` +
		`server_error ("after_commit"), network_error ("after_commit")`
	for _, c := range []struct{ event, kind, target, want string }{
		{"tool.commit", "timeout_after_commit", "after_commit", `schedule: faults[0]: kind "timeout_after_commit" takes no target, but target "after_commit" is set (the kinds that take one: ` + takers + `)`},
		{"tool.commit", "worker_crash", "now", `schedule: faults[0]: kind "worker_crash" takes no target, but target "now" is set (the kinds that take one: ` + takers + `)`},
		{"tool.commit", "credential_expired", "x", `schedule: faults[0]: kind "credential_expired" takes no target, but target "x" is set (the kinds that take one: ` + takers + `)`},
		{"tool.commit", "network_error", "after_commit", ""},
		{"memory.read", "memory_loss", "approval", ""},
		{"tool.commit", "policy_change", "T-1", ""},
	} {
		in := fmt.Sprintf(`{"version":1,"config":{"profile":"typed"},"faults":[{"event":%q,"ordinal":1,"kind":%q,"target":%q}]}`, c.event, c.kind, c.target)
		_, err := model.ParseSchedule([]byte(in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s with target %q:\n got %q\nwant %q", c.kind, c.target, got, c.want)
		}
	}
}
