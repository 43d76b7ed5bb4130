package assay

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/faultline/faultline/model"
)

// Setup is what a configuration dimension may change about the configured
// system under test: the harness options and the fixture (the workload and
// the world it starts from; a fixture without tasks is the definition's
// default). The control set is not part of it: it is the profile, which
// every figure names separately.
type Setup struct {
	Options model.Options
	Fixture model.Fixture
}

// Level is one value of a configuration dimension, with the change it
// makes to a Setup.
type Level struct {
	Dimension string `json:"dimension"`
	Value     string `json:"value"`
	apply     func(*Setup)
}

// Dimension is one configuration dimension of the system under test (seed
// 000, the eight-step assay, step 8: "Repeat across seeds, timings, load,
// policy versions and fault-dependent configurations"). Dimensions are
// built only by their constructors ([RetryBudgets], [Deadlines],
// [PolicyVersions], [ContextCutoffs], [Loads]); a new dimension
// (checkpoint interval, join policy) is one more
// constructor that returns Levels changing the Setup, and every study,
// figure and dossier picks it up unchanged.
type Dimension struct {
	Name   string  `json:"name"`
	Doc    string  `json:"doc"`
	Levels []Level `json:"levels"`
	err    error
}

// RetryBudgets varies model.Options.RetryBudget: tool-call attempts a task
// may make after its first. Each value must be 1 or more (the model reads 0
// as "the default of 2"); a bad value is reported when the variation is
// used.
func RetryBudgets(values ...int) Dimension {
	return numeric("retry_budget", "tool-call attempts a task may make after its first (model.Options.RetryBudget)", values, 1, 0, " (0 is the model's default marker)",
		func(v int) func(*Setup) { return func(s *Setup) { s.Options.RetryBudget = v } })
}

// Deadlines varies model.Options.Deadline, the task's deadline in logical
// milliseconds. Each value must be 1 or more.
func Deadlines(values ...model.Millis) Dimension {
	return numeric("deadline_ms", "the task's deadline in logical milliseconds (model.Options.Deadline)", values, 1, 0, "",
		func(v model.Millis) func(*Setup) { return func(s *Setup) { s.Options.Deadline = v } })
}

// Variation is a list of configuration dimensions. Its configurations are
// the cross product of the dimensions' levels, in order (the last dimension
// varies fastest); an empty Variation has one configuration, "default".
type Variation []Dimension

// validate returns the first bad dimension: one without levels, a repeated
// name or value, or a bad value.
func (v Variation) validate() error {
	seen := map[string]bool{}
	for _, d := range v {
		if d.err != nil {
			return d.err
		}
		if d.Name == "" || len(d.Levels) == 0 {
			return fmt.Errorf("variation: dimension %q has no levels", d.Name)
		}
		if seen[d.Name] {
			return fmt.Errorf("variation: dimension %q is given twice", d.Name)
		}
		seen[d.Name] = true
		vals := map[string]bool{}
		for _, l := range d.Levels {
			if vals[l.Value] {
				return fmt.Errorf("variation: dimension %q repeats the value %s", d.Name, l.Value)
			}
			vals[l.Value] = true
		}
	}
	return nil
}

// configuration is one point of a Variation: a level of each dimension.
type configuration struct {
	levels []Level
}

// defaultConfig is the name of the configuration with no varied
// dimension: the base setup.
const defaultConfig = "default"

// name is "default" or the levels as "dim=value" joined by spaces, e.g.
// "retry_budget=1 deadline_ms=300". Every figure carries it.
func (c configuration) name() string {
	if len(c.levels) == 0 {
		return defaultConfig
	}
	s := make([]string, len(c.levels))
	for i, l := range c.levels {
		s[i] = l.Dimension + "=" + l.Value
	}
	return strings.Join(s, " ")
}

// apply returns base changed by every level of c.
func (c configuration) apply(base Setup) Setup {
	for _, l := range c.levels {
		l.apply(&base)
	}
	return base
}

// configurations returns the cross product of v's levels.
func (v Variation) configurations() []configuration {
	out := []configuration{{}}
	for _, d := range v {
		var next []configuration
		for _, c := range out {
			for _, l := range d.Levels {
				levels := append(append([]Level(nil), c.levels...), l)
				next = append(next, configuration{levels: levels})
			}
		}
		out = next
	}
	return out
}

// splitmix64 is the generator that draws configurations alongside the
// paper's LCG draws of faults (G. L. Steele, D. Lea, C. H. Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014): a separate,
// explicitly seeded stream, so the fault plan stays the artefact's.
type splitmix64 struct{ state uint64 }

func (s *splitmix64) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// choice returns an index in [0,n): the high word of next()·n (Lemire's
// multiply-shift).
func (s *splitmix64) choice(n int) int {
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int(hi)
}
