package fuzz_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func decoder(t *testing.T, opts ...fuzz.Option) *fuzz.Decoder {
	t.Helper()
	d, err := fuzz.NewReferenceDecoder(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func entry(kind string, ordinal int) model.FaultEntry {
	spec, err := model.Spec(kind)
	if err != nil {
		panic(err)
	}
	return model.FaultEntry{Event: spec.Event, Ordinal: ordinal, Kind: kind}
}

func schedule(cfg model.Config, faults ...model.FaultEntry) *model.Schedule {
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "t", Config: cfg, Faults: faults}
}

var typed = copperfin.ConfigOfProfile(copperfin.ProfileTyped)

// kinds are the catalogue's kinds and then the world events: what the
// decoder places.
func kinds() []model.FaultSpec { return append(model.Catalogue(), model.WorldEvents()...) }

// TestSitesFollowTheCatalogue: the sites are the catalogue's kinds, in
// catalogue order, then the world events, at their own events; designed
// at the designed ordinal, ordinals at 1 to MaxOrdinal; anywhere at every
// event the validator accepts the kind at (the world events at each of
// the 23 events, the catalogue's kinds at their own event, the dropped
// receipt at each of the four evidence events), at 1 to MaxOrdinal.
func TestSitesFollowTheCatalogue(t *testing.T) {
	all := kinds()
	if len(all) != 40 || len(model.Catalogue()) != 35 {
		t.Fatalf("%d kinds, %d in the catalogue: want 35 and the 5 world events", len(all), len(model.Catalogue()))
	}
	designed := decoder(t).Sites()
	ordinals := decoder(t, fuzz.WithScope("ordinals")).Sites()
	if len(designed) != len(all) || len(ordinals) != fuzz.MaxOrdinal*len(all) {
		t.Fatalf("%d designed and %d ordinal sites for %d kinds", len(designed), len(ordinals), len(all))
	}
	for i, spec := range all {
		if want := (fuzz.Site{Kind: spec.Kind, Event: spec.Event, Ordinal: spec.Ordinal}); designed[i] != want {
			t.Errorf("designed site %d = %v, want %v", i, designed[i], want)
		}
		for o := 1; o <= fuzz.MaxOrdinal; o++ {
			if want := (fuzz.Site{Kind: spec.Kind, Event: spec.Event, Ordinal: o}); ordinals[i*fuzz.MaxOrdinal+o-1] != want {
				t.Errorf("ordinal site %d = %v, want %v", i*fuzz.MaxOrdinal+o-1, ordinals[i*fuzz.MaxOrdinal+o-1], want)
			}
		}
	}
	anywhere := decoder(t, fuzz.WithScope("anywhere")).Sites()
	// 34 kinds at one event, drop_effect_receipt at 4, 5 world events at
	// 23 events each; three ordinals each
	if want := 3 * (34 + 4 + 5*len(model.AllEvents)); len(anywhere) != want || len(model.AllEvents) != 23 {
		t.Fatalf("%d anywhere sites, want %d", len(anywhere), want)
	}
	perKind := map[string]int{}
	for i, s := range anywhere {
		perKind[s.Kind]++
		if s.Ordinal != i%fuzz.MaxOrdinal+1 {
			t.Errorf("anywhere site %d = %v: ordinals run 1 to %d per event", i, s, fuzz.MaxOrdinal)
		}
	}
	if perKind["drop_effect_receipt"] != 12 || perKind["worker_crash"] != 69 || perKind["subject_swap"] != 3 {
		t.Errorf("anywhere sites per kind %v", perKind)
	}
	if anywhere[0] != (fuzz.Site{Kind: "subject_swap", Event: model.EvProposal, Ordinal: 1}) ||
		anywhere[len(anywhere)-1] != (fuzz.Site{Kind: "worker_crash", Event: model.AllEvents[len(model.AllEvents)-1], Ordinal: 3}) {
		t.Errorf("anywhere sites run from %v to %v", anywhere[0], anywhere[len(anywhere)-1])
	}
}

// TestDecodeExact pins the byte format: one byte a fault, its value modulo
// the number of sites, trailing bytes past the limit ignored.
func TestDecodeExact(t *testing.T) {
	d := decoder(t)
	n := len(d.Sites())
	got := d.Decode([]byte{4, byte(n + 2), 0, 1, 99})
	want := schedule(typed, entry(d.Sites()[4].Kind, d.Sites()[4].Ordinal), entry(d.Sites()[2].Kind, d.Sites()[2].Ordinal),
		entry(d.Sites()[0].Kind, d.Sites()[0].Ordinal), entry(d.Sites()[1].Kind, d.Sites()[1].Ordinal))
	want.Seed = fmt.Sprintf("fuzz-04%02x0001", n+2)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode (-want +got):\n%s", diff)
	}
	if e := d.Decode(nil); len(e.Faults) != 0 || e.Seed != "fuzz-" || !reflect.DeepEqual(e.Config, typed) {
		t.Errorf("empty input decodes to %+v, want the fault-free typed run", e)
	}
	o := decoder(t, fuzz.WithScope("ordinals"), fuzz.WithProfile(copperfin.ProfileBaseline))
	s := o.Decode([]byte{7})
	if len(s.Faults) != 1 || s.Faults[0] != entry(model.Catalogue()[2].Kind, 2) || !reflect.DeepEqual(s.Config, copperfin.ConfigOfProfile(copperfin.ProfileBaseline)) {
		t.Errorf("ordinals scope decodes byte 7 to %+v, want the third kind at ordinal 2 under baseline", s)
	}
	// more than 256 sites: two bytes, big-endian, a fault; an odd byte
	// left over is ignored
	a := decoder(t, fuzz.WithScope("anywhere"), fuzz.WithMutant("key_per_attempt"), fuzz.WithFixture("copperfin-batch"))
	sites := a.Sites()
	got = a.Decode([]byte{1, 2, 0, 3, 9})
	want = schedule(func() model.Config {
		c := copperfin.Settings{Profile: copperfin.ProfileTyped, Mutant: "key_per_attempt"}.Config()
		c.Fixture = "copperfin-batch"
		return c
	}(),
		model.FaultEntry{Event: sites[258].Event, Ordinal: sites[258].Ordinal, Kind: sites[258].Kind},
		model.FaultEntry{Event: sites[3].Event, Ordinal: sites[3].Ordinal, Kind: sites[3].Kind})
	want.Seed = "fuzz-01020003"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("anywhere decode (-want +got):\n%s", diff)
	}
	if got.Faults[0].Kind != "worker_crash" && got.Faults[0].Kind != "clock_advance" && got.Faults[0].Kind != "capability_revocation" &&
		got.Faults[0].Kind != "policy_change" && got.Faults[0].Kind != "state_version_change" {
		t.Errorf("site 258 of the anywhere scope is %v, want a world event (the catalogue's sites come first, 84 of them)", sites[258])
	}
}

