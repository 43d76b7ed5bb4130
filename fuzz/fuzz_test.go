package fuzz

// The fuzz targets. Each takes one []byte argument and keeps its decoding
// in the package's non-test files, so that a fuzz farm that builds only
// this file (ClusterFuzzLite, OSS-Fuzz) can build every target.
//
// The targets run against the typed profile by default, where they must
// not fail. These environment variables run them against something else:
//
//	FAULTLINE_PROFILE   a profile: baseline, typed, fail_closed or typed_fleet
//	FAULTLINE_CONTROLS  a comma-separated control list ("" is no control)
//	FAULTLINE_MUTANT    a mutant of the reference system, by name
//	                    (copperfin.Mutants; faultline explore --list-mutants)
//	FAULTLINE_FIXTURE   the workload: copperfin (default) or copperfin-batch
//	FAULTLINE_SCOPE     where faults are placed: designed (default),
//	                    ordinals or anywhere
//
// Under a setting other than the default, corpus schedules that already
// violate an invariant there are left out of the seeds (they are known
// counterexamples), so fuzzing explores from the compositions that hold.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// fromEnv is decoderFromEnv, read once per process: a libFuzzer build calls
// a target function once per input.
var fromEnv = sync.OnceValue(func() envDecoder {
	d, chosen, err := decoderFromEnv()
	return envDecoder{d, chosen, err}
})

type envDecoder struct {
	d      *Decoder
	chosen bool
	err    error
}

