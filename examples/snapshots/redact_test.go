package snapshots_test

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/model"
)

// TestRedactionWholeTokens: with the fixture's actor named by a word the
// janitor's own strings hold ("janitor", as a user's actor "desk" beside
// its table desk_checkpoint), the run record replaces the actor only
// where it stands as a token: the table janitor_checkpoint is shown as it
// is, the idempotency key janitor:delete:a-1 with the actor replaced by
// its reference, ref-08f5c742 (':' ends a token, so no id a key embeds
// leaks), and the task sweep-vol-a by its reference.
func TestRedactionWholeTokens(t *testing.T) {
	def := definition(t)
	for i := range def.Fixtures[0].Tasks {
		def.Fixtures[0].Tasks[i].Actor = "janitor"
	}
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "tokens", Config: snapshots.Config(true),
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}}
	var details, tasks []string
	synctest.Test(t, func(t *testing.T) {
		res, err := def.Run(s, model.Options{Clock: def.Clock})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Record().Timeline[:8] {
			details, tasks = append(details, e.Detail), append(tasks, e.Task)
		}
	})
	want := []string{"", "janitor_checkpoint", "GET /snapshots", "janitor_checkpoint",
		"delete_snapshot key ref-08f5c742:delete:a-1 replayed false receipt false",
		"delete_snapshot key ref-08f5c742:delete:a-1+retry2 replayed false receipt true",
		"janitor_checkpoint", "deleted [a-1], kept 1"}
	if !slices.Equal(details, want) {
		t.Errorf("the record's details:\n%q\nwant\n%q", details, want)
	}
	if c := slices.Compact(slices.Clone(tasks)); len(c) != 1 || c[0] != "ref-5d2281fd" {
		t.Errorf("the record's tasks: %q", tasks)
	}
}
