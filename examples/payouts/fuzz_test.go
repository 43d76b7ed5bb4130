package payouts_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/examples/payouts"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

// payoutsDecoder is the decoder over the payout agent (the correct one
// for system {}, TrustNotices for payouts.Trusting) with the provider's
// notices on (the config's Notices).
func payoutsDecoder(t testing.TB, system []byte, opts ...fuzz.Option) *fuzz.Decoder {
	t.Helper()
	d, err := fuzz.NewDecoder(payouts.Definition(), append([]fuzz.Option{fuzz.WithConfig(model.Config{System: system, Notices: true})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// noticeSeeds are the corpus's schedules of the provider's notices
// (reference/corpus/notices), encoded for d, with the empty input.
func noticeSeeds(t testing.TB, d *fuzz.Decoder) ([][]byte, []string) {
	t.Helper()
	c, err := corpus.Load("../../reference/corpus/notices")
	if err != nil {
		t.Fatal(err)
	}
	seeds, names := [][]byte{{}}, []string{"empty"}
	for _, s := range c.Seeds {
		b, err := d.Encode(s.Schedule)
		if err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		seeds, names = append(seeds, b), append(names, s.Path)
	}
	return seeds, names
}

// noticeKinds are the kinds FuzzPayoutsNotices composes: the four of the
// provider's notices (naming them turns the notices on) and the rate
// limit, which makes a failed notice. The payout agent defends its
// notices, not the rest of the catalogue.
var noticeKinds = []string{"rate_limit", "late_notice", "reordered_notice", "redelivered_notice", "lost_notice"}

// FuzzPayoutsNotices is the native fuzz target of the payout agent over
// the kinds of the provider's notices: compositions of the four notice
// kinds at its notice.receive crossings and the rate limit, seeded by the corpus's notice schedules. The
// correct agent must hold recorded_agrees_with_ledger under every one;
// PAYOUTS_BUG=trust_notices fuzzes the planted bug, which fails at once.
func FuzzPayoutsNotices(f *testing.F) {
	system := []byte(`{}`)
	if bug := os.Getenv("PAYOUTS_BUG"); bug != "" {
		system = []byte(`{"bug":"` + bug + `"}`)
	}
	opts := []fuzz.Option{fuzz.WithKinds(noticeKinds...), fuzz.WithFailDir(f.TempDir())}
	seeds, _ := noticeSeeds(f, payoutsDecoder(f, system, fuzz.WithKinds(noticeKinds...)))
	for _, b := range seeds {
		f.Add(b)
	}
	f.Fuzz(fuzz.For(payouts.Definition(), append([]fuzz.Option{fuzz.WithConfig(model.Config{System: system})}, opts...)...))
}

// TestPayoutsNoticeSeeds: with notices on, the payout agent's decoder
// places the four notice kinds at its notice.receive crossings, after the
// catalogue's kinds and the world events; without them it places none
// (the sites of a run without notices). The corpus's four notice
// schedules encode as seeds of one or two bytes; each breaks
// recorded_agrees_with_ledger in the agent that trusts its notices,
// shrunk to itself but for the late failed notice, whose late notice
// alone breaks it, and holds in the correct
// agent, every fault reached.
func TestPayoutsNoticeSeeds(t *testing.T) {
	d := payoutsDecoder(t, payouts.Trusting)
	var notice []string
	for _, s := range d.Sites() {
		if s.Event == model.EvNoticeReceive && strings.HasSuffix(s.Kind, "_notice") {
			notice = append(notice, s.String())
		}
	}
	if !slices.Equal(notice, []string{"late_notice@notice.receive#1", "reordered_notice@notice.receive#1", "redelivered_notice@notice.receive#1", "lost_notice@notice.receive#1"}) {
		t.Errorf("notice sites %v", notice)
	}
	plain, err := fuzz.NewDecoder(payouts.Definition(), fuzz.WithConfig(model.Config{System: payouts.Trusting}))
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.Sites(); len(got) != len(d.Sites())-4 || slices.ContainsFunc(got, func(s fuzz.Site) bool { return s.Event == model.EvNoticeReceive }) {
		t.Errorf("without notices: %d sites, with %d", len(got), len(d.Sites()))
	}
	correct := payoutsDecoder(t, []byte(`{}`), fuzz.WithKinds(noticeKinds...))
	if got := len(correct.Sites()); got != 5 {
		t.Errorf("WithKinds: %d sites %v", got, correct.Sites())
	}
	if _, err := fuzz.NewDecoder(payouts.Definition(), fuzz.WithKinds("late_notices")); err == nil || !strings.Contains(err.Error(), `fuzz: unknown fault kind "late_notices"`) {
		t.Errorf("unknown kind: %v", err)
	}
	seeds, names := noticeSeeds(t, d)
	// the payout po-9 by its reference, as a fuzz failure shows it
	details := map[string]string{
		"late-failed-notice.json": "checkpoint 3 withdraws effect ref-c839ef2a:pay, which checkpoint 2 recorded and the provider's ledger holds",
		"lost-notice.json":        "checkpoint 3 withdraws effect ref-c839ef2a:pay, which checkpoint 2 recorded and the provider's ledger holds",
		"redelivered-notice.json": "checkpoint 3 records effect ref-c839ef2a:pay 2 times; the provider's ledger holds it 1",
		"reordered-notice.json":   "checkpoint 3 withdraws effect ref-c839ef2a:pay, which checkpoint 2 recorded and the provider's ledger holds",
	}
	for i, b := range seeds[1:] {
		name := names[i+1]
		s := d.Decode(b)
		err := d.Verify(s)
		var f *fuzz.Failure
		shrunk := s.Faults
		if name == "late-failed-notice.json" {
			shrunk = s.Faults[1:] // the late notice alone breaks the trusting agent
		}
		if !errors.As(err, &f) || f.Invariant != model.InvRecordedAgreesWithLedger || f.Detail != details[name] || !slices.Equal(f.Schedule.Faults, shrunk) {
			t.Errorf("%s (%x), trusting: %v", name, b, err)
		}
		res, err := correct.Check(correct.Decode(b))
		if err != nil || slices.ContainsFunc(res.Faults, func(f model.FaultReport) bool { return !f.Reached }) {
			t.Errorf("%s, correct: %v", name, err)
		}
	}
	if len(seeds) != 5 {
		t.Errorf("%d seeds", len(seeds))
	}
}

// TestPayoutsNoticesRapid: the rapid property of the payout decoder over
// the notice kinds and the rate limit draws only those kinds, and the
// notices are on in every schedule it draws, every one of the five kinds
// drawn in 100 checks; the correct agent holds its property in 100 checks.
func TestPayoutsNoticesRapid(t *testing.T) {
	gen, err := payoutsDecoder(t, []byte(`{}`), fuzz.WithKinds(noticeKinds...)).RapidGenerator()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	rapid.Check(t, func(rt *rapid.T) {
		s := gen.Draw(rt, "schedule")
		if !s.Config.Notices {
			rt.Fatalf("notices off: %s", model.Format(s))
		}
		for _, f := range s.Faults {
			if !slices.Contains(noticeKinds, f.Kind) {
				rt.Fatalf("kind %s drawn", f.Kind)
			}
			seen[f.Kind] = true
		}
	})
	if len(seen) != len(noticeKinds) {
		t.Errorf("kinds drawn: %v", seen)
	}
	prop, err := payoutsDecoder(t, []byte(`{}`), fuzz.WithKinds(noticeKinds...)).RapidProperty(nil)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, prop)
}
