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
	d := Dimension{Name: "policy_version", Doc: "the version of every tenant's policy in the fixture's world (model.Policy.Version)"}
	for _, v := range values {
		if v < 1 {
			d.err = fmt.Errorf("policy_version %d: give 1 or more", v)
		}
		d.Levels = append(d.Levels, Level{Dimension: d.Name, Value: strconv.FormatInt(v, 10), apply: func(s *Setup) {
			s.Fixture.Policies = slices.Clone(s.Fixture.Policies)
			for i := range s.Fixture.Policies {
				s.Fixture.Policies[i].Version = v
			}
		}})
	}
	return d
}

// ContextCutoffs varies model.Options.ContextCutoff: how long, in logical
// milliseconds, the ephemeral context keeps an entry before a read misses
// it, as a context window drops what scrolled out. Each value must be 1 or
// more (0 is the model's "no cutoff").
func ContextCutoffs(values ...model.Millis) Dimension {
	d := Dimension{Name: "context_cutoff_ms", Doc: "how long the ephemeral context keeps an entry, logical ms (model.Options.ContextCutoff)"}
	for _, v := range values {
		if v < 1 {
			d.err = fmt.Errorf("context_cutoff_ms %d: give 1 or more (0 is the model's no-cutoff marker)", v)
		}
		d.Levels = append(d.Levels, Level{Dimension: d.Name, Value: strconv.FormatInt(int64(v), 10), apply: func(s *Setup) { s.Options.ContextCutoff = v }})
	}
	return d
}

// Loads varies the load of a run: the fixture's tasks repeated n times in
// order, the k-th copy of a task named ID-k (k >= 2), so a fault at an
// ordinal meets a workload n times as long. Each value must be 1 to 100.
func Loads(values ...int) Dimension {
	d := Dimension{Name: "load", Doc: "the fixture's tasks repeated this many times (model.Fixture.Tasks)"}
	for _, v := range values {
		if v < 1 || v > 100 {
			d.err = fmt.Errorf("load %d: give 1 to 100", v)
		}
		d.Levels = append(d.Levels, Level{Dimension: d.Name, Value: strconv.Itoa(v), apply: func(s *Setup) {
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
		}})
	}
	return d
}
