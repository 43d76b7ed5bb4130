package doors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/internal/ident"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// kind is the fault every door explores: after the archive committed, the
// reply is lost, so an agent that retries under a fresh key archives twice.
const kind = "timeout_after_commit"

// system is one Definition under test, by name (a subprocess rebuilds it).
type system struct {
	name string
	def  func() *model.Definition
	// want is the substring of the one implementation's error a door
	// refusing it returns, "" for a system every door runs
	want string
	// run marks a rule that a door of one run (Run, Replay, cli replay)
	// reports as its inconclusive verdict (exit 3) rather than refuses
	run bool
	// names marks a rule coverage.NewTracker applies: it reads only a
	// Definition's name, NotApplicable and ReplayCommand
	names bool
}

func with(f func(*model.Definition)) func() *model.Definition {
	return func() *model.Definition { d := archiver.Definition(); f(d); return d }
}

// nameRule is the words of a name the one rule (internal/ident) refuses,
// as model.Definition.Validate and coverage.NewTracker both say them.
func nameRule(name string) string {
	return fmt.Sprintf("name %s: %v", ident.Quote(name), ident.Check(name))
}

// noInvariant is the words of the rule of a run that checks no invariant,
// as Result.Err gives them.
func noInvariant() string {
	return strings.TrimPrefix((&model.Result{}).Err().Error(), "inconclusive: ")
}

func validateErr(def func() *model.Definition) string { return def().Validate().Error() }

var (
	noFixture   = with(func(d *model.Definition) { d.Fixtures = nil })
	noConfigure = with(func(d *model.Definition) { d.Configure = nil })
	noTasks     = with(func(d *model.Definition) { d.Fixtures = []model.Fixture{{Name: "archive"}} })
	badEnacts   = with(func(d *model.Definition) { d.Enacts = []string{"tool_timeout", "tool_timout"} })
)

var refused = []system{
	{name: "nil", def: func() *model.Definition { return nil }, want: "system definition: nil", names: true},
	{name: "empty_name", def: with(func(d *model.Definition) { d.Name = "" }), want: nameRule(""), names: true},
	{name: "bad_name", def: with(func(d *model.Definition) { d.Name = "Arch-Iver" }), want: nameRule("Arch-Iver"), names: true},
	{name: "no_fixture", def: noFixture, want: validateErr(noFixture)},
	{name: "no_configure", def: noConfigure, want: validateErr(noConfigure)},
	{name: "fixture_without_tasks", def: noTasks, want: validateErr(noTasks)},
	{name: "unknown_enacted_kind", def: badEnacts, want: validateErr(badEnacts)},
	{name: "no_invariant", def: with(func(d *model.Definition) { d.Builtin, d.Invariants = []string{}, nil }), want: noInvariant(), run: true},
	{name: "config_does_not_apply", def: with(func(d *model.Definition) {
		d.Configure = func(json.RawMessage) (model.Factory, error) { return nil, errors.New("no shelf for this archive") }
		d.Describe = nil
	}), want: "no shelf for this archive"},
}

// planted is the archiver whose own config ({}) is its planted bug.
func planted() *model.Definition {
	d := archiver.Definition()
	conf := d.Configure
	d.Configure = func(system json.RawMessage) (model.Factory, error) {
		if s := strings.TrimSpace(string(system)); s == "" || s == "{}" {
			system = archiver.Planted
		}
		return conf(system)
	}
	desc := d.Describe
	d.Describe = func(system json.RawMessage) (string, error) {
		if s := strings.TrimSpace(string(system)); s == "" || s == "{}" {
			system = archiver.Planted
		}
		return desc(system)
	}
	return d
}

// leaky is the planted production agent whose state outlives a run: its
// back-off grows by 1 ms a retry across runs, and every other retry
// reuses its key, so a rerun reaches another verdict.
var leaky = system{name: "production_leaky", def: func() *model.Definition {
	def, runs := shelfDefinition(true), new(int)
	def.Configure = func(json.RawMessage) (model.Factory, error) {
		return func() model.System { return shelf{rows: &[]model.LedgerEntry{}, fresh: true, runs: runs, flip: true} }, nil
	}
	return def
}}

