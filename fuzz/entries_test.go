package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
)

// The entries of the package (For, NewTarget, NewDecoder) share one path
// (prepare, then start): these tests hold each to the same refusals and
// the same verdicts. For's body and Target.Fuzz fail their t, so they run
// in a subprocess of the test binary (TestEntryBodies), whose output is
// read back.

// entryCase is a Definition and options given to every entry, with the
// inputs its bodies run.
type entryCase struct {
	name string
	def  func() *model.Definition
	opts []Option
	// want is the error every entry refuses the case with ("" for the
	// cases of TestEntriesGiveTheSameVerdicts)
	want string
}

// idleAgent crosses no event a kind is placed at.
type idleAgent struct{}

func (idleAgent) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimHold, Reason: "did nothing"}, nil
}

var archiverFixed = model.Config{System: json.RawMessage(`{}`)}

// refusedCases are Definitions every entry refuses, on the model path
// and as production code (a Clock), with the error each entry returns.
var refusedCases = []entryCase{
	{name: "nil", def: func() *model.Definition { return nil }, want: "fuzz: system definition: nil"},
	{name: "bad_name", def: func() *model.Definition { d := archiver.Definition(); d.Name = "stripe-refunds"; return d },
		want: `fuzz: system definition: name "stripe-refunds": ` + "*"},
	{name: "no_configure", def: func() *model.Definition { return &model.Definition{Name: "x"} }, want: "fuzz: system definition x: no Configure"},
	{name: "no_invariant", def: func() *model.Definition {
		d := archiver.Definition()
		d.Builtin, d.Invariants = []string{}, nil
		return d
	}, opts: []Option{WithConfig(archiverFixed)},
		want: "fuzz: system archiver: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does"},
	{name: "config", def: inventory.Definition, opts: []Option{WithConfig(model.Config{System: json.RawMessage(`{"mutant":"key_per_attempt"}`)})},
		want: `fuzz: config of inventory: json: unknown field "mutant"`},
	{name: "crosses_nothing", def: func() *model.Definition {
		d := archiver.Definition()
		d.Name = "idle"
		d.Configure = func(json.RawMessage) (model.Factory, error) { return func() model.System { return idleAgent{} }, nil }
		return d
	}, want: "fuzz: the clean run of idle crosses no event a fault kind is placed at in scope designed (the events it crossed: worker.start)"},
	{name: "production_bad_name", def: func() *model.Definition { d := sleepyDefinition(); d.Name = "Sleepy"; return d },
		want: `fuzz: system definition: name "Sleepy": ` + "*"},
	{name: "production_no_invariant", def: func() *model.Definition { d := sleepyDefinition(); d.Builtin = []string{}; return d },
		want: "fuzz: system sleepy: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does"},
	{name: "production_config", def: sleepyDefinition, opts: []Option{WithConfig(model.Config{System: json.RawMessage(`{"fresh":1}`)})},
		want: "fuzz: json: cannot unmarshal number into Go struct field .fresh of type bool"},
}

// verdictCases are a correct and a buggy system of a domain other than
// refunds on each path: the archiver (its bug archives twice after a
// timeout) and the production system of production_test.go (its bug
// retries under a fresh key).
var verdictCases = []entryCase{
	{name: "archiver_fixed", def: archiver.Definition, opts: []Option{WithConfig(archiverFixed)}},
	{name: "archiver_planted", def: archiver.Definition, opts: []Option{WithConfig(model.Config{System: archiver.Planted})}},
	{name: "production_fixed", def: sleepyDefinition, opts: []Option{WithScope("ordinals")}},
	{name: "production_planted", def: sleepyDefinition, opts: []Option{WithConfig(model.Config{System: json.RawMessage(`{"fresh":true}`)}), WithScope("ordinals")}},
}

// entryInputs are the inputs each body runs: the refused cases' few, and
// for the verdicts the empty input and every one-byte input up to 15
// (each a single fault, decoded modulo the sites).
func entryInputs(c entryCase) [][]byte {
	if c.want != "" {
		return [][]byte{nil, {0}, {1}, {5, 6}}
	}
	in := [][]byte{nil}
	for i := range 16 {
		in = append(in, []byte{byte(i)})
	}
	return in
}

