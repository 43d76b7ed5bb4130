package coverage

import (
	"errors"
	"fmt"
	"slices"

	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/model"
)

// Matrix is the harness practice's fault matrix for one system: the
// smallest set of single faults, found by greedy set cover, whose runs
// together visit every key some single fault of the catalogue visits on
// the system, at every tool a fault was aimed at (FaultMatrix).
type Matrix struct {
	// Rows are the chosen single faults, in the order the cover picked
	// them: each adds the most keys not yet visited (ties: catalogue
	// order, but a run that violated an invariant before one that adds
	// the same keys and did not).
	Rows []MatrixRow `json:"rows"`
	// Candidates is how many single-fault schedules were run (each
	// placement, and again under each modifier its config draws); Visited
	// the keys they visit together, which Rows visit too.
	Candidates int   `json:"candidates"`
	Visited    []Key `json:"visited"`
	// Unvisited are the reachable keys of the universe no single fault
	// visits on the system (its events never crossed, a modifier the
	// config does not draw, a second task needed), in key order.
	Unvisited []Key `json:"unvisited"`
}

// MatrixRow is one single fault of a Matrix: its schedule, the keys its
// run visits (the fault reached and fired) and the run's verdict.
type MatrixRow struct {
	Kind     string           `json:"kind"`
	Schedule *model.Schedule  `json:"schedule"`
	Keys     []Key            `json:"keys"`
	Verdict  model.RunVerdict `json:"run_verdict"`
}

// FaultMatrix places every catalogue kind def's path enacts (Enacts) once
// on def's fault-free run on fixture under cfg (model.SingleFaults: a kind
// at tool.commit once per tool when the run calls two or more), and again
// under each correlation modifier its kind takes that cfg's exploration
// draws (repeated, 2 crossings, and persistent always; synchronized with
// two or more workers and tasks, shared with two or more tenants), replays
// each, and picks the matrix by greedy set cover (the smallest: a run
// visits one key) over the keys of u (nil: Default()), a key per tool its
// fault was aimed at. Errors are SingleFaults' and the runs'; production
// code (def.Clock set) runs only in a test's bubbles: FaultMatrixIn.
func FaultMatrix(def *model.Definition, fixture string, cfg model.Config, u *Universe) (*Matrix, error) {
	if def != nil && def.Clock != nil {
		return nil, fmt.Errorf("fault matrix of %s: production code (its Definition has a Clock) runs only in a test's testing/synctest bubbles: call coverage.FaultMatrixIn from a test (exit 2)", def.Name)
	}
	return FaultMatrixIn(func(run func()) error { run(); return nil }, def, fixture, cfg, u)
}

// FaultMatrixIn is FaultMatrix for any system, production code included:
// in makes each run (the fault-free one, then every placement), e.g. in a
// bubble of its own: func(run func()) error { synctest.Test(t, func(*testing.T)
// { run() }); return nil }. An error in returns names the placement.
func FaultMatrixIn(in func(run func()) error, def *model.Definition, fixture string, cfg model.Config, u *Universe) (*Matrix, error) {
	switch {
	case def == nil:
		return nil, errors.New("fault matrix: no Definition (exit 2)")
	case in == nil:
		return nil, fmt.Errorf("fault matrix of %s: no function to make the runs in (exit 2)", def.Name)
	}
	return faultMatrix(def, fixture, cfg, u, in)
}

