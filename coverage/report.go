package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// Key statuses in a report.
const (
	// StatusViolated: visited, and an invariant was violated under the key.
	StatusViolated = "violated"
	// StatusHeld: visited, and every invariant held under the key.
	StatusHeld = "held"
	// StatusNotReached: scheduled, but no fault of the key reached its
	// boundary and fired; not visited.
	StatusNotReached = "scheduled_not_reached"
	// StatusNeverTried: reachable, and crossed (or crossings unknown), but
	// no recorded run scheduled it.
	StatusNeverTried = "never_tried"
	// StatusNeverCrossed: no recorded run of the file's systems crossed
	// an event at which the key's kinds enter, so no fault of the key
	// could have been reached; not visited, and not "unvisited" either.
	// Only a file that records every run's crossings (version 2) has it.
	StatusNeverCrossed = "never_crossed"
	// StatusNotApplicable: every recorded system declares it does not
	// have the key's boundary (model.Definition.NotApplicable), and every run is of
	// a recorded system; not visited, and not counted among the
	// applicable keys.
	StatusNotApplicable = "not_applicable"
	// StatusNotEnacted: no recorded system's path can enact any kind of
	// the key (model.Definition.Enacts); outside the systems' universe.
	StatusNotEnacted = "not_enacted"
	// StatusNotDrawn: the key's correlation is a modifier the systems'
	// exploration does not draw (see drawable), or its kinds are ones the
	// default search draws on none of their recorded workloads
	// (catalog.DrawnByDefault); outside their universe.
	StatusNotDrawn = "not_drawn"
	// StatusOutside: recorded, but no kind of this catalogue has the key
	// (a kind outside it, forked_run say, or another catalogue's file);
	// not counted as reachable.
	StatusOutside = "outside_catalogue"
)

// Report is a coverage report: the summary, a row per reachable key (and
// per recorded key outside the catalogue) with its counterexamples beside
// it, the unreachable keys grouped by reason, per-dimension marginals,
// pairwise (t = 2) coverage and three heatmaps. NewReport builds it; the
// Write methods print it.
type Report struct {
	// Version is the coverage format version the report was made under.
	Version int     `json:"version"`
	Summary Summary `json:"summary"`
	// Keys has a row per reachable key in report order, then a row per
	// recorded key outside the catalogue.
	Keys []KeyRow `json:"keys"`
	// Unvisited repeats the reachable keys that were crossed (or whose
	// crossings are unknown) but not visited, with reasons.
	Unvisited []KeyRow `json:"unvisited"`
	// NeverCrossed repeats the keys no recorded run crossed, and
	// NotApplicable those the systems declare they do not have, with
	// reasons.
	NeverCrossed  []KeyRow `json:"never_crossed"`
	NotApplicable []KeyRow `json:"not_applicable"`
	// NotEnacted and NotDrawn repeat the keys no system's path can enact
	// and those exploration does not draw (a modifier, or a kind on that workload), with reasons.
	NotEnacted []KeyRow `json:"not_enacted"`
	NotDrawn   []KeyRow `json:"not_drawn"`
	// Systems are the file's systems, by name.
	Systems []systemRow `json:"systems"`
	// Gaps are every unreachable key, grouped by reason (Universe.gapList).
	Gaps []gap `json:"unreachable"`
	// Marginals has one entry per dimension, in key order.
	Marginals []marginal `json:"marginals"`
	// pairwise has one entry per pair of dimensions (10), in key order.
	Pairwise []pairwise `json:"pairwise"`
	// Heatmaps are domain × phase, boundary × oracle, correlation × domain.
	Heatmaps []heatmap `json:"heatmaps"`
	// Unattributed are counterexamples no fired fault reached.
	Unattributed []counterexampleRow `json:"unattributed_counterexamples"`
	// Contradicted lists each not-applicable declaration the file's own
	// runs refute (see Contradiction), in system and declaration order.
	Contradicted []Contradiction `json:"contradicted_declarations"`
	// Saved is set by WriteSchedules: the files the replay commands name
	// exist, so the text report says nothing of saving them.
	Saved bool `json:"-"`
}

