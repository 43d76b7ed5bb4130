package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/faultline/faultline/internal/ident"
)

// Definition describes a system under test in its own terms: the one place
// the paths that need more than a Factory (replay, fuzzing, coverage, a
// command line, the run record) learn its name, its workloads, how its own
// part of a schedule's config builds it, and what to report about it. The
// core never reads a system's config itself; it hands the config's system
// part (Config.System, a JSON object in canonical form) to Configure and
// Describe.
//
// A Definition is plain data and functions; build one per system and share
// it. Only Name, Fixtures and Configure are required.
type Definition struct {
	// Name names the system in reports and errors ("billing").
	Name string
	// Fixtures are the system's workloads; the first is the default (a
	// config naming no fixture runs it). Each needs a distinct name.
	Fixtures []Fixture
	// FixtureNamed returns a fixture outside Fixtures by name, for
	// workloads that form a family (a fleet of any size, "fleet-N"); its
	// error names the valid names. nil: Fixtures are all there is. Every
	// door resolves a fixture name through Fixture, so each takes these.
	FixtureNamed func(name string) (Fixture, error)
	// Configure returns the factory of the system under its config's
	// system part, called once per run (a factory may hold state its
	// instances share within a run). An error names what does not apply
	// to the system ("control \"bind_identity\" is not a control of
	// billing (valid: ...)").
	Configure func(system json.RawMessage) (Factory, error)
	// Describe names a config's system part as people read it ("profile
	// typed", "controls none", "retries on"), for records and reports; nil
	// shows the system part as JSON. An error is Configure's.
	Describe func(system json.RawMessage) (string, error)
	// Builtin and Invariants are the built-in invariants that apply and
	// the system's own, as in Options (Options returns them).
	Builtin    []string
	Invariants []UserInvariant
	// Controls are the names of the system's own defences, for reports;
	// nil when it declares none.
	Controls []string
	// Defences returns the controls, among Controls, that defend against
	// the fault kind (a catalogue kind or a world event), for the run
	// record's next step; nil names none. Names outside Controls are
	// dropped.
	Defences func(kind string) []string
	// Clock is the clock of a run of production code (a System that
	// implements Observed), in logical milliseconds; Options sets it as
	// Options.Clock. A definition with a Clock is production code: every
	// door runs each of its runs in its own testing/synctest bubble, and
	// properties.BubbleClock is the bubble's clock. nil: the model path,
	// where every crossing advances the clock by its logical cost.
	Clock func() Millis
	// Configs are the system's named configurations, the ones an audit
	// runs every fault kind under (in this order); nil means one, the
	// default ({}), named "default".
	Configs []NamedConfig
	// NotApplicable are the boundaries the system does not have (no
	// checkpoint store: "checkpoint_store"); coverage reports their
	// keys "not applicable", never unvisited. A visit is never hidden.
	NotApplicable []Boundary
	// NotApplicableKeys are coverage key patterns the system does not
	// have (domain/boundary/phase/correlation/oracle, "*" for any value),
	// each with the reason reports print beside its keys. A pattern that
	// matches no key of the universe, or has no reason, is bad input.
	NotApplicableKeys map[string]string
	// Enacts are the fault kinds the system's path can enact: for
	// production code, the Kinds() of the adapters it wraps; nil: every
	// kind (the model path enacts them all). worker_restart and
	// worker_crash, which the harness enacts on every path, are always in.
	// Every door draws, walks and audits only these kinds (a fault of
	// another would be reached and never fire), refuses an option naming
	// another (exit 2), and coverage leaves the other kinds' keys out of
	// the system's universe, saying why.
	Enacts []string
	// ReplayCommand is the command that replays one of the system's schedule
	// files, with one %s for the file's path ("go run ./cmd/billing
	// replay %s"); "" lets each door print its own (a go test line for a
	// test, the program's replay command for a command line).
	ReplayCommand string
	// Arm returns the system part of a config with exactly the named
	// controls on (names of Controls) and the seeded defect mutant ("" for
	// none): the sides of a counterfactual pair (package assay). nil: the
	// system's controls cannot be varied one by one.
	Arm func(controls []string, mutant string) (json.RawMessage, error)
	// Armed is Arm's inverse: the controls (in Controls order) and the
	// seeded defect a config's system part selects. Needed with Arm.
	Armed func(system json.RawMessage) (controls []string, mutant string, err error)
	// Defect returns the seeded defect (a mutant Arm accepts) that lacks
	// the behaviour defending against a fault kind, "" for none; the off
	// side of the kind's counterfactual pair runs it. nil names none.
	Defect func(kind string) string
}