// faultMatrix is FaultMatrix with each run made by in.
func faultMatrix(def *model.Definition, fixture string, cfg model.Config, u *Universe, in func(func()) error) (*Matrix, error) {
	if u == nil {
		u = Default()
	}
	var p *model.Placements
	var err error
	if berr := in(func() { p, err = model.SingleFaults(def, fixture, cfg) }); berr != nil {
		return nil, fmt.Errorf("fault matrix of %s: the clean run: %w", def.Name, berr)
	}
	if err != nil {
		return nil, err
	}
	fx, err := def.Fixture(fixture)
	if err != nil {
		return nil, err
	}
	// only the kinds def's path can enact (Definition.Enacts): another
	// would be reached and never fire
	candidates := slices.DeleteFunc(slices.Clone(p.Schedules), func(s *model.Schedule) bool { return !catalog.Enacted(def, s.Faults[0].Kind) })
	for _, s := range slices.Clone(candidates) {
		for _, c := range matrixModifiers(u, s.Faults[0].Kind, cfg, fx) {
			m := *s
			m.Seed = s.Seed + "/" + string(c)
			m.Faults = slices.Clone(s.Faults)
			m.Faults[0].Correlation = c
			if c == model.Correlation("repeated") {
				m.Faults[0].Repeat = 2
			}
			candidates = append(candidates, &m)
		}
	}
	m := &Matrix{Candidates: len(candidates)}
	rows := make([]MatrixRow, 0, len(candidates))
	for _, s := range candidates {
		var res *model.Result
		if berr := in(func() { res, err = def.Replay(s) }); berr != nil {
			err = berr
		}
		if err != nil {
			return nil, fmt.Errorf("fault matrix of %s: %s: %w", def.Name, s.Seed, err)
		}
		row := MatrixRow{Kind: s.Faults[0].Kind, Schedule: s, Verdict: res.RunVerdict}
		for _, f := range res.Faults {
			if !f.Reached || f.Fired == 0 {
				continue
			}
			k, ok := u.kindKeyOf(f.Kind, f.Correlation)
			if ok && !slices.Contains(row.Keys, k) {
				row.Keys = append(row.Keys, k)
			}
		}
		rows = append(rows, row)
	}
	// the cover is over keys at each tool a fault was aimed at: a key
	// visited at a run's first tool does not cover its second
	type item struct {
		k    Key
		tool string
	}
	seen := map[Key]bool{}
	covered := map[item]bool{}
	for {
		best, gain := -1, 0
		for i, r := range rows {
			n := 0
			for _, k := range r.Keys {
				if !covered[item{k, r.Schedule.Faults[0].Tool}] {
					n++
				}
			}
			if n > gain {
				best, gain = i, n
			}
		}
		if best < 0 {
			break
		}
		// of the runs adding the same keys, one that violated an
		// invariant, so the matrix shows a single fault that breaks
		// the system when one does
		if rows[best].Verdict != model.Unrecoverable {
			for i, r := range rows[best+1:] {
				if r.Verdict == model.Unrecoverable && r.Schedule.Faults[0].Tool == rows[best].Schedule.Faults[0].Tool && slices.Equal(r.Keys, rows[best].Keys) {
					best += 1 + i
					break
				}
			}
		}
		for _, k := range rows[best].Keys {
			seen[k] = true
			covered[item{k, rows[best].Schedule.Faults[0].Tool}] = true
		}
		m.Rows = append(m.Rows, rows[best])
	}
	for _, k := range u.Reachable() {
		if seen[k] {
			m.Visited = append(m.Visited, k)
		} else {
			m.Unvisited = append(m.Unvisited, k)
		}
	}
	return m, nil
}

// matrixModifiers returns the correlation modifiers of kind (its spec's
// Correlations, in their order) that cfg's exploration draws on fixture
// fx: repeated and persistent act on one task; synchronized needs two or
// more workers and tasks, shared two or more tenants.
func matrixModifiers(u *Universe, kind string, cfg model.Config, fx model.Fixture) []model.Correlation {
	workers := cfg.Concurrency != nil && cfg.Concurrency.Workers >= 2 && len(fx.Tasks) >= 2
	tenants := false
	for _, t := range fx.Tasks {
		tenants = tenants || t.Tenant != fx.Tasks[0].Tenant
	}
	var out []model.Correlation
	for _, sp := range u.specs {
		if sp.Kind != kind {
			continue
		}
		for _, c := range sp.Correlations {
			if c == "synchronized" && !workers || c == "shared" && !tenants {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}