// Contradiction is a not-applicable declaration the file's runs refute:
// System declared Declaration (a boundary, "no memory boundary", or a key
// pattern with its reason), yet Evidence: a run of the system crossed an
// event only that boundary has, or a fault of a key it covers reached its
// event and fired (Key) while every system of the file declares that key.
type Contradiction struct {
	System      string `json:"system"`
	Declaration string `json:"declaration"`
	Key         string `json:"key,omitempty"`
	Evidence    string `json:"evidence"`
}

// Summary is the report's headline numbers (counts of keys, runs and
// faults; Ratio and PairRatio are rates in [0,1]).
type Summary struct {
	// Keys is the universe's size; Reachable + Unreachable = Keys.
	Keys        int `json:"keys"`
	Reachable   int `json:"reachable"`
	Unreachable int `json:"unreachable"`
	// Visited counts reachable keys with a visit; Ratio = Visited /
	// Applicable (0 when nothing is applicable).
	Visited int     `json:"visited"`
	Ratio   float64 `json:"ratio"`
	// Applicable is the systems' universe, the keys they can reach:
	// Reachable - NotApplicable - NeverCrossed - NotEnacted - NotDrawn.
	Applicable int `json:"applicable"`
	// Violated + Held = Visited; NotReached + NeverTried + NeverCrossed +
	// NotApplicable + NotEnacted + NotDrawn = Reachable - Visited.
	Violated      int `json:"violated_keys"`
	Held          int `json:"held_keys"`
	NotReached    int `json:"scheduled_not_reached_keys"`
	NeverTried    int `json:"never_tried_keys"`
	NeverCrossed  int `json:"never_crossed_keys"`
	NotApplicable int `json:"not_applicable_keys"`
	NotEnacted    int `json:"not_enacted_keys"`
	NotDrawn      int `json:"not_drawn_keys"`
	// Traced counts the runs whose crossings are recorded (the systems'
	// systemRecord.Traced); Crossings is true when that is every run (and
	// there is one), so keys can be found never crossed.
	Traced    int  `json:"traced_runs"`
	Crossings bool `json:"crossings_recorded"`
	// Outside counts recorded keys this catalogue cannot reach.
	Outside int `json:"outside_catalogue_keys"`
	// Runs, NotAdjudicated: as in Data. Visits, FaultsNotReached and
	// FaultsNotFired add up the entries' counts.
	Runs             int `json:"runs"`
	NotAdjudicated   int `json:"not_adjudicated"`
	Visits           int `json:"visits"`
	FaultsNotReached int `json:"faults_not_reached"`
	FaultsNotFired   int `json:"faults_not_fired"`
	// Counterexamples counts (key, invariant) counterexamples, with the
	// unattributed ones.
	Counterexamples int `json:"counterexamples"`
	// PairsReachable, PairsCovered, PairsPossible and PairRatio sum the
	// pairwise rows.
	PairsPossible  int     `json:"pairs_possible"`
	PairsReachable int     `json:"pairs_reachable"`
	PairsCovered   int     `json:"pairs_covered"`
	PairRatio      float64 `json:"pair_ratio"`
}

// KeyRow is one key of the report.
type KeyRow struct {
	// Key is the key's text form.
	Key string `json:"key"`
	// Kinds are the catalogue kinds with this key (none when outside).
	Kinds []string `json:"kinds"`
	// Status is one of the Status constants.
	Status string `json:"status"`
	// Visits, NotReached and NotFired are the Entry's counts.
	Visits     int `json:"visits"`
	NotReached int `json:"not_reached"`
	NotFired   int `json:"not_fired"`
	// Schedule replays a visit (nil when unvisited).
	Schedule        *scheduleRef        `json:"schedule,omitempty"`
	Counterexamples []counterexampleRow `json:"counterexamples"`
	// Reason says why an unvisited or outside key was not visited.
	Reason string `json:"reason,omitempty"`
}

