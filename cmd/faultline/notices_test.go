package main

import (
	"strings"
	"testing"
)

// TestReplayNoticeSchedules replays the corpus's schedules of the
// provider's notices: each breaks the typed profile, which has no defence
// of notices (exit 1, recorded_agrees_with_ledger at the checkpoint that
// records the wrong settlement), and holds with notice_reconcile added
// (exit 0), with --twice equal.
func TestReplayNoticeSchedules(t *testing.T) {
	const defended = "bind_identity,pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback,evidence_gate,notice_reconcile"
	for _, c := range []struct {
		file, failed, verdict string
	}{
		{"../../corpus/notices/late-failed-notice.json", "recorded_agrees_with_ledger after seq 35 (checkpoint.write)",
			"unrecoverable (claim hold: the provider's notice reports the refund failed)"},
		{"../../corpus/notices/redelivered-notice.json", "recorded_agrees_with_ledger after seq 29 (checkpoint.write)",
			"unrecoverable (claim release)"},
	} {
		code, out, stderr := runCLI(t, "replay", c.file)
		if code != 1 || !strings.Contains(out, "Failed invariants: "+c.failed+".") || !strings.Contains(out, "Verdict: "+c.verdict+".") {
			t.Errorf("%s undefended: exit %d, stderr %q\n%s", c.file, code, stderr, out)
		}
		if !strings.Contains(out, "with control notice_reconcile enabled") {
			t.Errorf("%s: the next step does not name notice_reconcile:\n%s", c.file, out)
		}
		code, out, stderr = runCLI(t, "replay", c.file, "--controls", defended, "--twice")
		if code != 0 || !strings.Contains(out, "Failed invariants: none.") {
			t.Errorf("%s defended: exit %d, stderr %q\n%s", c.file, code, stderr, out)
		}
	}
}
