package coverage

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Counter reads per-key counts: a key's visits, and its scheduled faults
// that were not tested (not reached or not fired). *Tracker (live) and
// *Data (a file) implement it.
type Counter interface {
	KeyCounts(k Key) (visits, untested int)
}

// Guide chooses fault kinds for exploration, biased toward keys not yet
// visited (the guided exploration): it ranks the catalogue's kinds
// by their key's visits, fewest first, then by their key's untested
// schedulings (a kind whose faults keep missing their event yields to one
// not yet tried), then by a draw from a PCG generator seeded explicitly.
// Given the seed and the same sequence of counts, the choices are the
// same. A Guide is not safe for concurrent use.
type Guide struct {
	specs []string
	keys  []Key
	rng   *rand.Rand
}

// NewGuide returns a guide over u's catalogue (nil means Default())
// seeded with seed.
func NewGuide(u *Universe, seed uint64) *Guide {
	if u == nil {
		u = Default()
	}
	g := &Guide{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for _, s := range u.specs[:u.guided] {
		g.specs = append(g.specs, s.Kind)
		g.keys = append(g.keys, keyOf(s))
	}
	return g
}

// Rank returns every kind of the catalogue, most wanted first: by visits
// of its key, then untested schedulings, then the seeded draw. Each call
// draws one number per kind.
func (g *Guide) Rank(c Counter) []string {
	type cand struct {
		kind            string
		visits, untried int
		draw            uint64
	}
	cs := make([]cand, len(g.specs))
	for i, k := range g.keys {
		v, u := c.KeyCounts(k)
		cs[i] = cand{g.specs[i], v, u, g.rng.Uint64()}
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.visits, b.visits), cmp.Compare(a.untried, b.untried), cmp.Compare(a.draw, b.draw))
	})
	out := make([]string, len(cs))
	for i, x := range cs {
		out[i] = x.kind
	}
	return out
}

// Next returns the most wanted kind (Rank's first). It panics on an empty
// catalogue (programmer misuse).
func (g *Guide) Next(c Counter) string {
	r := g.Rank(c)
	if len(r) == 0 {
		panic("coverage: Guide over an empty catalogue")
	}
	return r[0]
}