// systemRow is one system of the file: its name, recorded runs, crossed
// events, declared not-applicable boundaries and replay template.
type systemRow struct {
	Name          string            `json:"name"`
	Runs          int               `json:"runs"`
	Traced        int               `json:"traced_runs"`
	Crossed       []model.EventName `json:"crossed"`
	NotApplicable []model.Boundary  `json:"not_applicable"`
	Replay        string            `json:"replay"`
	// NotApplicableKeys, Enacts and Concurrent are the record's (see
	// systemRecord).
	NotApplicableKeys map[string]string `json:"not_applicable_keys,omitempty"`
	Enacts            []string          `json:"enacts,omitempty"`
	Concurrent        int               `json:"concurrent_runs"`
}

// counterexampleRow is a counterexample as reported, beside its key (Key
// is empty for an unattributed one); the other fields are Counterexample's,
// with the schedule as a scheduleRef.
type counterexampleRow struct {
	Key       string          `json:"key,omitempty"`
	Invariant string          `json:"invariant"`
	Count     int             `json:"count"`
	FirstSeq  int             `json:"first_seq"`
	Event     model.EventName `json:"event"`
	Detail    string          `json:"detail"`
	Schedule  scheduleRef     `json:"schedule"`
}

// scheduleRef is a schedule a report refers to: its canonical encoding,
// the file name it is written under (the first fault's kind and a hash of
// the encoding, so equal schedules share a file), the system whose run it
// is, and the command that replays it.
type scheduleRef struct {
	// File is "<first fault's kind>-<8 hex digits of FNV-1a>.json".
	File string `json:"file"`
	// System names the system whose run it is ("" when unknown).
	System string `json:"system,omitempty"`
	// Replay is the system's replay command for the file's path (see
	// ReportOptions.Replay).
	Replay string `json:"replay"`
	// Schedule is the canonical encoding (model.Format).
	Schedule json.RawMessage `json:"schedule"`
}

// marginal is one dimension's coverage per value.
type marginal struct {
	Dimension string          `json:"dimension"`
	Values    []marginalValue `json:"values"`
}

// marginalValue counts the reachable and visited keys with one value.
type marginalValue struct {
	Value     string `json:"value"`
	Reachable int    `json:"reachable"`
	Visited   int    `json:"visited"`
	// Reason is set when no catalogue kind has the value.
	Reason string `json:"reason,omitempty"`
}

// pairwise is the t = 2 coverage of two dimensions: of the Possible value
// pairs, Reachable appear in some reachable key and Covered in some
// visited one; Missing lists the reachable pairs not covered ("a × b").
type pairwise struct {
	Dimensions [2]string `json:"dimensions"`
	Possible   int       `json:"possible"`
	Reachable  int       `json:"reachable"`
	Covered    int       `json:"covered"`
	Missing    []string  `json:"missing"`
}

// heatmap crosses two dimensions: Cells[i][j] counts the keys with row
// value RowValues[i] and column value ColValues[j].
type heatmap struct {
	Rows      string   `json:"rows"`
	Cols      string   `json:"cols"`
	RowValues []string `json:"row_values"`
	ColValues []string `json:"col_values"`
	Cells     [][]cell `json:"cells"`
}

// cell counts a heatmap cell's reachable, visited and violated keys, and
// Outside those of its reachable keys left out of the systems' universe
// (not applicable, never crossed, not enacted, not drawn; never visited
// ones); an empty cell (Reachable 0) or one whose every unvisited key is
// outside gives the Reason.
type cell struct {
	Reachable int    `json:"reachable"`
	Visited   int    `json:"visited"`
	Violated  int    `json:"violated"`
	Outside   int    `json:"outside_universe"`
	Reason    string `json:"reason,omitempty"`
}

// ReportOptions shape a report.
type ReportOptions struct {
	// Dir is the folder the replay commands name schedule files in ("" for
	// the current folder); "faultline coverage report --schedules DIR"
	// writes the files there.
	Dir string
	// Replay gives, by system name, the replay template (one %s, where
	// the schedule file's path goes) of that system's schedules, in place
	// of the one the file records. The entry "" is the template of a
	// system that recorded none and of a schedule of no known system (a
	// version-1 file); a command line gives its own ("PROG replay %s").
	Replay map[string]string
}

