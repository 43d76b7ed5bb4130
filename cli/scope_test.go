package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// breaker is a one-fault schedule of the reference system whose run
// breaks invariant inv and no other.
type breaker struct {
	inv    string
	file   string // in reference/corpus
	system func(model.Config) model.Config
	// schedule, when set, replaces file
	schedule func(t *testing.T) *model.Schedule
	// faults is the most faults explore draws or walks (0: one)
	faults int
	// also are the invariants the run breaks after inv (in report order)
	also []string
}

func baseline(cfg model.Config) model.Config {
	sys := copperfin.ConfigOfProfile(copperfin.ProfileBaseline)
	cfg.System = sys.System
	return cfg
}

func mutant(m string) func(model.Config) model.Config {
	return func(cfg model.Config) model.Config { return copperfin.WithMutant(cfg, m) }
}

// breakers holds a schedule breaking each built-in invariant
// (model.Invariants) and each one the harness adds: no_retry_storm on a
// fleet (copperfin-fleet-10, typed: no jitter) and
// recorded_agrees_with_ledger with notices.
var breakers = []breaker{
	{inv: model.InvRightSubject, file: "kinds/subject_swap.json", system: baseline},
	{inv: model.InvCurrentEntitlement, file: "kinds/revoked_capability.json", system: baseline},
	// the retry's record names only the second refund
	{inv: model.InvEffectAtMostOnce, file: "kinds/timeout_after_commit.json", system: baseline, also: []string{model.InvRecordedAgreesWithLedger}},
	{inv: model.InvProvableOutcome, file: "kinds/drop_effect_receipt.json", system: baseline},
	// the resumed record withdraws the refund the lost one recorded
	{inv: model.InvResumeFromCheckpoint, file: "kinds/missing_checkpoint.json", system: mutant("stale_checkpoint_accepted"),
		also: []string{model.InvRecordedAgreesWithLedger}},
	{inv: model.InvNoInventedProgress, file: "memory-loss-hold.json", system: func(cfg model.Config) model.Config {
		return copperfin.WithMutant(baseline(cfg), "fabricated_approval")
	}},
	{inv: model.InvBudget, file: "budget-exhausted.json", system: mutant("unbounded_retry")},
	{inv: model.InvJoinPreserved, file: "best-effort-join-degraded.json", system: mutant("failed_branch_dropped")},
	{inv: model.InvRecordedAgreesWithLedger, file: "notices/lost-notice.json"},
	// explore breaks it with two plain timeouts (at the first two
	// tool.commit), the schedule with one synchronized one
	{inv: model.InvNoRetryStorm, faults: 2, schedule: func(t *testing.T) *model.Schedule {
		cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
		cfg.Fixture = "copperfin-fleet-10"
		s, err := copperfin.StormSchedule(cfg)
		require.NoError(t, err)
		return s
	}},
}

// fleetDefinition is the reference system with the ten-agent fleet among
// its fixtures.
func fleetDefinition() *model.Definition {
	def := copperfin.Definition()
	def.Fixtures = append(def.Fixtures, copperfin.CopperfinFleet(10))
	return def
}

func (b breaker) load(t *testing.T) *model.Schedule {
	t.Helper()
	if b.schedule != nil {
		return b.schedule(t)
	}
	data, err := os.ReadFile(filepath.Join("..", "reference", "corpus", b.file))
	require.NoError(t, err)
	s, err := model.ParseSchedule(data)
	require.NoError(t, err)
	if b.system != nil {
		s.Config = b.system(s.Config)
	}
	return s
}

// violated lists the invariants res broke.
func violated(res *model.Result) []string {
	var out []string
	for _, i := range res.Invariants {
		if !i.Held {
			out = append(out, i.Invariant)
		}
	}
	return out
}