// decoderFromEnv builds the decoder the environment selects, and reports
// whether anything other than the default was selected. Every bad value is
// an error naming the variable.
func decoderFromEnv() (*Decoder, bool, error) {
	opts := referenceOptions()
	profile, hasProfile := os.LookupEnv("FAULTLINE_PROFILE")
	controls, hasControls := os.LookupEnv("FAULTLINE_CONTROLS")
	if hasProfile && hasControls {
		return nil, false, errors.New("set FAULTLINE_PROFILE or FAULTLINE_CONTROLS, not both")
	}
	if hasProfile {
		if _, err := copperfin.ProfileControls(copperfin.Profile(profile)); err != nil {
			return nil, false, fmt.Errorf("FAULTLINE_PROFILE: %w", err)
		}
		opts = append(opts, withSettings(func(s *copperfin.Settings) {
			*s = copperfin.Settings{Profile: copperfin.Profile(profile), Mutant: s.Mutant}
		}))
	}
	if hasControls {
		cs, err := copperfin.ParseControlList(controls)
		if err != nil {
			return nil, false, fmt.Errorf("FAULTLINE_CONTROLS: %w", err)
		}
		opts = append(opts, withSettings(func(s *copperfin.Settings) {
			*s = copperfin.Settings{Controls: cs, HasControls: true, Mutant: s.Mutant}
		}))
	}
	mutant, hasMutant, err := namedEnv("FAULTLINE_MUTANT", "name a mutant, or unset it for none", func(v string) error {
		_, err := copperfin.ParseMutant(v)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if hasMutant {
		opts = append(opts, withSettings(func(s *copperfin.Settings) { s.Mutant = mutant }))
	}
	fixture, hasFixture, err := namedEnv("FAULTLINE_FIXTURE", "name a fixture, or unset it for copperfin", func(v string) error {
		_, err := copperfin.FixtureNamed(v)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if hasFixture {
		opts = append(opts, WithFixture(fixture))
	}
	scope, hasScope := os.LookupEnv("FAULTLINE_SCOPE")
	if hasScope {
		if _, err := parseScope(scope); err != nil {
			return nil, false, fmt.Errorf("FAULTLINE_SCOPE: %w", err)
		}
		opts = append(opts, WithScope(scope))
	}
	d, err := NewDecoder(referenceDefinition(), opts...)
	if err != nil {
		return nil, false, err
	}
	chosen := hasControls || hasMutant || hasFixture || hasScope || hasProfile && copperfin.Profile(profile) != copperfin.ProfileTyped
	return d, chosen, nil
}

// referenceDefinition is the targets' system, the reference system,
// wired in as a user wires theirs: its Definition, whose schedules
// faultline's own command line replays.
func referenceDefinition() *model.Definition {
	def := copperfin.Definition()
	def.ReplayCommand = "go run ./cmd/faultline replay %s"
	return def
}

// corpusDir is the corpus the targets start from, relative to this
// package's directory, where go test runs them: the reference system's
// files, in the reference wing.
const corpusDir = "../reference/corpus"

// referenceOptions are the targets' options: the reference system's
// typed profile, at the catalogue's sites (the corpus's encodings).
func referenceOptions() []Option {
	return []Option{WithConfig(copperfin.ConfigOfProfile(copperfin.ProfileTyped)), WithCatalogueSites()}
}

// withSettings changes the reference system's settings in the decoder's
// config (the typed profile when none is set yet).
func withSettings(f func(*copperfin.Settings)) Option {
	return optionFunc(func(o *options) error {
		st := copperfin.Settings{Profile: copperfin.ProfileTyped}
		if len(o.config.System) > 0 {
			if s, err := copperfin.SettingsOf(o.config); err == nil {
				st = s
			}
		}
		f(&st)
		o.config.System = st.JSON()
		return nil
	})
}

// namedEnv reads a variable that names one thing: set and empty is an
// error saying what to do instead (hint), and a name validate rejects is an
// error naming the variable.
func namedEnv(name, hint string, validate func(string) error) (string, bool, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", false, nil
	}
	if v == "" {
		return "", false, fmt.Errorf("%s is empty: %s", name, hint)
	}
	if err := validate(v); err != nil {
		return "", false, fmt.Errorf("%s: %w", name, err)
	}
	return v, true, nil
}

// compositions counts the compositions this process checked, seeds
// included; a failure reports it (scripts/fuzz-measure.sh reads it as the
// execs to the first failure of a single fuzzing worker).
var compositions atomic.Int64

// corpusSeeds reads the seeds from the corpus directory. A missing
// directory (a farm's coverage build runs the test binary away from the
// source tree) is logged and gives no seeds; any other problem fails.
func corpusSeeds(f *testing.F, d *Decoder, skipViolating bool) *seeds {
	s, err := loadSeeds(d, corpusDir, skipViolating)
	if errors.Is(err, fs.ErrNotExist) {
		f.Logf("no corpus directory at %s: the targets run without its seeds", corpusDir)
		return &seeds{}
	}
	if err != nil {
		f.Fatal(err)
		return &seeds{}
	}
	return s
}

// FuzzComposition explores ordered fault compositions: any input decodes
// (Decoder.Decode) into up to four faults of the catalogue and world
// events, each at a site of the scope, under the selected config and
// fixture; the run of the system under test must keep every invariant
// (the eight of model.Invariants). Its body is the one a user's own
// target runs (Target.Check, fuzz.For): a failure prints the violated
// invariants, the schedule in canonical form and the faultline replay
// command, then the schedule shrunk. Seeds: every corpus schedule of the
// scope, encoded.
func FuzzComposition(f *testing.F) {
	env := fromEnv()
	if env.err != nil {
		f.Fatal(env.err)
		return
	}
	d := env.d
	if !underLibFuzzer {
		s := corpusSeeds(f, d, env.chosen)
		if len(s.notes) > 0 {
			f.Logf("corpus seeds left out:\n%s", strings.Join(s.notes, "\n"))
		}
		for _, b := range s.composition {
			f.Add(b)
		}
	}
	check := d.target()
	f.Fuzz(func(t *testing.T, data []byte) {
		n := compositions.Add(1)
		if err := check.Check(data); err != nil {
			t.Fatalf("%v(this process had checked %d compositions)", err, n)
		}
	})
}

// FuzzScheduleDecode explores the strict schedule-file decoder: on any
// input model.ParseSchedule must not panic, and whatever it accepts must
// re-encode with model.Format into a form that decodes to an equal value
// (go-cmp) and encodes to the same bytes again. Seeds: the raw bytes of
// every corpus file and the canonical form of every corpus schedule, and
// two schedules with a fault aimed at a tool (one with an empty tool).
func FuzzScheduleDecode(f *testing.F) {
	if !underLibFuzzer {
		env := fromEnv()
		if env.err != nil {
			f.Fatal(env.err)
			return
		}
		s := corpusSeeds(f, env.d, false)
		for _, b := range s.files {
			f.Add(b)
		}
		// a fault aimed at a tool, and the empty tool the decoder refuses
		f.Add([]byte(`{"version":1,"seed":"aim","config":{"controls":[]},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout","tool":"payments.refund"}]}`))
		f.Add([]byte(`{"version":1,"seed":"aim","config":{"controls":[]},"faults":[{"event":"tool.commit","ordinal":1,"kind":"tool_timeout","tool":""}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := CheckRoundTrip(data); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReplayDeterminism explores replay determinism: any input that is a
// schedule file (with its own config), or otherwise the composition it
// decodes to, replays twice, on a reused and on a fresh harness, to equal
// normalised timelines, fault reports, invariant results, terms and
// verdicts. Seeds: the corpus files and the composition seeds.
func FuzzReplayDeterminism(f *testing.F) {
	env := fromEnv()
	if env.err != nil {
		f.Fatal(env.err)
		return
	}
	d := env.d
	if !underLibFuzzer {
		s := corpusSeeds(f, d, false)
		for _, b := range append(s.files, s.composition...) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := d.CheckDeterminism(d.Schedule(data)); err != nil {
			t.Fatal(err)
		}
	})
}
