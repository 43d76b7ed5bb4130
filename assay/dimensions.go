package assay

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/faultline/faultline/model"
)

// PolicyVersions varies the version of every tenant's policy in the
// fixture's world (model.Policy.Version), the paper's policy version: a
// system that pins, caches or compares versions meets each one. Each
// value must be 1 or more.
func PolicyVersions(values ...int64) Dimension {
	return numeric("policy_version", "the version of every tenant's policy in the fixture's world (model.Policy.Version)", values, 1, 0, "",
		func(v int64) func(*Setup) {
			return func(s *Setup) {
				s.Fixture.Policies = slices.Clone(s.Fixture.Policies)
				for i := range s.Fixture.Policies {
					s.Fixture.Policies[i].Version = v
				}
			}
		})
}

// ContextCutoffs varies model.Options.ContextCutoff: how long, in logical
// milliseconds, the ephemeral context keeps an entry before a read misses
// it, as a context window drops what scrolled out. Each value must be 1 or
// more (0 is the model's "no cutoff").
func ContextCutoffs(values ...model.Millis) Dimension {
	return numeric("context_cutoff_ms", "how long the ephemeral context keeps an entry, logical ms (model.Options.ContextCutoff)", values, 1, 0, " (0 is the model's no-cutoff marker)",
		func(v model.Millis) func(*Setup) { return func(s *Setup) { s.Options.ContextCutoff = v } })
}

// Loads varies the load of a run: the fixture's tasks repeated n times in
// order, the k-th copy of a task named ID-k (k >= 2), so a fault at an
// ordinal meets a workload n times as long. Each value must be 1 to 100.
func Loads(values ...int) Dimension {
	return numeric("load", "the fixture's tasks repeated this many times (model.Fixture.Tasks)", values, 1, 100, "",
		func(v int) func(*Setup) {
			return func(s *Setup) {
				tasks := make([]model.Task, 0, v*len(s.Fixture.Tasks))
				for k := 1; k <= v; k++ {
					for _, t := range s.Fixture.Tasks {
						if k > 1 {
							t.ID += "-" + strconv.Itoa(k)
						}
						tasks = append(tasks, t)
					}
				}
				s.Fixture.Tasks = tasks
			}
		})
}

// numeric is a dimension over integer values: a level per value, named by
// its decimal form, whose setup is apply(value). A value below lo, or
// above hi when hi > 0, is the dimension's error ("NAME V: give LO or
// more" and note, or "give LO to HI"), reported when the variation is used.
func numeric[T ~int | ~int64](name, doc string, values []T, lo, hi T, note string, apply func(T) func(*Setup)) Dimension {
	d := Dimension{Name: name, Doc: doc}
	for _, v := range values {
		switch {
		case hi > 0 && (v < lo || v > hi):
			d.err = fmt.Errorf("%s %d: give %d to %d", name, v, lo, hi)
		case v < lo:
			d.err = fmt.Errorf("%s %d: give %d or more%s", name, v, lo, note)
		}
		d.Levels = append(d.Levels, Level{Dimension: name, Value: strconv.FormatInt(int64(v), 10), apply: apply(v)})
	}
	return d
}
