package properties_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/examples/lostupdate"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// unenacted crosses checkpoint.write through Calls and enacts nothing
// armed there: every fault it reaches stays unfired.
type unenacted struct{}

func (unenacted) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	for range 2 {
		s, err := env.Calls.Enter(ctx, model.EvCheckpointWrite)
		if err != nil {
			return model.Claim{}, err
		}
		if err := s.Done("ok", ""); err != nil {
			return model.Claim{}, err
		}
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (unenacted) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return nil, nil }

var unenactedFixture = model.Fixture{Name: "unenacted", Tasks: []model.Task{{ID: "t"}}}

// noEffect is the unenacted system's invariant: it never commits, so the
// provider's ledger stays empty.
var noEffect = model.UserInvariant{Name: "no_effect", Owner: "unenacted", Oracle: "ledger_readback",
	Doc: "the provider's ledger stays empty", Check: func(v model.View) string {
		if n := len(v.Ledger()); n > 0 {
			return "the ledger holds an effect"
		}
		return ""
	}}

func unenactedOptions(more ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithFixtureValue(unenactedFixture), properties.WithKinds("stale_checkpoint"),
		properties.WithHarnessOptions(model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{noEffect}}), properties.WithoutWorldEvents()}, more...)
}

// TestUnfiredCampaignIsInconclusive: a campaign whose faults are all
// reached but never fire tested nothing: inconclusive, never green.
func TestUnfiredCampaignIsInconclusive(t *testing.T) {
	sys := fixed(func() model.System { return unenacted{} })
	rep, err := properties.Explore(sysdef(sys), unenactedOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Inconclusive() || rep.Reached == 0 || rep.Fired != 0 || !strings.Contains(rep.InconclusiveMessage(), "were reached but none fired") {
		t.Fatalf("inconclusive %v, reached %d, fired %d: %s", rep.Inconclusive(), rep.Reached, rep.Fired, rep.InconclusiveMessage())
	}
	tb := &recordingTB{name: "TestUnfired"}
	properties.CheckTB(tb, nil, sysdef(sys), unenactedOptions(properties.WithFailDir(t.TempDir()))...)
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "were reached but none fired") || !strings.Contains(tb.errors[0], "exit 3") {
		t.Fatalf("Check: %q", tb.errors)
	}
}

// TestReplayOfUnfiredFaultIsInconclusive: FAULTLINE_REPLAY of a schedule
// whose fault is reached but not fired fails as inconclusive.
func TestReplayOfUnfiredFaultIsInconclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "u", Config: model.Config{Fixture: "unenacted"},
		Faults: []model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "stale_checkpoint"}}}
	if err := os.WriteFile(path, model.Format(s), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(properties.ReplayEnv, path)
	tb := &recordingTB{name: "TestUnfired"}
	properties.CheckTB(tb, nil, sysdef(fixed(func() model.System { return unenacted{} })), unenactedOptions()...)
	if len(tb.errors) != 1 || tb.errors[0] != "properties: FAULTLINE_REPLAY="+path+": inconclusive: scheduled faults not reached or not fired, so the run tested nothing at them: f1 stale_checkpoint@checkpoint.write#2 (reached, not fired): the run tested less than its schedule asks (exit 3)" {
		t.Fatalf("replay: errors %q, logs %q", tb.errors, tb.logs)
	}
}

