package properties

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/model"
)

// Option configures an exploration. Options are built only by the
// constructors of this package; later options override earlier ones.
type Option interface{ apply(*settings) error }

type optionFunc func(*settings) error

func (f optionFunc) apply(s *settings) error { return f(s) }

// settings are the resolved options.
type settings struct {
	config     model.Config
	configSet  bool // WithConfig was given
	fixture    model.Fixture
	fixtureSet bool              // WithFixture was given
	fixtureArg string            // WithFixture's name
	def        *model.Definition // the system under test
	kinds      []string          // nil: every kind
	domains    []model.Domain    // nil: every domain
	world      bool
	notices    bool // WithNotices
	swarm      bool // swarm draws (WithSwarm: on)
	maxFaults  int
	invariants []string // nil: every invariant
	replay     string   // WithReplayCommand's ("": defaultReplay)
	name       string
	harness    model.Options
	tracker    *coverage.Tracker // nil: no recording
	// recordFault, when set, is an error recording res meets after the
	// tracker took it (the tests' failing recorder)
	recordFault func(res *model.Result) error
	guide       *guideSettings // nil: unguided
	failDir     string         // WithFailDir's ("": Check's default)

	exh exhaustiveSettings // Exhaustive's own options

	loop loopSettings // WithSeed, WithChecks and WithShard

	// bubble runs one run inside a testing/synctest bubble
	// (production code's, under Check), returning the bubble's own failure; nil: runs
	// run directly
	bubble func(func()) error

	// progress is WithProgress's function (nil: none)
	progress func(done, total, counterexamples int)
}

// guideSettings are WithGuide's arguments.
type guideSettings struct {
	seed  uint64
	prior *coverage.Data // nil: no prior record
}

// defaultReplay is the replay line of a counterexample when neither the
// Definition nor the caller names a command: where a schedule file of a
// user's system replays.
const defaultReplay = "FAULTLINE_REPLAY=%[1]s go test -run '^TestName$' ./pkg (a test of yours running properties.Check on %[2]s), or %[2]s's own command line (package cli): replay %[1]s"

func defaults() settings {
	return settings{
		world:     true,
		maxFaults: 3,
		name:      "explore",
	}
}

// WithConfig sets the config of every explored schedule: the system's own
// part (handed to the Definition's Configure), optionally a retry budget,
// deadline and join policy, and the fixture, one of the Definition's by
// name. Default: {} and the Definition's first fixture. A config that
// does not apply to the system is an error when the exploration starts.
func WithConfig(cfg model.Config) Option {
	return optionFunc(func(s *settings) error {
		if err := (&model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: []model.FaultEntry{}}).Validate(); err != nil {
			return fmt.Errorf("properties: %w", err)
		}
		s.config, s.configSet = cfg, true
		return nil
	})
}

// WithFixture runs the Definition's fixture of that name instead of its
// first; an unknown name is an error when the exploration starts.
func WithFixture(name string) Option {
	return optionFunc(func(s *settings) error {
		if name == "" {
			return errors.New("properties: WithFixture needs a fixture name")
		}
		s.fixtureArg, s.fixtureSet = name, true
		return nil
	})
}

// WithKinds limits the fault kinds and world events drawn to the named
// ones (catalogue kinds, world events, or kinds of the provider's notices,
// model.NoticeKinds: naming one of those turns the provider's notices on,
// as WithNotices does). An unknown name, or one the Definition's path
// cannot enact (outside its Enacts), is an error.
func WithKinds(kinds ...string) Option {
	return optionFunc(func(s *settings) error {
		for _, k := range kinds {
			if _, err := model.Spec(k); err != nil {
				return fmt.Errorf("properties: %w", err)
			}
		}
		s.kinds = append([]string{}, kinds...)
		return nil
	})
}

// WithDomains limits the kinds drawn to those of the given fault domains
// (world events included, by their domain).
func WithDomains(ds ...model.Domain) Option {
	return optionFunc(func(s *settings) error {
		for _, d := range ds {
			if _, err := model.ParseDomain(string(d)); err != nil {
				return fmt.Errorf("properties: %w", err)
			}
		}
		s.domains = append([]model.Domain{}, ds...)
		return nil
	})
}

