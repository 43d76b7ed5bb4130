package properties_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/linearize"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// lagSchedule is the typed reference system on the batch fixture as two
// concurrent workers, with a lagging readback at the first readback when
// lag is set and no fault otherwise.
func lagSchedule(lag bool) *model.Schedule {
	cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	cfg.Concurrency = &model.Concurrency{Workers: 2}
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "lag", Config: cfg, Faults: []model.FaultEntry{}}
	if lag {
		s.Faults = []model.FaultEntry{{Event: model.EvLedgerReadback, Ordinal: 1, Kind: "lagging_readback"}}
	}
	return s
}

func runLag(t *testing.T, s *model.Schedule, opts model.Options) *model.Result {
	t.Helper()
	cs, err := copperfin.ControlsOf(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	f, err := copperfin.NewFactory(cs, copperfin.MutantOf(s.Config))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(copperfin.CopperfinBatch(), opts).Run(f, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRunWithALaggingReadIsIllegal: the concurrent run's provider history with a
// lagging readback has no linearization (the readback, invoked after the
// commit's reply, does not see it), and the visualization is written
// beside the schedule; the same schedule without the lag is linearizable.
func TestRunWithALaggingReadIsIllegal(t *testing.T) {
	dir := t.TempDir()
	lag := lagSchedule(true)
	cx := filepath.Join(dir, "lagging_readback-1.json")
	if err := os.WriteFile(cx, model.Format(lag), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runLag(t, lag, model.Options{ProviderHistory: true})
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 {
		t.Fatalf("fault %+v", f)
	}
	r, err := linearize.CheckRun(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != linearize.Illegal || r.Action != "O-731:refund:v1" || r.Actions != 2 || len(res.Provider) != 5 {
		t.Fatalf("lagging read: %s, %d provider ops; want illegal at O-731:refund:v1 of 2 actions, 5 ops", r, len(res.Provider))
	}
	path, err := linearize.WriteBeside(cx, r)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "lagging_readback-1.linearize.html") {
		t.Errorf("written to %s", path)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "<html") {
		t.Errorf("html: %v, %d bytes", err, len(b))
	}
	clean := runLag(t, lagSchedule(false), model.Options{ProviderHistory: true})
	r, err = linearize.CheckRun(clean, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != linearize.Ok || r.Actions != 2 || len(clean.Provider) != 5 {
		t.Fatalf("without the lag: %s, want ok", r)
	}
	if _, err := linearize.WriteBeside(cx, r); err == nil {
		t.Error("an ok result wrote a visualization")
	}
}

// TestInvariantFlagsTheLag: the optional invariant is violated by the
// lagging read, at the readback, and holds without the lag.
func TestInvariantFlagsTheLag(t *testing.T) {
	opts := model.Options{Invariants: []model.UserInvariant{linearize.Invariant()}}
	res := runLag(t, lagSchedule(true), opts)
	inv, _ := res.Invariant(linearize.InvLinearizable)
	if inv.Held || inv.FaultID != "f1" || inv.FirstSeq != 23 || inv.Event != model.EvLedgerReadback {
		t.Fatalf("lagging read: %+v", inv)
	}
	res = runLag(t, lagSchedule(false), opts)
	if inv, _ := res.Invariant(linearize.InvLinearizable); !inv.Held {
		t.Fatalf("without the lag: %+v", inv)
	}
}
