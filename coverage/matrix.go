package coverage

import (
	"fmt"
	"slices"

	"github.com/faultline/faultline/model"
)

// Matrix is the harness practice's fault matrix for one system: the
// smallest set of single faults, found by greedy set cover, whose runs
// together visit every key some single fault of the catalogue visits on
// the system (FaultMatrix).
type Matrix struct {
	// Rows are the chosen single faults, in the order the cover picked
	// them: each adds the most keys not yet visited (ties: catalogue
	// order).
	Rows []MatrixRow `json:"rows"`
	// Candidates is how many single-fault schedules were run; Visited the
	// keys they visit together, which Rows visit too.
	Candidates int   `json:"candidates"`
	Visited    []Key `json:"visited"`
	// Unvisited are the reachable keys of the universe no single fault
	// visits on the system (its events never crossed, a correlation or a
	// second task needed), in key order.
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

// FaultMatrix places every catalogue kind once on def's fault-free run on
// fixture under cfg (model.SingleFaults), replays each placement, and
// picks the fault matrix to run first by greedy set cover over the keys
// of u (nil: Default()) each run visits. Greedy cover is within a factor
// ln(keys) of the smallest; here each run visits one key, so it is the
// smallest. Errors are SingleFaults' and the runs'; a system whose
// Definition has a Clock (production code) needs a test's bubble.
func FaultMatrix(def *model.Definition, fixture string, cfg model.Config, u *Universe) (*Matrix, error) {
	if u == nil {
		u = Default()
	}
	p, err := model.SingleFaults(def, fixture, cfg)
	if err != nil {
		return nil, err
	}
	m := &Matrix{Candidates: len(p.Schedules)}
	rows := make([]MatrixRow, 0, len(p.Schedules))
	for _, s := range p.Schedules {
		res, err := def.Replay(s)
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
	seen := map[Key]bool{}
	for {
		best, gain := -1, 0
		for i, r := range rows {
			n := 0
			for _, k := range r.Keys {
				if !seen[k] {
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
		for _, k := range rows[best].Keys {
			seen[k] = true
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
