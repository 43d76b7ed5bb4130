package coverage_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// genSchedule draws a valid schedule of one or two catalogue faults at
// ordinals 1 to 3 (with a target, sometimes, for memory_loss and
// branch_failure) under a profile or an explicit control set, sometimes
// with a mutant of the reference system and retry budget, deadline or join
// overrides.
func genSchedule(t *rapid.T, label string) *model.Schedule {
	specs := model.Catalogue()
	n := rapid.IntRange(1, 2).Draw(t, label+".faults")
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, label+".seed")}
	if rapid.Bool().Draw(t, label+".explicit") {
		s.Config = copperfin.ConfigOfControls(copperfin.Controls(rapid.IntRange(0, 255).Draw(t, label+".controls")))
	} else {
		s.Config = copperfin.ConfigOfProfile(rapid.SampledFrom(copperfin.Profiles).Draw(t, label+".profile"))
	}
	if rapid.IntRange(0, 3).Draw(t, label+".mutated") == 0 {
		s.Config = copperfin.WithMutant(s.Config, string(rapid.SampledFrom(copperfin.Mutants()).Draw(t, label+".mutant").Name))
	}
	if rapid.IntRange(0, 3).Draw(t, label+".budgeted") == 0 {
		b := rapid.IntRange(0, 3).Draw(t, label+".retry_budget")
		s.Config.RetryBudget = &b
	}
	if rapid.IntRange(0, 3).Draw(t, label+".timed") == 0 {
		d := model.Millis(rapid.SampledFrom([]int64{150, 400, 2000}).Draw(t, label+".deadline"))
		s.Config.Deadline = &d
	}
	s.Config.Join = rapid.SampledFrom([]model.JoinPolicy{"", "all_required", "best_effort", "compensate"}).Draw(t, label+".join")
	for i := range n {
		spec := rapid.SampledFrom(specs).Draw(t, label+".kind")
		f := model.FaultEntry{ID: []string{"f1", "f2"}[i], Event: spec.Event,
			Ordinal: rapid.IntRange(1, 3).Draw(t, label+".ordinal"), Kind: spec.Kind}
		switch spec.Kind {
		case "memory_loss":
			f.Target = rapid.SampledFrom([]string{"", "approval"}).Draw(t, label+".target")
		case "branch_failure":
			f.Target = rapid.SampledFrom([]string{"", copperfin.BranchSearch, copperfin.BranchSummarize}).Draw(t, label+".target")
		}
		if f.Event == model.EvToolCommit {
			f.Tool = rapid.SampledFrom([]string{"", "charge", "search"}).Draw(t, label+".tool")
		}
		s.Faults = append(s.Faults, f)
	}
	return s
}

// genSystems draws up to three systems (the reference and two of other
// domains) whose runs add up to at most runs, each with some traced runs,
// crossed events, not-applicable boundaries and a replay template; the
// second result lists the names a schedule may carry ("" among them).
func genSystems(t *rapid.T, label string, runs int) (map[string]*coverage.SystemRecord, []string) {
	names := []string{""}
	var out map[string]*coverage.SystemRecord
	for _, n := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{copperfin.Name, "billing", "tickets"}), func(s string) string { return s }).Draw(t, label+".systems") {
		if runs == 0 {
			break
		}
		r := &coverage.SystemRecord{Runs: rapid.IntRange(1, runs).Draw(t, label+".sysruns")}
		runs -= r.Runs
		r.Traced = rapid.IntRange(0, r.Runs).Draw(t, label+".traced")
		if r.Traced > 0 {
			r.Crossed = rapid.SliceOfNDistinct(rapid.SampledFrom(model.AllEvents), 0, 6, func(e model.EventName) model.EventName { return e }).Draw(t, label+".crossed")
			slices.Sort(r.Crossed)
		}
		r.NotApplicable = rapid.SliceOfNDistinct(rapid.SampledFrom(model.AllBoundaries), 0, 3, func(b model.Boundary) model.Boundary { return b }).Draw(t, label+".na")
		slices.Sort(r.NotApplicable)
		if len(r.Crossed) == 0 {
			r.Crossed = nil
		}
		if len(r.NotApplicable) == 0 {
			r.NotApplicable = nil
		}
		r.Replay = rapid.SampledFrom([]string{"", "replay %s", "FAULTLINE_REPLAY=%s go test ./" + n}).Draw(t, label+".replay")
		if out == nil {
			out = map[string]*coverage.SystemRecord{}
		}
		out[n] = r
		names = append(names, n)
	}
	return out, names
}

