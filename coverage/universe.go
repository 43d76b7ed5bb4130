package coverage

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/faultline/faultline/model"
)

// Universe is every coverage key the dimension values allow (the product
// of model.Domains, model.AllBoundaries, model.AllPhases,
// model.AllCorrelations and model.AllOracles), split into the reachable
// keys, those some fault kind's typed spec has, and the unreachable ones,
// each with a written reason derived from the catalogue. No key is left
// out: every key is either reachable or covered by exactly one gap. The
// universe follows the catalogue: a new kind or correlation makes its key
// reachable with no change here.
type Universe struct {
	specs []model.FaultSpec
	// all holds specs and, after each, one variant per correlation
	// modifier it accepts (model.FaultSpec.Correlations), its
	// Correlation set to the modifier: every spec whose key is reachable.
	all       []model.FaultSpec
	byKind    map[string]Key
	kinds     map[Key][]string
	reachable []Key
	gaps      []gap
	size      int
	// guided is how many of specs, from the first, a Guide ranks: all of
	// them for newUniverse; for Default the catalogue's, not the kinds
	// outside it, which exploration over the catalogue does not schedule.
	guided int
}

// gap is a group of unreachable keys that share one reason: the keys whose
// values in the dimensions before Dim are Prefix, whose value in Dim is one
// of Values, with any value in the dimensions after Dim. No kind of the
// catalogue with Prefix has any of Values in Dim.
type gap struct {
	// Prefix holds the values of the dimensions before Dim, in key order.
	Prefix []string `json:"prefix"`
	// Dim is the first dimension in which no catalogue kind matches.
	Dim dimension `json:"dimension"`
	// Values are Dim's values no kind with Prefix has, in the model's order.
	Values []string `json:"values"`
	// Keys is the number of keys in the group.
	Keys int `json:"keys"`
	// Reason says, from the catalogue, why no kind reaches these keys.
	Reason string `json:"reason"`
}

// MarshalJSON writes the gap with its pattern:
// {"pattern", "prefix", "dimension", "values", "keys", "reason"}.
func (g gap) MarshalJSON() ([]byte, error) {
	type plain gap
	return json.Marshal(struct {
		Pattern string `json:"pattern"`
		plain
	}{g.Pattern(), plain(g)})
}

// Pattern returns the group as a key pattern: Prefix, then Values (braced
// when several), then "*" for each later dimension, e.g.
// "identity/{effect,state}/*/*/*".
func (g gap) Pattern() string {
	parts := append([]string(nil), g.Prefix...)
	if len(g.Values) == 1 {
		parts = append(parts, g.Values[0])
	} else {
		parts = append(parts, "{"+strings.Join(g.Values, ",")+"}")
	}
	for len(parts) < len(dimensions) {
		parts = append(parts, "*")
	}
	return strings.Join(parts, "/")
}

// Contains reports whether k is one of the group's keys.
func (g gap) Contains(k Key) bool {
	for i, v := range g.Prefix {
		if k.value(dimensions[i]) != v {
			return false
		}
	}
	return slices.Contains(g.Values, k.value(g.Dim))
}

// outsideKinds are model.CacheAndWorkerKinds() but the fleet kinds
// (FaultSpec.Fleet): a fleet's retry storm is measured by its load, not
// by a key, so the universe and every figure over it stay as they were.
func outsideKinds() []model.FaultSpec {
	return slices.DeleteFunc(model.CacheAndWorkerKinds(), func(sp model.FaultSpec) bool { return sp.Fleet })
}

// Default returns the universe of model.Catalogue() and outsideKinds();
// a Guide over it ranks the catalogue's
// kinds. The catalogue is fixed and a Universe is read-only (its methods
// return copies), so it is built once per process and shared.
func Default() *Universe { return defaultUniverse() }

var defaultUniverse = sync.OnceValue(func() *Universe {
	cat := model.Catalogue()
	u, err := newUniverse(append(cat, outsideKinds()...))
	if err != nil {
		panic("coverage: the model's catalogue is invalid: " + err.Error()) // the catalogue is closed and checked by tests
	}
	u.guided = len(cat)
	return u
})

// NoticeUniverse returns the universe of model.Catalogue(),
// outsideKinds() and model.NoticeKinds(): the keys of runs
// with the provider's notices too ("faultline audit --notices" records
// into it); a Guide over it ranks the catalogue's kinds. Built once per
// process and shared, as Default.
func NoticeUniverse() *Universe { return noticeUniverse() }

var noticeUniverse = sync.OnceValue(func() *Universe {
	cat := model.Catalogue()
	u, err := newUniverse(append(append(cat, outsideKinds()...), model.NoticeKinds()...))
	if err != nil {
		panic("coverage: the model's notice kinds are invalid: " + err.Error()) // closed and checked by tests
	}
	u.guided = len(cat)
	return u
})

