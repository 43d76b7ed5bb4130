package sqlfault_test

import (
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// BenchmarkCheckSQL measures one check through the adapter on a real
// SQLite database file: a clean run and a run with timeout_after_commit
// at the first COMMIT (the agent retries under an insert-if-absent), each
// after emptying the tables, with the oracle's plain readback after every
// crossing.
//
// file: SQLite's defaults (every COMMIT waits for fsync); nosync: the same
// file with synchronous=off, the setting a test database can afford;
// memory: a shared-cache memory database (no file system at all).
func BenchmarkCheckSQL(b *testing.B) {
	for _, m := range []struct{ name, params string }{{"file", ""}, {"nosync", "_pragma=synchronous(off)"}, {"memory", "memory"}} {
		b.Run(m.name, func(b *testing.B) { benchSQL(b, m.params) })
	}
}

func benchSQL(b *testing.B, params string) {
	var s *system
	if params == "memory" {
		s = newSystemAt(b, agentOpts{Tx: true, Retry: true, Idempotent: true}, "file:"+b.Name()+"?mode=memory&cache=shared")
	} else {
		s = newSystemDSN(b, agentOpts{Tx: true, Retry: true, Idempotent: true}, params)
	}
	h := model.NewHarness(fixture, model.Options{Builtin: builtin})
	clean := &model.Schedule{Version: model.ScheduleVersion, Seed: "sql"}
	fault := &model.Schedule{Version: model.ScheduleVersion, Seed: "sql", Faults: []model.FaultEntry{at(model.EvToolCommit, 1, "timeout_after_commit")}}
	factory := func() model.System { return s }
	b.ReportAllocs()
	for b.Loop() {
		for _, sc := range []*model.Schedule{clean, fault} {
			if _, err := s.oracle.Exec(`DELETE FROM charges; DELETE FROM checkpoints`); err != nil {
				b.Fatal(err)
			}
			res, err := h.Run(factory, sc)
			if err != nil || !res.Held() {
				b.Fatalf("held %v, %v", res != nil && res.Held(), err)
			}
		}
	}
}

// BenchmarkCheckModel is the model path beside it: the billing example's
// agent on the model's Env, the same two runs (clean, then
// timeout_after_commit at the first commit).
func BenchmarkCheckModel(b *testing.B) {
	h := model.NewHarness(billing.Fixture(), billing.Options())
	clean := &model.Schedule{Version: model.ScheduleVersion, Seed: "sql"}
	fault := &model.Schedule{Version: model.ScheduleVersion, Seed: "sql", Faults: []model.FaultEntry{at(model.EvToolCommit, 1, "timeout_after_commit")}}
	factory := billing.Factory(0)
	b.ReportAllocs()
	for b.Loop() {
		for _, sc := range []*model.Schedule{clean, fault} {
			if _, err := h.Run(factory, sc); err != nil {
				b.Fatal(err)
			}
		}
	}
}
