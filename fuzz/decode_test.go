package fuzz_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

func decoder(t *testing.T, opts ...fuzz.Option) *fuzz.Decoder {
	t.Helper()
	d, err := fuzz.NewDecoder(opts...)
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

var typed = model.ConfigOfProfile(model.ProfileTyped)

// TestSitesFollowTheCatalogue: the sites are the catalogue's kinds, in
// catalogue order, at their own events; designed at the designed ordinal,
// ordinals at 1 to MaxOrdinal.
func TestSitesFollowTheCatalogue(t *testing.T) {
	cat := model.Catalogue()
	designed := decoder(t).Sites()
	ordinals := decoder(t, fuzz.WithScope(fuzz.ScopeOrdinals)).Sites()
	if len(designed) != len(cat) || len(ordinals) != fuzz.MaxOrdinal*len(cat) {
		t.Fatalf("%d designed and %d ordinal sites for %d kinds", len(designed), len(ordinals), len(cat))
	}
	for i, spec := range cat {
		if want := (fuzz.Site{Kind: spec.Kind, Event: spec.Event, Ordinal: spec.Ordinal}); designed[i] != want {
			t.Errorf("designed site %d = %v, want %v", i, designed[i], want)
		}
		for o := 1; o <= fuzz.MaxOrdinal; o++ {
			if want := (fuzz.Site{Kind: spec.Kind, Event: spec.Event, Ordinal: o}); ordinals[i*fuzz.MaxOrdinal+o-1] != want {
				t.Errorf("ordinal site %d = %v, want %v", i*fuzz.MaxOrdinal+o-1, ordinals[i*fuzz.MaxOrdinal+o-1], want)
			}
		}
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
	if e := d.Decode(nil); len(e.Faults) != 0 || e.Seed != "fuzz-" || e.Config != typed {
		t.Errorf("empty input decodes to %+v, want the fault-free typed run", e)
	}
	o := decoder(t, fuzz.WithScope(fuzz.ScopeOrdinals), fuzz.WithProfile(model.ProfileBaseline))
	s := o.Decode([]byte{7})
	if len(s.Faults) != 1 || s.Faults[0] != entry(model.Catalogue()[2].Kind, 2) || s.Config != model.ConfigOfProfile(model.ProfileBaseline) {
		t.Errorf("ordinals scope decodes byte 7 to %+v, want the third kind at ordinal 2 under baseline", s)
	}
}

// TestDecodeIsTotalAndDeterministic: random inputs (a seeded PCG) always
// decode to a valid schedule of the right length whose faults are sites of
// the scope, the same each time, and Encode inverts Decode.
func TestDecodeIsTotalAndDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 188))
	for _, scope := range []fuzz.Scope{fuzz.ScopeDesigned, fuzz.ScopeOrdinals} {
		d := decoder(t, fuzz.WithScope(scope), fuzz.WithMaxFaults(6))
		sites := map[fuzz.Site]bool{}
		for _, s := range d.Sites() {
			sites[s] = true
		}
		for range 3000 {
			data := make([]byte, rng.IntN(12))
			for i := range data {
				data[i] = byte(rng.UintN(256))
			}
			s := d.Decode(data)
			if err := s.Validate(); err != nil {
				t.Fatalf("%x decodes to an invalid schedule: %v", data, err)
			}
			if len(s.Faults) != min(len(data), 6) {
				t.Fatalf("%x decodes to %d faults", data, len(s.Faults))
			}
			for _, f := range s.Faults {
				if !sites[fuzz.Site{Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal}] {
					t.Fatalf("%x decodes to a fault outside scope %s: %+v", data, scope, f)
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
}

func TestNewDecoderErrors(t *testing.T) {
	cases := []struct {
		opts []fuzz.Option
		want string
	}{
		{[]fuzz.Option{fuzz.WithProfile("paranoid")}, `unknown profile "paranoid"`},
		{[]fuzz.Option{fuzz.WithMaxFaults(0)}, "max faults 0 out of range (1 to 64)"},
		{[]fuzz.Option{fuzz.WithMaxFaults(65)}, "max faults 65 out of range"},
		{[]fuzz.Option{fuzz.WithScope(fuzz.Scope(9))}, "unknown scope 9"},
		{[]fuzz.Option{fuzz.WithSystem(fuzz.System{Name: "x"})}, `system "x" has no name or no factory`},
	}
	for _, c := range cases {
		if _, err := fuzz.NewDecoder(c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := fuzz.ParseScope("wide"); err == nil || err.Error() != `unknown scope "wide" (valid: designed, ordinals)` {
		t.Errorf("ParseScope: %v", err)
	}
	if _, err := fuzz.Mutant("no_idempotency"); err == nil || err.Error() != `no mutant of the reference system named "no_idempotency" exists (known mutants: none)` {
		t.Errorf("Mutant: %v", err)
	}
	cs, err := fuzz.ParseControlList(" idempotency, ,effect_readback")
	if err != nil || cs.String() != "idempotency,effect_readback" {
		t.Errorf("ParseControlList: %v %v", cs, err)
	}
	if cs, err := fuzz.ParseControlList(""); err != nil || cs != 0 {
		t.Errorf("empty list: %v %v", cs, err)
	}
	if _, err := fuzz.ParseControlList("idempotency,magic"); err == nil || !strings.Contains(err.Error(), `unknown control "magic"`) {
		t.Errorf("unknown control: %v", err)
	}
}

// TestDesignedScopeHoldsUnderTyped runs every composition of up to three
// faults of the default scope, in every order, against the typed profile:
// the default target must not fail there, and none does.
func TestDesignedScopeHoldsUnderTyped(t *testing.T) {
	d := decoder(t)
	n := len(d.Sites())
	runs := 0
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		runs++
		if _, err := d.Check(d.Decode(prefix)); err != nil {
			t.Fatal(err)
		}
		if len(prefix) == 3 {
			return
		}
		for i := range n {
			walk(append(append([]byte(nil), prefix...), byte(i)))
		}
	}
	walk(nil)
	if want := 1 + n + n*n + n*n*n; runs != want {
		t.Fatalf("%d runs, want %d", runs, want)
	}
}

// TestBaselineFailsAtOnce: against the baseline, the timeout after commit
// alone is a counterexample (seed 000's duplicate refund).
func TestBaselineFailsAtOnce(t *testing.T) {
	d := decoder(t, fuzz.WithProfile(model.ProfileBaseline))
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
		"invariant violated: profile baseline, system reference, run verdict unrecoverable, claim verdict unsafe",
		"effect_at_most_once: first false after seq 12 (tool.commit), reached by f1: second ledger effect for task refund-O-731",
		string(model.Format(v.Schedule)),
		"go run ./cmd/faultline replay /tmp/faultline-" + v.Result.RunID + ".json",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// TestOrdinalsScopeFindsTheTypedGap records the typed profile's known
// counterexample outside the designed scope: the policy turns stale at the
// re-read refresh_context makes before the effect (context.policy#2), the
// refresh sees the cached version it expects, and the refund commits
// under a policy that forbids it.
func TestOrdinalsScopeFindsTheTypedGap(t *testing.T) {
	d := decoder(t, fuzz.WithScope(fuzz.ScopeOrdinals))
	res, err := d.Check(schedule(typed, entry("stale_policy", 2)))
	if err == nil {
		t.Fatal("no violation")
	}
	inv, _ := res.Invariant(model.InvCurrentEntitlement)
	if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" || inv.Detail != "current policy does not allow the effect" {
		t.Fatalf("current_entitlement: %+v", inv)
	}
	if !res.Terms.UnsafeEscape || res.RunVerdict != model.Unrecoverable || !(res.Held() == false) {
		t.Fatalf("terms %+v verdict %s", res.Terms, res.RunVerdict)
	}
}

// TestShrinkDropsIrrelevantFaults: of three faults only the stale policy
// at the refresh breaks an invariant; Shrink keeps exactly it, and cannot
// lower its ordinal (at ordinal 1 the typed profile denies).
func TestShrinkDropsIrrelevantFaults(t *testing.T) {
	d := decoder(t, fuzz.WithScope(fuzz.ScopeOrdinals))
	s := schedule(typed, entry("timeout_after_commit", 1), entry("stale_policy", 2), entry("drop_effect_receipt", 1))
	min, res, err := d.Shrink(s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]model.FaultEntry{entry("stale_policy", 2)}, min.Faults); diff != "" {
		t.Errorf("shrunk faults (-want +got):\n%s", diff)
	}
	if res.Held() || len(s.Faults) != 3 {
		t.Errorf("shrunk run holds, or the input was changed")
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
	if s.Config != model.ConfigOfProfile(model.ProfileBaseline) || s.Faults[0] != entry("timeout_after_commit", 2) {
		t.Errorf("file decodes to %+v", s)
	}
	if got := d.Schedule([]byte("{not json")); got.Config != typed || len(got.Faults) != 4 {
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
	s := schedule(model.ConfigOfProfile(model.ProfileBaseline), entry("timeout_after_commit", 1))
	s.Seed = `it's "quoted" $HOME`
	hint := fuzz.ReplayHint(s, "run-test", "reference")
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
