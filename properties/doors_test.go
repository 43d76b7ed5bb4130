package properties_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// door is one of the package's doors, run on def with the common scope:
// its error (a refusal), or its verdict: "held", the invariant it found
// broken, or "inconclusive" (no fault could be placed, reached or fired).
type door func(t *testing.T, def *model.Definition, scope []properties.Option) (verdict string, err error)

// noSite is the error of Generator and ExplorePair when no fault can be
// placed: the campaign's inconclusive verdict, as an error.
const noSite = "properties: no fault kind in scope occurs in this workload"

// harnessMsg ends Check's message for an error that is no verdict.
const harnessMsg = " (a harness or option error, not a verdict on the system)"

// checkInv reads the invariant of Check's counterexample message, found
// by the walk phase or the random one.
var checkInv = regexp.MustCompile(`^properties: counterexample (?:after \d+ checks|at schedule \d+ of the walk over the schedules of at most \d+ faults?) \(an invariant violated, [^)]*\): (\w+) violated`)

// checkWalkInv reads the invariant of Check's counterexample message
// under WithExhaustive.
var checkWalkInv = regexp.MustCompile(`^properties: counterexample at schedule \d+ of the exhaustive walk \(an invariant violated, exit 1\): (\w+) violated`)

// fixedConfig is the inventory agent's correct config: the on side of a
// pair.
var fixedConfig = model.Config{System: json.RawMessage(`{"variant":"fixed"}`)}

var doors = []struct {
	name string
	run  door
}{
	{"Check", func(t *testing.T, def *model.Definition, scope []properties.Option) (string, error) {
		tb := &recordingTB{name: "TestDoors"}
		properties.CheckTB(tb, nil, def, append(scope, properties.WithSeed(1), properties.WithChecks(100), properties.WithFailDir(t.TempDir()))...)
		return checkVerdict(tb, checkInv)
	}},
	{"Check exhaustive", func(t *testing.T, def *model.Definition, scope []properties.Option) (string, error) {
		tb := &recordingTB{name: "TestDoors"}
		properties.CheckTB(tb, nil, def, append(scope, properties.WithExhaustive(), properties.WithFailDir(t.TempDir()))...)
		if n := len(tb.logs); len(tb.errors) == 0 && (n == 0 || !strings.HasPrefix(tb.logs[n-1], "properties: no counterexample among ")) {
			t.Fatalf("the walk's verdict: %q", tb.logs)
		}
		return checkVerdict(tb, checkWalkInv)
	}},
	{"Explore", func(t *testing.T, def *model.Definition, scope []properties.Option) (string, error) {
		rep, err := properties.Explore(def, append(scope, properties.WithSeed(1), properties.WithChecks(100))...)
		if err != nil {
			return "", err
		}
		return reportVerdict(rep), nil
	}},
	{"Explore exhaustive", func(t *testing.T, def *model.Definition, scope []properties.Option) (string, error) {
		rep, err := properties.Explore(def, append(scope, properties.WithExhaustive())...)
		if err != nil {
			return "", err
		}
		return reportVerdict(rep), nil
	}},
	{"ExplorePair", func(t *testing.T, def *model.Definition, scope []properties.Option) (string, error) {
		// the Definition's own config (off) against the correct one (on):
		// a witness is a composition under which off breaks an invariant
		// on holds
		rep, err := properties.ExplorePair(def, fixedConfig, model.Config{}, 1, 30, append(scope, properties.WithMaxFaults(2))...)
		if err != nil && err.Error() == noSite {
			return "inconclusive", nil
		}
		if err != nil {
			return "", err
		}
		if rep.Witness == nil {
			return "held", nil
		}
		return rep.Witness.Invariant, nil
	}},
	{"Generator", func(t *testing.T, def *model.Definition, scope []properties.Option) (string, error) {
		gen, err := properties.Generator(def, scope...)
		if err != nil && err.Error() == noSite {
			return "inconclusive", nil
		}
		if err != nil {
			return "", err
		}
		for i := range 100 {
			res, err := def.Run(gen.Example(i), model.Options{RetryBudget: 3})
			if err != nil {
				t.Fatal(err)
			}
			// the invariant that broke first, as the other doors name it
			if re := (*model.RunError)(nil); errors.As(res.Err(), &re) && re.Code == 1 {
				return re.Invariant, nil
			}
		}
		return "held", nil
	}},
}

type errorString string

func (e errorString) Error() string { return string(e) }

