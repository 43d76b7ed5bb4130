package properties

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/faultline/faultline/model"
)

// counterexample reduces s, which breaks inv, to a 1-minimal schedule and
// describes the reduced run.
func (e *explorer) counterexample(s *model.Schedule, inv string) (*Counterexample, error) {
	shrunk := cloneSchedule(s)
	fails := func(c *model.Schedule) (bool, error) { return e.breaks(c, inv) }
	pinned, err := e.pinPicks(s, inv)
	if err != nil {
		return nil, err
	}
	red, err := e.reduce(pinned, fails, false)
	if err != nil {
		return nil, err
	}
	if red.Config.Concurrency != nil {
		// the fewest context switches, then the faults again: a fault
		// may matter only under the interleaving rapid drew
		if red, err = e.reduceInterleaving(red, inv); err != nil {
			return nil, err
		}
		if red, err = e.reduce(red, fails, false); err != nil {
			return nil, err
		}
	}
	// red keeps the seed its runs had (the seed string is an input of the
	// run: Env.Rand's streams); run twice more, it breaks inv both times
	var res *model.Result
	var ir model.InvariantResult
	for range 2 {
		if res, err = e.replay(red); err != nil {
			return nil, err
		}
		if ir, _ = res.Invariant(inv); ir.Held {
			return nil, brokeOnce("the reduced schedule", red, inv, " while it was reduced")
		}
	}
	cx := describe(red, res, ir)
	cx.Shrunk, cx.Replay, cx.Jitter = shrunk, fmt.Sprintf(e.set.replay, "SCHEDULE.json"), e.spread.get()
	return cx, nil
}

// pinPicks returns s with a seeded scheduler (Concurrency.Seed) replaced by
// the picks its run made, written out as the interleaving: the same run,
// which the interleaving reducer can then shrink (past an unseeded
// interleaving's end every worker goes on until it ends, as its cuts
// assume). A schedule without a seed, or whose pinned form does not break
// inv (a system that does not replay), is returned unchanged.
func (e *explorer) pinPicks(s *model.Schedule, inv string) (*model.Schedule, error) {
	c := s.Config.Concurrency
	if c == nil || c.Seed == "" {
		return s, nil
	}
	res, err := e.replay(s)
	if err != nil {
		return nil, err
	}
	p := cloneSchedule(s)
	p.Config.Concurrency.Seed, p.Config.Concurrency.Interleaving = "", slices.Clone(res.Interleaving)
	if ok, err := e.breaks(p, inv); err != nil || !ok {
		return s, err
	}
	return p, nil
}

// describe returns the counterexample s shows: res is its run, ir the
// violated invariant's result in it.
func describe(s *model.Schedule, res *model.Result, ir model.InvariantResult) *Counterexample {
	cx := &Counterexample{Schedule: s, Violation: ir.Violation, Interleaving: res.Interleaving, ContextSwitches: res.ContextSwitches}
	for _, f := range res.Faults {
		if f.ID == ir.FaultID {
			cx.FaultKind = f.Kind
		}
	}
	// the run record's redacted view (model.RunRecord): its timeline and
	// the violation's detail, as every file of a run shows them
	rec := res.Record()
	for _, v := range rec.Violations {
		if v.Invariant == ir.Invariant {
			cx.Violation.Detail = v.Detail
		}
	}
	tl := rec.Timeline
	cx.Timeline, cx.System = tl[:min(ir.FirstSeq, len(tl))], rec.Contract.System
	return cx
}

// replay runs c through the public replay path: its canonical text form,
// decoded strictly, run by the harness.
func (e *explorer) replay(c *model.Schedule) (*model.Result, error) {
	p, err := model.ParseSchedule(model.Format(c))
	if err != nil {
		return nil, fmt.Errorf("properties: a reduced schedule does not decode: %w", err)
	}
	res, err := e.run(p)
	if err != nil {
		return nil, err
	}
	_ = e.record(res) // an error is kept beside the counterexample (coverageErr)
	return res, nil
}

// breaks reports whether c's run violates inv.
func (e *explorer) breaks(c *model.Schedule, inv string) (bool, error) {
	res, err := e.replay(c)
	if err != nil {
		return false, err
	}
	ir, _ := res.Invariant(inv)
	return !ir.Held, nil
}

