package model_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// ticketCloser is a system of another domain than refunds: a support
// agent that closes a ticket, retrying an unknown outcome. With stable
// keys its retries reuse the request key; without, each gets a fresh one.
type ticketCloser struct{ stable bool }

func (c ticketCloser) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, IdempotencyKey: t.ID, TraceID: t.Trace}
	key := env.NewRequestID()
	for range 1 + t.RetryBudget {
		if !c.stable {
			key = env.NewRequestID()
		}
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "tickets.close", RequestKey: key, Action: a})
		if err != nil || res.Outcome == model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "closed"}, err
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "outcome unknown"}, nil
}

// ticketConfig is the ticket system's own part of a schedule's config.
type ticketConfig struct {
	Controls []string `json:"controls"`
}

func parseTicketConfig(system json.RawMessage) (bool, error) {
	var c ticketConfig
	dec := json.NewDecoder(strings.NewReader(string(system)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return false, fmt.Errorf("config of tickets: %w", err)
	}
	stable := false
	for _, n := range c.Controls {
		if n != "stable_keys" {
			return false, fmt.Errorf("control %q is not a control of tickets (valid: stable_keys)", n)
		}
		stable = true
	}
	return stable, nil
}

func ticketDefinition() *model.Definition {
	closedOnce := model.UserInvariant{Name: "closed_once", Owner: "support", Oracle: "ledger_readback",
		Check: func(v model.View) string {
			if n := len(v.Ledger()); n > 1 {
				return fmt.Sprintf("%d close effects", n)
			}
			return ""
		}}
	return &model.Definition{
		Name: "tickets",
		Fixtures: []model.Fixture{
			{Name: "tickets", Subjects: []model.Subject{{ID: "TCK-9", Tenant: "acme", Status: "open", Version: 1}},
				Tasks: []model.Task{{ID: "close-TCK-9", Actor: "bot", Subject: "TCK-9", Tenant: "acme", Purpose: "close"}}},
			{Name: "tickets-two", Subjects: []model.Subject{{ID: "TCK-9", Tenant: "acme", Status: "open", Version: 1}},
				Tasks: []model.Task{{ID: "close-TCK-9", Actor: "bot", Subject: "TCK-9", Tenant: "acme", Purpose: "close"},
					{ID: "close-TCK-9-again", Actor: "bot", Subject: "TCK-9", Tenant: "acme", Purpose: "close"}}},
		},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			stable, err := parseTicketConfig(system)
			if err != nil {
				return nil, err
			}
			return func() model.System { return ticketCloser{stable: stable} }, nil
		},
		Describe: func(system json.RawMessage) (string, error) {
			stable, err := parseTicketConfig(system)
			if err != nil {
				return "", err
			}
			if stable {
				return "stable keys on", nil
			}
			return "stable keys off", nil
		},
		Builtin:    []string{model.InvBudget},
		Invariants: []model.UserInvariant{closedOnce},
		Controls:   []string{"stable_keys"},
		Defences: func(kind string) []string {
			if kind == "timeout_after_commit" {
				return []string{"idempotency", "stable_keys"} // a name it does not have is dropped
			}
			return nil
		},
	}
}

