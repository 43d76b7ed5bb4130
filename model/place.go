package model

import (
	"errors"
	"fmt"
	"slices"
)

// Crossings returns how many times res crossed each event a fault can be
// reached at: the highest ordinal its timeline records for the event,
// which is the count a fault entry's Ordinal is matched against (a fault
// at event#n is reached only when the run crosses event at least n
// times). Events the run never crossed are absent, and so are the claim
// and worker.start, which the harness records around the system's run
// and at which no catalogue kind is reached (Place counts it for a
// worker-scoped kind). A nil result or one without a
// timeline crossed nothing.
func Crossings(res *Result) map[EventName]int {
	out := map[EventName]int{}
	if res == nil {
		return out
	}
	tl := res.Timeline
	for i := range tl.Len() {
		ev, n := tl.Name(i), tl.Ordinal(i)
		if ev == EvClaim || ev == EvWorkerStart || n <= 0 {
			continue
		}
		out[ev] = max(out[ev], n)
	}
	return out
}

// Place returns the fault entry that attaches kind (of Catalogue or
// WorldEvents) to an event res crossed: its own event at its designed
// ordinal when res crossed it that often, else at the last occurrence; false
// when res never crossed the kind's event or the kind is unknown. res is the
// run the fault lands in (a clean run, or the run under the faults placed
// so far). SingleFault keeps the designed placements.
func Place(kind string, res *Result) (FaultEntry, bool) {
	k, err := lookupKind(kind)
	if err != nil {
		return FaultEntry{}, false
	}
	n := Crossings(res)[k.spec.Event]
	if k.spec.Event == EvWorkerStart && res != nil {
		// a worker-scoped kind is reached at a worker's start, which
		// Crossings leaves out (no catalogue kind is reached there)
		tl := res.Timeline
		for i := range tl.Len() {
			if tl.Name(i) == EvWorkerStart {
				n = max(n, tl.Ordinal(i))
			}
		}
	}
	if n == 0 {
		return FaultEntry{}, false
	}
	return FaultEntry{Event: k.spec.Event, Ordinal: min(max(k.spec.Ordinal, 1), n), Kind: kind}, true
}

// perTool returns f (placed by Place on res) once per tool res calls when
// f's event is tool.commit and res calls two or more tools: each
// copy aimed at one tool (FaultEntry.Tool), in the order of the tools'
// first crossings, at the kind's designed ordinal or that tool's last
// crossing in a task, so the second tool of a task is disturbed too. Else
// (one tool, or another event) f alone: such placements are unchanged.
func perTool(f FaultEntry, res *Result) []FaultEntry {
	if !eventHasTool(f.Event) || res == nil {
		return []FaultEntry{f}
	}
	k, err := lookupKind(f.Kind)
	if err != nil {
		return []FaultEntry{f}
	}
	var tools []string
	most := map[string]int{}
	calls := map[[2]string]int{}
	for _, e := range res.Timeline.Events() {
		if e.Event != f.Event || e.Tool == "" {
			continue
		}
		if _, ok := most[e.Tool]; !ok {
			tools = append(tools, e.Tool)
		}
		c := [2]string{e.Task, e.Tool}
		calls[c]++
		most[e.Tool] = max(most[e.Tool], calls[c])
	}
	if len(tools) < 2 {
		return []FaultEntry{f}
	}
	out := make([]FaultEntry, 0, len(tools))
	for _, tool := range tools {
		g := f
		g.Tool = tool
		g.Ordinal = min(max(k.spec.Ordinal, 1), most[tool])
		out = append(out, g)
	}
	return out
}

// Placements are the single-fault schedules of one system under one
// config, each placed (Place) on the system's own clean run.
type Placements struct {
	// Clean is the clean run the faults were placed on.
	Clean *Result
	// Schedules holds one schedule a placed kind, in the order the kinds
	// were given (Catalogue order by default), and one a tool for a kind
	// at tool.commit when the clean run calls two or more tools (seed kind@tool,
	// FaultEntry.Tool set); each seed is its kind otherwise, and each
	// config the one SingleFaults was given.
	Schedules []*Schedule
	// Uncrossed lists the kinds in scope whose own event the clean run
	// never crossed, in the same order: no single fault of theirs can be
	// reached on this system.
	Uncrossed []string
	// Lacking names, by kind, what the fixture lacks for a placed kind to
	// fire ("a second subject of tenant T-1 to swap in"): its fault is
	// reached, but has nothing to act on.
	Lacking map[string]string
}

// lacking returns what fx lacks for kind to fire, "" when nothing: a
// subject swap needs another subject of a task's tenant.
func lacking(kind string, fx Fixture) string {
	if kind != "subject_swap" {
		return ""
	}
	for _, t := range fx.Tasks {
		for _, s := range fx.Subjects {
			if s.ID != t.Subject && s.Tenant == t.Tenant {
				return ""
			}
		}
	}
	tenant := ""
	if len(fx.Tasks) > 0 {
		tenant = " of tenant " + fx.Tasks[0].Tenant
	}
	return "a second subject" + tenant + " to swap in: the fixture has no other subject of a task's tenant, so the fault is reached but never fires"
}

// SingleFaults runs def's system once without faults on the named fixture
// ("" for its default) under cfg, and places each kind of kinds (every
// kind of Catalogue when none is given; world events may be named) on
// that run with Place, a kind at tool.commit once per tool when the run
// calls two or more tools. It returns an error for an invalid definition, an
// unknown fixture, a config the system refuses, an unknown or repeated
// kind, or a harness error on the clean run. Kinds whose event the
// system never crosses are listed in Placements.Uncrossed, never placed
// at an event that does not occur.
func SingleFaults(def *Definition, fixture string, cfg Config, kinds ...string) (*Placements, error) {
	if err := def.Validate(); err != nil {
		return nil, err
	}
	if len(kinds) == 0 {
		for _, sp := range Catalogue() {
			kinds = append(kinds, sp.Kind)
		}
	}
	for i, kind := range kinds {
		if _, err := lookupKind(kind); err != nil {
			return nil, fmt.Errorf("single faults: %w", err)
		}
		if slices.Contains(kinds[:i], kind) {
			return nil, fmt.Errorf("single faults: kind %q given twice", kind)
		}
	}
	fx, err := def.Fixture(fixture)
	if err != nil {
		return nil, fmt.Errorf("single faults of %s: %w", def.Name, err)
	}
	cfg.Fixture = fixture
	clean, err := def.Run(&Schedule{Version: ScheduleVersion, Seed: "clean", Config: cfg, Faults: []FaultEntry{}}, Options{})
	if err != nil {
		return nil, fmt.Errorf("single faults of %s: the clean run: %w", def.Name, err)
	}
	if clean == nil {
		return nil, errors.New("single faults: the harness returned no result")
	}
	p := &Placements{Clean: clean}
	for _, kind := range kinds {
		f, ok := Place(kind, clean)
		if !ok {
			p.Uncrossed = append(p.Uncrossed, kind)
			continue
		}
		placed := perTool(f, clean)
		for _, g := range placed {
			seed := kind
			if len(placed) > 1 {
				seed += "@" + g.Tool
			}
			p.Schedules = append(p.Schedules, &Schedule{Version: ScheduleVersion, Seed: seed, Config: cfg, Faults: []FaultEntry{g}})
		}
		if why := lacking(kind, fx); why != "" {
			if p.Lacking == nil {
				p.Lacking = map[string]string{}
			}
			p.Lacking[kind] = why
		}
	}
	return p, nil
}
