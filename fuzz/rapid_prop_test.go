package fuzz_test

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// recTB is a rapid.TB that records a failure instead of failing the test.
type recTB struct {
	*testing.T
	failed bool
	msgs   []string
}

var errStop = errors.New("stop")

func (r *recTB) Errorf(format string, a ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, a...))
}
func (r *recTB) Error(a ...any)                 { r.Errorf("%s", fmt.Sprint(a...)) }
func (r *recTB) Fatalf(format string, a ...any) { r.Errorf(format, a...); r.FailNow() }
func (r *recTB) Fatal(a ...any)                 { r.Fatalf("%s", fmt.Sprint(a...)) }
func (r *recTB) Fail()                          { r.failed = true }
func (r *recTB) Failed() bool                   { return r.failed }
func (r *recTB) FailNow()                       { r.failed = true; panic(errStop) }

// check runs prop under rapid.Check with a recorder, in a temporary
// directory (rapid writes its fail file under testdata/).
func check(t *testing.T, prop func(*rapid.T)) *recTB {
	t.Chdir(t.TempDir())
	r := &recTB{T: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != errStop {
				panic(p)
			}
		}()
		rapid.Check(r, prop)
	}()
	return r
}

// TestRapidGeneratorDrawsUnderTheConfig: the generator the rapid target
// draws from (properties.Generator) gives valid schedules of one to
// MaxFaults entries under the decoder's config, mutant and fixture
// included, with world events among the kinds drawn.
func TestRapidGeneratorDrawsUnderTheConfig(t *testing.T) {
	d := decoder(t, fuzz.WithMutant("key_per_attempt"), fuzz.WithFixture("copperfin-batch"), fuzz.WithMaxFaults(2))
	gen, err := d.RapidGenerator()
	if err != nil {
		t.Fatal(err)
	}
	want := func() model.Config {
		c := copperfin.Settings{Profile: copperfin.ProfileTyped, Mutant: "key_per_attempt"}.Config()
		c.Fixture = "copperfin-batch"
		return c
	}()
	world := map[string]bool{}
	for _, w := range model.WorldEvents() {
		world[w.Kind] = true
	}
	var drawn, worldDrawn atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "schedule")
		drawn.Add(1)
		if err := s.Validate(); err != nil {
			rt.Fatalf("invalid: %v", err)
		}
		if !reflect.DeepEqual(s.Config, want) || len(s.Faults) < 1 || len(s.Faults) > 2 {
			rt.Fatalf("config %+v, %d faults", s.Config, len(s.Faults))
		}
		for _, f := range s.Faults {
			if world[f.Kind] {
				worldDrawn.Add(1)
			}
		}
	})
	if drawn.Load() < 100 || worldDrawn.Load() == 0 {
		t.Errorf("%d schedules drawn, %d world events among their entries", drawn.Load(), worldDrawn.Load())
	}
}

// TestRapidPropertyFailsOnlyOnAViolation: the rapid property holds for
// 100 checks under typed, and against a mutant that records an effect
// before it is made it fails at once, with the violated invariant and a
// replay command carrying the mutant, and the number of checks made.
func TestRapidPropertyFailsOnlyOnAViolation(t *testing.T) {
	var n atomic.Int64
	prop, err := decoder(t).RapidProperty(&n)
	if err != nil {
		t.Fatal(err)
	}
	if r := check(t, prop); r.failed || n.Load() != 100 {
		t.Fatalf("typed: failed %t after %d checks: %v", r.failed, n.Load(), r.msgs)
	}
	n.Store(0)
	prop, err = decoder(t, fuzz.WithMutant("checkpoint_before_effect")).RapidProperty(&n)
	if err != nil {
		t.Fatal(err)
	}
	r := check(t, prop)
	msg := strings.Join(r.msgs, "\n")
	for _, want := range []string{"no_invented_progress: first false after seq", `"mutant":"checkpoint_before_effect"`, "compositions)"} {
		if !r.failed || !strings.Contains(msg, want) {
			t.Errorf("mutant: failed %t, message lacks %q:\n%s", r.failed, want, msg)
			break
		}
	}
	if !regexp.MustCompile(`\(this process had checked [1-9][0-9]* compositions\)`).MatchString(msg) || n.Load() < 1 {
		t.Errorf("mutant: %d checks counted; message:\n%s", n.Load(), msg)
	}
}

// TestRapidPropertyUnderMakeFuzz: rapid.MakeFuzz runs the property on an
// input of zero bytes (each draw its smallest value: one fault at its
// kind's default placement), which holds under typed.
func TestRapidPropertyUnderMakeFuzz(t *testing.T) {
	var n atomic.Int64
	prop, err := decoder(t).RapidProperty(&n)
	if err != nil {
		t.Fatal(err)
	}
	rapid.MakeFuzz(prop)(t, make([]byte, 128))
	if n.Load() != 1 {
		t.Fatalf("%d checks, want 1", n.Load())
	}
}