// TestDecodeIsTotalAndDeterministic: random inputs (a seeded PCG) always
// decode to a valid schedule of the right length whose faults are sites of
// the scope, the same each time, and Encode inverts Decode; with
// WithModifiers too, each fault one byte longer, some faults then carrying
// a modifier (none without it).
func TestDecodeIsTotalAndDeterministic(t *testing.T) {
	oneGoroutine(t)
	rng := rand.New(rand.NewPCG(5, 188))
	for _, c := range []struct {
		scope string
		mods  bool
	}{{"designed", false}, {"ordinals", false}, {"anywhere", false}, {"designed", true}, {"anywhere", true}} {
		scope, opts := c.scope, []fuzz.Option{fuzz.WithScope(c.scope), fuzz.WithMaxFaults(6)}
		if c.mods {
			opts = append(opts, fuzz.WithModifiers())
		}
		d := decoder(t, opts...)
		width, modified := 1, 0
		if len(d.Sites()) > 256 {
			width = 2
		}
		if c.mods {
			width++
		}
		sites := map[fuzz.Site]bool{}
		for _, s := range d.Sites() {
			sites[s] = true
		}
		for range 1000 {
			data := make([]byte, rng.IntN(12))
			for i := range data {
				data[i] = byte(rng.UintN(256))
			}
			s := d.Decode(data)
			if err := s.Validate(); err != nil {
				t.Fatalf("%x decodes to an invalid schedule: %v", data, err)
			}
			if len(s.Faults) != min(len(data)/width, 6) {
				t.Fatalf("%x decodes to %d faults", data, len(s.Faults))
			}
			for _, f := range s.Faults {
				if !sites[fuzz.Site{Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal}] {
					t.Fatalf("%x decodes to a fault outside scope %s: %+v", data, scope, f)
				}
				if f.Correlation != "" {
					modified++
				}
			}
			if diff := cmp.Diff(s, d.Decode(data)); diff != "" {
				t.Fatalf("%x decodes differently twice:\n%s", data, diff)
			}
			enc, err := d.Encode(s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.Faults, d.Decode(enc).Faults); diff != "" {
				t.Fatalf("Decode(Encode(Decode(%x))) differs:\n%s", data, diff)
			}
		}
		if c.mods != (modified > 0) {
			t.Errorf("scope %s, modifiers %t: %d faults with a modifier", scope, c.mods, modified)
		}
	}
}

