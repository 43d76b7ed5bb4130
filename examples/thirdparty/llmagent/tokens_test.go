package llmagent_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
)

// tokenBudget is the fixture's token budget for the task: two of the
// scripted model's replies (37 tokens each, by their own usage fields),
// so the agent may be asked once more than it needs, never six times.
const tokenBudget = 74

// budgeted is definition() with the fixture's task stating tokenBudget.
func budgeted() *model.Definition {
	def := definition()
	def.Fixtures[0].Tasks[0].TokenBudget = tokenBudget
	return def
}

// TestTokenBudget is the token budget's counterfactual pair, over each
// SDK: TestCheck (the default check) on budgeted(), in a process of its
// own, finds the agent that re-asks a refusing model in a loop
// (reask_on_refusal: six replies) by the budget invariant at its third
// reply (111 tokens of 74), shrunk to the one model_refusal at
// proposal#1, and its replay line fails again; the correct agent holds.
// On definition(), which states no token budget, the same agent under
// the same fault holds: its journal stops it at its fifth call (one plus
// the retry budget of four), so only the token budget tells its loop.
func TestTokenBudget(t *testing.T) {
	if os.Getenv("LLMAGENT_BODY") != "" {
		t.Skip("the subprocess runs TestCheck only")
	}
	const by = "reached by f1 (model_refusal): "
	for _, provider := range providers {
		refusal := model.FaultEntry{Event: model.EvProposal, Ordinal: 1, Kind: "model_refusal"}
		if fired, broke := runOnce(t, provider, "reask_on_refusal", refusal); len(fired) != 1 || fired[0] != 1 || broke != "" {
			t.Errorf("%q: reask_on_refusal without a token budget: fired %v, broke %q (want the journal to hold it)", provider, fired, broke)
		}
		for _, c := range []struct{ bug, budget, violation string }{
			{"reask_on_refusal", "1", "budget violated: first false after seq 7 (proposal), " + by + "111 model tokens exceed the token budget of 74"},
			{"", "1", ""},
		} {
			name, dir := provider+"/"+c.bug+" budget="+c.budget, t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run", "^TestCheck$", "-test.v")
			cmd.Env = subEnv("LLMAGENT_BUG="+c.bug, "LLMAGENT_PROVIDER="+provider, "LLMAGENT_BODY=1", "LLMAGENT_FAIL_DIR="+dir, "LLMAGENT_TOKEN_BUDGET="+c.budget)
			b, err := cmd.CombinedOutput()
			out := string(b)
			if c.violation == "" {
				if err != nil || !strings.Contains(out, "--- PASS: TestCheck") {
					t.Errorf("%s: want the check to hold (%v):\n%s", name, err, out)
				}
				continue
			}
			if err == nil || !strings.Contains(out, "minimal schedule (1 fault)") || !strings.Contains(out, c.violation) {
				t.Fatalf("%s: want %q shrunk to one fault (%v):\n%s", name, c.violation, err, out)
			}
			m := regexp.MustCompile(`replay: FAULTLINE_REPLAY=(\S+) go test`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("%s: no replay line:\n%s", name, out)
			}
			replay := exec.Command(os.Args[0], "-test.run", "^TestCheck$", "-test.v")
			replay.Env = subEnv("FAULTLINE_REPLAY="+m[1], "LLMAGENT_PROVIDER=", "LLMAGENT_TOKEN_BUDGET="+c.budget)
			if b, err = replay.CombinedOutput(); err == nil || !strings.Contains(string(b), c.violation) {
				t.Fatalf("%s: the replay line did not fail with %q (%v):\n%s", name, c.violation, err, b)
			}
		}
	}
}