// templateOf is the replay template of system sys's schedules in d (see
// ReportOptions.Replay), "" for none.
func templateOf(d *Data, opts ReportOptions, sys string) string {
	if t := opts.Replay[sys]; t != "" {
		return t
	}
	if sr := d.Systems[sys]; sr != nil && sr.Replay != "" {
		return sr.Replay
	}
	return opts.Replay[""]
}

// Heatmap axes, as the issue and the paper name them.
var heatmapAxes = [][2]dimension{{dimDomain, dimPhase}, {dimBoundary, dimOracle}, {dimCorrelation, dimDomain}}

// NewReport builds the report of d over universe u.
func NewReport(u *Universe, d *Data, opts ReportOptions) *Report {
	r := &Report{Version: Version, Gaps: u.gapList(), Unattributed: []counterexampleRow{}, Unvisited: []KeyRow{}, Contradicted: []Contradiction{},
		NeverCrossed: []KeyRow{}, NotApplicable: []KeyRow{}, NotEnacted: []KeyRow{}, NotDrawn: []KeyRow{}, Systems: []systemRow{}}
	s := &r.Summary
	s.Keys, s.Reachable = u.total(), len(u.reachable)
	s.Unreachable = s.Keys - s.Reachable
	s.Runs, s.NotAdjudicated = d.Runs, d.NotAdjudicated
	names := slices.Sorted(maps.Keys(d.Systems))
	traced, known := 0, 0
	for _, n := range names {
		sr := d.Systems[n]
		traced += sr.Traced
		known += sr.Runs
		r.Systems = append(r.Systems, systemRow{Name: n, Runs: sr.Runs, Traced: sr.Traced, Crossed: nonNil(sr.Crossed), NotApplicable: nonNil(sr.NotApplicable), Replay: templateOf(d, opts, n),
			NotApplicableKeys: sr.NotApplicableKeys, Enacts: sr.Enacts, Concurrent: sr.Concurrent})
	}
	s.Traced = traced
	s.Crossings = len(names) > 0 && traced == d.Runs
	// a declaration speaks for the runs of its system: every run must
	// have one (a version-1 file merged in has runs of no system)
	declared := len(names) > 0 && known == d.Runs
	replay := func(sys, file string) string {
		t := templateOf(d, opts, sys)
		if t == "" {
			return "(no replay command recorded)"
		}
		if err := checkReplayTemplate(t); err != nil {
			return "(no command: " + err.Error() + ")" // Read and NewTracker refuse it; only hand-made Data or options get here
		}
		return fmt.Sprintf(t, file)
	}
	ref := func(sc *model.Schedule, sys string) scheduleRef {
		b := model.Format(sc)
		h := fnv.New32a()
		h.Write(b)
		first := "empty"
		if len(sc.Faults) > 0 {
			first = sc.Faults[0].Kind
		}
		name := fmt.Sprintf("%s-%08x.json", first, h.Sum32())
		return scheduleRef{File: name, System: sys, Replay: replay(sys, filepath.Join(opts.Dir, name)), Schedule: b}
	}
	cxRows := func(k string, cs []Counterexample) []counterexampleRow {
		out := []counterexampleRow{}
		for _, c := range cs {
			out = append(out, counterexampleRow{Key: k, Invariant: c.Invariant, Count: c.Count, FirstSeq: c.FirstSeq,
				Event: c.Event, Detail: c.Detail, Schedule: ref(c.Schedule, c.System)})
			s.Counterexamples++
		}
		return out
	}
	row := func(k Key) KeyRow {
		kr := KeyRow{Key: k.String(), Kinds: u.Kinds(k), Counterexamples: []counterexampleRow{}}
		if kr.Kinds == nil {
			kr.Kinds = []string{}
		}
		e := d.Keys[k]
		if e != nil {
			kr.Visits, kr.NotReached, kr.NotFired = e.Visits, e.NotReached, e.NotFired
			s.Visits += e.Visits
			s.FaultsNotReached += e.NotReached
			s.FaultsNotFired += e.NotFired
			if e.Schedule != nil {
				sr := ref(e.Schedule, e.System)
				kr.Schedule = &sr
			}
			kr.Counterexamples = cxRows(k.String(), e.Counterexamples)
		}
		var na []string     // the systems that declare k's boundary not applicable
		var naKeys []string // the systems that declare a pattern of k not applicable, with the reason
		enacted, drawn, kindDrawn := false, false, false
		crossed := false
		for _, n := range names {
			sr := d.Systems[n]
			if slices.Contains(sr.NotApplicable, k.Boundary) {
				na = append(na, n)
			} else if p, why := naPattern(sr, k); p != "" {
				naKeys = append(naKeys, fmt.Sprintf("%s declares %s not applicable: %s", n, p, why))
			}
			enacted = enacted || sr.Enacts == nil || slices.ContainsFunc(kr.Kinds, func(x string) bool { return slices.Contains(sr.Enacts, x) })
			drawn = drawn || sr.Legacy || u.ownCorrelation(k) || slices.Contains(drawable(sr), k.Correlation)
			kindDrawn = kindDrawn || slices.ContainsFunc(kr.Kinds, func(x string) bool { return !slices.Contains(sr.Undrawn, x) })
			for _, ev := range u.events(k) {
				crossed = crossed || slices.Contains(sr.Crossed, ev)
			}
		}
		// a fault of k that was reached proves a crossing, whatever the
		// systems recorded
		crossed = crossed || (e != nil && e.Visits+e.NotFired > 0)
		var scheduled string
		if e != nil && e.NotReached > 0 {
			scheduled = fmt.Sprintf("; scheduled %s, never reached (%s)", times(e.NotReached), strings.Join(kr.Kinds, " or "))
		}
		switch {
		case !u.isReachable(k):
			kr.Status = StatusOutside
			kr.Reason = "recorded from a kind outside the catalogue, or under another catalogue: " + u.reason(k)
		case e.Visited() && len(e.Counterexamples) > 0:
			kr.Status = StatusViolated
			kr.Reason = visitedDespite(na, naKeys, k)
		case e.Visited():
			kr.Status = StatusHeld
			kr.Reason = visitedDespite(na, naKeys, k)
		case declared && len(na) < len(names) && len(na)+len(naKeys) == len(names):
			kr.Status = StatusNotApplicable
			kr.Reason = "not applicable: " + strings.Join(naKeys, "; ")
			if len(na) > 0 {
				kr.Reason += "; " + strings.Join(na, ", ") + " declared no " + string(k.Boundary) + " boundary"
			}
			kr.Reason += scheduled
		case declared && len(na) == len(names):
			kr.Status = StatusNotApplicable
			verb := "declares it has"
			if len(na) > 1 {
				verb = "declare they have"
			}
			kr.Reason = fmt.Sprintf("not applicable: %s %s no %s boundary%s", strings.Join(na, ", "), verb, k.Boundary, scheduled)
		case s.Crossings && !crossed:
			kr.Status = StatusNeverCrossed
			var who []string
			for _, n := range names {
				who = append(who, fmt.Sprintf("%s, %s", n, runs(d.Systems[n].Runs)))
			}
			enter := "enters"
			if len(kr.Kinds) > 1 {
				enter = "enter"
			}
			these := "this system"
			if len(who) > 1 {
				these = "these systems"
			}
			kr.Reason = fmt.Sprintf("never crossed by %s (%s): no recorded run crossed %s, where %s %s%s",
				these, strings.Join(who, "; "), strings.Join(strs(u.events(k)), " or "), strings.Join(kr.Kinds, " or "), enter, scheduled)
		case declared && !enacted:
			kr.Status = StatusNotEnacted
			kr.Reason = fmt.Sprintf("cannot be enacted: the path of %s enacts none of %s (model.Definition.Enacts)%s", strings.Join(names, ", "), strings.Join(kr.Kinds, ", "), scheduled)
		case declared && !drawn:
			kr.Status = StatusNotDrawn
			kr.Reason = fmt.Sprintf("exploration draws the correlation modifier %s only under a concurrent config (two or more workers), and no recorded run of %s had one%s", k.Correlation, strings.Join(names, ", "), scheduled)
		case declared && !kindDrawn:
			kr.Status = StatusNotDrawn
			kr.Reason = fmt.Sprintf("the default search draws %s on no recorded workload of %s: %s%s", strings.Join(kr.Kinds, " or "), strings.Join(names, ", "), undrawnWhy(kr.Kinds), scheduled)
		case e != nil:
			kr.Status = StatusNotReached
			var parts []string
			if e.NotReached > 0 {
				parts = append(parts, fmt.Sprintf("scheduled %s, but its event never occurred", times(e.NotReached)))
			}
			if e.NotFired > 0 {
				parts = append(parts, fmt.Sprintf("reached %s, but the disturbance had nothing to act on", times(e.NotFired)))
			}
			kr.Reason = strings.Join(parts, "; ") + " (" + strings.Join(kr.Kinds, " or ") + ")"
		case u.ownCorrelation(k):
			kr.Status = StatusNeverTried
			kr.Reason = "no recorded run scheduled " + strings.Join(kr.Kinds, " or ")
		default:
			kr.Status = StatusNeverTried
			kr.Reason = fmt.Sprintf("no recorded run scheduled %s under the modifier %s (%s)", strings.Join(kr.Kinds, " or "), k.Correlation, modifierHow(k.Correlation))
		}
		return kr
	}
	left := map[Key]string{} // the keys outside the systems' universe, by status
	for _, k := range u.reachable {
		kr := row(k)
		switch kr.Status {
		case StatusNotApplicable, StatusNeverCrossed, StatusNotEnacted, StatusNotDrawn:
			left[k] = kr.Status
		}
		switch kr.Status {
		case StatusViolated:
			s.Visited++
			s.Violated++
		case StatusHeld:
			s.Visited++
			s.Held++
		case StatusNotReached:
			s.NotReached++
			r.Unvisited = append(r.Unvisited, kr)
		case StatusNeverTried:
			s.NeverTried++
			r.Unvisited = append(r.Unvisited, kr)
		case StatusNeverCrossed:
			s.NeverCrossed++
			r.NeverCrossed = append(r.NeverCrossed, kr)
		case StatusNotApplicable:
			s.NotApplicable++
			r.NotApplicable = append(r.NotApplicable, kr)
		case StatusNotEnacted:
			s.NotEnacted++
			r.NotEnacted = append(r.NotEnacted, kr)
		case StatusNotDrawn:
			s.NotDrawn++
			r.NotDrawn = append(r.NotDrawn, kr)
		}
		r.Keys = append(r.Keys, kr)
	}
	var outside []Key
	for k := range d.Keys {
		if !u.isReachable(k) {
			outside = append(outside, k)
		}
	}
	slices.SortFunc(outside, func(a, b Key) int { return strings.Compare(a.String(), b.String()) })
	for _, k := range outside {
		r.Keys = append(r.Keys, row(k))
		s.Outside++
	}
	r.Unattributed = cxRows("", d.Unattributed)
	if declared {
		r.Contradicted = contradictions(u, d)
	}
	s.Applicable = s.Reachable - s.NotApplicable - s.NeverCrossed - s.NotEnacted - s.NotDrawn
	if s.Applicable > 0 {
		s.Ratio = float64(s.Visited) / float64(s.Applicable)
	}
	visited := func(k Key) bool { return d.Keys[k].Visited() }
	violated := func(k Key) bool { e := d.Keys[k]; return e.Visited() && len(e.Counterexamples) > 0 }

	for _, dim := range dimensions {
		m := marginal{Dimension: dim.String()}
		for _, v := range dim.Values() {
			mv := marginalValue{Value: v}
			for _, k := range u.reachable {
				if k.value(dim) == v {
					mv.Reachable++
					if visited(k) {
						mv.Visited++
					}
				}
			}
			if mv.Reachable == 0 {
				mv.Reason = "no fault kind in the catalogue has " + dim.String() + " " + v
			}
			m.Values = append(m.Values, mv)
		}
		r.Marginals = append(r.Marginals, m)
	}

	for i, a := range dimensions {
		for _, b := range dimensions[i+1:] {
			p := pairwise{Dimensions: [2]string{a.String(), b.String()}, Possible: len(a.Values()) * len(b.Values()), Missing: []string{}}
			for _, va := range a.Values() {
				for _, vb := range b.Values() {
					reach, cov := false, false
					for _, k := range u.reachable {
						if k.value(a) == va && k.value(b) == vb {
							reach = true
							cov = cov || visited(k)
						}
					}
					if reach {
						p.Reachable++
						if cov {
							p.Covered++
						} else {
							p.Missing = append(p.Missing, va+" × "+vb)
						}
					}
				}
			}
			s.PairsPossible += p.Possible
			s.PairsReachable += p.Reachable
			s.PairsCovered += p.Covered
			r.Pairwise = append(r.Pairwise, p)
		}
	}
	if s.PairsReachable > 0 {
		s.PairRatio = float64(s.PairsCovered) / float64(s.PairsReachable)
	}

	for _, ax := range heatmapAxes {
		a, b := ax[0], ax[1]
		h := heatmap{Rows: a.String(), Cols: b.String(), RowValues: a.Values(), ColValues: b.Values()}
		for _, va := range h.RowValues {
			var line []cell
			for _, vb := range h.ColValues {
				var c cell
				why := map[string]int{}
				for _, k := range u.reachable {
					if k.value(a) == va && k.value(b) == vb {
						c.Reachable++
						if st, ok := left[k]; ok {
							c.Outside++
							why[st]++
						}
						if visited(k) {
							c.Visited++
						}
						if violated(k) {
							c.Violated++
						}
					}
				}
				if c.Reachable == 0 {
					c.Reason = "no fault kind in the catalogue has " + a.String() + " " + va + " and " + b.String() + " " + vb
				} else if c.Outside > 0 {
					var p []string
					for _, st := range slices.Sorted(maps.Keys(why)) {
						p = append(p, fmt.Sprintf("%d %s", why[st], strings.ReplaceAll(st, "_", " ")))
					}
					c.Reason = "outside the systems' universe: " + strings.Join(p, ", ")
				}
				line = append(line, c)
			}
			h.Cells = append(h.Cells, line)
		}
		r.Heatmaps = append(r.Heatmaps, h)
	}
	return r
}

