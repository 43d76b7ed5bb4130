package model_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
)

// corpusExpect records, for every schedule file in corpus/, the verdict it
// must replay to and the invariants it must violate.
var corpusExpect = map[string]struct {
	verdict  model.RunVerdict
	violated []string
}{
	"timeout-after-commit.json":      {model.Unrecoverable, []string{model.InvEffectAtMostOnce}},
	"seed003-harness-fixture.json":   {model.Recovered, nil},
	"stale-checkpoint-rejected.json": {model.ContainedFailure, nil},
	"budget-exhausted.json":          {model.ContainedFailure, nil},
	"best-effort-join-degraded.json": {model.Recovered, nil},
	"memory-loss-hold.json":          {model.ContainedFailure, nil},
}

func loadCorpus(t *testing.T, name string) *model.Schedule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseSchedule(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TestCorpusReplaysToRecordedVerdicts replays every schedule in corpus/ and
// asserts its recorded verdict; a file without a recorded verdict fails.
func TestCorpusReplaysToRecordedVerdicts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "corpus", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < len(corpusExpect) {
		t.Fatalf("corpus has %d files, %d expected", len(files), len(corpusExpect))
	}
	for _, f := range files {
		name := filepath.Base(f)
		want, ok := corpusExpect[name]
		if !ok {
			t.Errorf("%s has no recorded verdict", name)
			continue
		}
		res := run(t, loadCorpus(t, name))
		var violated []string
		for _, i := range res.Invariants {
			if !i.Held {
				violated = append(violated, i.Name)
			}
		}
		if res.RunVerdict != want.verdict || !slices.Equal(violated, want.violated) {
			t.Errorf("%s: verdict %s violated %v; recorded %s %v", name, res.RunVerdict, violated, want.verdict, want.violated)
		}
	}
}

// TestSeed003Fixture checks the proof facts seed 003 lists for its local
// harness run, and that without idempotency the same schedule duplicates
// the refund.
func TestSeed003Fixture(t *testing.T) {
	s := loadCorpus(t, "seed003-harness-fixture.json")
	res := run(t, s)
	var loads, commits []model.Event
	for _, e := range res.Timeline {
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
	last := res.Timeline[len(res.Timeline)-1]
	if last.Event != model.EvClaim || last.DeadlineRemainingMs != 1598 || last.RetryRemaining != 0 {
		t.Fatalf("final event %+v", last)
	}
	rec := res.Record()
	if rec.Budget.Attempts != 2 || rec.Budget.Restarts != 1 || rec.Budget.DeadlineRemainingMs != 1598 {
		t.Fatalf("budget %+v", rec.Budget)
	}
	// both branch outcomes in the final ledger
	cs, _ := s.Config.Resolve()
	_ = cs
	joins := 0
	for _, e := range res.Timeline {
		if e.Event == model.EvBranchJoin {
			joins++
		}
	}
	if joins != 1 {
		t.Fatalf("%d join records", joins)
	}

	s.Config = model.Config{Controls: cs.Without(model.Idempotency), HasControls: true,
		RetryBudget: s.Config.RetryBudget, Deadline: s.Config.Deadline, Join: s.Config.Join}
	res = run(t, s)
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if res.RunVerdict != model.Unrecoverable || inv.Held || res.Terms.Effects != 2 {
		t.Fatalf("without idempotency: verdict %s, %+v, effects %d", res.RunVerdict, inv, res.Terms.Effects)
	}
}