// TestEveryInvariantCountsOnEveryPath: each invariant in scope, the
// built-in ones and those the harness adds (no_retry_storm included),
// fails a run on every path: the model's own run, explore's random draws
// and its exhaustive walk, fuzz's Decoder.Check and Target, the command
// line's replay, and the coverage tracker's counts.
func TestEveryInvariantCountsOnEveryPath(t *testing.T) {
	if raceDetector {
		t.Skip("each path's runs are the model's, whose fleet scheduler the model's race tests run under the detector; go test ./... runs this test")
	}
	def := fleetDefinition()
	seen := map[string]bool{}
	for _, b := range breakers {
		seen[b.inv] = true
		t.Run(b.inv, func(t *testing.T) {
			s := b.load(t)
			kind := s.Faults[0].Kind
			fixture := s.Config.Fixture
			if fixture == "" {
				fixture = "copperfin"
			}
			scope, err := def.Scope(s.Config, model.Options{})
			require.NoError(t, err)
			require.Contains(t, scope, b.inv, "the model's scope of the run")

			res, err := def.Replay(s)
			require.NoError(t, err)
			require.Equal(t, append([]string{b.inv}, b.also...), violated(res), "the model's run")

			// explore: random draws, then the exhaustive walk, of the one
			// kind at one fault (two for the storm)
			opts := []properties.Option{properties.WithConfig(s.Config), properties.WithFixture(fixture),
				properties.WithKinds(kind), properties.WithMaxFaults(max(1, b.faults)), properties.WithoutWorldEvents()}
			if s.Config.Notices {
				opts = append(opts, properties.WithNotices())
			}
			// (random alone: the walk places correlation modifiers, which
			// fuzz's decoder does not encode)
			random, err := properties.Explore(def, append(opts, properties.WithSeed(1), properties.WithChecks(200), properties.WithMaxSchedules(0))...)
			require.NoError(t, err)
			// a counterexample names the invariant that broke first: inv,
			// or one it breaks beside it, and its run breaks inv
			breaks := func(cx *properties.Counterexample, path string) {
				t.Helper()
				require.Contains(t, append([]string{b.inv}, b.also...), cx.Invariant, path)
				res, err := def.Replay(cx.Schedule)
				require.NoError(t, err)
				require.Contains(t, violated(res), b.inv, path)
			}
			require.True(t, random.Found, "random exploration finds no counterexample")
			breaks(random.Counterexample, "random exploration")
			rep, err := properties.Explore(def, append(opts, properties.WithExhaustive())...)
			require.NoError(t, err)
			require.True(t, rep.Found, "the exhaustive walk finds no counterexample")
			breaks(rep.Counterexample, "the exhaustive walk")

			// the target's input: the schedule random exploration found,
			// at the decoder's default targets; the decoder encodes no
			// correlation modifier, so when the counterexample carries one
			// (seed 1 finds the storm as one repeated tool_timeout), that
			// of the first later seed whose counterexample carries none
			src := random.Counterexample.Schedule
			if b.inv == model.InvNoRetryStorm {
				// one tool_timeout repeated on the next crossing storms the
				// fleet: a modifier the sequential draw now makes
				f := src.Faults
				require.True(t, len(f) == 1 && f[0].Kind == "tool_timeout" && f[0].Correlation == "repeated", "the storm: %s", model.Format(src))
			}
			for seed := uint64(2); slices.ContainsFunc(src.Faults, func(f model.FaultEntry) bool { return f.Correlation != "" }); seed++ {
				require.Less(t, seed, uint64(10), "seeds 1 to 9 each need a modifier")
				// swarm draws, which compose the most faults three checks in
				// four (the default draws find the storm only as a repeated
				// tool_timeout at seeds 1 to 99)
				again, err := properties.Explore(def, append(opts, properties.WithSeed(seed), properties.WithChecks(200), properties.WithMaxSchedules(0), properties.WithSwarm())...)
				require.NoError(t, err)
				require.True(t, again.Found, "random exploration, seed %d, finds no counterexample", seed)
				src = again.Counterexample.Schedule
			}
			es, err := model.ParseSchedule(model.Format(src))
			require.NoError(t, err)
			kinds := []string{kind}
			for i := range es.Faults {
				es.Faults[i].Target = ""
				kinds = append(kinds, es.Faults[i].Kind)
			}
			// fuzz: the decoder's check and the target
			fopts := []fuzz.Option{fuzz.WithConfig(s.Config), fuzz.WithFixture(fixture), fuzz.WithKinds(kinds...),
				fuzz.WithScope("ordinals"), fuzz.WithMaxFaults(2)}
			d, err := fuzz.NewDecoder(def, fopts...)
			require.NoError(t, err)
			fres, err := d.Check(s)
			var v *fuzz.Violation
			require.ErrorAs(t, err, &v, "fuzz Decoder.Check")
			require.Equal(t, append([]string{b.inv}, b.also...), violated(fres))
			tg, err := fuzz.NewTarget(def, fopts...)
			require.NoError(t, err)
			data, err := d.Encode(es)
			require.NoError(t, err)
			var f *fuzz.Failure
			require.ErrorAs(t, tg.Check(data), &f, "fuzz Target.Check")
			require.Contains(t, append([]string{b.inv}, b.also...), f.Invariant, "fuzz Target.Check")
			if f.Invariant != b.inv { // the input's run breaks inv too
				res, err := def.Replay(d.Decode(data))
				require.NoError(t, err)
				require.Contains(t, violated(res), b.inv, "fuzz Target.Check")
			}

			// the command line's replay
			file := filepath.Join(t.TempDir(), "s.json")
			require.NoError(t, os.WriteFile(file, model.Format(s), 0o644))
			code, out, errOut := runIn(t, &cli.Program{Name: "faultline", Systems: []*model.Definition{def}}, "replay", file)
			require.Equal(t, 1, code, "replay: %s%s", out, errOut)
			require.Regexp(t, `(?m)^  `+b.inv+` +VIOLATED`, out, "replay: %s", errOut)

			// the coverage tracker's counts
			tr, err := coverage.NewTracker(coverage.Default(), def)
			require.NoError(t, err)
			require.NoError(t, tr.Record(res))
			cov := tr.Data()
			counted := slices.ContainsFunc(cov.Unattributed, func(c coverage.Counterexample) bool { return c.Invariant == b.inv })
			for _, e := range cov.Keys {
				counted = counted || slices.ContainsFunc(e.Counterexamples, func(c coverage.Counterexample) bool { return c.Invariant == b.inv })
			}
			require.True(t, counted, "the coverage tracker counts no violation of %s", b.inv)
		})
	}
	for _, inv := range model.Invariants {
		require.True(t, seen[inv.Name], "no schedule breaks %s", inv.Name)
	}
}
