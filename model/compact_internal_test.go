package model

import "testing"

// TestRecordSetRefAgain: an evidence reference set twice on the last
// event keeps the second, one cleared keeps none, and the events around
// it keep theirs; strings past the 127th (two-byte indexes) and numbers
// past 32 bits read back exactly.
func TestRecordSetRefAgain(t *testing.T) {
	var c recorder
	c.start()
	d := detail{kind: dCommit, s1: "payments.refund", s2: "O-1:refund:v1", b1: true}
	rec := func(task string, at Millis) {
		if !c.compact(EvToolCommit, StateRunning, StateWaitingForTool, "unknown", task, "f1", "payments.refund", at, 1<<40, -3, 2, 7, 1, 2, &d) {
			t.Fatal("a coded event did not compact")
		}
	}
	rec("T-0", 5)
	c.setRef("ev-1")
	c.setRef("ev-2")
	rec("T-1", 6)
	c.setRef("ev-3")
	c.setRef("")
	for i := 2; i < 300; i++ {
		rec("T-"+string(rune('a'+i%26))+string(rune('a'+i/26)), Millis(i)<<33)
	}
	c.setRef("ev-last")
	var tl timeline
	c.take(&tl, "run-x")
	if tl.n != 300 {
		t.Fatalf("%d events", tl.n)
	}
	evs := (Timeline{&tl}).Events()
	if evs[0].EvidenceRef != "ev-2" || evs[1].EvidenceRef != "" || evs[299].EvidenceRef != "ev-last" || evs[298].EvidenceRef != "" {
		t.Fatalf("references %q %q %q %q", evs[0].EvidenceRef, evs[1].EvidenceRef, evs[298].EvidenceRef, evs[299].EvidenceRef)
	}
	for i, e := range evs {
		want := Event{RunID: "run-x", Seq: i + 1, At: e.At, StateBefore: StateRunning, StateAfter: StateWaitingForTool, Actor: "provider",
			Event: EvToolCommit, Tool: "payments.refund", Ordinal: 7, Task: e.Task, Worker: 1, FaultID: "f1", Attempt: 2, CheckpointSeq: 2,
			RetryRemaining: -3, DeadlineRemainingMs: 1 << 40, EvidenceRef: e.EvidenceRef, Outcome: "unknown",
			Detail: "payments.refund key O-1:refund:v1 replayed true receipt false"}
		if e != want {
			t.Fatalf("event %d: %+v, want %+v", i, e, want)
		}
		if i >= 2 && (e.At != Millis(i)<<33 || e.Task != "T-"+string(rune('a'+i%26))+string(rune('a'+i/26))) {
			t.Fatalf("event %d: at %d, task %q", i, e.At, e.Task)
		}
	}
}