func ticketSchedule(t *testing.T, system string) *model.Schedule {
	t.Helper()
	s, err := model.ParseSchedule([]byte(`{"version":2,"seed":"t","config":{"harness":{},"system":` + system + `},` +
		`"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDefinitionRecordNamesOnlyTheSystemsControls: the run record of a
// system of another domain names its config in its own terms and, in its
// next step, only a control it has: never "controls none" nor a control of
// the reference system, defended or not, with a Definition or without.
func TestDefinitionRecordNamesOnlyTheSystemsControls(t *testing.T) {
	d := ticketDefinition()
	refund := func(t *testing.T, where, s string) {
		t.Helper()
		if strings.Contains(s, "controls none") {
			t.Errorf("%s says controls none:\n%s", where, s)
		}
		for _, c := range copperfin.AllControls {
			if strings.Contains(s, string(c)) {
				t.Errorf("%s names the reference system's control %s:\n%s", where, c, s)
			}
		}
	}

	res, err := d.Run(ticketSchedule(t, `{"controls":[]}`), model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record()
	if inv, _ := res.Invariant("closed_once"); inv.Held || rec.Contract.System != "tickets" || rec.Contract.Config != "stable keys off" || rec.Contract.Fixture != "tickets" {
		t.Fatalf("undefended run: closed_once %+v, contract %+v", inv, rec.Contract)
	}
	if want := "replay fault f1 (timeout_after_commit) alone with control stable_keys enabled and check closed_once at tool.commit"; rec.NextCheck != want {
		t.Errorf("next step %q, want %q", rec.NextCheck, want)
	}
	if !strings.HasPrefix(rec.Summary, "Contract: tickets; stable keys off; 2 retries, 2000 ms deadline, all_required join.\n") {
		t.Errorf("summary:\n%s", rec.Summary)
	}
	refund(t, "undefended record", rec.Summary+rec.NextCheck)

	res, err = d.Run(ticketSchedule(t, `{"controls":["stable_keys"]}`), model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec = res.Record()
	if !res.Held() || rec.Contract.Config != "stable keys on" || !strings.HasPrefix(rec.Summary, "Contract: tickets; stable keys on;") {
		t.Fatalf("defended run: held %t, record %+v", res.Held(), rec.Contract)
	}
	b, _ := json.Marshal(rec)
	refund(t, "defended record", string(b))

	// a harness run without a Definition: the system part as JSON, and a
	// next step that names no control
	s := ticketSchedule(t, `{"controls":[]}`)
	f, _ := d.Factory(s.Config)
	res, err = model.NewHarness(d.Fixtures[0], model.Options{Builtin: d.Builtin, Invariants: d.Invariants}).Run(f, s)
	if err != nil {
		t.Fatal(err)
	}
	rec = res.Record()
	if rec.Contract.System != "" || rec.Contract.Config != `system {"controls":[]}` ||
		rec.NextCheck != "replay fault f1 (timeout_after_commit) alone with the behaviour that defends against it enabled and check closed_once at tool.commit" {
		t.Errorf("record without a definition: %+v, next %q", rec.Contract, rec.NextCheck)
	}
	refund(t, "record without a definition", rec.Summary)

	// another fixture of the system
	s = ticketSchedule(t, `{"controls":["stable_keys"]}`)
	s.Config.Fixture = "tickets-two"
	if res, err = d.Run(s, model.Options{}); err != nil {
		t.Fatal(err)
	}
	if rec := res.Record(); rec.Contract.System != "tickets" || !strings.HasPrefix(rec.Summary, "Contract: tickets-two; stable keys on;") {
		t.Errorf("contract %+v, summary:\n%s", rec.Contract, rec.Summary)
	}
}

// TestDefinitionErrorsNameWhatDoesNotApply: a config the system does not
// have, an unknown fixture and an incomplete definition are errors that
// name them.
func TestDefinitionErrorsNameWhatDoesNotApply(t *testing.T) {
	d := ticketDefinition()
	for _, c := range []struct{ system, want string }{
		{`{"controls":["bind_identity"]}`, `control "bind_identity" is not a control of tickets (valid: stable_keys)`},
		{`{"profile":"typed"}`, `config of tickets: json: unknown field "profile"`},
	} {
		if _, err := d.Run(ticketSchedule(t, c.system), model.Options{}); err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.system, err, c.want)
		}
		if _, err := d.DescribeConfig(ticketSchedule(t, c.system).Config); err == nil || err.Error() != c.want {
			t.Errorf("%s: describe error %v, want %q", c.system, err, c.want)
		}
	}
	s := ticketSchedule(t, `{}`)
	s.Config.Fixture = "billing"
	if _, err := d.Run(s, model.Options{}); err == nil || err.Error() != `unknown fixture "billing" (valid: tickets, tickets-two)` {
		t.Errorf("unknown fixture: %v", err)
	}
	if f, err := d.Fixture(""); err != nil || f.Name != "tickets" {
		t.Errorf("default fixture %q %v", f.Name, err)
	}
	rb := 1
	if got, err := d.DescribeConfig(model.Config{System: json.RawMessage(`{"controls":["stable_keys"]}`), RetryBudget: &rb}); err != nil || got != "stable keys on, retry_budget 1" {
		t.Errorf("DescribeConfig %q %v", got, err)
	}
	if got := copperfin.Describe(copperfin.ConfigOfProfile(copperfin.ProfileTyped)); got != "profile typed" {
		t.Errorf("copperfin.Describe %q", got)
	}
	twice := d.Fixtures[0]
	twice.Tasks = append(slices.Clone(twice.Tasks), twice.Tasks[0])
	for _, c := range []struct {
		d    *model.Definition
		want string
	}{
		{nil, "system definition: nil"},
		{&model.Definition{}, `system definition: name "": empty (a name is 1 to 64 lower-case letters, digits and underscores, starting with a letter)`},
		{&model.Definition{Name: "x"}, "system definition x: no Configure"},
		{&model.Definition{Name: "x", Configure: d.Configure}, "system definition x: no fixture"},
		{&model.Definition{Name: "x", Configure: d.Configure, Fixtures: []model.Fixture{{}}}, "system definition x: fixture 0 has no name"},
		{&model.Definition{Name: "x", Configure: d.Configure, Fixtures: []model.Fixture{d.Fixtures[0], d.Fixtures[0]}}, `system definition x: fixture "tickets" listed twice`},
		{&model.Definition{Name: "Tickets-X", Configure: d.Configure, Fixtures: d.Fixtures}, `system definition: name "Tickets-X": must start with a lower-case letter a-z (a name is 1 to 64 lower-case letters, digits and underscores, starting with a letter)`},
		{&model.Definition{Name: "tickets-x", Configure: d.Configure, Fixtures: d.Fixtures}, `system definition: name "tickets-x": byte 7 ('-') is not a lower-case letter, digit or underscore (a name is 1 to 64 lower-case letters, digits and underscores, starting with a letter)`},
		{&model.Definition{Name: "x" + strings.Repeat("\x00", 300), Configure: d.Configure, Fixtures: d.Fixtures}, `system definition: name "x` + strings.Repeat(`\x00`, 63) + `"...: 301 bytes, longer than 64 (a name is 1 to 64 lower-case letters, digits and underscores, starting with a letter)`},
		{&model.Definition{Name: "x", Configure: d.Configure, Fixtures: []model.Fixture{d.Fixtures[0], {Name: "empty"}}}, `system definition x: fixture "empty" has no tasks (Fixture.Tasks is empty: a run needs at least one task)`},
		{&model.Definition{Name: "x", Configure: d.Configure, Fixtures: []model.Fixture{twice}}, `system definition x: fixture "tickets": task ID "close-TCK-9" listed twice`},
		{&model.Definition{Name: "x", Configure: d.Configure, Fixtures: d.Fixtures, Builtin: []string{"efect_at_most_once"}}, `system definition x: Builtin: unknown built-in invariant "efect_at_most_once" (valid: right_subject, current_entitlement, effect_at_most_once, provable_outcome, resume_from_checkpoint, no_invented_progress, budget, join_preserved)`},
	} {
		if err := c.d.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("Validate: %v, want %q", err, c.want)
		}
	}
	if err := copperfin.Definition().Validate(); err != nil {
		t.Errorf("the reference system's definition: %v", err)
	}
	// Validate and a coverage tracker apply one rule to a system's name:
	// a definition Validate accepts is one explore and audit can record.
	for _, name := range []string{"tickets", "t1_x", "Tickets", "tickets-x", "9t", strings.Repeat("t", 64), strings.Repeat("t", 65), "t\x00"} {
		dd := ticketDefinition()
		dd.Name = name
		verr := dd.Validate()
		_, cerr := coverage.NewTracker(nil, dd)
		if (verr == nil) != (cerr == nil) {
			t.Errorf("name %q: Validate %v, coverage %v", name, verr, cerr)
		}
	}
}

// TestNilFactoryIsAnError: a Define with a nil factory, a Configure that
// returns neither a factory nor an error, and a factory that returns a
// nil System are errors that say so, never a panic.
func TestNilFactoryIsAnError(t *testing.T) {
	d := ticketDefinition()
	s := ticketSchedule(t, `{}`)
	nilFactory := model.Define("x", d.Fixtures[0], nil)
	nilSystem := model.Define("x", d.Fixtures[0], func() model.System { return nil })
	noFactory := ticketDefinition()
	noFactory.Configure = func(json.RawMessage) (model.Factory, error) { return nil, nil }
	for _, c := range []struct {
		d    *model.Definition
		want string
	}{
		{nilFactory, "system x: Configure returned a nil Factory and no error"},
		{nilSystem, "model: the system's factory returned a nil System"},
		{noFactory, "system tickets: Configure returned a nil Factory and no error"},
	} {
		if _, err := c.d.Run(s, model.Options{Builtin: []string{model.InvBudget}}); err == nil || err.Error() != c.want {
			t.Errorf("Run: %v, want %q", err, c.want)
		}
	}
	if _, err := model.NewHarness(d.Fixtures[0], model.Options{}).Run(nil, s); err == nil || err.Error() != "model: no factory: the system's Configure returned a nil Factory" {
		t.Errorf("Harness.Run(nil): %v", err)
	}
}

// TestReferenceDefinition: the reference system's Definition decodes its
// config part, refuses what it does not have with the error that names
// it, and keeps its record's contract in the vocabulary it always had.
func TestReferenceDefinition(t *testing.T) {
	d := copperfin.Definition()
	s, err := model.ParseSchedule([]byte(`{"version":1,"seed":"s","config":{"controls":["idempotency"],"mutant":"key_per_attempt","fixture":"copperfin-batch"},"faults":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Run(s, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record()
	if rec.Contract.System != "copperfin" || rec.Contract.Config != "controls idempotency, mutant key_per_attempt" || rec.Contract.Fixture != "copperfin-batch" ||
		!strings.HasPrefix(rec.Summary, "Contract: copperfin-batch; controls idempotency, mutant key_per_attempt; 2 retries") {
		t.Errorf("contract %+v\n%s", rec.Contract, rec.Summary)
	}
	for _, c := range []struct{ system, want string }{
		{`{"controls":["stable_keys"]}`, `config: unknown control "stable_keys" (valid: bind_identity, pre_effect_authority, refresh_context, state_precondition, idempotency, effect_readback, evidence_gate, deny_on_warning, notice_reconcile, jittered_backoff, shared_retry_budget, bounded_grant_age, per_task_identity)`},
		{`{"profile":"typed","variant":"planted"}`, `config: unknown field "variant"`},
		{`{}`, `config: needs "profile" or "controls"`},
		{`{"profile":"typed","mutant":"gremlin"}`, `config: unknown mutant "gremlin"`},
	} {
		if _, err := d.Configure(json.RawMessage(c.system)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.system, err, c.want)
		}
	}
	if n, m := copperfin.Defences("memory_loss"); len(n) != 2 || n[0] != copperfin.BindIdentity || n[1] != copperfin.PreEffectAuthority || m != "fabricated_approval" {
		t.Errorf("memory_loss defences %v %q", n, m)
	}
	if n, m := copperfin.Defences("no_such_kind"); n != nil || m != "" {
		t.Errorf("unknown kind defences %v %q", n, m)
	}
}

// TestDefineInvariants: Define with invariants checks exactly those; with
// none, every built-in invariant.
func TestDefineInvariants(t *testing.T) {
	d := ticketDefinition()
	f := func() model.System { return nil }
	inv := model.UserInvariant{Name: "once", Check: func(model.View) string { return "" }}
	if got := model.Define("x", d.Fixtures[0], f, inv); got.Builtin == nil || len(got.Builtin) != 0 || len(got.Invariants) != 1 || got.Invariants[0].Name != "once" {
		t.Errorf("with an invariant: Builtin %#v, Invariants %d", got.Builtin, len(got.Invariants))
	}
	if got := model.Define("x", d.Fixtures[0], f); got.Builtin != nil || got.Invariants != nil {
		t.Errorf("with none: Builtin %#v, Invariants %v", got.Builtin, got.Invariants)
	}
	if _, err := model.Define("x", d.Fixtures[0], f).Configure([]byte(`{"a":1}`)); err == nil || err.Error() != `system x takes no config of its own (got {"a":1})` {
		t.Errorf("a config: %v", err)
	}
}