// genData draws a valid Data: entries under reachable keys whose
// schedules hold a fault of the key, counterexamples under visited keys,
// with systems, and schedules of those systems (or of none); besides the
// built-in invariants, counterexamples may name a system's own
// (charged_once, paid_has_receipt).
func genData(t *rapid.T, label string) *coverage.Data {
	u := coverage.Default()
	d := &coverage.Data{Keys: map[coverage.Key]*coverage.Entry{}}
	d.Runs = rapid.IntRange(0, 50).Draw(t, label+".runs")
	d.NotAdjudicated = rapid.IntRange(0, d.Runs).Draw(t, label+".notadj")
	var sysNames []string
	d.Systems, sysNames = genSystems(t, label, d.Runs)
	// every invariant, in name order, as a file keeps them
	invs := []string{"charged_once", "paid_has_receipt"}
	for _, inv := range model.Invariants {
		invs = append(invs, inv.Name)
	}
	slices.Sort(invs)
	// withKind makes s a schedule of key k's first kind; a key of a
	// correlation modifier takes the kind's CorrelatedSchedule
	withKind := func(s *model.Schedule, k coverage.Key) *model.Schedule {
		kind := u.Kinds(k)[0]
		spec, _ := model.Spec(kind)
		if k.Correlation != spec.Correlation {
			c, err := copperfin.CorrelatedSchedule(kind, k.Correlation, s.Config)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		if s.Faults[0].Kind != kind {
			s.Faults[0].Target = "" // the target of another kind
		}
		s.Faults[0].Kind, s.Faults[0].Event = kind, spec.Event
		if spec.Event != model.EvToolCommit {
			s.Faults[0].Tool = ""
		}
		return s
	}
	cx := func(k coverage.Key, l string) []coverage.Counterexample {
		var out []coverage.Counterexample
		for _, inv := range invs {
			if rapid.Bool().Draw(t, l+".has") {
				c := coverage.Counterexample{Violation: model.Violation{Invariant: inv}, Count: rapid.IntRange(1, 5).Draw(t, l+".count"),
					Schedule: withKind(genSchedule(t, l), k)}
				c.FirstSeq = rapid.IntRange(1, 20).Draw(t, l+".seq")
				c.Event = rapid.SampledFrom(model.AllEvents).Draw(t, l+".event")
				c.Detail = rapid.SampledFrom([]string{"x", "y"}).Draw(t, l+".detail")
				c.System = rapid.SampledFrom(sysNames).Draw(t, l+".system")
				out = append(out, c)
			}
		}
		return out
	}
	for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(u.Reachable()), 0, 6, func(k coverage.Key) string { return k.String() }).Draw(t, label+".keys") {
		e := &coverage.Entry{Visits: rapid.IntRange(0, 9).Draw(t, label+".visits"),
			NotReached: rapid.IntRange(0, 3).Draw(t, label+".nr"), NotFired: rapid.IntRange(0, 3).Draw(t, label+".nf")}
		if e.Visits+e.NotReached+e.NotFired == 0 {
			e.NotReached = 1
		}
		if e.Visits > 0 {
			e.Schedule = withKind(genSchedule(t, label+".sched"), k)
			e.System = rapid.SampledFrom(sysNames).Draw(t, label+".system")
			e.Counterexamples = cx(k, label+".cx")
		}
		d.Keys[k] = e
	}
	stale, _ := u.KindKey("stale_policy")
	d.Unattributed = cx(stale, label+".un")
	return d
}

