package main

import (
	"strings"
	"testing"
)

// TestReplayNoticeSchedules replays the corpus's schedules of the
// provider's notices, one a kind: each breaks the typed profile, which has no defence
// of notices (exit 1, recorded_agrees_with_ledger at the checkpoint that
// records the wrong settlement), and holds with notice_reconcile added
// (exit 0), with --twice equal.
func TestReplayNoticeSchedules(t *testing.T) {
	const defended = "bind_identity,pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback,evidence_gate,notice_reconcile"
	for _, c := range []struct {
		file, failed, verdict string
	}{
		{"../../reference/corpus/notices/late-failed-notice.json", "recorded_agrees_with_ledger after seq 35 (checkpoint.write)",
			"unrecoverable (claim hold: the provider's notice reports the refund failed)"},
		{"../../reference/corpus/notices/redelivered-notice.json", "recorded_agrees_with_ledger after seq 29 (checkpoint.write)",
			"unrecoverable (claim release)"},
		{"../../reference/corpus/notices/reordered-notice.json", "recorded_agrees_with_ledger after seq 33 (checkpoint.write)",
			"unrecoverable (claim hold: the provider's notice reports the refund failed)"},
		{"../../reference/corpus/notices/lost-notice.json", "recorded_agrees_with_ledger after seq 27 (checkpoint.write)",
			"unrecoverable (claim hold: no notice reports the refund settled)"},
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

// TestAuditNotices: --notices adds a run of each kind of the provider's
// notices under each profile (12 runs), whose two keys the coverage then
// counts: 42 of 42 reachable keys visited, the notice keys violated
// (recorded_agrees_with_ledger) under every profile, since none of them
// has notice_reconcile. Without the flag the audit is the audit it was (40
// reachable keys, the default universe).
func TestAuditNotices(t *testing.T) {
	if raceDetector {
		t.Skip("renders the audit's coverage in one goroutine: go test ./... runs it in full")
	}
	p := t.TempDir() + "/cov.json"
	code, out, stderr := runCLI(t, "audit", "--notices", "--full", "--coverage", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"(and 12 runs with notices: 4 kinds of the provider's notices under 3 profiles)\nCoverage: 42 of 42 reachable keys visited (100.0%)\n",
		"  12375 keys in all: 42 reachable by the catalogue, 12333 unreachable",
		// 35 single-fault runs, 28 correlated and 4 with notices a profile;
		// baseline breaks one more key under the five new kinds (31 -> 32)
		// and one more under server_error after the commit (33), fail_closed
		// two more under server_error and network_error (18 -> 20)
		"  baseline     40 of 42 reachable keys visited: 33 violated, 7 held (67 runs)\n" +
			"  typed        42 of 42 reachable keys visited: 2 violated, 40 held (67 runs)\n",
		"  fail_closed  42 of 42 reachable keys visited: 20 violated, 22 held (67 runs)\n",
		"  tool/effect/after_checkpoint/isolated/ledger_readback              violated (recorded_agrees_with_ledger)                                         violated (recorded_agrees_with_ledger)  violated (recorded_agrees_with_ledger)  late_notice\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --notices lacks %q", want)
		}
	}
	if d := readCov(t, p); d.Runs != 201 || len(d.Keys) != 42 { // 105 single-fault, 84 correlated, 12 with notices
		t.Errorf("coverage file: runs %d, keys %d", d.Runs, len(d.Keys))
	}
	// the audit's 105 single-fault runs and 84 correlated (188 faults fired)
	// and the notices' 12 runs (14 more fired, one more not reached)
	if code, out, _ := runCLI(t, "audit", "--notices"); code != 0 || !strings.Contains(out, "Coverage: 42 of 42 reachable keys visited (100.0%), over 105 single-fault runs and 84 correlated, 12 with notices.\nFaults: 202 reached and fired, 4 scheduled but not reached, 1 reached but not fired.\n") {
		t.Errorf("summary: exit %d\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, "audit", "--notices", "--compat", "paper188"); code != 2 || !strings.Contains(stderr, "--notices") {
		t.Errorf("--notices --compat: exit %d, %s", code, stderr)
	}
}

// lateNotice is the minimal schedule explore shrinks the reference
// system's late notice to, under the typed profile, with the seed its
// runs had (the random phase's "explore", the walk's "exhaustive").
func lateNotice(seed string) string {
	return `{
  "version": 2,
  "seed": "` + seed + `",
  "config": {
    "harness": {
      "fixture": "copperfin",
      "notices": true
    },
    "system": {
      "profile": "typed"
    }
  },
  "faults": [
    {
      "event": "notice.receive",
      "ordinal": 1,
      "kind": "late_notice"
    }
  ]
}
`
}

// TestExploreNoticeKinds: --kinds late_notice turns the provider's
// notices on (exploration without them could place it nowhere), finds the
// typed profile recording the verified refund and then withdrawing it
// (recorded_agrees_with_ledger), and shrinks it to the one late notice;
// with notice_reconcile added the same checks hold (exit 0), all 394 of
// their faults reached. The exhaustive walk over late_notice and rate_limit finds the
// late notice at schedule 3, after the clean run and the rate limit
// alone (which holds); with notice_reconcile it walks all 17 schedules of
// at most two faults, the late failed notice of the corpus among them,
// and holds. The subject O-731 in the key shows as its reference.
func TestExploreNoticeKinds(t *testing.T) {
	const defended = "bind_identity,pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback,evidence_gate,notice_reconcile"
	code, out, stderr := runCLI(t, "explore", "--max-schedules", "0", "--kinds", "late_notice", "--seed", "1", "--checks", "200")
	if code != 1 || !strings.HasPrefix(out, "counterexample after 1 checks (seed 1)\nfaults: 1 of 1 scheduled reached (1 fired), 0 not reached\n"+
		"recorded_agrees_with_ledger violated: first false after seq 27 (checkpoint.write), reached by f1 (late_notice): checkpoint 4 withdraws effect ref-46b1712e:refund:v1, which checkpoint 3 recorded and the provider's ledger holds\n"+
		"minimal schedule (1 fault):\n"+lateNotice("explore")) {
		t.Errorf("typed: exit %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "explore", "--max-schedules", "0", "--kinds", "late_notice", "--seed", "1", "--checks", "200", "--controls", defended)
	if code != 0 || out != "no counterexample in 200 checks (seed 1, controls "+defended+", notices, fixture copperfin)\nfaults: 394 of 394 scheduled reached (205 fired), 0 not reached\n" {
		t.Errorf("defended: exit %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "explore", "--exhaustive", "--max-faults", "2", "--kinds", "late_notice,rate_limit")
	if code != 1 || !strings.HasPrefix(out, "counterexample at schedule 3 of the exhaustive walk: no schedule of fewer faults breaks an invariant\n"+
		"enumerated: 1 of 0 faults, 2 of 1, 0 of 2\nscope: 2 kinds (rate_limit, late_notice); world events on; placement any event; profile typed, notices, fixture copperfin; modifiers none (no kind in scope takes one)\n") ||
		!strings.Contains(out, "minimal schedule (1 fault):\n"+lateNotice("exhaustive")) {
		t.Errorf("exhaustive typed: exit %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "explore", "--exhaustive", "--max-faults", "2", "--kinds", "late_notice,rate_limit", "--controls", defended)
	if code != 0 || !strings.HasPrefix(out, "no counterexample among 17 schedules of at most 2 faults\nenumerated: 1 of 0 faults, 4 of 1, 12 of 2\n") {
		t.Errorf("exhaustive defended: exit %d, stderr %q\n%s", code, stderr, out)
	}
}

// TestExploreNoticesFlag: --notices adds the four kinds of the notices to
// the kinds named (the scope lists them after rate_limit) and turns the
// notices on; without it and without a notice kind the exploration is the
// one it was (no notices in the config).
func TestExploreNoticesFlag(t *testing.T) {
	code, out, stderr := runCLI(t, "explore", "--exhaustive", "--max-faults", "1", "--kinds", "rate_limit", "--notices")
	if code != 1 || !strings.Contains(out, "scope: 5 kinds (rate_limit, late_notice, reordered_notice, redelivered_notice, lost_notice); world events on; placement any event; profile typed, notices, fixture copperfin; modifiers none (no kind in scope takes one)\n") {
		t.Errorf("--notices: exit %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "explore", "--exhaustive", "--max-faults", "1", "--kinds", "rate_limit")
	if code != 0 || !strings.Contains(out, "scope: 1 kinds (rate_limit); world events on; placement any event; profile typed, fixture copperfin; modifiers none (no kind in scope takes one)\n") {
		t.Errorf("without: exit %d, stderr %q\n%s", code, stderr, out)
	}
}