// newUniverse returns the universe of the given specs. It returns an error
// naming the kind for a spec without a kind name, a repeated kind, or a
// spec whose domain, boundary, phase, correlation or oracle is not one of
// the model's values.
func newUniverse(specs []model.FaultSpec) (*Universe, error) {
	u := &Universe{specs: append([]model.FaultSpec(nil), specs...), byKind: map[string]Key{}, kinds: map[Key][]string{}, size: 1, guided: len(specs)}
	for _, d := range dimensions {
		u.size *= len(d.Values())
	}
	for _, s := range specs {
		if s.Kind == "" {
			return nil, fmt.Errorf("coverage universe: a spec has no kind name")
		}
		if _, dup := u.byKind[s.Kind]; dup {
			return nil, fmt.Errorf("coverage universe: kind %q appears twice", s.Kind)
		}
		k := keyOf(s)
		if _, err := ParseKey(k.String()); err != nil {
			return nil, fmt.Errorf("coverage universe: kind %q: %w", s.Kind, err)
		}
		u.byKind[s.Kind] = k
		u.all = append(u.all, s)
		for _, c := range s.Correlations {
			v := s
			v.Correlation, v.Correlations = c, nil
			if _, err := ParseKey(keyOf(v).String()); err != nil {
				return nil, fmt.Errorf("coverage universe: kind %q: correlation modifier: %w", s.Kind, err)
			}
			u.all = append(u.all, v)
		}
	}
	for _, s := range u.all {
		k := keyOf(s)
		if _, seen := u.kinds[k]; !seen {
			u.reachable = append(u.reachable, k)
		}
		if !slices.Contains(u.kinds[k], s.Kind) {
			u.kinds[k] = append(u.kinds[k], s.Kind)
		}
	}
	slices.SortFunc(u.reachable, func(a, b Key) int {
		if keyLess(a, b) {
			return -1
		}
		if keyLess(b, a) {
			return 1
		}
		return 0
	})
	u.walk(nil, u.all)
	return u, nil
}

