package model_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// corpusExpect records, for six schedule files of reference/corpus/ whose runs were
// checked by hand, the verdict each must replay to under its own config
// and the invariants it must violate; the tests below assert the facts
// behind them. The regression record of every corpus file under every
// profile is reference/corpus/testdata/verdicts.golden, asserted by package corpus.
var corpusExpect = map[string]struct {
	verdict  model.RunVerdict
	violated []string
}{
	"timeout-after-commit.json":      {model.Unrecoverable, []string{model.InvEffectAtMostOnce, model.InvRecordedAgreesWithLedger}},
	"harness-practice-fixture.json":  {model.Recovered, nil},
	"stale-checkpoint-rejected.json": {model.ContainedFailure, nil},
	"budget-exhausted.json":          {model.ContainedFailure, nil},
	"best-effort-join-degraded.json": {model.Recovered, nil},
	"memory-loss-hold.json":          {model.ContainedFailure, nil},
}

func loadCorpus(t *testing.T, name string) *model.Schedule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "reference", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseSchedule(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TestCorpusReplaysToRecordedVerdicts replays each hand-checked corpus
// file and asserts its recorded verdict and violated invariants.
func TestCorpusReplaysToRecordedVerdicts(t *testing.T) {
	names := make([]string, 0, len(corpusExpect))
	for name := range corpusExpect {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		want := corpusExpect[name]
		res := run(t, loadCorpus(t, name))
		var violated []string
		for _, i := range res.Invariants {
			if !i.Held {
				violated = append(violated, i.Invariant)
			}
		}
		if res.RunVerdict != want.verdict || !slices.Equal(violated, want.violated) {
			t.Errorf("%s: verdict %s violated %v; recorded %s %v", name, res.RunVerdict, violated, want.verdict, want.violated)
		}
	}
}

// TestHarnessPracticeFixture checks the proof facts the harness practice lists for its local
// harness run, and that without idempotency the same schedule duplicates
// the refund.
func TestHarnessPracticeFixture(t *testing.T) {
	s := loadCorpus(t, "harness-practice-fixture.json")
	res := run(t, s)
	var loads, commits []model.Event
	for _, e := range res.Timeline.Events() {
		switch e.Event {
		case model.EvCheckpointLoad:
			loads = append(loads, e)
		case model.EvToolCommit:
			commits = append(commits, e)
		}
	}
	// checkpoint 3 reloaded by the second worker
	if len(loads) != 2 || loads[1].Worker != 2 || loads[1].CheckpointSeq != 3 || loads[1].Outcome != "ok" {
		t.Fatalf("loads %+v", loads)
	}
	// the request key replayed once: two sends of the same key, the second
	// a provider replay; no duplicate commit
	if len(commits) != 2 || commits[0].Outcome != "unknown" || commits[1].Outcome != "committed" {
		t.Fatalf("commits %+v", commits)
	}
	if res.Terms.Effects != 1 || res.Terms.DuplicateEffect || res.RunVerdict != model.Recovered {
		t.Fatalf("terms %+v verdict %s", res.Terms, res.RunVerdict)
	}
	last := res.Timeline.Events()[len(res.Timeline.Events())-1]
	if last.Event != model.EvClaim || last.DeadlineRemainingMs != 1598 || last.RetryRemaining != 0 {
		t.Fatalf("final event %+v", last)
	}
	rec := res.Record()
	if rec.Budget.Attempts != 2 || rec.Budget.Restarts != 1 || rec.Budget.DeadlineRemainingMs != 1598 {
		t.Fatalf("budget %+v", rec.Budget)
	}
	// both branch outcomes in the final ledger
	cs, _ := copperfin.ControlsOf(s.Config)
	_ = cs
	joins := 0
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvBranchJoin {
			joins++
		}
	}
	if joins != 1 {
		t.Fatalf("%d join records", joins)
	}

	s.Config = model.Config{System: copperfin.Settings{Controls: cs.Without(copperfin.Idempotency), HasControls: true}.JSON(),
		RetryBudget: s.Config.RetryBudget, Deadline: s.Config.Deadline, Join: s.Config.Join}
	res = run(t, s)
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if res.RunVerdict != model.Unrecoverable || inv.Held || res.Terms.Effects != 2 {
		t.Fatalf("without idempotency: verdict %s, %+v, effects %d", res.RunVerdict, inv, res.Terms.Effects)
	}
}