// reduce is the fault-aware reduction after rapid's shrinking: it drops
// one fault, moves one to an earlier ordinal or weakens one, keeping any
// change after which fails still holds, until none does. The result is
// 1-minimal. Two identical faults may also go at once; with pairs, any
// two faults (tried after every single change fails), so the result is
// also 2-minimal in drops.
func (e *explorer) reduce(s *model.Schedule, fails func(*model.Schedule) (bool, error), pairs bool) (*model.Schedule, error) {
	cur := cloneSchedule(s)
	for {
		next, err := e.reduceStep(cur, fails, pairs)
		if err != nil || next == nil {
			return cur, err
		}
		cur = next
	}
}

func (e *explorer) reduceStep(cur *model.Schedule, fails func(*model.Schedule) (bool, error), pairs bool) (*model.Schedule, error) {
	try := func(c *model.Schedule) (*model.Schedule, error) {
		ok, err := fails(c)
		if err != nil || !ok {
			return nil, err
		}
		return c, nil
	}
	for i := range cur.Faults {
		c := cloneSchedule(cur)
		c.Faults = slices.Delete(c.Faults, i, i+1)
		if got, err := try(c); got != nil || err != nil {
			return got, err
		}
	}
	for i, f := range cur.Faults {
		for o := 1; o < f.Ordinal; o++ {
			c := cloneSchedule(cur)
			c.Faults[i].Ordinal = o
			if got, err := try(c); got != nil || err != nil {
				return got, err
			}
		}
	}
	for i, f := range cur.Faults {
		for _, w := range e.weaker(f) {
			c := cloneSchedule(cur)
			c.Faults[i] = w
			if got, err := try(c); got != nil || err != nil {
				return got, err
			}
		}
	}
	if !pairs {
		// two identical faults at one crossing may cancel (a subject
		// swapped and swapped back), so neither goes alone: they go
		// together
		for i, f := range cur.Faults {
			for j := i + 1; j < len(cur.Faults); j++ {
				if cur.Faults[j] != f {
					continue
				}
				c := cloneSchedule(cur)
				c.Faults = slices.Delete(c.Faults, j, j+1)
				c.Faults = slices.Delete(c.Faults, i, i+1)
				if got, err := try(c); got != nil || err != nil {
					return got, err
				}
			}
		}
		return nil, nil
	}
	for i := range cur.Faults {
		for j := i + 1; j < len(cur.Faults); j++ {
			c := cloneSchedule(cur)
			c.Faults = slices.Delete(c.Faults, j, j+1)
			c.Faults = slices.Delete(c.Faults, i, i+1)
			if got, err := try(c); got != nil || err != nil {
				return got, err
			}
		}
	}
	return nil, nil
}

// weaker returns weaker variants of f, weakest first: without its
// correlation modifier (the kind's own correlation), a repeated fault
// repeating fewer times, a named target for a kind that acts on every
// target when it names none, and shorter clock advances.
func (e *explorer) weaker(f model.FaultEntry) []model.FaultEntry {
	var out []model.FaultEntry
	if f.Correlation != "" {
		w := f
		w.Correlation, w.Repeat, w.Until, w.WindowMs = "", 0, "", 0
		out = append(out, w)
		for n := 2; n < f.Repeat; n++ {
			w := f
			w.Repeat = n
			out = append(out, w)
		}
	}
	for _, k := range e.kinds {
		if k.kind != f.Kind {
			continue
		}
		if k.clock {
			n, err := strconv.Atoi(f.Target)
			if err != nil {
				n = 1000 // an empty target advances 1000 ms
			}
			for d := 1; d < n; d *= 2 {
				w := f
				w.Target = strconv.Itoa(d)
				out = append(out, w)
			}
			for d := n - n/8; d > 0 && d < n; d = n - (n-d)/2 {
				w := f
				w.Target = strconv.Itoa(d)
				out = append(out, w)
				if n-d <= 1 {
					break
				}
			}
		}
		if f.Target == "" {
			for _, t := range k.targets {
				if t != "" {
					w := f
					w.Target = t
					out = append(out, w)
				}
			}
		}
	}
	return out
}

func cloneSchedule(s *model.Schedule) *model.Schedule {
	c := *s
	c.Faults = append([]model.FaultEntry{}, s.Faults...)
	c.Config.Concurrency = cloneConcurrency(s.Config.Concurrency)
	return &c
}