func write(t *rapid.T, d *coverage.Data) string {
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMergeLaws: merge is associative and commutative (as files, byte for
// byte), merging a file with itself doubles every count and keeps every
// schedule and every set (each system's crossed events, not-applicable
// boundaries and replay template: idempotent), and the file round-trips.
func TestMergeLaws(t *testing.T) {
	if raceDetector {
		t.Skip("a property of pure functions, with no goroutine for the detector: go test ./... runs it in full")
	}
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := genData(t, "a"), genData(t, "b"), genData(t, "c")
		if x, y := write(t, coverage.Merge(a, coverage.Merge(b, c))), write(t, coverage.Merge(coverage.Merge(a, b), c)); x != y {
			t.Fatalf("not associative:\n%s\n---\n%s", x, y)
		}
		if x, y := write(t, coverage.Merge(a, b)), write(t, coverage.Merge(b, a)); x != y {
			t.Fatalf("not commutative:\n%s\n---\n%s", x, y)
		}
		aa := coverage.Merge(a, a)
		want := a.Clone()
		want.Runs *= 2
		want.NotAdjudicated *= 2
		for _, e := range want.Keys {
			e.Visits, e.NotReached, e.NotFired = 2*e.Visits, 2*e.NotReached, 2*e.NotFired
			for i := range e.Counterexamples {
				e.Counterexamples[i].Count *= 2
			}
		}
		for i := range want.Unattributed {
			want.Unattributed[i].Count *= 2
		}
		for _, r := range want.Systems {
			r.Runs, r.Traced = 2*r.Runs, 2*r.Traced
		}
		if diff := cmp.Diff(want, aa); diff != "" {
			t.Fatalf("merging with itself is not doubling (-want +got):\n%s", diff)
		}
		text := write(t, a)
		back, err := coverage.Read(bytes.NewReader([]byte(text)))
		if err != nil {
			t.Fatalf("reading what was written: %v\n%s", err, text)
		}
		if diff := cmp.Diff(a, back, cmp.Transformer("nilCx", func(cs []coverage.Counterexample) []coverage.Counterexample {
			if len(cs) == 0 {
				return nil
			}
			return cs
		})); diff != "" {
			t.Fatalf("round trip (-wrote +read):\n%s", diff)
		}
		if write(t, back) != text {
			t.Fatal("round trip changed the bytes")
		}
		if write(t, a) != text {
			t.Fatal("merge changed an input")
		}
	})
}

// TestSeparateRunsMergeToOneRun: recording schedules in two trackers (two
// processes) and merging their files equals recording all of them in one,
// in any order: the issue's "merged reports from separate runs equal a
// single run over the same schedules".
func TestSeparateRunsMergeToOneRun(t *testing.T) {
	oneGoroutine(t)
	rapid.Check(t, func(t *rapid.T) {
		scheds := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *model.Schedule { return genSchedule(t, "s") }), 1, 8).Draw(t, "schedules")
		cut := rapid.IntRange(0, len(scheds)).Draw(t, "cut")
		perm := rapid.Permutation(scheds).Draw(t, "order")
		one, left, right := newTracker(t, nil), newTracker(t, nil), newTracker(t, nil)
		for i, s := range scheds {
			res := runSchedule(t, s)
			side := left
			if i >= cut {
				side = right
			}
			if err := side.Record(res); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range perm {
			if err := one.Record(runSchedule(t, s)); err != nil {
				t.Fatal(err)
			}
		}
		var lb, rb bytes.Buffer
		left.Data().Write(&lb)
		right.Data().Write(&rb)
		l, err := coverage.Read(&lb)
		if err != nil {
			t.Fatal(err)
		}
		r, err := coverage.Read(&rb)
		if err != nil {
			t.Fatal(err)
		}
		if x, y := write(t, coverage.Merge(l, r)), write(t, one.Data()); x != y {
			t.Fatalf("merged files:\n%s\none tracker:\n%s", x, y)
		}
	})
}