// checkVerdict reads Check's verdict from what it reported to tb: its
// counterexample's invariant (read by cx), "inconclusive" (exit 3),
// "held", or its error.
func checkVerdict(tb *recordingTB, cx *regexp.Regexp) (string, error) {
	if len(tb.errors) == 0 {
		return "held", nil
	}
	msg := tb.errors[0]
	if m := cx.FindStringSubmatch(msg); m != nil {
		return m[1], nil
	}
	if strings.Contains(msg, "(exit 3: the campaign is inconclusive") {
		return "inconclusive", nil
	}
	return "", errorString(strings.TrimSuffix(msg, harnessMsg))
}

// reportVerdict is Explore's verdict.
func reportVerdict(rep *properties.Report) string {
	switch {
	case rep.Found:
		return rep.Counterexample.Invariant
	case rep.Inconclusive():
		return "inconclusive"
	}
	return "held"
}

// idle is the inventory agent's Definition with a system that crosses
// nothing a fault sits at.
func idle() *model.Definition {
	def := inventory.Definition()
	def.Configure = func(json.RawMessage) (model.Factory, error) { return func() model.System { return idleSystem{} }, nil }
	return def
}

// plantedByDefault is the inventory agent whose own config ({}) is the
// planted bug (a confirm retried under a fresh key after a lost reply);
// {"variant":"fixed"} is the correct agent.
func plantedByDefault() *model.Definition {
	def := inventory.Definition()
	conf := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		if s := strings.TrimSpace(string(system)); s == "" || s == "{}" {
			system = json.RawMessage(`{"variant":"planted"}`)
		}
		return conf(system)
	}
	return def
}

// TestDoorsAgree: every door of the package (Check and Explore, each
// also in its exhaustive mode, ExplorePair, Generator) refuses the same bad
// Definitions with the same error, on the path they share, and gives the
// same verdict on the inventory agent (a checkout, not a refund): the
// correct agent holds, the planted bug breaks confirmed_once, and an agent
// that crosses nothing a fault sits at is inconclusive, never a pass.
func TestDoorsAgree(t *testing.T) {
	scope := []properties.Option{properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1),
		properties.WithHarnessOptions(model.Options{RetryBudget: 3})}
	named := func(f func(*model.Definition)) *model.Definition {
		def := inventory.Definition()
		f(def)
		return def
	}
	bad := []struct {
		name string
		def  *model.Definition
		want string
	}{
		{"nil", nil, "properties: system definition: nil"},
		{"empty name", named(func(d *model.Definition) { d.Name = "" }), `properties: system definition: name "": empty`},
		{"bad name", named(func(d *model.Definition) { d.Name = "Check-Out" }), `properties: system definition: name "Check-Out": `},
		{"no fixture", named(func(d *model.Definition) { d.Fixtures = nil }), "properties: system definition inventory: no fixture"},
		{"no Configure", named(func(d *model.Definition) { d.Configure = nil }), "properties: system definition inventory: no Configure"},
		{"no invariant in scope", named(func(d *model.Definition) { d.Builtin, d.Invariants = []string{}, nil }), "properties: system inventory: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does"},
		{"config that does not apply", named(func(d *model.Definition) {
			d.Configure = func(json.RawMessage) (model.Factory, error) { return nil, errorString("no such variant") }
		}), "properties: building the system for system {}: no such variant"},
	}
	for _, b := range bad {
		if b.name == "config that does not apply" {
			b.def.Describe = nil
		}
		var first string
		for _, d := range doors {
			_, err := d.run(t, b.def, scope)
			if err == nil || !strings.HasPrefix(err.Error(), b.want) {
				t.Errorf("%s, %s: error %v, want %q", b.name, d.name, err, b.want)
				continue
			}
			if first == "" {
				first = err.Error()
			} else if err.Error() != first {
				t.Errorf("%s, %s: error %q, the first door's %q", b.name, d.name, err, first)
			}
		}
	}
	for _, c := range []struct {
		name, want string
		def        *model.Definition
	}{{"correct", "held", inventory.Definition()}, {"planted", inventory.InvConfirmedOnce, plantedByDefault()}, {"idle", "inconclusive", idle()}} {
		for _, d := range doors {
			got, err := d.run(t, c.def, scope)
			if err != nil || got != c.want {
				t.Errorf("%s, %s: %q (%v), want %q", c.name, d.name, got, err, c.want)
			}
		}
	}
}
