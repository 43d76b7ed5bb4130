package coverage

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/internal/ident"
	"github.com/faultline/faultline/model"
)

// maxName is the longest invariant or system name, in bytes.
const maxName = ident.Max

// CheckInvariantName returns nil when name is a valid invariant name for
// a coverage file: 1 to 64 bytes of lower-case ASCII letters, digits and
// underscores, starting with a letter ("charged_once"). Any invariant a
// system declares with such a name is accepted, built-in or not; the
// error names the name and the rule it breaks.
func CheckInvariantName(name string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("invariant name %q: %w", name, err)
	}
	return nil
}

// checkSystemName is the rule of CheckInvariantName, for a system's name.
func checkSystemName(name string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("system name %s: %w", ident.Quote(name), err)
	}
	return nil
}

// checkName is the rule of every name in a coverage file, shared with
// model.Definition.Validate so a definition it accepts is one a tracker
// accepts.
func checkName(s string) error { return ident.Check(s) }

// checkEventName accepts an event name as a coverage file records it:
// dot-separated parts, each a valid name ("checkpoint.write"), at most
// 64 bytes. Events are checked by syntax, not against the model's list,
// so a file stays readable across renamed or added events.
func checkEventName(e model.EventName) error {
	s := string(e)
	if len(s) > maxName {
		return fmt.Errorf("event %q: %d bytes, longer than %d", s, len(s), maxName)
	}
	for _, p := range strings.Split(s, ".") {
		if err := checkName(p); err != nil {
			return fmt.Errorf("event %q: %w", s, err)
		}
	}
	return nil
}

// checkReplayTemplate returns nil when t is a replay template: a command
// with exactly one "%s", where the schedule file's path goes ("%%" writes
// a literal "%"), for example
//
//	"FAULTLINE_REPLAY=%s go test -run '^TestReplay$' ./billing"
//
// It returns an error naming the template otherwise.
func checkReplayTemplate(t string) error {
	rest := strings.ReplaceAll(t, "%%", "")
	switch n := strings.Count(rest, "%s"); {
	case strings.TrimSpace(t) == "":
		return errors.New("replay template: empty")
	case n != 1:
		return fmt.Errorf("replay template %q: holds %d %%s, want exactly one (the schedule file)", t, n)
	case strings.Count(rest, "%") != 1:
		return fmt.Errorf("replay template %q: a %% that is neither %%s nor %%%%", t)
	}
	return nil
}

// systemRecord is what a coverage file keeps of one system: how many of
// its runs were recorded, every event they crossed, and what it declares.
type systemRecord struct {
	// Runs counts the system's recorded runs (at least 1 in a file).
	Runs int
	// Traced counts those of them recorded with their timeline (0 to
	// Runs): only their crossings are known. A result without a timeline
	// (the assay's fast path keeps none) counts in Runs alone, and while
	// any run is untraced no key is reported never crossed.
	Traced int
	// Crossed lists, sorted and once each, every event some traced run
	// of the system crossed (its timeline's event names).
	Crossed []model.EventName
	// NotApplicable lists, sorted and once each, the boundaries the
	// system declares it does not have (model.Definition.NotApplicable).
	NotApplicable []model.Boundary
	// Replay is the system's replay template ("" when it declared none).
	Replay string
	// Concurrent counts the runs with two or more workers (0 to Runs):
	// exploration draws the modifiers that span workers only there.
	Concurrent int
	// Legacy marks a record whose concurrency is unknown (read from a
	// version-2 file, or written from one with "concurrent_runs" omitted):
	// every modifier counts as drawable.
	Legacy bool
	// Enacts lists, sorted, the kinds the system's path can enact
	// (model.Definition.Enacts); nil: every kind.
	Enacts []string
	// NotApplicableKeys maps each key pattern the system declares it does
	// not have to the reason (model.Definition.NotApplicableKeys).
	NotApplicableKeys map[string]string
	// Undrawn lists, sorted, the kinds of model.CacheAndWorkerKinds in the
	// universe that the default search draws on none of the recorded runs'
	// workloads (catalog.DrawnByDefault) and no run scheduled; nil when
	// every one was, or unknown (a file written before it was recorded).
	Undrawn []string
}

func (r *systemRecord) clone() *systemRecord {
	c := *r
	c.Crossed = slices.Clone(r.Crossed)
	c.NotApplicable = slices.Clone(r.NotApplicable)
	c.Enacts = slices.Clone(r.Enacts)
	c.NotApplicableKeys = maps.Clone(r.NotApplicableKeys)
	c.Undrawn = slices.Clone(r.Undrawn)
	return &c
}

