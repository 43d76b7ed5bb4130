package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/lostupdate"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// exhaustiveArgs walk the agent's two timeouts at every event they fit,
// without world events.
var exhaustiveArgs = []string{"explore", "--exhaustive", "--kinds", "tool_timeout,timeout_after_commit", "--no-world"}

// TestExploreExhaustive: explore --exhaustive on a user's system finds
// the planted bug with one fault (exit 1) and writes a counterexample the
// printed command replays (exit 1); the fixed agent holds over exactly 121
// schedules (exit 0), and the output is the same on 1 and 4 workers; a
// walk cut by its cap, or one that reached no fault, is inconclusive
// (exit 3).
func TestExploreExhaustive(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := run(t, append(exhaustiveArgs, "--max-faults", "1", "--config", `{"variant":"planted"}`, "--out", dir)...)
	if code != 1 || !strings.HasPrefix(out, "counterexample at schedule 5 of the exhaustive walk: no schedule of fewer faults breaks an invariant\nenumerated: 1 of 0 faults, 4 of 1\n") ||
		// the task cart-7 by its reference, as every output redacts it
		!strings.Contains(out, "confirmed_once violated: first false after seq 17 (tool.commit), reached by f1 (tool_timeout): ref-51137c23 confirmed 2 times\n") {
		t.Fatalf("planted: exit %d\n%s%s", code, out, stderr)
	}
	i := strings.Index(out, "replay: inventory replay ")
	file := strings.Fields(out[i:])[3]
	if code, rout, _ := run(t, "replay", file); code != 1 || !strings.Contains(rout, "confirmed_once") {
		t.Fatalf("replay %s: exit %d\n%s", file, code, rout)
	}
	const fixed = "no counterexample among 121 schedules of at most 2 faults\n" +
		"enumerated: 1 of 0 faults, 10 of 1, 110 of 2\n" +
		"scope: 2 kinds (timeout_after_commit, tool_timeout); world events off; placement any event; controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant fixed, fixture inventory; modifiers on any fault repeated (2 crossings), persistent (to the run's end); not enumerated: synchronized (one worker), shared (one tenant), other repeat counts, until events and windows\n" +
		"faults: 230 of 230 scheduled reached (171 fired), 0 not reached\n"
	for _, w := range []string{"1", "4"} {
		if code, out, stderr := run(t, append(exhaustiveArgs, "--max-faults", "2", "--workers", w)...); code != 0 || out != fixed {
			t.Fatalf("fixed, %s workers: exit %d %q %s", w, code, out, stderr)
		}
	}
	code, out, stderr = run(t, append(exhaustiveArgs, "--max-faults", "2", "--max-schedules", "3")...)
	if code != 3 || !strings.HasPrefix(out, "incomplete: the walk reached its cap of 3 schedules before it ran every schedule of at most 2 faults; no counterexample among those 3, which proves nothing\nenumerated: 1 of 0 faults, 2 of 1, 0 of 2\n") ||
		!strings.Contains(stderr, "incomplete") {
		t.Fatalf("cap: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "explore", "--exhaustive", "--kinds", "branch_failure", "--max-faults", "1"); code != 3 ||
		!strings.HasPrefix(out, "inconclusive: no counterexample among 1 schedules of at most 1 faults, but no scheduled fault was reached\nenumerated: 1 of 0 faults, 0 of 1\n") ||
		!strings.Contains(stderr, "no scheduled fault was reached") {
		t.Fatalf("no site: exit %d\n%s%s", code, out, stderr)
	}
	for _, bad := range [][]string{
		{"explore", "--workers", "2"},
		{"explore", "--exhaustive", "--seed", "1"},
		{"explore", "--exhaustive", "--swarm"},
		{"explore", "--exhaustive", "--workers", "0"},
		{"explore", "--exhaustive", "--max-schedules", "100000001"},
		{"explore", "--exhaustive", "--max-faults", "17"},
	} {
		if code, _, stderr := run(t, bad...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d %s", bad, code, stderr)
		}
	}
}

// TestExploreExhaustiveRefusesCoverageEnv: --exhaustive records no
// coverage, so FAULTLINE_COVERAGE set is bad input naming the variable,
// as --coverage is, and no file is written; random exploration of the
// same system records into it.
func TestExploreExhaustiveRefusesCoverageEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cov.json")
	t.Setenv(cli.CoverageEnv, path)
	code, out, stderr := run(t, append(exhaustiveArgs, "--max-faults", "1")...)
	if code != 2 || stderr != "inventory: FAULTLINE_COVERAGE="+path+" does not apply to --exhaustive, which records no coverage: unset FAULTLINE_COVERAGE for this command\n" {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a coverage file was written: %v", err)
	}
	if code, out, stderr := run(t, "explore", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "20"); code != 0 {
		t.Fatalf("random: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("random exploration recorded no coverage: %v", err)
	}
}

// TestExploreExhaustiveReference: the reference system's command line has
// the mode too: over the designed scope with one fault, the baseline's
// first counterexample is the subject swap at the first proposal.
func TestExploreExhaustiveReference(t *testing.T) {
	code, out, stderr := runIn(t, program(copperfin.Definition()), "explore", "--exhaustive", "--own-events", "--max-faults", "1", "--config", `{"profile":"baseline"}`, "--json")
	var j struct {
		Exhaustive bool   `json:"exhaustive"`
		Found      bool   `json:"found"`
		Schedules  int    `json:"schedules"`
		PerSize    []int  `json:"per_size"`
		Index      int    `json:"index"`
		Invariant  string `json:"invariant"`
		FaultKind  string `json:"fault_kind"`
		Schedule   struct {
			Faults []struct {
				Event   string `json:"event"`
				Ordinal int    `json:"ordinal"`
				Kind    string `json:"kind"`
			} `json:"faults"`
		} `json:"schedule"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, stderr)
	}
	if code != 1 || !j.Exhaustive || !j.Found || j.Schedules != 2 || j.Index != 2 || len(j.PerSize) != 2 || j.Invariant != "right_subject" ||
		len(j.Schedule.Faults) != 1 || j.Schedule.Faults[0].Kind != "subject_swap" || j.Schedule.Faults[0].Event != "proposal" || j.Schedule.Faults[0].Ordinal != 1 {
		t.Fatalf("exit %d: %+v", code, j)
	}
}

// TestExploreExhaustiveProgress: on a buffer the walk writes nothing to
// stderr; on a terminal it shows the schedules run of those known so far,
// and with --json nothing.
func TestExploreExhaustiveProgress(t *testing.T) {
	args := append(slices.Clone(exhaustiveArgs), "--max-faults", "2")
	code, stdout, stderr := run(t, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	defer cli.FakeTerminal()()
	code, stdout2, stderr := run(t, args...)
	if code != 0 || stdout2 != stdout {
		t.Fatalf("exit %d; stdout changed with the progress:\n%s\nvs\n%s", code, stdout2, stdout)
	}
	for _, want := range []string{"(1/11, ", "(120/121, ", "counterexamples: 0", " schedules/"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, stderr)
		}
	}
	if code, _, stderr := run(t, append(args, "--json")...); code != 0 || stderr != "" {
		t.Fatalf("--json: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}

// clerk is a user's program registering the counter clerk, whose fixture
// holds no capability: a capability_revocation is reached and never acts.
func clerk() *cli.Program {
	d := model.Define("clerk", lostupdate.Fixture(), lostupdate.Factory())
	d.Builtin, d.Invariants = []string{}, []model.UserInvariant{lostupdate.Invariant()}
	return &cli.Program{Name: "clerk", Systems: []*model.Definition{d}}
}

// TestExploreExhaustiveUnfiredIsInconclusive: a walk whose reached faults
// never fired tested nothing: exit 3 with the random mode's reason, as
// random explore of the same scope exits.
func TestExploreExhaustiveUnfiredIsInconclusive(t *testing.T) {
	code, out, stderr := runIn(t, clerk(), "explore", "--exhaustive", "--kinds", "capability_revocation", "--max-faults", "2")
	const reason = "24 of the 24 faults they scheduled were reached but none fired (the system's adapters enact none of the kinds in scope at the crossings they reached, or a worker-scoped kind met no worker that ran a second task), so no fault was tested; set Definition.Enacts to the adapters' Kinds(), which every door then draws from, or give a worker-scoped kind fewer workers than tasks"
	if code != 3 || out != "inconclusive: no counterexample among 15 schedules of at most 2 faults; "+reason+"\n"+
		"enumerated: 1 of 0 faults, 4 of 1, 10 of 2\n"+
		"scope: 1 kinds (capability_revocation); world events on; placement any event; system {}, fixture lostupdate; modifiers none (no kind in scope takes one)\n"+
		"faults: 24 of 24 scheduled reached (0 fired), 0 not reached\n" ||
		stderr != "clerk: inconclusive: no counterexample among 15 schedules of at most 2 faults; "+reason+" (1 of 0 faults, 4 of 1, 10 of 2; kinds capability_revocation; world events on; placement any event; fixture lostupdate; modifiers none (no kind in scope takes one))\n" {
		t.Fatalf("exit %d\n%q\n%q", code, out, stderr)
	}
	if code, out, stderr := runIn(t, clerk(), "explore", "--kinds", "capability_revocation", "--seed", "1", "--checks", "20"); code != 3 || !strings.Contains(stderr, "were reached but none fired") {
		t.Fatalf("random: exit %d\n%s%s", code, out, stderr)
	}
}