// Define returns the definition of a system with one fixture and no
// config of its own: Configure accepts only the empty system part ({})
// and returns factory. Given invariants, it checks exactly those (Builtin
// is empty: name built-in ones there to add them); given none, every
// built-in invariant applies. Set other fields on the result as needed.
func Define(name string, fixture Fixture, factory Factory, invariants ...UserInvariant) *Definition {
	d := &Definition{Name: name, Fixtures: []Fixture{fixture},
		Configure: func(system json.RawMessage) (Factory, error) {
			if s := strings.TrimSpace(string(system)); s != "" && s != "{}" && s != "null" {
				return nil, fmt.Errorf("system %s takes no config of its own (got %s)", name, s)
			}
			return factory, nil
		}}
	if len(invariants) > 0 {
		d.Builtin, d.Invariants = []string{}, invariants
	}
	return d
}

// NamedConfig is one named configuration of a system: a config's system
// part, with whether the system is expected to hold under it.
type NamedConfig struct {
	// Name names the configuration in reports ("typed"), with the rule of
	// an invariant's name (lower-case letters, digits, underscores).
	Name string
	// System is the config's system part, a JSON object Configure
	// accepts; nil is {}.
	System json.RawMessage
	// Defended marks a configuration under which every invariant should
	// hold under every single fault: an audit fails (exit 1) when one of
	// its runs violates one. An undefended one (a baseline, a planted bug)
	// only reports what broke.
	Defended bool
}

// Validate reports a definition that lacks a name, a fixture or
// Configure, whose name breaks the rule of a name in a coverage file (1
// to 64 lower-case ASCII letters, digits and underscores, starting with a
// letter, the rule coverage.CheckInvariantName states), or that holds two
// fixtures of one name, a nameless one or one without tasks, or that
// names an unknown kind in Enacts.
func (d *Definition) Validate() error {
	if d == nil {
		return errors.New("system definition: nil")
	}
	if err := ident.Check(d.Name); err != nil {
		return fmt.Errorf("system definition: name %s: %w (a name is 1 to %d lower-case letters, digits and underscores, starting with a letter)", ident.Quote(d.Name), err, ident.Max)
	}
	if d.Configure == nil {
		return fmt.Errorf("system definition %s: no Configure", d.Name)
	}
	if len(d.Fixtures) == 0 {
		return fmt.Errorf("system definition %s: no fixture", d.Name)
	}
	seen := map[string]bool{}
	for i, f := range d.Fixtures {
		if f.Name == "" {
			return fmt.Errorf("system definition %s: fixture %d has no name", d.Name, i)
		}
		if seen[f.Name] {
			return fmt.Errorf("system definition %s: fixture %q listed twice", d.Name, f.Name)
		}
		seen[f.Name] = true
		if len(f.Tasks) == 0 {
			return fmt.Errorf("system definition %s: fixture %q has no tasks (Fixture.Tasks is empty: a run needs at least one task)", d.Name, f.Name)
		}
		if err := checkTasks(f); err != nil {
			return fmt.Errorf("system definition %s: fixture %q: %w", d.Name, f.Name, err)
		}
		if err := checkMaxPolicyAge(&f); err != nil {
			return fmt.Errorf("system definition %s: fixture %q: %w", d.Name, f.Name, err)
		}
	}
	for _, name := range d.Builtin {
		if invIndex(name) < 0 {
			return fmt.Errorf("system definition %s: Builtin: unknown built-in invariant %q (valid: %s)", d.Name, name, builtinNames())
		}
	}
	for _, kind := range d.Enacts {
		if _, err := lookupKind(kind); err != nil {
			return fmt.Errorf("system definition %s: Enacts: %w", d.Name, err)
		}
	}
	return nil
}

// checkTasks refuses a fixture whose tasks repeat an ID: a fixture's
// mistake, which a run would report as the system's. (A task's subject
// may live in production code's own store, not in Subjects.)
func checkTasks(f Fixture) error {
	ids := map[string]bool{}
	for _, t := range f.Tasks {
		if ids[t.ID] {
			return fmt.Errorf("task ID %q listed twice", t.ID)
		}
		ids[t.ID] = true
	}
	return nil
}

