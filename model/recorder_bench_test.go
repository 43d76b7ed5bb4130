package model

import "testing"

// BenchmarkRecorderCompact records 27 events (the benchmark schedule's
// count) of a commit into a recorder whose storage is warm, nine strings
// taking turns as the details' parts: the cost of recording an event
// alone, without the run around it or the record's allocation.
func BenchmarkRecorderCompact(b *testing.B) {
	var c recorder
	c.startIn(nil, nil)
	task := Task{ID: "refund-O-731", RetryBudget: 2, Deadline: 30000}
	ru := &run{commitTool: "payments.refund"}
	ru.taskState = &ru.own
	ru.task, ru.state, ru.ckSeq, ru.worker, ru.attempts = &task, stateRunning, 3, 1, 1
	parts := []string{"payments.refund", "O-731:refund:v1", "refund-O-731", "f1", "CAP-1", "ev-1", "search", "summarize", "approval"}
	for b.Loop() {
		c.recs, c.strs = c.recs[:0], c.strs[:0]
		c.lastTask, c.lastTaskIdx = "", 0
		for i := range 27 {
			d := detail{kind: dCommit, s1: parts[i%9], s2: parts[(i+3)%9], b1: true}
			ru.world.Clock = Millis(100 + i)
			if !c.compact(ru, EvToolCommit, i, "f1", "unknown", &d, stateWaitingForTool) {
				b.Fatal("a coded event did not compact")
			}
		}
	}
}
