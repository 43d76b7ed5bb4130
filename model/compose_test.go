package model_test

import (
	"testing"

	"github.com/faultline/faultline/model"
)

// TestComposedCheckpointFaultsStoreOnce: two checkpoint disturbances
// composed at one write store the checkpoint once, so a stale replica
// serves the previous checkpoint (which the typed profile rejects) and
// never a duplicate of the newest (which the oracle would call stale
// although it is the newest).
func TestComposedCheckpointFaultsStoreOnce(t *testing.T) {
	s, err := model.ParseSchedule([]byte(`{"version":1,"config":{"profile":"typed"},"faults":[
		{"event":"checkpoint.write","ordinal":3,"kind":"worker_restart"},
		{"event":"checkpoint.write","ordinal":3,"kind":"stale_checkpoint"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s)
	if !res.Held() || res.RunVerdict != model.ContainedFailure || res.Claims[0].Reason != "checkpoint 2 is older than the acknowledged 3" {
		t.Fatalf("held %t, verdict %s, claim %+v, invariants %+v", res.Held(), res.RunVerdict, res.Claims, res.Invariants)
	}
	loads := 0
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvCheckpointLoad && e.Detail == "checkpoint 2 of head 3, state committing" {
			loads++
		}
	}
	if loads != 1 {
		t.Fatalf("the restarted worker was served checkpoint 2 of head 3 %d times, want 1", loads)
	}
}

// TestStaleReplicaAfterRollbackServesNewest: a stale replica composed with
// a rollback at the same write has no previous checkpoint to serve; it
// serves the newest the store holds, which is valid, so resuming from it
// breaks nothing.
func TestStaleReplicaAfterRollbackServesNewest(t *testing.T) {
	s, err := model.ParseSchedule([]byte(`{"version":1,"config":{"profile":"typed"},"faults":[
		{"event":"checkpoint.write","ordinal":2,"kind":"stale_checkpoint"},
		{"event":"checkpoint.write","ordinal":2,"kind":"checkpoint_rollback"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s)
	if !res.Held() || res.RunVerdict != model.Recovered || res.Terms.Effects != 1 {
		t.Fatalf("held %t, verdict %s, terms %+v, invariants %+v", res.Held(), res.RunVerdict, res.Terms, res.Invariants)
	}
	for _, f := range res.Faults {
		if f.Fired != 1 {
			t.Fatalf("fault %s fired %d times, want 1", f.ID, f.Fired)
		}
	}
}