// jittery is the planted production agent whose back-off grows by 1 ms a
// retry across runs (as global randomness moves a jittered back-off): a
// rerun crosses the same events to the same verdict at other times.
var jittery = system{name: "production_jittery", def: func() *model.Definition {
	def, runs := shelfDefinition(true), new(int)
	def.Configure = func(json.RawMessage) (model.Factory, error) {
		return func() model.System { return shelf{rows: &[]model.LedgerEntry{}, fresh: true, runs: runs} }, nil
	}
	return def
}}

var judged = []system{
	{name: "correct", def: archiver.Definition},
	{name: "planted", def: planted},
	{name: "production_correct", def: func() *model.Definition { return shelfDefinition(false) }},
	{name: "production_planted", def: func() *model.Definition { return shelfDefinition(true) }},
}

// verdicts are what every door must say of the judged systems.
var verdicts = map[string]string{"correct": "held", "planted": "violated " + archiver.InvArchivedOnce,
	"production_correct": "held", "production_planted": "violated " + model.InvEffectAtMostOnce}

// shelf is production code of the archiver's domain: it archives through
// model.Calls into a store idempotent by key, backs off 20 ms (the
// bubble's clock) and retries an unknown outcome, under a fresh key when
// fresh is set (its planted bug).
type shelf struct {
	rows  *[]model.LedgerEntry
	fresh bool
	// runs, when set, counts the runs across instances: each backs off 1
	// ms longer than the last, so no rerun crosses at the same times
	runs *int
	// flip, with runs, keeps the key on every other retry: a rerun of a
	// violating run holds
	flip bool
}

func (a shelf) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	key := t.ID
	for i := 0; i < 2; i++ {
		if i > 0 {
			wait := 20 * time.Millisecond
			if a.runs != nil {
				*a.runs++
				wait += time.Duration(*a.runs) * time.Millisecond
			}
			//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's
			time.Sleep(wait)
			if a.fresh && !(a.flip && *a.runs%2 == 0) {
				key += "'"
			}
		}
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: archiver.Tool, RequestKey: key, Action: model.Action{Subject: t.Subject, IdempotencyKey: t.ID}},
			func(_ context.Context, call model.ToolCall) model.ToolResult {
				for _, r := range *a.rows {
					if r.Key == call.RequestKey {
						return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: true, Receipt: &model.Receipt{ID: r.ReceiptID}}
					}
				}
				id := "arc-" + strconv.Itoa(len(*a.rows)+1)
				*a.rows = append(*a.rows, model.LedgerEntry{Tool: archiver.Tool, Key: call.RequestKey, Subject: call.Action.Subject, ActionRef: call.Action.IdempotencyKey, ReceiptID: id})
				return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id}}
			})
		if err != nil {
			return model.Claim{}, err
		}
		if c.Result.Outcome == model.OutcomeCommitted && c.Result.Receipt != nil {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "archived", Receipt: c.Result.Receipt.ID}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "outcome unknown"}, nil
}

func (a shelf) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *a.rows, nil }

func shelfDefinition(fresh bool) *model.Definition {
	def := model.Define("shelf", model.Fixture{Name: "shelf", Tasks: []model.Task{{ID: "archive-DOC-4", Subject: "DOC-4"}}},
		func() model.System { return shelf{rows: &[]model.LedgerEntry{}, fresh: fresh} })
	def.Builtin = []string{model.InvEffectAtMostOnce}
	def.Clock = properties.BubbleClock
	return def
}

// door is one door: its outcome on def, "held", "violated INV",
// "inconclusive: WHY" or "refused: WHY".
type door struct {
	name string
	// production: the door takes production code
	production bool
	// oneRun: a door of one run, whose verdict on a run that checks no
	// invariant is inconclusive
	oneRun bool
	// reports: the door's value is a report (release evidence, a
	// tracker), not a verdict of its own; it is shown refusing only
	reports bool
	run     func(t *testing.T, sys system) string
}