// drawable returns the correlation modifiers whose keys count in the
// universe of a system with record sr: every modifier a kind takes under
// a concurrent config (two or more workers, see properties'
// drawCorrelated), and under a sequential one those that act on one task
// (sequentialDraws: exploration draws them on a schedule's last fault,
// one check in four), so a sequential system's repeated and persistent
// keys count, visited or not.
func drawable(sr *systemRecord) []model.Correlation {
	if sr.Concurrent > 0 {
		return model.AllCorrelations
	}
	return sequentialDraws
}

// undrawnWhy says why the default search draws none of kinds, each of
// model.CacheAndWorkerKinds (catalog.NotDrawnWhy on no workload at all).
func undrawnWhy(kinds []string) string {
	var why []string
	for _, k := range kinds {
		if sp, err := model.Spec(k); err == nil {
			why = append(why, k+", "+catalog.NotDrawnWhy(&model.Fixture{}, model.Config{}, sp))
		}
	}
	return strings.Join(why, "; ")
}

// sequentialDraws are the modifiers a sequential exploration draws (on a
// schedule's last fault, one check in four).
var sequentialDraws = []model.Correlation{"repeated", "persistent"}

// modifierHow says how exploration draws the correlation modifier c.
func modifierHow(c model.Correlation) string {
	if slices.Contains(sequentialDraws, c) {
		return "drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault"
	}
	return "drawn only under a concurrent config, two or more workers"
}