// reduceInterleaving is the reducer's interleaving step, after the faults
// are reduced: s breaks inv under a concurrent config; it returns a
// schedule that still breaks it with the fewest context switches it can
// find, then the shortest interleaving. From the picks of the current run
// (Result.Interleaving) it tries each change interleavingCandidates
// lists; a candidate that still breaks inv with no more switches is cut
// to its shortest prefix that does too (past its end every worker goes on
// until it ends), and kept when it has fewer switches, or as many and a
// shorter interleaving. It stops when no candidate is kept: no single
// such change keeps the violation with fewer switches or fewer picks.
func (e *explorer) reduceInterleaving(s *model.Schedule, inv string) (*model.Schedule, error) {
	cur := cloneSchedule(s)
	res, err := e.replay(cur)
	if err != nil {
		return nil, err
	}
	// try runs c's schedule under il: its run when it breaks inv
	try := func(c *model.Schedule, il []int) (*model.Result, error) {
		c.Config.Concurrency.Interleaving = il
		r, err := e.replay(c)
		if err != nil {
			return nil, err
		}
		if ir, _ := r.Invariant(inv); ir.Held {
			return nil, nil
		}
		return r, nil
	}
	for {
		var next *model.Schedule
		var nres *model.Result
		for _, il := range interleavingCandidates(res.Interleaving) {
			c := cloneSchedule(cur)
			r, err := try(c, il)
			if err != nil {
				return nil, err
			}
			if r == nil || r.ContextSwitches > res.ContextSwitches {
				continue
			}
			// the candidate's shortest prefix that still breaks inv
			// with no more switches
			for k := 0; k < len(il); k++ {
				p := cloneSchedule(c)
				pr, err := try(p, slices.Clone(il[:k]))
				if err != nil {
					return nil, err
				}
				if pr != nil && pr.ContextSwitches <= r.ContextSwitches {
					c, r = p, pr
					break
				}
			}
			if r.ContextSwitches < res.ContextSwitches || len(c.Config.Concurrency.Interleaving) < len(cur.Config.Concurrency.Interleaving) {
				next, nres = c, r
				break
			}
		}
		if next == nil {
			return cur, nil
		}
		cur, res = next, nres
	}
}

// interleavingCandidates returns the changes reduceInterleaving tries on
// a run's picks: its prefixes, shortest first; then each run of equal
// picks merged into the run before it (one switch fewer), started one
// point earlier (a switch moved earlier), or removed. Each candidate is
// cut after the first pick of its last run: past its end the worker picked
// there goes on until it ends, as it would under the picks cut.
func interleavingCandidates(picks []int) [][]int {
	var out [][]int
	for k := 0; k < len(picks); k++ {
		out = append(out, slices.Clone(picks[:k]))
	}
	var starts []int
	for i := range picks {
		if i == 0 || picks[i] != picks[i-1] {
			starts = append(starts, i)
		}
	}
	end := func(j int) int {
		if j+1 < len(starts) {
			return starts[j+1]
		}
		return len(picks)
	}
	for j := 1; j < len(starts); j++ {
		c := slices.Clone(picks)
		for i := starts[j]; i < end(j); i++ {
			c[i] = picks[starts[j-1]]
		}
		out = append(out, cutInterleaving(c))
	}
	for j := 1; j < len(starts); j++ {
		c := slices.Clone(picks)
		c[starts[j]-1] = picks[starts[j]]
		out = append(out, cutInterleaving(c))
	}
	for j := range starts {
		out = append(out, cutInterleaving(slices.Delete(slices.Clone(picks), starts[j], end(j))))
	}
	return out
}

// cutInterleaving cuts picks after the first pick of its last run.
func cutInterleaving(picks []int) []int {
	n := len(picks)
	for n > 1 && picks[n-1] == picks[n-2] {
		n--
	}
	return picks[:n]
}

// cloneConcurrency returns a deep copy of c (nil for nil), so a schedule
// changed in place never shares its interleaving with another.
func cloneConcurrency(c *model.Concurrency) *model.Concurrency {
	if c == nil {
		return nil
	}
	x := *c
	x.Interleaving = slices.Clone(c.Interleaving)
	return &x
}
