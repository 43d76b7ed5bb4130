package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// practiceEvents maps the harness practice's event names that faultline
// names otherwise; every event of model.AllEvents passes through as is.
var practiceEvents = map[string]model.EventName{
	"tool.call": model.EvToolCommit,
}

// practiceKinds maps the harness practice's kind names that faultline
// names otherwise; every catalogue kind and world event passes through
// (docs/formats.md, "The harness practice's schedules").
var practiceKinds = map[string]string{
	"timeout":         "tool_timeout",
	"restart":         "worker_restart",
	"partial_failure": "branch_failure",
}

// practiceFields are the fields a fault entry of the practice's shape may
// carry.
var practiceFields = []string{"branch", "event", "id", "kind", "ordinal", "tool"}

// ImportPractice converts a schedule in the harness practice's portable
// shape ({"seed", "faults": [{"event", "ordinal", "kind", "tool",
// "branch"}]}: no version, no config) into a version-2 schedule under cfg,
// by the one table of docs/formats.md. tools renames its tool names to the
// system's. A partial_failure at the n-th branch.join becomes a
// branch_failure of the named branch at the branch.run that fan-out
// crossed in def's fault-free run under cfg (def may be nil when no entry
// needs it). Errors name every unknown field, event and kind at once.
func ImportPractice(data []byte, def *model.Definition, cfg model.Config, tools map[string]string) (*model.Schedule, error) {
	if err := strictjson.Validate(data); err != nil {
		return nil, fmt.Errorf("practice schedule: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("practice schedule: %w", err)
	}
	if _, ok := top["version"]; ok {
		return nil, errors.New(`practice schedule: it has a "version": it is a faultline schedule already (replay it as it is)`)
	}
	var unknown []string
	for k := range top {
		if k != "seed" && k != "faults" {
			unknown = append(unknown, "field "+strconvQuote(k))
		}
	}
	s := &model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: []model.FaultEntry{}}
	if raw, ok := top["seed"]; ok {
		if err := json.Unmarshal(raw, &s.Seed); err != nil {
			return nil, fmt.Errorf(`practice schedule: "seed": %w`, err)
		}
	}
	var faults []map[string]json.RawMessage
	if raw, ok := top["faults"]; !ok {
		return nil, errors.New(`practice schedule: missing "faults"`)
	} else if err := json.Unmarshal(raw, &faults); err != nil {
		return nil, fmt.Errorf(`practice schedule: "faults": %w`, err)
	}
	if len(faults) > model.MaxFaults {
		return nil, fmt.Errorf("practice schedule: %d faults, more than the limit of %d", len(faults), model.MaxFaults)
	}
	var joins []int // fault indices placed on the fault-free run
	for i, f := range faults {
		var e practiceEntry
		for k, v := range f {
			if !slices.Contains(practiceFields, k) {
				unknown = append(unknown, fmt.Sprintf("faults[%d] field %s", i, strconvQuote(k)))
				continue
			}
			if err := e.set(k, v); err != nil {
				return nil, fmt.Errorf("practice schedule: faults[%d]: %q: %w", i, k, err)
			}
		}
		if e.Branch != "" && e.Kind != "partial_failure" && e.Kind != "branch_failure" {
			return nil, fmt.Errorf(`practice schedule: faults[%d]: "branch" %q goes with kind partial_failure, not %q`, i, e.Branch, e.Kind)
		}
		out, bad := e.convert(tools)
		for _, b := range bad {
			unknown = append(unknown, fmt.Sprintf("faults[%d] %s", i, b))
		}
		if e.Event == string(model.EvBranchJoin) && e.Kind == "partial_failure" ||
			e.Event == string(model.EvWorkerStart) && e.Kind == "restart" {
			joins = append(joins, i)
		}
		s.Faults = append(s.Faults, out)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("practice schedule: unknown %s (docs/formats.md lists the names it converts)", strings.Join(unknown, ", "))
	}
	if len(joins) > 0 {
		if err := resolveJoins(s, joins, def); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("practice schedule: converted: %w", err)
	}
	return s, nil
}

// strconvQuote quotes a name for an error.
func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// practiceEntry is one fault of the practice's shape.
type practiceEntry struct {
	ID, Event, Kind, Tool, Branch string
	Ordinal                       int
}

// set decodes field k of the entry.
func (e *practiceEntry) set(k string, v json.RawMessage) error {
	dst := map[string]any{"id": &e.ID, "event": &e.Event, "kind": &e.Kind, "tool": &e.Tool, "branch": &e.Branch, "ordinal": &e.Ordinal}[k]
	dec := json.NewDecoder(bytes.NewReader(v))
	return dec.Decode(dst)
}

