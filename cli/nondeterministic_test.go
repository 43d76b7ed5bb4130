package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/examples/lostupdate"
	"github.com/faultline/faultline/model"
)

// TestExploreOfANondeterministicSystem: the inventory agent with an
// invariant that breaks on the first three runs only (state shared across
// runs) gives two results for one schedule: explore exits 4 (an internal
// error of the system under test, not bad input) and says what differed.
func TestExploreOfANondeterministicSystem(t *testing.T) {
	d := inventory.Definition()
	// the clean run and the first check's run are the first two runs
	// (Configure runs once per run); rapid's run of that check is a later
	// one
	runs, limit := 0, 2
	configure := d.Configure
	d.Configure = func(system json.RawMessage) (model.Factory, error) {
		runs++
		return configure(system)
	}
	d.Invariants = append(d.Invariants, model.UserInvariant{
		Name: "early_runs_only", Owner: "inventory", Oracle: "ledger_readback", Doc: "breaks once",
		Check: func(v model.View) string {
			if runs > limit {
				return ""
			}
			return "broke on an early run"
		},
	})
	code, out, stderr := runIn(t, program(d), "explore", "--max-schedules", "0", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "5")
	assert.Equal(t, 4, code, "%s%s", out, stderr)
	assert.Contains(t, stderr, "broke early_runs_only (after seq 1, at worker.start) when first run")
	assert.Contains(t, stderr, "and held every invariant when rapid ran it again: the system under test is not deterministic\n")
	assert.False(t, strings.Contains(stderr, "()"), "empty parentheses: %q", stderr)
}

// written is the cached clerk's process-global cache: the tasks it has
// released in any run of this process.
var written sync.Map

// cachedClerk is the counter clerk with a process-global cache: a task
// it released in an earlier run it claims released at once, writing
// nothing.
type cachedClerk struct{ lostupdate.Clerk }

func (c cachedClerk) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	if _, ok := written.Load(task.ID); ok {
		return model.Claim{Verdict: model.ClaimRelease, Reason: "cached"}, nil
	}
	cl, err := c.Clerk.Run(ctx, env, task)
	if cl.Verdict == model.ClaimRelease {
		written.Store(task.ID, true)
	}
	return cl, err
}

// TestExploreOfASystemWithStateAcrossRuns: the cached clerk breaks an
// invariant on every run after the first, whatever the faults; explore,
// random or exhaustive, confirms its counterexample on the clean run
// before it reports it and exits 4, not deterministic, instead of
// blaming a fault (exit 1).
func TestExploreOfASystemWithStateAcrossRuns(t *testing.T) {
	d := model.Define("clerk", lostupdate.Fixture(), func() model.System { return cachedClerk{} })
	d.Builtin, d.Invariants = []string{model.InvNoInventedProgress}, []model.UserInvariant{lostupdate.Invariant()}
	p := &cli.Program{Name: "clerk", Systems: []*model.Definition{d}}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--exhaustive", "--kinds", "tool_timeout", "--max-faults", "1"},
			"clerk: properties: the walk's schedule 2 broke no_invented_progress, but the clean run, which held every invariant when the walk ran it, " +
				"broke no_invented_progress after seq 2 (claim) when run again to confirm the counterexample (state kept across runs, a clock or global randomness): the system under test is not deterministic\n"},
		{[]string{"explore", "--max-schedules", "0", "--kinds", "tool_timeout", "--seed", "1", "--checks", "5"},
			"clerk: properties: the clean run (no faults), run again to confirm the counterexample, crossed other events than its first run: " +
				"crossing 2 was ledger.readback#1 (ok), then claim#0 (release); it broke no_invented_progress after seq 2 (claim) (state kept across runs, a clock or global randomness): the system under test is not deterministic\n"},
	} {
		written.Clear()
		code, out, stderr := runIn(t, p, c.args...)
		assert.Equal(t, 4, code, "%v: %s%s", c.args, out, stderr)
		assert.Equal(t, "", out, "%v", c.args)
		assert.Equal(t, c.want, stderr, "%v", c.args)
	}
}

