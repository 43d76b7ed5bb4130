package cli_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/payouts"
	"github.com/faultline/faultline/model"
)

// TestNoticeKindsOnASystemWithoutNotices: the inventory agent never reads
// the provider's notices, so a notice kind never meets its event:
// explore --kinds late_notice, random or exhaustive, is inconclusive
// (exit 3, never a pass), and says what the agent crossed.
func TestNoticeKindsOnASystemWithoutNotices(t *testing.T) {
	code, out, stderr := run(t, "explore", "--kinds", "late_notice", "--seed", "1", "--checks", "50")
	if code != 3 || !strings.Contains(stderr, "inconclusive: no fault kind in scope can be placed at an event the system crosses") || strings.Contains(stderr, "notice.receive") {
		t.Errorf("random: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = run(t, "explore", "--exhaustive", "--kinds", "late_notice,lost_notice")
	if code != 3 || !strings.Contains(stderr, "inconclusive: no counterexample among 1 schedules of at most 3 faults, but no scheduled fault was reached") {
		t.Errorf("exhaustive: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestExploreNoticesOfAUserSystem: a user's command line registering the
// payout agent, which reads its notices: explore --notices finds the
// planted TrustNotices bug (exit 1, the late notice alone) and the
// correct agent holds over the notice kinds and the rate limit (exit 0).
func TestExploreNoticesOfAUserSystem(t *testing.T) {
	p := &cli.Program{Name: "payouts", Systems: []*model.Definition{payouts.Definition()}}
	code, out, stderr := runIn(t, p, "explore", "--max-schedules", "0", "--notices", "--kinds", "rate_limit", "--no-world", "--seed", "1", "--checks", "100", "--config", `{"bug":"trust_notices"}`)
	if code != 1 || !strings.Contains(out, "recorded_agrees_with_ledger violated: first false after seq 9 (checkpoint.write), reached by f1 (late_notice)") ||
		!strings.Contains(out, "minimal schedule (1 fault):") {
		t.Errorf("trusting: exit %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = runIn(t, p, "explore", "--max-schedules", "0", "--notices", "--kinds", "rate_limit", "--no-world", "--seed", "1", "--checks", "100")
	if code != 0 || !strings.HasPrefix(out, "no counterexample in 100 checks (seed 1, correct, notices, fixture payouts)\n") {
		t.Errorf("correct: exit %d, stderr %q\n%s", code, stderr, out)
	}
}