// add merges b into r: runs add, crossed events and declared boundaries
// are united (CheckMerge refuses two different declarations of
// boundaries), and of two replay templates one is kept, whatever the
// order of the merge: a declared one over none, else the smaller. Two templates of one system (its command line's replay and a
// go test line) replay the same schedule files.
func (r *systemRecord) add(b *systemRecord) {
	r.Runs += b.Runs
	r.Traced += b.Traced
	r.Crossed = union(r.Crossed, b.Crossed)
	r.NotApplicable = union(r.NotApplicable, b.NotApplicable)
	r.Concurrent += b.Concurrent
	r.Legacy = r.Legacy || b.Legacy
	r.Undrawn = intersect(r.Undrawn, b.Undrawn) // undrawn on both
	if r.Enacts == nil {
		r.Enacts = slices.Clone(b.Enacts) // CheckMerge refuses two different lists
	}
	if r.NotApplicableKeys == nil {
		r.NotApplicableKeys = maps.Clone(b.NotApplicableKeys)
	}
	switch {
	case r.Replay == "":
		r.Replay = b.Replay
	case b.Replay != "":
		r.Replay = min(r.Replay, b.Replay)
	}
}

// union returns the sorted set of the elements of a and b.
func union[T cmp.Ordered](a, b []T) []T {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// intersect returns the elements of a, which is sorted, that are in b; nil
// when none is.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// subset reports whether every element of a is in b, which is sorted.
func subset[T cmp.Ordered](a, b []T) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// checkNotApplicable checks declared boundaries: each one of
// model.AllBoundaries, and none twice.
func checkNotApplicable(bs []model.Boundary) error {
	for i, b := range bs {
		if !slices.Contains(model.AllBoundaries, b) {
			return fmt.Errorf("not applicable: %w", dimBoundary.unknown(string(b)))
		}
		if slices.Contains(bs[:i], b) {
			return fmt.Errorf("not applicable: boundary %q listed twice", b)
		}
	}
	return nil
}

// checkEnacts checks a system's enactable kinds: each a kind of u (or a
// world event or notice kind, which have no key), none twice.
func checkEnacts(u *Universe, kinds []string) error {
	for i, k := range kinds {
		if _, ok := u.KindKey(k); !ok && !worldEvent[k] && !noticeKind[k] {
			// a kind outside the catalogue: recorded under its spec's key
			if _, err := model.Spec(k); err != nil {
				return fmt.Errorf("enacts: %q is not a fault kind of the coverage universe", k)
			}
		}
		if slices.Contains(kinds[:i], k) {
			return fmt.Errorf("enacts: kind %q listed twice", k)
		}
	}
	return nil
}

// checkUndrawn checks a system's undrawn kinds: each a kind of
// model.CacheAndWorkerKinds, none twice.
func checkUndrawn(kinds []string) error {
	for i, k := range kinds {
		if !slices.ContainsFunc(model.CacheAndWorkerKinds(), func(sp model.FaultSpec) bool { return sp.Kind == k }) {
			return fmt.Errorf("undrawn kinds: %q is not a kind outside the catalogue the default search draws by workload", k)
		}
		if slices.Contains(kinds[:i], k) {
			return fmt.Errorf("undrawn kinds: kind %q listed twice", k)
		}
	}
	return nil
}

// checkNotApplicableKeys checks declared key patterns: each parses, has a
// reason, and matches some reachable key of u (a pattern that matches
// none names nothing the system could leave out: bad input).
func checkNotApplicableKeys(u *Universe, pats map[string]string) error {
	for _, p := range slices.Sorted(maps.Keys(pats)) {
		q, err := parsePattern(p)
		if err != nil {
			return fmt.Errorf("not-applicable key pattern %q: %w", p, err)
		}
		if strings.TrimSpace(pats[p]) == "" {
			return fmt.Errorf("not-applicable key pattern %q: no reason given (the report prints it beside the keys)", p)
		}
		if u != nil && !slices.ContainsFunc(u.reachable, q.Matches) {
			return fmt.Errorf("not-applicable key pattern %q matches no reachable key of the coverage universe", p)
		}
	}
	return nil
}

// checkDefinition validates what a tracker reads of def: its name, its
// not-applicable boundaries and key patterns, the kinds it enacts and its
// replay template.
func checkDefinition(u *Universe, def *model.Definition) error {
	if def == nil {
		return errors.New("coverage: system definition: nil")
	}
	if err := checkSystemName(def.Name); err != nil {
		return fmt.Errorf("coverage: system: %w", err)
	}
	if err := checkNotApplicable(def.NotApplicable); err != nil {
		return fmt.Errorf("coverage: system %s: %w", def.Name, err)
	}
	if err := checkNotApplicableKeys(u, def.NotApplicableKeys); err != nil {
		return fmt.Errorf("coverage: system %s: %w (exit 2)", def.Name, err)
	}
	// the union of several adapters' Kinds() may name a kind twice
	if err := checkEnacts(u, catalog.Enacts(def)); err != nil {
		return fmt.Errorf("coverage: system %s: %w", def.Name, err)
	}
	if def.ReplayCommand != "" {
		if err := checkReplayTemplate(def.ReplayCommand); err != nil {
			return fmt.Errorf("coverage: system %s: %w", def.Name, err)
		}
	}
	return nil
}