// walk adds the gaps under prefix: at the prefix's next dimension, the
// values no spec in specs has form one gap; each value some spec has is
// walked further.
func (u *Universe) walk(prefix []string, specs []model.FaultSpec) {
	level := len(prefix)
	if level == len(dimensions) {
		return
	}
	d := dimensions[level]
	present := map[string][]string{}
	for _, s := range specs {
		v := keyOf(s).value(d)
		if !slices.Contains(present[v], s.Kind) {
			present[v] = append(present[v], s.Kind)
		}
	}
	var missing []string
	for _, v := range d.Values() {
		if _, ok := present[v]; !ok {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		n := len(missing)
		for _, later := range dimensions[level+1:] {
			n *= len(later.Values())
		}
		u.gaps = append(u.gaps, gap{Prefix: append([]string(nil), prefix...), Dim: d, Values: missing, Keys: n,
			Reason: reason(prefix, d, missing, present)})
	}
	for _, v := range d.Values() {
		if _, ok := present[v]; !ok {
			continue
		}
		var sub []model.FaultSpec
		for _, s := range specs {
			if keyOf(s).value(d) == v {
				sub = append(sub, s)
			}
		}
		u.walk(append(append([]string(nil), prefix...), v), sub)
	}
}

// reason writes why no kind with prefix has any of values in dimension d,
// naming what the catalogue's kinds with prefix do have there.
func reason(prefix []string, d dimension, values []string, present map[string][]string) string {
	qual := ""
	for i, v := range prefix {
		switch dimensions[i] {
		case dimBoundary:
			qual += " at boundary " + v
		case dimPhase:
			qual += " in phase " + v
		case dimCorrelation:
			qual += " with correlation " + v
		}
	}
	subject, those := "no fault kind in the catalogue", "the catalogue's kinds"
	if len(prefix) > 0 {
		subject = "no " + prefix[0] + " fault kind" + qual
		those = prefix[0] + " kinds" + qual
	}
	var pred, verb string
	switch d {
	case dimDomain:
		pred, verb = "has", "have"
	case dimBoundary:
		pred, verb = "enters at", "enter at"
	case dimPhase:
		pred, verb = "enters in", "enter in"
	case dimCorrelation:
		pred, verb = "has", "have"
	case dimOracle:
		pred, verb = "is adjudicated by", "are adjudicated by"
	}
	what := d.String() + " " + values[0]
	if len(values) > 1 {
		what = "any of the " + d.plural() + " " + strings.Join(values, ", ")
	}
	var have []string
	for _, v := range d.Values() {
		if ks, ok := present[v]; ok {
			have = append(have, v+" ("+strings.Join(ks, ", ")+")")
		}
	}
	if len(have) == 0 {
		return subject + " " + pred + " " + what + " (the catalogue is empty)"
	}
	return subject + " " + pred + " " + what + "; " + those + " " + verb + " " + strings.Join(have, ", ")
}

// total returns the number of keys in the universe (reachable and not).
func (u *Universe) total() int { return u.size }

// Keys returns every key of the universe in report order (by the position
// of each value in the model's lists, domain first).
func (u *Universe) keys() []Key {
	out := make([]Key, 0, u.size)
	var v [5]string
	var rec func(level int)
	rec = func(level int) {
		if level == len(dimensions) {
			out = append(out, keyWith(v))
			return
		}
		for _, x := range dimensions[level].Values() {
			v[level] = x
			rec(level + 1)
		}
	}
	rec(0)
	return out
}

// Reachable returns the keys some catalogue kind has, in report order.
func (u *Universe) Reachable() []Key { return append([]Key(nil), u.reachable...) }

// isReachable reports whether some catalogue kind has key k.
func (u *Universe) isReachable(k Key) bool { _, ok := u.kinds[k]; return ok }

// Kinds returns the kinds whose spec has key k, in catalogue order (none
// for an unreachable key).
func (u *Universe) Kinds(k Key) []string { return append([]string(nil), u.kinds[k]...) }

// Events returns the events at which the kinds of key k enter (their
// specs' Event), sorted and once each: a run crosses k's boundary when
// it crosses one of them. None for an unreachable key.
func (u *Universe) events(k Key) []model.EventName {
	var out []model.EventName
	for _, s := range u.all {
		if keyOf(s) == k {
			out = append(out, s.Event)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ownCorrelation reports whether k's correlation is the own correlation
// of one of its kinds (not only a modifier some kind accepts).
func (u *Universe) ownCorrelation(k Key) bool {
	for _, kind := range u.kinds[k] {
		if u.byKind[kind] == k {
			return true
		}
	}
	return false
}

// KindKey returns the key of the named kind's spec, and false for a kind
// not in the universe's catalogue.
func (u *Universe) KindKey(kind string) (Key, bool) { k, ok := u.byKind[kind]; return k, ok }

// kindKeyOf returns the key of the named kind under correlation c: its
// spec's key with c in place of its own correlation, when c is its own,
// "" (its own), or one of its modifiers (model.FaultSpec.Correlations);
// false otherwise, or for a kind not in the catalogue.
func (u *Universe) kindKeyOf(kind string, c model.Correlation) (Key, bool) {
	k, ok := u.byKind[kind]
	if !ok || c == "" || c == k.Correlation {
		return k, ok
	}
	k.Correlation = c
	return k, u.isReachable(k) && slices.Contains(u.kinds[k], kind)
}

// Specs returns the catalogue the universe was built from, in its order.
func (u *Universe) Specs() []model.FaultSpec { return append([]model.FaultSpec(nil), u.specs...) }

// gapList returns the unreachable keys grouped by reason, in the order of a
// walk of the dimensions; their Keys add up to total minus the number of
// reachable keys, and every unreachable key is in exactly one gap.
func (u *Universe) gapList() []gap {
	out := make([]gap, len(u.gaps))
	for i, g := range u.gaps {
		g.Prefix = append([]string(nil), g.Prefix...)
		g.Values = append([]string(nil), g.Values...)
		out[i] = g
	}
	return out
}

// Reason returns why key k is unreachable, derived from the catalogue
// (for example "no tool fault kind enters at boundary proposal; tool
// kinds enter at effect (timeout_after_commit, ...)"), or "" when k is
// reachable. It panics on a key with an unknown value (programmer misuse;
// ParseKey checks user input).
func (u *Universe) reason(k Key) string {
	if u.isReachable(k) {
		return ""
	}
	if _, err := ParseKey(k.String()); err != nil {
		panic("coverage: Reason of an invalid key: " + err.Error())
	}
	specs := u.all
	var prefix []string
	for _, d := range dimensions {
		v := k.value(d)
		present := map[string][]string{}
		var sub []model.FaultSpec
		for _, s := range specs {
			x := keyOf(s).value(d)
			if !slices.Contains(present[x], s.Kind) {
				present[x] = append(present[x], s.Kind)
			}
			if x == v {
				sub = append(sub, s)
			}
		}
		if len(sub) == 0 {
			return reason(prefix, d, []string{v}, present)
		}
		specs = sub
		prefix = append(prefix, v)
	}
	panic("coverage: unreachable key matched every spec") // isReachable said no
}
