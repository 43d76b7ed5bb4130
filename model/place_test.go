package model_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestPlaceOnASystemWithTwoCheckpoints: the archiver writes two
// checkpoints and calls its tool once. SingleFault places the checkpoint kinds
// at the reference system's third write, which this agent never reaches;
// SingleFaults places them on its own clean run, at the second write
// (checkpoint_rollback, designed for the second, stays there), and every
// schedule it places is reached. Kinds at events the agent never crosses
// are listed, not placed.
func TestPlaceOnASystemWithTwoCheckpoints(t *testing.T) {
	def := archiver.Definition()
	p, err := model.SingleFaults(def, "", model.Config{System: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	c := model.Crossings(p.Clean)
	// worker.start, at which no fault is ever reached, is not counted
	if c[model.EvCheckpointWrite] != 2 || c[model.EvToolCommit] != 1 || c[model.EvCheckpointLoad] != 1 || len(c) != 3 {
		t.Fatalf("clean run crossings %v", c)
	}
	got := map[string]string{}
	for _, s := range p.Schedules {
		if len(s.Faults) != 1 || s.Seed != s.Faults[0].Kind {
			t.Fatalf("schedule %+v", s)
		}
		got[s.Faults[0].Kind] = s.Faults[0].Placement()
		res, err := def.Run(s, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Faults[0].Reached {
			t.Errorf("%s at %s not reached", s.Faults[0].Kind, s.Faults[0].Placement())
		}
	}
	for kind, want := range map[string]string{
		"worker_restart": "checkpoint.write#2", "missing_checkpoint": "checkpoint.write#2", "stale_checkpoint": "checkpoint.write#2",
		"future_version_checkpoint": "checkpoint.write#2", "corrupt_checkpoint": "checkpoint.write#2", "checkpoint_rollback": "checkpoint.write#2",
		"tool_timeout": "tool.commit#1", "timeout_after_commit": "tool.commit#1",
	} {
		if got[kind] != want {
			t.Errorf("%s placed at %q, want %q", kind, got[kind], want)
		}
		ref, err := model.SingleFault(kind, model.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(want, "checkpoint.write") && ref.Faults[0].Placement() != "checkpoint.write#3" {
			t.Errorf("SingleFault(%s) at %s, want the reference system's checkpoint.write#3", kind, ref.Faults[0].Placement())
		}
	}
	if len(p.Schedules)+len(p.Uncrossed) != len(model.Catalogue()) {
		t.Errorf("%d placed + %d uncrossed, want %d kinds", len(p.Schedules), len(p.Uncrossed), len(model.Catalogue()))
	}
	for _, kind := range p.Uncrossed {
		if _, ok := got[kind]; ok {
			t.Errorf("%s both placed and uncrossed", kind)
		}
		ref, _ := model.SingleFault(kind, model.Config{})
		if c[ref.Faults[0].Event] != 0 {
			t.Errorf("%s listed uncrossed, but the clean run crossed %s %d times", kind, ref.Faults[0].Event, c[ref.Faults[0].Event])
		}
	}
	for _, bad := range []struct {
		kinds []string
		want  string
	}{
		{[]string{"no_such_kind"}, `unknown fault kind "no_such_kind"`},
		{[]string{"tool_timeout", "tool_timeout"}, `kind "tool_timeout" given twice`},
	} {
		if _, err := model.SingleFaults(def, "", model.Config{}, bad.kinds...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("SingleFaults(%v): %v, want %q", bad.kinds, err, bad.want)
		}
	}
	if _, err := model.SingleFaults(def, "copperfin", model.Config{}); err == nil || !strings.Contains(err.Error(), `unknown fixture "copperfin" (valid: archive)`) {
		t.Errorf("unknown fixture: %v", err)
	}
}

// TestPlaceFollowsThePrefix: a retry's second tool.commit exists only in
// a run where an earlier fault made the agent retry, and Place reads the
// run it is given: the clean run's count, or the prefix's.
func TestPlaceFollowsThePrefix(t *testing.T) {
	def := archiver.Definition()
	cfg := model.Config{System: json.RawMessage(`{}`)}
	run := func(faults ...model.FaultEntry) *model.Result {
		t.Helper()
		res, err := def.Run(&model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: faults}, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	clean := run()
	prefix := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}
	after := run(prefix)
	if n, m := model.Crossings(clean)[model.EvToolCommit], model.Crossings(after)[model.EvToolCommit]; n != 1 || m != 2 {
		t.Fatalf("tool.commit crossed %d times clean, %d after a timeout; want 1 and 2", n, m)
	}
	if _, ok := model.Place("stale_policy", clean); ok {
		t.Errorf("stale_policy placed on a run that reads no policy")
	}
	if _, ok := model.Place("no_such_kind", clean); ok {
		t.Errorf("an unknown kind placed")
	}
	if f, ok := model.Place("worker_restart", clean); !ok || f.Placement() != "checkpoint.write#2" {
		t.Errorf("worker_restart placed %v %v", f, ok)
	}
	if f, ok := model.Place("tool_timeout", after); !ok || f.Placement() != "tool.commit#1" {
		t.Errorf("tool_timeout placed %v %v", f, ok)
	}
}

// TestPlacementsNameWhatTheFixtureLacks: a subject swap needs a second
// subject of the task's tenant; on a fixture with one subject it is placed
// (its event is crossed) and named as lacking it, and its run is reached,
// not fired. The full fixture lacks nothing.
func TestPlacementsNameWhatTheFixtureLacks(t *testing.T) {
	fx := copperfin.Copperfin()
	fx.Name, fx.Subjects = "one_subject", fx.Subjects[:1]
	def := model.Define("one_subject", fx, copperfin.Factory(0))
	p, err := model.SingleFaults(def, "", model.Config{}, "subject_swap", "revoked_capability")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"subject_swap": "a second subject of tenant T-1 to swap in: the fixture has no other subject of a task's tenant, so the fault is reached but never fires"}
	if len(p.Schedules) != 2 || !maps.Equal(p.Lacking, want) {
		t.Fatalf("%d schedules, lacking %q", len(p.Schedules), p.Lacking)
	}
	res, err := def.Run(p.Schedules[0], model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Faults[0]; !f.Reached || f.Fired != 0 {
		t.Fatalf("subject_swap on one subject: %+v", f)
	}
	full, err := model.SingleFaults(model.Define("copperfin", copperfin.Copperfin(), copperfin.Factory(0)), "", model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Lacking != nil {
		t.Fatalf("the full fixture lacks %q", full.Lacking)
	}
}

// TestSingleFaultsOncePerTool: the reservation service's tasks call two
// tools, inventory.reserve then inventory.confirm. Each of the 12 kinds
// at tool.commit is placed once per tool, in that order, at the tool's
// first call (seed kind@tool), so the 28 placed kinds make 40 schedules;
// the reference system calls one tool, and each of its kinds keeps its
// one tool-less placement (tool.commit#1).
func TestSingleFaultsOncePerTool(t *testing.T) {
	p, err := model.SingleFaults(inventory.Definition(), "", model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var atTool []string
	for _, s := range p.Schedules {
		if f := s.Faults[0]; f.Event == model.EvToolCommit {
			atTool = append(atTool, s.Seed+" "+f.Placement())
		}
	}
	if len(p.Schedules) != 40 || len(p.Uncrossed) != 7 || len(atTool) != 24 {
		t.Fatalf("%d schedules, %d uncrossed, %d at tool.commit", len(p.Schedules), len(p.Uncrossed), len(atTool))
	}
	for i, want := range []string{
		"timeout_after_commit@inventory.reserve tool.commit(inventory.reserve)#1",
		"timeout_after_commit@inventory.confirm tool.commit(inventory.confirm)#1",
	} {
		if atTool[i] != want {
			t.Errorf("placement %d: %q, want %q", i, atTool[i], want)
		}
	}
	// the planted bug (confirm's retry builds a new request key) breaks
	// under tool_timeout aimed at confirm, and only there
	planted := model.Config{System: json.RawMessage(`{"variant":"planted"}`)}
	for _, tool := range []string{"inventory.reserve", "inventory.confirm"} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "tool_timeout@" + tool, Config: planted,
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Tool: tool, Kind: "tool_timeout"}}}
		res, err := inventory.Definition().Replay(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.RunVerdict, map[bool]model.RunVerdict{true: model.Unrecoverable, false: model.Recovered}[tool == "inventory.confirm"]; got != want {
			t.Errorf("tool_timeout at %s on the planted variant: %s, want %s", tool, got, want)
		}
	}
	ref, err := model.SingleFaults(model.Define("copperfin", copperfin.Copperfin(), copperfin.Factory(0)), "", model.Config{}, "tool_timeout", "timeout_after_commit")
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Schedules) != 2 || ref.Schedules[0].Seed != "tool_timeout" || ref.Schedules[0].Faults[0].Placement() != "tool.commit#1" || ref.Schedules[1].Faults[0].Tool != "" {
		t.Fatalf("the reference system's placements: %d, %+v", len(ref.Schedules), ref.Schedules)
	}
}