// WithNotices has the provider send its asynchronous notices in every run
// (the config's Notices) and adds the four kinds of model.NoticeKinds to
// the kinds in scope, drawn at notice.receive with
// recorded_agrees_with_ledger in scope. A system that never reads its
// notices reaches none of them: inconclusive, never a pass.
func WithNotices() Option {
	return optionFunc(func(s *settings) error { s.notices = true; return nil })
}

// WithoutWorldEvents draws from the fault catalogue only: no clock
// advance, capability revocation, policy change, state-version change or
// worker crash is interleaved.
func WithoutWorldEvents() Option {
	return optionFunc(func(s *settings) error { s.world = false; return nil })
}

// WithSwarm turns swarm draws on: each check first draws its swarm (Groce
// et al., "Swarm Testing"), a subset of the kinds and sites, and favours
// compositions of WithMaxFaults entries; it reaches no schedule the plain
// draw cannot, and a check costs more (its prefix runs; docs/performance.md).
// By default each check draws its number of entries evenly from one to
// WithMaxFaults and each entry from every kind and site in scope. WithGuide
// draws without a swarm. See docs/exploration.md, "Swarm draws".
func WithSwarm() Option {
	return optionFunc(func(s *settings) error { s.swarm = true; return nil })
}

// WithMaxFaults sets the largest number of faults and world events a drawn
// schedule holds (1 to 16; default 3). Every drawn schedule holds at least
// one; the reducer may end at none when the clean run already fails.
func WithMaxFaults(k int) Option {
	return optionFunc(func(s *settings) error {
		if k < 1 || k > 16 {
			return fmt.Errorf("properties: max faults %d must be between 1 and 16", k)
		}
		s.maxFaults = k
		return nil
	})
}

// WithHarnessOptions sets the harness options of every run: budgets, stop
// conditions and, over the Definition's, the built-in invariants that
// apply (Builtin) and the system's own (Invariants). Default:
// model.Options{} with the Definition's invariants (every built-in one
// when it names none). Invalid options are an error when the exploration
// starts.
func WithHarnessOptions(opts model.Options) Option {
	return optionFunc(func(s *settings) error { s.harness = opts; return nil })
}

// withInvariants limits the invariants whose violation is a counterexample
// (default: every invariant a run checks, Definition.Scope). An unknown
// name is an error.
func withInvariants(names ...string) Option {
	return optionFunc(func(s *settings) error {
		for _, n := range names {
			found := n == model.InvRecordedAgreesWithLedger
			for _, inv := range model.Invariants {
				found = found || inv.Name == n
			}
			if !found {
				return fmt.Errorf("properties: unknown invariant %q", n)
			}
		}
		if len(names) == 0 {
			return errors.New("properties: the scope of the counterexamples needs at least one invariant")
		}
		s.invariants = append([]string{}, names...)
		return nil
	})
}

// WithReplayCommand sets the command a counterexample of Explore names to
// replay its schedule file, a format with one %s for the file's path, when
// the Definition has no ReplayCommand (the command line sets its own
// program's). Default: a line naming the FAULTLINE_REPLAY test line and
// the system's own command line. Check names its go test line instead.
func WithReplayCommand(format string) Option {
	return optionFunc(func(s *settings) error {
		s.replay = format
		return nil
	})
}

// withName names the exploration for rapid (its fail file directory,
// testdata/rapid/NAME/) when Explore runs without a test; default
// "explore". Check uses the test's name.
func withName(name string) Option {
	return optionFunc(func(s *settings) error {
		if name == "" {
			return errors.New("properties: empty name")
		}
		s.name = name
		return nil
	})
}

