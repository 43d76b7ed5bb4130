package properties

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
)

// withBubble makes every run of an exploration run inside a
// testing/synctest bubble of t, one at a time, and checks that a run
// which breaks an invariant replays to the same crossings (open does so
// for production code under Check).
func withBubble(t *testing.T) Option {
	return optionFunc(func(s *settings) error { s.bubble = bubbler(t); return nil })
}

// WithBubble is withBubble, for the tests: every run in a
// testing/synctest bubble of t, as Check runs production code's.
func WithBubble(t *testing.T) Option { return withBubble(t) }

// WithoutReduction is withoutReduction, for the tests: the walk runs every
// list of placements as generated.
func WithoutReduction() Option { return withoutReduction() }

// WithVisit is withVisit, for the tests: f sees each schedule the walk
// runs, in enumeration order.
func WithVisit(f func(*model.Schedule)) Option { return withVisit(f) }

// WithoutWalk leaves out the default check's walk phase, whatever the
// other options: the random phase alone, for the tests that measure it
// (WithMaxSchedules(0) is the public way).
func WithoutWalk() Option {
	return optionFunc(func(s *settings) error { s.exh.noWalk = true; return nil })
}

// WithRecordFault makes every recording into the WithCoverage tracker of
// a result f returns an error for fail with that error.
func WithRecordFault(f func(*model.Result) error) Option {
	return optionFunc(func(s *settings) error { s.recordFault = f; return nil })
}

// CheckTB is Check on any rapid.TB, so a test can assert how Check fails:
// bt, when not nil, is the test production code's bubbles belong to.
func CheckTB(t rapid.TB, bt *testing.T, def *model.Definition, opts ...Option) {
	t.Helper()
	check(t, bt, def, opts)
}

// Reduce runs the reduction a counterexample gets (the faults, the
// interleaving, the faults again) on s, which breaks inv.
func Reduce(def *model.Definition, s *model.Schedule, inv string, opts ...Option) (*Counterexample, error) {
	e, err := resolve(def, opts)
	if err != nil {
		return nil, err
	}
	return e.counterexample(s, inv)
}

// WithFixtureValue runs fixture f, which replaces the Definition's fixture
// of its name or comes first: for the tests that explore one system over
// workloads of their own.
func WithFixtureValue(f model.Fixture) Option {
	return optionFunc(func(s *settings) error {
		if f.Name == "" || len(f.Tasks) == 0 {
			return errors.New("properties: a fixture needs a name and at least one task")
		}
		d := *s.def
		d.Fixtures = append([]model.Fixture{f}, slices.DeleteFunc(slices.Clone(d.Fixtures), func(g model.Fixture) bool { return g.Name == f.Name })...)
		s.def = &d
		s.fixtureArg, s.fixtureSet = f.Name, true
		return nil
	})
}

// RapidOutput is what rapid reported on the failure of r's campaign.
func RapidOutput(r *Report) string { return r.rapidOutput }

// The unexported API the tests use.
var (
	CheckSeed      = checkSeed
	ShardChecks    = shardChecks
	WithName       = withName
	WithInvariants = withInvariants
)

// MaxChecks bounds WithChecks.
const MaxChecks = maxChecks

// PanicError is the error of an exploration whose system panicked.
type PanicError = panicError

// Sizes is r.Sizes().
func Sizes(r *ExhaustiveReport) string { return r.Sizes() }

// Unreached is r.unreached().
func Unreached(r *Report) int { return r.unreached() }

// PairPaths is the paths of pair(path, ce), in the order they are renamed.
func PairPaths(path string, ce *corpus.Counterexample) []string {
	var out []string
	for _, f := range pair(path, ce) {
		out = append(out, f.Path)
	}
	return out
}