func TestEncodeErrorsNameTheFault(t *testing.T) {
	d := decoder(t)
	_, err := d.Encode(schedule(typed, entry("stale_policy", 1), entry("stale_policy", 2)))
	if err == nil || !strings.Contains(err.Error(), "faults[1] (stale_policy@context.policy#2) is not a site of scope designed") {
		t.Errorf("error %v", err)
	}
	five := schedule(typed)
	for range 5 {
		five.Faults = append(five.Faults, entry("subject_swap", 1))
	}
	if _, err := d.Encode(five); err == nil || !strings.Contains(err.Error(), "5 faults, more than the decoder's 4") {
		t.Errorf("error %v", err)
	}
	named := entry("memory_loss", 1)
	named.Target = "approval"
	if _, err := d.Encode(schedule(typed, named)); err == nil || !strings.Contains(err.Error(), `faults[0] (memory_loss@memory.read#1) names the target "approval"`) {
		t.Errorf("error %v", err)
	}
	aimed := entry("timeout_after_commit", 1)
	aimed.Tool = "charge"
	if _, err := d.Encode(schedule(typed, aimed)); err == nil || !strings.Contains(err.Error(), `faults[0] (timeout_after_commit@tool.commit#1) aims at the tool "charge"`) {
		t.Errorf("error %v", err)
	}
	crash := model.FaultEntry{Event: model.EvBranchRun, Ordinal: 2, Kind: "worker_crash"}
	if _, err := d.Encode(schedule(typed, crash)); err == nil || !strings.Contains(err.Error(), "(worker_crash@branch.run#2) is not a site of scope designed") {
		t.Errorf("error %v", err)
	}
	if b, err := decoder(t, fuzz.WithScope("anywhere")).Encode(schedule(typed, crash)); err != nil || len(b) != 2 {
		t.Errorf("anywhere: %x %v, want two bytes", b, err)
	}
	mods := decoder(t, fuzz.WithModifiers())
	shared := entry("timeout_after_commit", 1)
	shared.Correlation = "shared"
	if _, err := mods.Encode(schedule(typed, shared)); err == nil || !strings.Contains(err.Error(), "faults[0] (timeout_after_commit@tool.commit#1) carries the modifier shared, which its kind does not take under the decoder's config") {
		t.Errorf("shared on one tenant: %v", err)
	}
	thrice := entry("timeout_after_commit", 1)
	thrice.Correlation, thrice.Repeat = "repeated", 3
	if _, err := mods.Encode(schedule(typed, thrice)); err == nil || !strings.Contains(err.Error(), "sets a modifier's parameter; the decoder places repeat 2 and the defaults only") {
		t.Errorf("repeat 3: %v", err)
	}
}