// naPattern returns the first of sr's not-applicable key patterns (in
// sorted order) that matches k, and its reason; "" when none does.
func naPattern(sr *systemRecord, k Key) (string, string) {
	for _, p := range slices.Sorted(maps.Keys(sr.NotApplicableKeys)) {
		if q, err := parsePattern(p); err == nil && q.Matches(k) {
			return p, sr.NotApplicableKeys[p]
		}
	}
	return "", ""
}

// visitedDespite notes a visit under a boundary the systems na declare
// they do not have, or under the key patterns naKeys declare ("" when
// none does): the declaration never hides it.
func visitedDespite(na, naKeys []string, k Key) string {
	var p []string
	if len(na) > 0 {
		p = append(p, fmt.Sprintf("%s declared no %s boundary", strings.Join(na, ", "), k.Boundary))
	}
	p = append(p, naKeys...)
	if len(p) == 0 {
		return ""
	}
	return "visited, although " + strings.Join(p, "; ")
}

// contradictions returns the not-applicable declarations of d's systems
// that d's own runs refute: a declared boundary whose own event (one no
// other boundary's kinds enter at) a run of the system crossed, and a
// declaration (boundary or key pattern) of a key that was visited while
// every system of the file declares it, so the visit was one of theirs.
func contradictions(u *Universe, d *Data) []Contradiction {
	out := []Contradiction{}
	names := slices.Sorted(maps.Keys(d.Systems))
	only := map[model.EventName]model.Boundary{} // events whose kinds enter at one boundary
	multi := map[model.EventName]bool{}
	for _, s := range u.all {
		b := keyOf(s).Boundary
		if prev, ok := only[s.Event]; ok && prev != b {
			multi[s.Event] = true
		}
		only[s.Event] = b
	}
	for _, n := range names {
		sr := d.Systems[n]
		for _, b := range sr.NotApplicable {
			var evs []string
			for _, ev := range sr.Crossed {
				if only[ev] == b && !multi[ev] {
					evs = append(evs, string(ev))
				}
			}
			if len(evs) > 0 {
				out = append(out, Contradiction{System: n, Declaration: "no " + string(b) + " boundary",
					Evidence: fmt.Sprintf("its runs crossed %s, where only %s kinds enter", strings.Join(evs, ", "), b)})
			}
		}
	}
	visited := slices.SortedFunc(maps.Keys(d.Keys), func(x, y Key) int { return strings.Compare(x.String(), y.String()) })
	for _, k := range visited {
		e := d.Keys[k]
		if !e.Visited() || !u.isReachable(k) || len(names) == 0 {
			continue
		}
		var found []Contradiction
		for _, n := range names {
			sr := d.Systems[n]
			c := Contradiction{System: n, Key: k.String(), Evidence: fmt.Sprintf("a fault of %s reached its event and fired (%s)", k, times(e.Visits))}
			if slices.Contains(sr.NotApplicable, k.Boundary) {
				c.Declaration = "no " + string(k.Boundary) + " boundary"
			} else if p, why := naPattern(sr, k); p != "" {
				c.Declaration = p + ": " + why
			} else {
				found = nil
				break
			}
			found = append(found, c)
		}
		out = append(out, found...)
	}
	return out
}