// TestReplayTwiceOfASystemWithStateAcrossRuns: replay --twice of the
// cached clerk's clean schedule finds, by the one comparison of a rerun
// (internal/rerun), that the second run crossed other events, names the
// first, and exits 4, the code explore gives a system that is not
// deterministic, not 1 (a violation of a run that repeats).
func TestReplayTwiceOfASystemWithStateAcrossRuns(t *testing.T) {
	d := model.Define("clerk", lostupdate.Fixture(), func() model.System { return cachedClerk{} })
	d.Builtin = []string{model.InvNoInventedProgress}
	p := &cli.Program{Name: "clerk", Systems: []*model.Definition{d}}
	path := filepath.Join(t.TempDir(), "clean.json")
	if err := os.WriteFile(path, []byte(`{"version":2,"seed":"clean","config":{"harness":{},"system":{}},"faults":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	written.Clear()
	code, out, stderr := runIn(t, p, "replay", path, "--twice")
	assert.Equal(t, 4, code, "%s%s", out, stderr)
	assert.Equal(t, "", out)
	assert.Equal(t, "clerk: replay --twice: two runs of "+path+": nondeterministic replay: the same schedule (seed \"clean\", faults: none) crossed different events in two runs: "+
		"crossing 2 was ledger.readback#1 (ok) at 20 ms, then claim#0 (release) at 20 ms; the system must keep no state across runs and read no clock and no global randomness\n", stderr)
}

// TestReplayTwiceJudgedOtherwise: replay --twice of the counter clerk
// (no cache) crosses the same events to the same verdict twice (exit 0);
// with an invariant that breaks on the first run only, the two runs cross
// the same events but are judged otherwise, which the one comparison
// names (exit 4).
func TestReplayTwiceJudgedOtherwise(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clean.json")
	if err := os.WriteFile(path, []byte(`{"version":2,"seed":"clean","config":{"harness":{},"system":{}},"faults":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := model.Define("clerk", lostupdate.Fixture(), func() model.System { return lostupdate.Clerk{} })
	d.Builtin = []string{model.InvNoInventedProgress}
	code, out, stderr := runIn(t, &cli.Program{Name: "clerk", Systems: []*model.Definition{d}}, "replay", path, "--twice", "--json")
	assert.Equal(t, 0, code, "%s%s", out, stderr)
	assert.Equal(t, "deterministic: two runs crossed the same events to the same verdict (8 events)\n", stderr)
	// a replay configures the system twice (its run, then the clean
	// attribution run): the first replay is configurations 1 and 2
	runs := 0
	configure := d.Configure
	d.Configure = func(system json.RawMessage) (model.Factory, error) {
		runs++
		return configure(system)
	}
	d.Invariants = []model.UserInvariant{{Name: "first_run_only", Owner: "clerk", Oracle: "ledger_readback", Doc: "breaks on the first replay",
		Check: func(v model.View) string {
			if runs <= 2 {
				return "broke on the first replay"
			}
			return ""
		}}}
	code, out, stderr = runIn(t, &cli.Program{Name: "clerk", Systems: []*model.Definition{d}}, "replay", path, "--twice")
	assert.Equal(t, 4, code, "%s%s", out, stderr)
	assert.Equal(t, "", out)
	assert.Equal(t, "clerk: replay --twice: two runs of "+path+": nondeterministic replay: the same schedule (seed \"clean\", faults: none) crossed the same events with the same outcomes in two runs but reached another verdict: "+
		"first_run_only first false after crossing 1 (worker.start), then held; the system must keep no state across runs and read no clock and no global randomness\n", stderr)
}

// TestExploreOfASystemJudgedOtherwiseLater: an invariant that breaks on
// every run after the first (state kept across runs, no other event
// crossed) makes the clean run, run again to confirm the counterexample,
// cross the same events and break it: explore exits 4, not 1.
func TestExploreOfASystemJudgedOtherwiseLater(t *testing.T) {
	d := inventory.Definition()
	runs := 0
	configure := d.Configure
	d.Configure = func(system json.RawMessage) (model.Factory, error) {
		f, err := configure(system)
		if err != nil {
			return nil, err
		}
		return func() model.System { return counted{f(), &runs} }, nil
	}
	d.Invariants = append(d.Invariants, model.UserInvariant{
		Name: "late_runs_only", Owner: "inventory", Oracle: "ledger_readback", Doc: "breaks after the first run",
		Check: func(v model.View) string {
			if runs > 1 {
				return "broke on a later run"
			}
			return ""
		},
	})
	code, out, stderr := runIn(t, program(d), "explore", "--max-schedules", "0", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "5")
	assert.Equal(t, 4, code, "%s%s", out, stderr)
	assert.Contains(t, stderr, "the clean run (no faults), run again to confirm the counterexample, crossed the same events as its first run, which held every invariant, but was judged otherwise; it broke late_runs_only after seq 1 (worker.start)")
}

// counted counts the runs of its system in *n, across runs.
type counted struct {
	model.System
	n *int
}

func (c counted) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	*c.n++
	return c.System.Run(ctx, env, task)
}
