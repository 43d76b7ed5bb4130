package model_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/internal/spare"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// A harness whose Results are handed back (internal/spare) reuses their
// storage: each run's Result, encoded, is byte-equal to a fresh harness's
// run of the same schedule, on the one-refund fixture (a record that fits
// the small storage) and the batch (a larger one), with one fault and
// with three (their reports reused too).
func TestSpareResultsRunAsFresh(t *testing.T) {
	cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	factory, err := copperfin.Configured(cfg)
	if err != nil {
		t.Fatal(err)
	}
	one := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}
	three := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"},
		{Event: model.EvCheckpointWrite, Ordinal: 1, Kind: "missing_checkpoint"},
		{Event: model.EvToolCommit, Ordinal: 2, Kind: "timeout_after_commit"}}
	for _, fx := range []model.Fixture{copperfin.Copperfin(), copperfin.CopperfinBatch()} {
		h := model.NewHarness(fx, model.Options{})
		for i, fs := range [][]model.FaultEntry{nil, one, three, three, nil, one, three} {
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "spare", Config: cfg, Faults: fs}
			res, err := h.Run(factory, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := model.NewHarness(fx, model.Options{}).Run(factory, s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(fresh)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, run %d (%d faults) after handing back the one before:\n%s\nwant\n%s", fx.Name, i, len(fs), got, want)
			}
			spare.Result(h, res)
		}
	}
}