// WithCoverage records every run the exploration makes into t: each check,
// rapid's re-runs while it shrinks a failure, and the reduction's replays
// (not the fault-free run that surveys the workload). A fault counts as a
// visit of its key only when it reached its event and fired in a run the
// oracle adjudicated (coverage.Tracker.Record); world events have no key.
// t may be shared by several explorations and goroutines; a test binary
// flushes it to a file with coverage.Main. A nil t is an error.
func WithCoverage(t *coverage.Tracker) Option {
	return optionFunc(func(s *settings) error {
		if t == nil {
			return errors.New("properties: WithCoverage needs a tracker")
		}
		s.tracker = t
		return nil
	})
}

// WithGuide biases each check's kinds toward the coverage keys with the
// fewest visits (coverage.Guide seeded with seed), counting prior (a
// coverage file or a tracker's snapshot; nil for none) and every check so
// far. The draws stay a pure function of rapid's seed, seed and prior;
// from the first failing check on the ranking stays that check's, so
// rapid's shrinking is stable. See docs/exploration.md, "Guided draws".
func WithGuide(seed uint64, prior *coverage.Data) Option {
	return optionFunc(func(s *settings) error {
		var p *coverage.Data
		if prior != nil {
			p = prior.Clone()
		}
		s.guide = &guideSettings{seed: seed, prior: p}
		return nil
	})
}

// resolve applies the definition's defaults and checks that a fixture is
// set.
func (s *settings) resolve() error {
	if !s.world {
		for _, k := range s.kinds {
			if sp, err := model.Spec(k); err == nil && sp.World {
				return fmt.Errorf("properties: WithKinds names the world event %q, which WithoutWorldEvents leaves out", k)
			}
		}
	}
	name := s.config.Fixture
	if s.fixtureSet {
		if name != "" && name != s.fixtureArg {
			return fmt.Errorf("properties: WithConfig names fixture %q, but WithFixture names %q: give one of them", name, s.fixtureArg)
		}
		name = s.fixtureArg
	}
	fx, err := s.def.Fixture(name)
	if err != nil {
		by := "WithConfig"
		if s.fixtureSet {
			by = "WithFixture"
		}
		return fmt.Errorf("properties: %s: %w", by, err)
	}
	s.fixture = fx
	s.harness = s.def.Options(s.harness)
	if s.replay == "" {
		s.replay = strings.ReplaceAll(defaultReplay, "%[2]s", s.def.Name)
	}
	if s.def.ReplayCommand != "" {
		s.replay = s.def.ReplayCommand
	}
	if s.config.Fixture != "" && s.fixture.Name != "" && s.config.Fixture != s.fixture.Name {
		return fmt.Errorf("properties: WithConfig names fixture %q, but the exploration runs fixture %q (WithFixture): give one of them", s.config.Fixture, s.fixture.Name)
	}
	if err := catalog.CheckEnacted(s.def, s.kinds); err != nil {
		return fmt.Errorf("properties: WithKinds: %w (exit 2)", err)
	}
	if s.notices && s.kinds != nil {
		for _, sp := range model.NoticeKinds() {
			if !slices.Contains(s.kinds, sp.Kind) && catalog.Enacted(s.def, sp.Kind) {
				s.kinds = append(s.kinds, sp.Kind)
			}
		}
	}
	if s.notices || slices.ContainsFunc(s.kinds, isNoticeKind) {
		s.config.Notices = true // the notice kinds' event exists only when the provider sends notices
	}
	return nil
}

// isNoticeKind reports whether kind is one of model.NoticeKinds.
func isNoticeKind(kind string) bool {
	return slices.ContainsFunc(model.NoticeKinds(), func(sp model.FaultSpec) bool { return sp.Kind == kind })
}

// describe names cfg in the system's terms (Definition.DescribeConfig),
// as model.Config.String when the Definition cannot.
func (e *explorer) describe(cfg model.Config) string {
	if s, err := e.set.def.DescribeConfig(cfg); err == nil {
		return s
	}
	return cfg.String()
}

// sys returns the factory of the system under cfg (the Definition's
// Configure).
func (e *explorer) sys(cfg model.Config) (model.Factory, error) { return e.set.def.Factory(cfg) }