// convert maps the entry through the tables and returns it with the names
// it does not know ("event \"x\"", "kind \"y\"").
func (e practiceEntry) convert(tools map[string]string) (model.FaultEntry, []string) {
	var bad []string
	out := model.FaultEntry{ID: e.ID, Ordinal: e.Ordinal, Target: e.Branch}
	ev, ok := practiceEvents[e.Event]
	if !ok {
		ev = model.EventName(e.Event)
		if !slices.Contains(model.AllEvents, ev) {
			bad = append(bad, "event "+strconvQuote(e.Event))
		}
	}
	out.Event = ev
	kind, ok := practiceKinds[e.Kind]
	if !ok {
		kind = e.Kind
		if !knownKind(kind) {
			bad = append(bad, "kind "+strconvQuote(e.Kind))
		}
	}
	switch {
	case e.Kind == "restart" && ev == model.EvWorkerStart:
		ev = model.EvCheckpointWrite // its ordinal is resolved on the clean run
	case e.Kind == "restart" && ev != model.EvCheckpointWrite:
		kind = "worker_crash" // a restart at any other event: the world event
	case e.Kind == "partial_failure" && ev == model.EvBranchJoin:
		ev = model.EvBranchRun // its ordinal is resolved on the clean run
	}
	out.Event, out.Kind = ev, kind
	out.Tool = e.Tool
	if to, ok := tools[e.Tool]; ok && e.Tool != "" {
		out.Tool = to
	}
	return out, bad
}

// knownKind reports whether kind is a catalogue kind or a world event.
func knownKind(kind string) bool {
	for _, list := range [][]model.FaultSpec{model.Catalogue(), model.WorldEvents()} {
		for _, sp := range list {
			if sp.Kind == kind {
				return true
			}
		}
	}
	return false
}

// resolveJoins places the entries whose practice ordinal counts another
// event than faultline's, on def's fault-free run under s's config: a
// branch_failure (its ordinal counting joins) at the branch.run of its
// branch in the fan-out the join closes; a worker_restart (its ordinal
// counting worker starts) at the last checkpoint.write before that start,
// or before the run's end when the fault-free run has fewer starts (the
// restart that makes that start the next one).
func resolveJoins(s *model.Schedule, joins []int, def *model.Definition) error {
	if def == nil {
		return errors.New("practice schedule: a partial_failure at branch.join or a restart at worker.start needs the system, whose fault-free run places it")
	}
	clean := &model.Schedule{Version: model.ScheduleVersion, Seed: s.Seed, Config: s.Config, Faults: []model.FaultEntry{}}
	res, err := def.Replay(clean)
	if err != nil {
		return fmt.Errorf("practice schedule: the fault-free run: %w", err)
	}
	tl := res.Timeline
	for _, i := range joins {
		f := &s.Faults[i]
		var at int
		if f.Kind == "branch_failure" {
			at = branchRun(tl, f.Ordinal, f.Target)
			if at == 0 {
				return fmt.Errorf("practice schedule: faults[%d]: the fault-free run of %s has no branch %q before branch.join #%d", i, def.Name, f.Target, f.Ordinal)
			}
		} else {
			at = checkpointBefore(tl, f.Ordinal)
			if at == 0 {
				return fmt.Errorf("practice schedule: faults[%d]: the fault-free run of %s writes no checkpoint before worker.start #%d", i, def.Name, f.Ordinal)
			}
		}
		f.Ordinal = at
	}
	return nil
}

// branchRun returns the branch.run ordinal of branch (any when "") in the
// fan-out the n-th branch.join closes, 0 when there is none.
func branchRun(tl model.Timeline, n int, branch string) int {
	join := 0
	for j := 0; j < tl.Len() && join < n; j++ {
		switch tl.Name(j) {
		case model.EvBranchJoin:
			join++
		case model.EvBranchRun:
			if join == n-1 && (branch == "" || tl.Detail(j) == branch) {
				return tl.Ordinal(j)
			}
		}
	}
	return 0
}

// checkpointBefore returns the ordinal of the last checkpoint.write before
// the n-th worker.start (n >= 2), or before the end when there are fewer;
// 0 when there is none.
func checkpointBefore(tl model.Timeline, n int) int {
	if n < 2 {
		return 0 // the first start is no restart
	}
	starts, last := 0, 0
	for j := 0; j < tl.Len(); j++ {
		switch tl.Name(j) {
		case model.EvWorkerStart:
			if starts++; starts == n {
				return last
			}
		case model.EvCheckpointWrite:
			last = tl.Ordinal(j)
		}
	}
	return last
}