func TestNewDecoderErrors(t *testing.T) {
	cases := []struct {
		opts []fuzz.Option
		want string
	}{
		{[]fuzz.Option{fuzz.WithProfile("paranoid")}, `unknown profile "paranoid"`},
		{[]fuzz.Option{fuzz.WithMaxFaults(0)}, "max faults 0 out of range (1 to 64)"},
		{[]fuzz.Option{fuzz.WithMaxFaults(65)}, "max faults 65 out of range"},
		{[]fuzz.Option{fuzz.WithScope("wide")}, `fuzz: unknown scope "wide" (valid: designed, ordinals, anywhere)`},
		{[]fuzz.Option{fuzz.WithMutant("no_idempotency")}, `fuzz: config: unknown mutant "no_idempotency" (valid: rejection_as_success,`},
		{[]fuzz.Option{fuzz.WithFixture("warehouse")}, `fuzz: unknown fixture "warehouse"`},
	}
	for _, c := range cases {
		if _, err := fuzz.NewReferenceDecoder(c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := fuzz.NewReferenceDecoder(fuzz.WithScope("wide")); err == nil || err.Error() != `fuzz: unknown scope "wide" (valid: designed, ordinals, anywhere)` {
		t.Errorf("an unknown scope: %v", err)
	}
	cs, err := copperfin.ParseControlList(" idempotency, ,effect_readback")
	if err != nil || cs.String() != "idempotency,effect_readback" {
		t.Errorf("ParseControlList: %v %v", cs, err)
	}
	if cs, err := copperfin.ParseControlList(""); err != nil || cs != 0 {
		t.Errorf("empty list: %v %v", cs, err)
	}
	if _, err := copperfin.ParseControlList("idempotency,magic"); err == nil || !strings.Contains(err.Error(), `unknown control "magic"`) {
		t.Errorf("unknown control: %v", err)
	}
}

// walk checks every composition of up to depth faults of d's scope, in
// every order (the empty one included), and returns the number of runs.
func walk(t *testing.T, d *fuzz.Decoder, depth int) int {
	t.Helper()
	n := len(d.Sites())
	if n > 256 {
		t.Fatalf("%d sites: walk takes one-byte scopes", n)
	}
	runs := 0
	var rec func(prefix []byte)
	rec = func(prefix []byte) {
		runs++
		if _, err := d.Check(d.Decode(prefix)); err != nil {
			t.Fatal(err)
		}
		if len(prefix) == depth {
			return
		}
		for i := range n {
			rec(append(append([]byte(nil), prefix...), byte(i)))
		}
	}
	rec(nil)
	return runs
}

// TestDesignedScopeHoldsUnderTyped runs every composition of up to three
// faults and world events of the default scope, in every order, against
// the typed profile (65,641 runs), and every pair on the three-task
// workload: the default target must not fail there, and none does.
func TestDesignedScopeHoldsUnderTyped(t *testing.T) {
	if raceDetector {
		t.Skip("one goroutine, slow under the race detector, which has nothing to check in it; go test ./... runs it")
	}
	if runs := walk(t, decoder(t), 3); runs != 1+40+40*40+40*40*40 {
		t.Fatalf("%d runs, want 65641", runs)
	}
	if runs := walk(t, decoder(t, fuzz.WithFixture("copperfin-batch")), 2); runs != 1+40+40*40 {
		t.Fatalf("%d runs, want 1641", runs)
	}
}

// TestOrdinalsScopeHoldsUnderTyped: every pair of the ordinals scope (120
// sites: the stale policy at the re-read before the effect included)
// holds under typed.
func TestOrdinalsScopeHoldsUnderTyped(t *testing.T) {
	if raceDetector {
		t.Skip("one goroutine, slow under the race detector, which has nothing to check in it; go test ./... runs it")
	}
	if runs := walk(t, decoder(t, fuzz.WithScope("ordinals")), 2); runs != 1+120+120*120 {
		t.Fatalf("%d runs, want 14521", runs)
	}
}

// TestBaselineFailsAtOnce: against the baseline, the timeout after commit
// alone is a counterexample (the paper's duplicate refund).
func TestBaselineFailsAtOnce(t *testing.T) {
	d := decoder(t, fuzz.WithProfile(copperfin.ProfileBaseline))
	b, err := d.Encode(schedule(typed, entry("timeout_after_commit", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Check(d.Decode(b))
	var v *fuzz.Violation
	if !errors.As(err, &v) {
		t.Fatalf("no violation: %v", err)
	}
	inv, _ := v.Result.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" {
		t.Fatalf("effect_at_most_once: %+v", inv)
	}
	msg := err.Error()
	for _, want := range []string{
		"invariant violated: profile baseline, fixture copperfin, system copperfin, run verdict unrecoverable, claim verdict unsafe",
		"effect_at_most_once: first false after seq 19 (tool.commit), reached by f1: second ledger effect for task ref-db32399f", // refund-O-731, redacted as in the record
		string(model.Format(v.Schedule)),
		"go run ./cmd/faultline replay /tmp/faultline-" + v.Result.RunID + ".json",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// TestStalePolicyAtRefreshIsContained: the policy turning stale at the
// re-read refresh_context makes before the effect (context.policy#2) was
// the typed profile's counterexample of the ordinals scope; the guarded
// commit now carries the policy version the system read, the provider
// refuses it, and the run is a contained failure (a denial, no effect).
func TestStalePolicyAtRefreshIsContained(t *testing.T) {
	d := decoder(t, fuzz.WithScope("ordinals"))
	res, err := d.Check(schedule(typed, entry("stale_policy", 2)))
	if err != nil {
		t.Fatal(err)
	}
	if res.RunVerdict != model.ContainedFailure || res.Verdict != model.ClaimDeny || res.Terms.Effects != 0 || res.Terms.UnsafeEscape ||
		res.Claims[0].Reason != "refund not made: precondition_failed: precondition failed: policy changed" {
		t.Fatalf("verdict %s %s, terms %+v, claims %+v", res.RunVerdict, res.Verdict, res.Terms, res.Claims)
	}
}

// TestMutantsAreInTheConfig: a mutant selected with WithMutant is in
// every decoded schedule's config, so the run (and faultline replay of
// the printed schedule) uses it: a timeout the typed profile resolves by
// an idempotent retry duplicates the refund when every retry takes a new
// key.
func TestMutantsAreInTheConfig(t *testing.T) {
	for _, m := range []string{"", "key_per_attempt"} {
		d := decoder(t, fuzz.WithMutant(m))
		b, err := d.Encode(schedule(typed, entry("tool_timeout", 1)))
		if err != nil {
			t.Fatal(err)
		}
		s := d.Decode(b)
		if copperfin.MutantOf(s.Config) != m {
			t.Fatalf("mutant %q: config %+v", m, s.Config)
		}
		res, err := d.Check(s)
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		if (m == "") != (err == nil) || inv.Held != (m == "") || res.Terms.Effects != map[string]int{"": 1, "key_per_attempt": 2}[m] {
			t.Errorf("mutant %q: %v, %+v, effects %d", m, err, inv, res.Terms.Effects)
		}
		if m != "" && !strings.Contains(err.Error(), `"mutant":"key_per_attempt"`) {
			t.Errorf("the replay command does not carry the mutant:\n%v", err)
		}
	}
}

// TestShrinkDropsIrrelevantFaults: against a system that accepts a
// missing checkpoint on resume, of a missing checkpoint at the third
// write and a timeout after commit only the first matters: Shrink drops
// the timeout. It keeps the third write: there the resumed worker's
// record also withdraws the refund the lost checkpoint recorded
// (recorded_agrees_with_ledger), which a missing first write, before the
// refund, does not show, and Shrink keeps the invariants violated.
func TestShrinkDropsIrrelevantFaults(t *testing.T) {
	d := decoder(t, fuzz.WithScope("ordinals"), fuzz.WithMutant("stale_checkpoint_accepted"))
	s := schedule(d.Config(), entry("missing_checkpoint", 3), entry("timeout_after_commit", 1))
	min, res, err := d.Shrink(s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]model.FaultEntry{entry("missing_checkpoint", 3)}, min.Faults); diff != "" {
		t.Errorf("shrunk faults (-want +got):\n%s", diff)
	}
	inv, _ := res.Invariant(model.InvResumeFromCheckpoint)
	led, _ := res.Invariant(model.InvRecordedAgreesWithLedger)
	if res.Held() || inv.Held || led.Held || !strings.Contains(led.Detail, "withdraws effect") || len(s.Faults) != 2 || s.Faults[0].Ordinal != 3 {
		t.Errorf("shrunk run holds (%+v), or the input was changed", inv)
	}
	if _, _, err := d.Shrink(schedule(typed)); err == nil || !strings.Contains(err.Error(), "violates no invariant") {
		t.Errorf("shrinking a holding schedule: %v", err)
	}
}

// TestScheduleOfFileOrBytes: a schedule file keeps its own config; other
// bytes decode.
func TestScheduleOfFileOrBytes(t *testing.T) {
	d := decoder(t)
	file := `{"version":1,"seed":"x","config":{"profile":"baseline"},"faults":[{"event":"tool.commit","ordinal":2,"kind":"timeout_after_commit"}]}`
	s := d.Schedule([]byte(file))
	if !reflect.DeepEqual(s.Config, copperfin.ConfigOfProfile(copperfin.ProfileBaseline)) || s.Faults[0] != entry("timeout_after_commit", 2) {
		t.Errorf("file decodes to %+v", s)
	}
	if got := d.Schedule([]byte("{not json")); !reflect.DeepEqual(got.Config, typed) || len(got.Faults) != 4 {
		t.Errorf("bad JSON decodes to %+v, want a composition of 4 faults", got)
	}
	if err := d.CheckDeterminism(s); err != nil {
		t.Error(err)
	}
}

func TestCheckRoundTripAcceptsAndRejects(t *testing.T) {
	for _, in := range []string{
		`{"version":1,"seed":"<&>","config":{"controls":["evidence_gate","idempotency"]},"faults":[{"id":"x","event":"proposal","ordinal":3,"kind":"subject_swap"}]}`,
		`{"version":1,"config":{"profile":"typed","controls":null},"faults":[]}`,
		`not a schedule`,
		"{\"version\":1,\"seed\":\"\xff\",\"config\":{\"profile\":\"typed\"},\"faults\":[]}",
	} {
		if err := fuzz.CheckRoundTrip([]byte(in)); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestReplayHintIsRunnable: the echo half of the printed command, run by
// a shell, writes a file that decodes to the same schedule, even when the
// seed label holds quotes.
func TestReplayHintIsRunnable(t *testing.T) {
	s := schedule(copperfin.ConfigOfProfile(copperfin.ProfileBaseline), entry("timeout_after_commit", 1))
	s.Seed = `it's "quoted" $HOME`
	def := copperfin.Definition()
	def.ReplayCommand = "go run ./cmd/faultline replay %s"
	hint := fuzz.ReplayHint(s, "run-test", def)
	line := hint[strings.Index(hint, "  echo ")+2:]
	line = line[:strings.Index(line, "\n")]
	echo, replay, ok := strings.Cut(line, " && ")
	if !ok || replay != "go run ./cmd/faultline replay /tmp/faultline-run-test.json" {
		t.Fatalf("command line %q", line)
	}
	file := filepath.Join(t.TempDir(), "s.json")
	echo = strings.Replace(echo, "/tmp/faultline-run-test.json", file, 1)
	if out, err := exec.Command("sh", "-c", echo).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", echo, err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.ParseSchedule(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("replayed schedule differs:\n%s", diff)
	}
}

// TestViolationReplaysThroughTheNamedTest: a user's system's violation,
// with WithReplayTest given, prints the FAULTLINE_REPLAY line of that test
// (not a placeholder) after the command that saves the schedule.
func TestViolationReplaysThroughTheNamedTest(t *testing.T) {
	s := schedule(model.Config{}, entry("tool_timeout", 2))
	def := &model.Definition{Name: "giftcards"}
	v := fuzz.NewViolation(s, &model.Result{RunID: "r1"}, def, "TestFuzzReplay")
	msg := v.Error()
	if want := ", then run FAULTLINE_REPLAY=/tmp/faultline-r1.json go test -run '^TestFuzzReplay$' ./fuzz\n"; !strings.HasSuffix(msg, want) || strings.Contains(msg, "TestName") {
		t.Errorf("message %q, want it to end %q", msg, want)
	}
	if msg := fuzz.NewViolation(s, &model.Result{RunID: "r1"}, def, "").Error(); !strings.Contains(msg, "go test -run '^TestName$' ./pkg (properties.Check, or fuzz.WithReplayTest)") {
		t.Errorf("without a replay test: %q", msg)
	}
	// the Definition's own replay command comes first
	def.ReplayCommand = "go run ./cmd/giftcards replay %s"
	if msg, want := fuzz.NewViolation(s, &model.Result{RunID: "r1"}, def, "TestFuzzReplay").Error(), "replay it on giftcards:\n  echo "; !strings.Contains(msg, want) ||
		!strings.HasSuffix(msg, ".json && go run ./cmd/giftcards replay /tmp/faultline-r1.json\n") || strings.Contains(msg, "go test") {
		t.Errorf("with a replay command: %q", msg)
	}
}