// TestScheduleLessIsFormatOrder: ScheduleLess is a strict total order whose
// ties are exactly the schedules model.Format writes alike, whichever field
// two schedules differ in (seed, a fault's ordinal, kind, id, target or tool, the
// profile or controls, the mutant, an override, the join policy, the number
// of faults), so the schedule a key keeps never depends on the order runs
// arrive.
func TestScheduleLessIsFormatOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genSchedule(t, "a")
		b, err := model.ParseSchedule(model.Format(a))
		if err != nil {
			t.Fatal(err)
		}
		switch rapid.IntRange(0, 12).Draw(t, "change") {
		case 1:
			b.Seed += "x"
		case 2:
			b.Faults[0].Ordinal++
		case 3:
			b.Faults[0].Target += "x"
		case 4:
			b.Faults[0].ID = "g1"
		case 5:
			b.Config = copperfin.WithMutant(b.Config, rapid.SampledFrom([]string{"", string(copperfin.TimeoutAsSuccess), string(copperfin.UnboundedRetry)}).Draw(t, "mutant"))
		case 6:
			if b.Config.RetryBudget == nil {
				v := 2
				b.Config.RetryBudget = &v
			} else {
				v := *b.Config.RetryBudget + rapid.IntRange(0, 1).Draw(t, "more")
				b.Config.RetryBudget = &v
			}
		case 7:
			if b.Config.Deadline == nil {
				v := model.Millis(2000)
				b.Config.Deadline = &v
			} else {
				b.Config.Deadline = nil
			}
		case 8:
			b.Config.Join = rapid.SampledFrom([]model.JoinPolicy{"", "all_required", "best_effort", "compensate"}).Draw(t, "join")
		case 9:
			cfg := copperfin.ConfigOfProfile(rapid.SampledFrom(copperfin.Profiles).Draw(t, "profile"))
			if rapid.Bool().Draw(t, "explicit") {
				cfg = copperfin.ConfigOfControls(copperfin.Controls(rapid.IntRange(0, 3).Draw(t, "controls")))
			}
			cfg = copperfin.WithMutant(cfg, copperfin.MutantOf(b.Config))
			cfg.RetryBudget, cfg.Deadline, cfg.Join = b.Config.RetryBudget, b.Config.Deadline, b.Config.Join
			b.Config = cfg
		case 10:
			spec := rapid.SampledFrom(model.Catalogue()).Draw(t, "kind")
			b.Faults[0].Kind, b.Faults[0].Event, b.Faults[0].Target = spec.Kind, spec.Event, ""
			if spec.Event != model.EvToolCommit {
				b.Faults[0].Tool = ""
			}
		case 11:
			b.Faults = b.Faults[:len(b.Faults)-1]
		case 12:
			b.Faults[0].Kind, b.Faults[0].Event, b.Faults[0].Target = "timeout_after_commit", model.EvToolCommit, ""
			b.Faults[0].Tool = rapid.SampledFrom([]string{"", "charge", "search"}).Draw(t, "tool")
		}
		c := genSchedule(t, "c")
		same := func(x, y *model.Schedule) bool { return bytes.Equal(model.Format(x), model.Format(y)) }
		for _, p := range [][2]*model.Schedule{{a, b}, {a, c}, {b, c}} {
			x, y := p[0], p[1]
			lt, gt := coverage.ScheduleLess(x, y), coverage.ScheduleLess(y, x)
			if lt && gt {
				t.Fatalf("each less than the other:\n%s\n%s", model.Format(x), model.Format(y))
			}
			if tie := !lt && !gt; tie != same(x, y) {
				t.Fatalf("tie %t, but Format equal %t:\n%s\n%s", tie, same(x, y), model.Format(x), model.Format(y))
			}
		}
		xs := []*model.Schedule{a, b, c}
		slices.SortFunc(xs, func(x, y *model.Schedule) int {
			switch {
			case coverage.ScheduleLess(x, y):
				return -1
			case coverage.ScheduleLess(y, x):
				return 1
			}
			return 0
		})
		if coverage.ScheduleLess(xs[1], xs[0]) || coverage.ScheduleLess(xs[2], xs[1]) || coverage.ScheduleLess(xs[2], xs[0]) {
			t.Fatal("not transitive")
		}
	})
}