// fixtureNames lists the names of the system's fixtures, the default
// first.
func (d *Definition) fixtureNames() []string {
	out := make([]string, len(d.Fixtures))
	for i, f := range d.Fixtures {
		out[i] = f.Name
	}
	return out
}

// Fixture returns the fixture named name ("" is the default, the first),
// among Fixtures, else FixtureNamed's, or an error naming it and the valid
// names.
func (d *Definition) Fixture(name string) (Fixture, error) {
	if name == "" && len(d.Fixtures) > 0 {
		return d.Fixtures[0], nil
	}
	for _, f := range d.Fixtures {
		if f.Name == name {
			return f, nil
		}
	}
	if d.FixtureNamed != nil && name != "" {
		return d.FixtureNamed(name)
	}
	return Fixture{}, fmt.Errorf("unknown fixture %q (valid: %s)", name, strings.Join(d.fixtureNames(), ", "))
}

// Factory returns the factory of the system under cfg's system part
// (Configure).
func (d *Definition) Factory(cfg Config) (Factory, error) {
	if d.Configure == nil {
		return nil, fmt.Errorf("system %s: no Configure", d.Name)
	}
	f, err := d.Configure(cfg.system())
	if err == nil && f == nil {
		return nil, fmt.Errorf("system %s: Configure returned a nil Factory and no error", d.Name)
	}
	return f, err
}

// describeSystem names a config's system part in the system's terms
// (Describe), or as JSON when the system has no Describe.
func (d *Definition) describeSystem(system json.RawMessage) (string, error) {
	if len(system) == 0 {
		system = json.RawMessage("{}")
	}
	if d == nil || d.Describe == nil {
		return "system " + string(system), nil
	}
	return d.Describe(system)
}

// DescribeConfig names cfg as people read it: the system part in the
// system's terms, then the harness part's overrides ("profile typed,
// retry_budget 1, join best_effort").
func (d *Definition) DescribeConfig(cfg Config) (string, error) {
	s, err := d.describeSystem(cfg.System)
	if err != nil {
		return "", err
	}
	if h := cfg.harnessString(); h != "" {
		s += ", " + h
	}
	return s, nil
}

// Options returns base with the definition's invariants in scope (when
// base selects none of its own) and the definition set as the system its
// run records describe (Options.System).
func (d *Definition) Options(base Options) Options {
	if base.Builtin == nil && d.Builtin != nil {
		base.Builtin = append([]string{}, d.Builtin...)
	}
	if base.Invariants == nil && d.Invariants != nil {
		base.Invariants = append([]UserInvariant{}, d.Invariants...)
	}
	if base.Clock == nil {
		base.Clock = d.Clock
	}
	base.System = d
	return base
}

// Run runs the system on the fixture s's config names under s, with
// d.Options(opts): the whole path from a schedule to a result for one
// system. An unknown fixture, a config that does not apply to the system
// and a harness error are errors.
func (d *Definition) Run(s *Schedule, opts Options) (*Result, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	f, err := d.Fixture(s.Config.Fixture)
	if err != nil {
		return nil, err
	}
	factory, err := d.Factory(s.Config)
	if err != nil {
		return nil, err
	}
	return NewHarness(f, d.Options(opts)).Run(factory, s)
}

// Replay runs one schedule as a replay does: the system configured from
// s's own config on the fixture it names, with d.Options, and every
// violation the fault-free run of the same workload already shows
// attributed to the workload (Harness.attribute), on a fresh instance. An
// invalid Definition (Validate), a config that does not apply ("schedule:
// ..."), an unknown fixture ("schedule: config: ...") and a harness error
// are errors.
func (d *Definition) Replay(s *Schedule) (*Result, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	factory, err := d.Factory(s.Config)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	fixture, err := d.Fixture(s.Config.Fixture)
	if err != nil {
		return nil, fmt.Errorf("schedule: config: %w", err)
	}
	h := NewHarness(fixture, d.Options(Options{}))
	res, err := h.Run(factory, s)
	if err != nil {
		return nil, err
	}
	clean, err := d.Factory(s.Config)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	if err := h.attribute(res, clean); err != nil {
		return nil, err
	}
	return res, nil
}

// defences returns the controls of d that defend against kind.
func (d *Definition) defences(kind string) []string {
	if d == nil || d.Defences == nil {
		return nil
	}
	var out []string
	for _, c := range d.Defences(kind) {
		for _, have := range d.Controls {
			if c == have {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