// bodies are the entries whose bodies fail a *testing.T.
var bodies = map[string]func(def *model.Definition, opts []Option) func(*testing.T, []byte){
	"For": func(def *model.Definition, opts []Option) func(*testing.T, []byte) { return For(def, opts...) },
	"NewTarget": func(def *model.Definition, opts []Option) func(*testing.T, []byte) {
		tgt, err := NewTarget(def, opts...)
		if err != nil {
			return func(t *testing.T, _ []byte) { t.Fatal(err) }
		}
		return tgt.Fuzz
	},
}

const entryBodiesEnv = "FAULTLINE_FUZZ_ENTRY_BODIES"

// TestEntryBodies runs every case through each body, one subtest an
// input; only as the subprocess of runEntryBodies.
func TestEntryBodies(t *testing.T) {
	if os.Getenv(entryBodiesEnv) == "" {
		t.Skip("the subprocess of TestEntriesRefuseTheSameDefinitions and TestEntriesGiveTheSameVerdicts")
	}
	for _, c := range append(append([]entryCase{}, refusedCases...), verdictCases...) {
		for _, entry := range []string{"For", "NewTarget"} {
			t.Run(c.name+"/"+entry, func(t *testing.T) {
				body := bodies[entry](c.def(), c.opts)
				for _, in := range entryInputs(c) {
					t.Run(fmt.Sprintf("x%x", in), func(t *testing.T) { body(t, in) })
				}
			})
		}
	}
}

// bodyResult is what one subtest of TestEntryBodies printed and whether
// it failed.
type bodyResult struct {
	failed bool
	log    string
}

// runEntryBodies runs TestEntryBodies in a subprocess, once per test
// binary, and returns its subtests' results by name.
func runEntryBodies(t *testing.T) map[string]bodyResult {
	t.Helper()
	entryBodiesOnce.Do(func() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEntryBodies$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), entryBodiesEnv+"=1")
		out, _ := cmd.CombinedOutput() // it fails: the refused cases fail every input
		entryBodiesOut = parseBodies(string(out))
	})
	if len(entryBodiesOut) == 0 {
		t.Fatal("the subprocess ran no entry body")
	}
	return entryBodiesOut
}

var (
	entryBodiesOnce sync.Once
	entryBodiesOut  map[string]bodyResult
)

// parseBodies reads go test -v output: a subtest's log is the lines after
// its "=== RUN" line up to the next such line or result line, with the
// testing package's indentation removed (the "file:line: " prefix of a
// message's first line kept).
func parseBodies(out string) map[string]bodyResult {
	res := map[string]bodyResult{}
	var name string
	var log []string
	flush := func() {
		if name != "" {
			r := res[name]
			r.log = strings.TrimRight(strings.Join(log, "\n"), "\n")
			res[name] = r
		}
		name, log = "", nil
	}
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(line, "=== RUN   "):
			flush()
			name = strings.TrimPrefix(line, "=== RUN   ")
		case strings.HasPrefix(trimmed, "--- FAIL: "), strings.HasPrefix(trimmed, "--- PASS: "), strings.HasPrefix(trimmed, "--- SKIP: "):
			flush()
			n, _, _ := strings.Cut(trimmed[len("--- FAIL: "):], " (")
			r := res[n]
			r.failed = strings.HasPrefix(trimmed, "--- FAIL: ")
			res[n] = r
		case name != "":
			switch {
			case strings.HasPrefix(line, "        "):
				log = append(log, line[8:])
			case strings.HasPrefix(line, "    "):
				log = append(log, line[4:])
			default:
				log = append(log, line)
			}
		}
	}
	flush()
	return res
}

// testSite is the test line a target's failure begins with.
var testSite = regexp.MustCompile(`^entries_test\.go:\d+: `)

// failedWith reports whether r is a failure whose message is msg, or,
// for a msg ending in "*", starts with it.
func failedWith(r bodyResult, msg string) bool {
	if !r.failed {
		return false
	}
	_, logged, ok := strings.Cut(r.log, ": ") // the file:line prefix
	if !ok {
		return false
	}
	// a target's failure names the test line that built it
	logged = testSite.ReplaceAllString(logged, "")
	if p, prefix := strings.CutSuffix(msg, "*"); prefix {
		return strings.HasPrefix(logged, p)
	}
	return logged == strings.TrimSuffix(msg, "\n")
}