// TestBudgetExhaustedEndsOnce: when every attempt times out, the task makes
// exactly one plus its retry budget attempts, then exactly one terminal
// event, and nothing after it.
func TestBudgetExhaustedEndsOnce(t *testing.T) {
	res := run(t, loadCorpus(t, "budget-exhausted.json"))
	commits, claims, lastCommit, claimSeq := 0, 0, 0, 0
	for _, e := range res.Timeline.Events() {
		switch e.Event {
		case model.EvToolCommit:
			commits++
			lastCommit = e.Seq
		case model.EvClaim:
			claims++
			claimSeq = e.Seq
		}
	}
	if commits != 3 || claims != 1 || claimSeq != len(res.Timeline.Events()) || lastCommit > claimSeq {
		t.Fatalf("commits %d, claims %d at seq %d of %d", commits, claims, claimSeq, len(res.Timeline.Events()))
	}
	if c := res.Claims[0]; c.Verdict != model.ClaimHold || c.Reason != "retry budget exhausted with the outcome unresolved" {
		t.Fatalf("claim %+v", c)
	}
	if f := res.Faults[0]; f.Fired != 3 {
		t.Fatalf("a persistent fault fires at every attempt: fired %d", f.Fired)
	}
	// the same schedule against a system that ignores its budget breaks it
	s := loadCorpus(t, "budget-exhausted.json")
	s.Config = copperfin.WithMutant(s.Config, "unbounded_retry")
	res = run(t, s)
	if inv, _ := res.Invariant(model.InvBudget); inv.Held || inv.Detail != "attempt 4 exceeds one plus the retry budget of 2" {
		t.Fatalf("budget invariant %+v", inv)
	}
}

// TestBestEffortJoinKeepsFailedBranch: the refund completes degraded and
// the join record keeps the failed branch; a system that drops it breaks
// join_preserved.
func TestBestEffortJoinKeepsFailedBranch(t *testing.T) {
	s := loadCorpus(t, "best-effort-join-degraded.json")
	res := run(t, s)
	if c := res.Claims[0]; c.Verdict != model.ClaimRelease || !c.Degraded {
		t.Fatalf("claim %+v", c)
	}
	var branches []string
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvBranchRun {
			branches = append(branches, e.Detail+":"+e.Outcome)
		}
	}
	if !slices.Equal(branches, []string{"search:success", "summarize:failure"}) {
		t.Fatalf("branches %v", branches)
	}
	s.Config = copperfin.WithMutant(s.Config, "failed_branch_dropped")
	res = run(t, s)
	inv, _ := res.Invariant(model.InvJoinPreserved)
	if inv.Held || inv.Detail != "branch summarize (failure) missing from the join record" || inv.Event != model.EvBranchJoin {
		t.Fatalf("join_preserved %+v", inv)
	}
}

// TestMemoryLossHolds: with the approval gone from context before any
// checkpoint holds it, the task holds and makes no effect; a system that
// fabricates the approval makes an effect under no approved capability.
func TestMemoryLossHolds(t *testing.T) {
	s := loadCorpus(t, "memory-loss-hold.json")
	res := run(t, s)
	if res.Terms.Effects != 0 || res.Claims[0].Verdict != model.ClaimHold || !res.Held() {
		t.Fatalf("terms %+v claims %+v", res.Terms, res.Claims)
	}
	s.Config = copperfin.ConfigOfProfile(copperfin.ProfileBaseline)
	s.Config = copperfin.WithMutant(s.Config, "fabricated_approval")
	res = run(t, s)
	inv, _ := res.Invariant(model.InvNoInventedProgress)
	if inv.Held || inv.Event != model.EvToolCommit || res.Terms.Effects != 1 {
		t.Fatalf("no_invented_progress %+v effects %d", inv, res.Terms.Effects)
	}
}

// TestRecordRedactsIdentifiers: the run record carries no raw subject,
// capability or trace identifier.
func TestRecordRedactsIdentifiers(t *testing.T) {
	res := run(t, loadCorpus(t, "harness-practice-fixture.json"))
	rec := res.Record()
	for _, e := range rec.Timeline {
		for _, raw := range []string{"O-731", "CAP-27-731", "trace-refund"} {
			if strings.Contains(e.Detail, raw) {
				t.Fatalf("seq %d detail %q leaks %s", e.Seq, e.Detail, raw)
			}
		}
	}
	if want := "ref-"; !strings.Contains(rec.Timeline[5].Detail, want) {
		t.Fatalf("proposal detail not redacted to a reference: %q", rec.Timeline[5].Detail)
	}
	if rec.Invariants[model.InvResumeFromCheckpoint] != "pass" || len(rec.Invariants) != 10 || rec.Invariants["retry_paced"] != "pass" || rec.Faults[1].At != "checkpoint.write#3" || !rec.Faults[1].Handled {
		t.Fatalf("record %+v %+v", rec.Invariants, rec.Faults)
	}
}