// TestStoredFileWithoutFixtureIsTheDefault: a schedule file that names no
// fixture (as a fuzz target writes it) runs the system's default fixture,
// which is the test's: it replays under the test's config with no note
// that the configs differ.
func TestStoredFileWithoutFixtureIsTheDefault(t *testing.T) {
	def := billing.Definition()
	s, err := model.SingleFault("timeout_after_commit", model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, model.Format(s), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(properties.ReplayEnv, path)
	tb := &recordingTB{name: "TestBilling"}
	properties.CheckTB(tb, nil, def)
	if tb.failed || len(tb.logs) != 1 || strings.Contains(tb.logs[0], "not the test's") || !strings.Contains(tb.logs[0], "holds: every invariant in scope held") {
		t.Fatalf("errors %q, logs %q", tb.errors, tb.logs)
	}
}

// TestCheckLogsNoDraws: a counterexample's log keeps rapid's report but
// not its draw lines, which the counterexample's schedule says again.
func TestCheckLogsNoDraws(t *testing.T) {
	oneGoroutine(t)
	def := billing.Definition()
	tb := &recordingTB{name: "TestBilling"}
	properties.CheckTB(tb, nil, def, properties.WithConfig(model.Config{System: []byte(`{"bugs":["fresh_key_per_retry"]}`)}),
		properties.WithFailDir(t.TempDir()), properties.WithoutWalk()) // rapid reports the random checks alone
	if !tb.failed || len(tb.logs) == 0 {
		t.Fatalf("no counterexample: %q", tb.errors)
	}
	for _, l := range tb.logs {
		if strings.Contains(l, "[rapid] draw ") {
			t.Fatalf("the log holds rapid's draws:\n%s", l)
		}
	}
}

// TestExhaustiveUnfiredWalkIsInconclusive: a walk whose faults are all
// reached but never act (the counter clerk's fixture holds no capability
// for a capability_revocation to revoke) proves nothing: inconclusive,
// with the random mode's wording, not a bounded proof.
func TestExhaustiveUnfiredWalkIsInconclusive(t *testing.T) {
	rep, err := exhaustive(sysdef(fixed(lostupdate.Factory())), properties.WithFixtureValue(lostupdate.Fixture()),
		properties.WithHarnessOptions(lostupdate.Options()), properties.WithKinds("capability_revocation"), properties.WithMaxFaults(2))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || !rep.Complete || !rep.Inconclusive() || rep.Schedules != 15 || rep.Faults != 24 || rep.Reached != 24 || rep.Fired != 0 {
		t.Fatalf("found %v, complete %v, inconclusive %v, schedules %d, faults %d, reached %d, fired %d", rep.Found, rep.Complete, rep.Inconclusive(), rep.Schedules, rep.Faults, rep.Reached, rep.Fired)
	}
	const want = "inconclusive: no counterexample among 15 schedules of at most 2 faults; 24 of the 24 faults they scheduled were reached but none fired " +
		"(the system's adapters enact none of the kinds in scope at the crossings they reached, or a worker-scoped kind met no worker that ran a second task), so no fault was tested; set Definition.Enacts to the adapters' Kinds(), which every door then draws from, or give a worker-scoped kind fewer workers than tasks " +
		"(1 of 0 faults, 4 of 1, 10 of 2; kinds capability_revocation; world events on; placement any event; fixture lostupdate; modifiers none (no kind in scope takes one))"
	if got := rep.Summary(); got != want {
		t.Fatalf("summary:\n got %s\nwant %s", got, want)
	}
}

// TestEmptyBuiltinIsSaid: WithHarnessOptions' Builtin empty but not nil
// means none, so the definition's eight built-in invariants are not
// checked: Check says so in its output, naming what it checks; with
// Builtin nil the built-ins are checked and nothing is said.
func TestEmptyBuiltinIsSaid(t *testing.T) {
	sys := fixed(func() model.System { return unenacted{} })
	tb := &recordingTB{name: "TestEmptyBuiltin"}
	properties.CheckTB(tb, nil, sysdef(sys), unenactedOptions(properties.WithFailDir(t.TempDir()))...)
	want := "properties: WithHarnessOptions' Builtin is empty (not nil), which means none: the 8 built-in invariants " + sysdef(sys).Name + "'s Definition selects are not checked; the runs check only recorded_agrees_with_ledger, retry_paced, no_effect (leave Builtin nil to check them)"
	if len(tb.logs) == 0 || tb.logs[0] != want {
		t.Fatalf("logs %q, want first %q", tb.logs, want)
	}
	tb = &recordingTB{name: "TestEmptyBuiltin"}
	properties.CheckTB(tb, nil, sysdef(sys), properties.WithFixtureValue(unenactedFixture), properties.WithKinds("stale_checkpoint"),
		properties.WithHarnessOptions(model.Options{Invariants: []model.UserInvariant{noEffect}}), properties.WithoutWorldEvents(), properties.WithFailDir(t.TempDir()))
	for _, l := range tb.logs {
		if strings.Contains(l, "Builtin is empty") {
			t.Errorf("Builtin nil: %q", l)
		}
	}
}