// nonNil returns xs, or an empty list for nil (a JSON [] rather than null).
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// times writes "1 time" or "N times".
func times(n int) string {
	if n == 1 {
		return "1 time"
	}
	return fmt.Sprintf("%d times", n)
}

// scheduleFiles returns every schedule the report refers to (visits and
// counterexamples), one per file name, sorted by name.
func (r *Report) scheduleFiles() []scheduleRef {
	seen := map[string]scheduleRef{}
	for _, k := range r.Keys {
		if k.Schedule != nil {
			seen[k.Schedule.File] = *k.Schedule
		}
		for _, c := range k.Counterexamples {
			seen[c.Schedule.File] = c.Schedule
		}
	}
	for _, c := range r.Unattributed {
		seen[c.Schedule.File] = c.Schedule
	}
	out := make([]scheduleRef, 0, len(seen))
	for _, s := range seen {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b scheduleRef) int { return strings.Compare(a.File, b.File) })
	return out
}

// compact returns a schedule's canonical encoding on one line.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// WriteSchedules writes each schedule the report refers to into dir (made
// when missing) under its File name, atomically, so every replay command
// of a report built with ReportOptions{Dir: dir} runs as printed.
func (r *Report) WriteSchedules(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range r.scheduleFiles() {
		if err := fileio.WriteAtomic(filepath.Join(dir, s.File), s.Schedule); err != nil {
			return err
		}
	}
	r.Saved = true
	return nil
}