// TestEntriesRefuseTheSameDefinitions: a nil Definition, one that fails
// model.Definition.Check, one whose runs check no invariant, one whose
// config does not apply and one that crosses no site are refused by NewDecoder, NewTarget
// and For's body (and Target.Fuzz, for production code at its first
// input) with the same error; NewDecoder refuses production code that
// Validate accepts, whose runs need a test's bubbles.
func TestEntriesRefuseTheSameDefinitions(t *testing.T) {
	results := runEntryBodies(t)
	for _, c := range refusedCases {
		want, prod := c.want, strings.HasPrefix(c.name, "production_")
		// model.Definition.Check's refusals come before any run, production
		// code or not
		if c.name == "production_bad_name" || c.name == "production_no_invariant" {
			prod = false
		}
		same := func(entry string, err error) {
			t.Helper()
			if err == nil || !failedWith(bodyResult{failed: true, log: "x: " + err.Error()}, want) {
				t.Errorf("%s, %s: %v, want %q", c.name, entry, err, want)
			}
		}
		_, err := NewDecoder(c.def(), c.opts...)
		if prod {
			if err == nil || !strings.HasSuffix(err.Error(), "is production code (its Definition has a Clock): each of its runs needs a testing/synctest bubble of a test, so give it to For or NewTarget") {
				t.Errorf("%s, NewDecoder: %v", c.name, err)
			}
		} else {
			same("NewDecoder", err)
		}
		tgt, err := NewTarget(c.def(), c.opts...)
		if prod {
			// production code: the clean run, and its refusal, come with
			// the first input, and again with every input and Done
			if err != nil {
				t.Fatalf("%s, NewTarget: %v", c.name, err)
			}
			for _, in := range entryInputs(c) {
				same(fmt.Sprintf("the target's input %x", in), tgt.checkProduction(t, in))
			}
			same("Done", tgt.Done())
		} else {
			same("NewTarget", err)
			if tgt != nil {
				t.Errorf("%s: NewTarget returned a target with its error", c.name)
			}
		}
		for _, entry := range []string{"For", "NewTarget"} {
			for _, in := range entryInputs(c) {
				name := fmt.Sprintf("TestEntryBodies/%s/%s/x%x", c.name, entry, in)
				if r, ok := results[name]; !ok || !failedWith(r, want) {
					t.Errorf("%s: %+v, want a failure with %q", name, r, want)
				}
			}
		}
	}
}

// TestEntriesGiveTheSameVerdicts: on a correct and a buggy system of each
// path, every input gets the same verdict from every entry: nil, or the
// same *Failure (the invariant, the shrunk schedule, the replay line);
// the buggy systems fail some inputs, the correct ones none, and the
// campaigns of the correct ones reached and fired a fault (Done).
func TestEntriesGiveTheSameVerdicts(t *testing.T) {
	results := runEntryBodies(t)
	for _, c := range verdictCases {
		prod, planted := strings.HasPrefix(c.name, "production_"), strings.HasSuffix(c.name, "_planted")
		tgt, err := NewTarget(c.def(), c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var d *Decoder
		if !prod {
			if d, err = NewDecoder(c.def(), c.opts...); err != nil {
				t.Fatal(err)
			}
		}
		failures := 0
		for _, in := range entryInputs(c) {
			var want error
			if prod {
				want = tgt.checkProduction(t, in)
			} else {
				want = d.Verify(d.Decode(in))
				if got := tgt.Check(in); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s %x: NewTarget's %v, NewDecoder's %v", c.name, in, got, want)
				}
			}
			var f *Failure
			if want != nil && !errors.As(want, &f) {
				t.Fatalf("%s %x: %v", c.name, in, want)
			}
			if f != nil {
				failures++
				if inv := map[bool]string{false: archiver.InvArchivedOnce, true: model.InvEffectAtMostOnce}[prod]; f.Invariant != inv {
					t.Errorf("%s %x: %s violated, want %s", c.name, in, f.Invariant, inv)
				}
			}
			for _, entry := range []string{"For", "NewTarget"} {
				name := fmt.Sprintf("TestEntryBodies/%s/%s/x%x", c.name, entry, in)
				r, ok := results[name]
				if !ok || want == nil && r.failed || want != nil && !failedWith(r, want.Error()) {
					t.Errorf("%s: %+v, want %v", name, r, want)
				}
			}
		}
		if planted != (failures > 0) {
			t.Errorf("%s: %d inputs of %d failed", c.name, failures, len(entryInputs(c)))
		}
		if err := tgt.Done(); !planted && err != nil {
			t.Errorf("%s: Done: %v", c.name, err)
		}
	}
}