var scope = []properties.Option{properties.WithKinds(kind), properties.WithMaxFaults(1)}

func refusal(prefix string, err error) string { return prefix + err.Error() }

// firstViolated reads "violated INV" from a result, or its inconclusive
// reason.
func resultOutcome(res *model.Result, err error) string {
	if err != nil {
		return refusal("refused: ", err)
	}
	var re *model.RunError
	switch e := res.Err(); {
	case e == nil:
		return "held"
	case errors.As(e, &re) && re.Code == 1:
		return "violated " + re.Invariant
	default:
		return "inconclusive: " + e.Error()
	}
}

func singleFault(t *testing.T) *model.Schedule {
	s, err := model.SingleFault(kind, model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// violatedRE reads the invariant of "INV violated: ..." (a message),
// "INV violated" at a line's end (audit's findings) or "INV  VIOLATED"
// (replay's table), never "an invariant violated," or "runs that violated an".
var violatedRE = regexp.MustCompile(`(?m)([a-z][a-z0-9_]*)(?: violated(?::|$)| +VIOLATED)`)

// tableRE reads replay's table rows of violated invariants, which list
// them in the run's report order, with their first failing seq.
var tableRE = regexp.MustCompile(`(?m)^ +([a-z][a-z0-9_]*) +VIOLATED +first false after seq ([0-9]+)`)

// firstInTable is the invariant of replay's table that broke first (the
// least seq; the first listed on a tie), as a run's Err names it, or "".
func firstInTable(out string) string {
	first, at := "", 0
	for _, m := range tableRE.FindAllStringSubmatch(out, -1) {
		if seq, _ := strconv.Atoi(m[2]); first == "" || seq < at {
			first, at = m[1], seq
		}
	}
	return first
}

// subprocess runs the body of door on sys in a test of its own (a door
// that fails a *testing.T) and reads its outcome from the output:
// "held", "violated INV" or "failed: OUTPUT".
func subprocess(t *testing.T, door string, sys system) string {
	got, _ := subprocessOutput(t, door, sys)
	return got
}

// subprocessOutput is subprocess with the body's output.
func subprocessOutput(t *testing.T, door string, sys system) (string, string) {
	out, err := bodyRun(t, door, sys)
	return outcomeOf(out, err), string(out)
}

func bodyRun(t *testing.T, door string, sys system) ([]byte, error) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDoorBody$", "-test.v")
	cmd.Env = append(os.Environ(), bodyEnv+"="+door+"/"+sys.name, "FAULTLINE_FAIL_DIR="+t.TempDir())
	return cmd.CombinedOutput()
}

// outcomeOf is what a body's output says: held, violated NAME or failed.
func outcomeOf(out []byte, err error) string {
	if err == nil && bytes.Contains(out, []byte("--- PASS: TestDoorBody")) {
		return "held"
	}
	if m := violatedRE.FindSubmatch(out); m != nil {
		return "violated " + string(m[1])
	}
	// a refusal and an inconclusive campaign both fail the test: the
	// words tell them apart
	return "failed: " + string(out)
}

const bodyEnv = "FAULTLINE_DOORS_BODY"

// bodies are the doors that fail a *testing.T.
var bodies = map[string]func(t *testing.T, def *model.Definition){
	"properties.Check": func(t *testing.T, def *model.Definition) {
		properties.Check(t, def, append(scope, properties.WithSeed(1), properties.WithChecks(50), properties.WithFailDir(t.TempDir()))...)
	},
	"properties.Check+WithExhaustive": func(t *testing.T, def *model.Definition) {
		properties.Check(t, def, append(scope, properties.WithExhaustive(), properties.WithFailDir(t.TempDir()))...)
	},
	"fuzz.For": func(t *testing.T, def *model.Definition) {
		body := fuzz.For(def, fuzz.WithKinds(kind), fuzz.WithMaxFaults(1), fuzz.WithFailDir(t.TempDir()))
		for i := range 8 {
			t.Run(fmt.Sprint(i), func(t *testing.T) { body(t, []byte{byte(i)}) })
		}
	},
	"fuzz.NewTarget": func(t *testing.T, def *model.Definition) {
		tg, err := fuzz.NewTarget(def, fuzz.WithKinds(kind), fuzz.WithMaxFaults(1), fuzz.WithFailDir(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 8 {
			t.Run(fmt.Sprint(i), func(t *testing.T) { tg.Fuzz(t, []byte{byte(i)}) })
		}
		if err := tg.Done(); err != nil {
			t.Error(err)
		}
	},
}

// TestDoorBody runs one body; only as the subprocess of TestDoorsAgree.
func TestDoorBody(t *testing.T) {
	which := os.Getenv(bodyEnv)
	if which == "" {
		t.Skip("the subprocess of TestDoorsAgree")
	}
	door, name, _ := strings.Cut(which, "/")
	for _, s := range append(append([]system{leaky, jittery}, refused...), judged...) {
		if s.name == name {
			bodies[door](t, s.def())
			return
		}
	}
	t.Fatalf("no system %s", name)
}

func cliOutcome(code int, stderr string) string {
	switch code {
	case 0:
		return "held"
	case 1:
		if m := violatedRE.FindStringSubmatch(stderr); m != nil {
			return "violated " + m[1]
		}
		return "violated ?: " + stderr
	case 3:
		return "inconclusive: " + stderr
	}
	return fmt.Sprintf("refused: exit %d: %s", code, stderr)
}

func runCLI(t *testing.T, def *model.Definition, args ...string) (int, string, string) {
	var o, e bytes.Buffer
	code := cli.Main(args, &o, &e, def)
	return code, o.String(), e.String()
}

var doors = []door{
	{name: "properties.Check", production: true, run: func(t *testing.T, s system) string { return subprocess(t, "properties.Check", s) }},
	{name: "properties.Check+WithExhaustive", production: true, run: func(t *testing.T, s system) string {
		return subprocess(t, "properties.Check+WithExhaustive", s)
	}},
	{name: "properties.Explore", production: true, run: func(t *testing.T, s system) string {
		return reportOutcome(properties.Explore(s.def(), append(scope, properties.WithSeed(1), properties.WithChecks(50))...))
	}},
	{name: "properties.Explore+WithExhaustive", production: true, run: func(t *testing.T, s system) string {
		return reportOutcome(properties.Explore(s.def(), append(scope, properties.WithExhaustive())...))
	}},
	{name: "properties.ExplorePair", run: func(t *testing.T, s system) string {
		// the Definition's own config against itself: a pair finds no
		// witness, so its verdict is the off side's own (a fault placed)
		rep, err := properties.ExplorePair(s.def(), model.Config{}, model.Config{}, 1, 20, properties.WithKinds(kind), properties.WithMaxFaults(2))
		if err != nil {
			return refusal("refused: ", err)
		}
		if rep.Witness != nil {
			return "witness " + rep.Witness.Invariant
		}
		return "no witness"
	}},
	{name: "properties.Generator", production: true, run: func(t *testing.T, s system) string {
		def := s.def()
		gen, err := properties.Generator(def, scope...)
		if err != nil {
			return refusal("refused: ", err)
		}
		for i := range 20 {
			if out := resultOutcome(def.Run(gen.Example(i), model.Options{})); out != "held" {
				return out
			}
		}
		return "held"
	}},
	{name: "fuzz.For", production: true, run: func(t *testing.T, s system) string { return subprocess(t, "fuzz.For", s) }},
	{name: "fuzz.NewTarget", production: true, run: func(t *testing.T, s system) string { return subprocess(t, "fuzz.NewTarget", s) }},
	{name: "fuzz.NewDecoder", run: func(t *testing.T, s system) string {
		d, err := fuzz.NewDecoder(s.def(), fuzz.WithKinds(kind), fuzz.WithMaxFaults(1))
		if err != nil {
			return refusal("refused: ", err)
		}
		for i := range 8 {
			sched := d.Decode([]byte{byte(i)})
			var f *fuzz.Failure
			if err := d.Verify(sched); errors.As(err, &f) {
				return "violated " + f.Invariant
			} else if err != nil {
				return refusal("refused: ", err)
			}
		}
		return "held"
	}},
	{name: "cli explore", run: func(t *testing.T, s system) string {
		code, stdout, stderr := runCLI(t, s.def(), "explore", "--seed", "1", "--checks", "50", "--max-faults", "1", "--kinds", kind)
		return cliOutcome(code, stderr+stdout)
	}},
	{name: "cli audit", run: func(t *testing.T, s system) string {
		// an audit judges the configurations marked defended
		def := s.def()
		if def != nil && def.Configs == nil {
			def.Configs = []model.NamedConfig{{Name: "default", Defended: true}}
		}
		code, stdout, stderr := runCLI(t, def, "audit")
		return cliOutcome(code, stdout+stderr) // its findings first
	}},
	{name: "cli replay", oneRun: true, run: func(t *testing.T, s system) string {
		path := filepath.Join(t.TempDir(), "one.json")
		if err := os.WriteFile(path, model.Format(singleFault(t)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, s.def(), "replay", path)
		if inv := firstInTable(stdout); code == 1 && inv != "" {
			return "violated " + inv
		}
		return cliOutcome(code, stderr+stdout)
	}},
	{name: "model.Definition.Run", production: true, oneRun: true, run: func(t *testing.T, s system) string {
		return resultOutcome(s.def().Run(singleFault(t), model.Options{}))
	}},
	{name: "model.Definition.Replay", production: true, oneRun: true, run: func(t *testing.T, s system) string {
		return resultOutcome(s.def().Replay(singleFault(t)))
	}},
	{name: "assay.RunStudy", reports: true, run: func(t *testing.T, s system) string {
		if _, err := assay.RunStudy(s.def(), assay.StudyConfig{Name: "base", Trials: 20, Seed: 1}); err != nil {
			return refusal("refused: ", err)
		}
		return "ran"
	}},
	{name: "assay.Gather", reports: true, run: func(t *testing.T, s system) string {
		if _, err := assay.Gather(s.def(), assay.EvidenceConfig{Trials: 20, Seed: 1}); err != nil {
			return refusal("refused: ", err)
		}
		return "ran"
	}},
	{name: "assay.CompositionPairs", reports: true, run: func(t *testing.T, s system) string {
		_, err := assay.CompositionPairs(s.def(), assay.Setup{}, []string{kind}, assay.CompositionConfig{Draws: 1})
		if err != nil {
			return refusal("refused: ", err)
		}
		return "ran"
	}},
	{name: "coverage.NewTracker", reports: true, run: func(t *testing.T, s system) string {
		if _, err := coverage.NewTracker(nil, s.def()); err != nil {
			return refusal("refused: ", err)
		}
		return "tracks"
	}},
}

func reportOutcome(rep *properties.Report, err error) string {
	switch {
	case err != nil:
		return refusal("refused: ", err)
	case rep.Found:
		return "violated " + rep.Counterexample.Invariant
	case rep.Inconclusive():
		return "inconclusive"
	}
	return "held"
}

// TestDoorsAgree: every door refuses each bad Definition with the words of
// the one implementation of its rule in model (Validate and Check, Result.Err
// for a door of one run, Configure's own error), and gives each judged
// system the same verdict.
func TestDoorsAgree(t *testing.T) {
	for _, s := range refused {
		for _, d := range doors {
			if d.name == "coverage.NewTracker" && !s.names {
				continue // it reads only the name, NotApplicable, ReplayCommand
			}
			if d.name == "assay.CompositionPairs" && s.name == "config_does_not_apply" {
				continue // the archiver has no Arm: refused for that first
			}
			t.Run(s.name+"/"+d.name, func(t *testing.T) {
				got := d.run(t, s)
				prefix := "refused: "
				if s.run && d.oneRun {
					prefix = "inconclusive: "
				}
				if strings.HasPrefix(got, "failed: ") { // a door that fails its t
					prefix = "failed: "
				}
				if !strings.HasPrefix(got, prefix) || !strings.Contains(got, s.want) {
					t.Errorf("%s, want %s…%q", got, prefix, s.want)
				}
			})
		}
	}
}

// TestDoorsJudgeAlike: every door that gives a verdict gives the same one
// on the correct archiver (held) and its planted bug (archived_once), and,
// where it takes production code, on the production agent of the same
// domain (held, and effect_at_most_once); ExplorePair, which compares a
// config with another, finds no witness between a config and itself.
func TestDoorsJudgeAlike(t *testing.T) {
	for _, s := range judged {
		for _, d := range doors {
			prod := strings.HasPrefix(s.name, "production_")
			if d.reports || prod && !d.production {
				continue
			}
			t.Run(s.name+"/"+d.name, func(t *testing.T) {
				want := verdicts[s.name]
				if d.name == "properties.ExplorePair" {
					want = "no witness"
				}
				if got := d.run(t, s); got != want {
					t.Errorf("%s, want %s", got, want)
				}
			})
		}
	}
}

// TestCommandLineRefusesProductionCode: each command-line door (cli
// explore, audit, replay) refuses the production shelf, correct or
// planted, before any run, exit 2, in the one rule's words (cli's
// runnable): its runs need a test's synctest bubbles.
func TestCommandLineRefusesProductionCode(t *testing.T) {
	for _, s := range judged[2:] {
		for _, d := range doors {
			if !strings.HasPrefix(d.name, "cli ") {
				continue
			}
			want := "refused: exit 2: " + filepath.Base(os.Args[0]) + ": shelf is production code (its Definition has a Clock): each of its runs needs a testing/synctest bubble, which only a test has, " +
				"so no command of a command line runs it: explore it with properties.Check(t, def) in a test and replay a file with the line a counterexample prints, FAULTLINE_REPLAY=FILE go test -run '^TestX$' ./PKG\n"
			if got := d.run(t, s); got != want {
				t.Errorf("%s/%s: %s, want %s", s.name, d.name, got, want)
			}
		}
	}
}

// TestDoorsFindNondeterminism: every door that runs production code in
// bubbles (properties.Check, also exhaustive, fuzz.For, fuzz.NewTarget)
// reruns a violating run and, when the rerun reached another verdict,
// fails with the words of the one comparison (internal/rerun), naming the
// crossing whose time moved first and global randomness, not a verdict.
func TestDoorsFindNondeterminism(t *testing.T) {
	wants := []string{"nondeterministic replay: the same schedule",
		"crossed the same events with the same outcomes in two runs but reached another verdict: effect_at_most_once first false after crossing 3 (tool.commit), then held",
		"logical times moved first: crossing 3 (tool.commit#2) was at ",
		"global randomness (math/rand's global source, e.g. a jittered back-off) is a likely cause"}
	for _, d := range []string{"properties.Check", "properties.Check+WithExhaustive", "fuzz.For", "fuzz.NewTarget"} {
		t.Run(d, func(t *testing.T) {
			got := subprocess(t, d, leaky)
			for _, want := range wants {
				if !strings.HasPrefix(got, "failed: ") || !strings.Contains(got, want) {
					t.Errorf("%s, want a failure saying %q", got, want)
				}
			}
		})
	}
}

// TestDoorsTolerateJitter: a rerun that crosses the same events with the
// same outcomes to the same verdict at other logical times (1 ms later
// each run) is the same run: every production door reports the violation
// with the note on its times.
func TestDoorsTolerateJitter(t *testing.T) {
	const note = "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 1 ms"
	for _, d := range []string{"properties.Check", "properties.Check+WithExhaustive", "fuzz.For", "fuzz.NewTarget"} {
		t.Run(d, func(t *testing.T) {
			got, out := subprocessOutput(t, d, jittery)
			if got != "violated "+model.InvEffectAtMostOnce || !strings.Contains(out, note) {
				t.Errorf("%s, want violated %s with %q:\n%s", got, model.InvEffectAtMostOnce, note, out)
			}
		})
	}
}
