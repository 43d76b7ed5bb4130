package coverage_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// ticketEvents is the timeline of a support-ticket agent, a system of
// another domain than refunds: it reads the ticket (context.subject) and the
// team's reply policy, proposes a reply, gets it approved and re-checked,
// posts it through the helpdesk tool, reads the post back and files its
// receipt. It keeps no checkpoint, no memory and no branches, and never
// reads an eligibility source.
var ticketEvents = []model.EventName{model.EvWorkerStart, model.EvContextSubject, model.EvContextPolicy, model.EvProposal,
	model.EvAuthorityGrant, model.EvAuthorityCheck, model.EvToolCommit, model.EvLedgerReadback, model.EvEvidenceReceipt, model.EvClaim}

// planted is one scheduled fault of a hand-built run: its kind at the
// ordinal-th occurrence of the kind's event, and whether the run reached
// it (a reached fault fired once).
type planted struct {
	kind    string
	ordinal int
	reached bool
}

// systemRun builds the result of one adjudicated run of a system whose
// timeline is events: the faults as planted, every invariant of invs
// held except those in broken, which the first fault reached.
func systemRun(t *testing.T, events []model.EventName, invs []string, broken []string, faults ...planted) *model.Result {
	t.Helper()
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "user", Config: model.Config{}}
	res := &model.Result{Schedule: s, Claims: []model.TaskClaim{{Task: "T-1", Verdict: model.ClaimRelease}}}
	var tl []model.Event
	for i, ev := range events {
		tl = append(tl, model.Event{Seq: i + 1, Event: ev, Ordinal: 1})
	}
	res.Timeline = model.TimelineOf(tl)
	for i, f := range faults {
		spec, err := model.Spec(f.kind)
		if err != nil {
			t.Fatal(err)
		}
		id := "f" + string(rune('1'+i))
		s.Faults = append(s.Faults, model.FaultEntry{ID: id, Event: spec.Event, Ordinal: f.ordinal, Kind: f.kind})
		fr := model.FaultReport{ID: id, Kind: f.kind, Event: spec.Event, Ordinal: f.ordinal, Reached: f.reached, Oracle: spec.Oracle}
		if f.reached {
			fr.Fired, fr.FiredAt = 1, 7
		}
		res.Faults = append(res.Faults, fr)
	}
	if _, err := model.ParseSchedule(model.Format(s)); err != nil {
		t.Fatalf("hand-built schedule: %v", err)
	}
	for _, name := range invs {
		ir := model.InvariantResult{Violation: model.Violation{Invariant: name}, Oracle: "ledger_readback", Held: true}
		for _, b := range broken {
			if b == name {
				ir.Held, ir.FirstSeq, ir.Event, ir.FaultID, ir.Detail = false, 8, model.EvToolCommit, "f1", "second post for ticket T-1"
			}
		}
		res.Invariants = append(res.Invariants, ir)
	}
	return res
}

// ticketCampaign records the ticket agent's campaign: a timeout after the
// post (reached; answered_once breaks), a stale policy (reached, held), and
// the reference system's checkpoint placement, checkpoint_rollback at the
// third checkpoint.write, which this system never reaches.
func ticketCampaign(t *testing.T, sys *model.Definition) *coverage.Tracker {
	t.Helper()
	tr, err := coverage.NewTracker(nil, sys)
	if err != nil {
		t.Fatal(err)
	}
	invs := []string{"answered_once", "reply_has_receipt"}
	for _, res := range []*model.Result{
		systemRun(t, ticketEvents, invs, []string{"answered_once"}, planted{"timeout_after_commit", 1, true}),
		systemRun(t, ticketEvents, invs, nil, planted{"stale_policy", 1, true}),
		systemRun(t, ticketEvents, invs, nil, planted{"checkpoint_rollback", 3, false}),
	} {
		if err := tr.Record(res); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func rowsOf(rows []coverage.KeyRow) []string {
	var out []string
	for _, k := range rows {
		out = append(out, k.Key+" "+k.Status+": "+k.Reason)
	}
	return out
}

// TestNeverCrossedBySystem: the ticket agent never crosses a checkpoint,
// memory or branch event, so the seven keys whose kinds enter
// there are never crossed, each with its own status and reason, counted
// apart from the visited and the unvisited keys; checkpoint_rollback's
// unreached fault is counted in its key's reason, not as a visit.
func TestNeverCrossedBySystem(t *testing.T) {
	d := ticketCampaign(t, &model.Definition{Name: "tickets"}).Data()
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	s := r.Summary
	if s.Visited != 2 || s.Violated != 1 || s.Held != 1 || s.NeverCrossed != 7 || s.NotApplicable != 0 ||
		s.NotReached != 0 || s.NeverTried != 21 || s.NotDrawn != 10 || s.Applicable != 23 || !s.Crossings || s.Traced != 3 || s.Runs != 3 {
		t.Fatalf("summary %+v", s)
	}
	const who = "never crossed by this system (tickets, 3 runs): no recorded run crossed "
	want := []string{
		"context/memory/before_commit/isolated/checkpoint_store never_crossed: " + who + "memory.read, where memory_loss enters",
		"state/state/after_checkpoint/isolated/ledger_readback never_crossed: " + who + "checkpoint.write, where checkpoint_rollback enters; scheduled 1 time, never reached (checkpoint_rollback)",
		"state/state/after_checkpoint/repeated/ledger_readback never_crossed: " + who + "checkpoint.write, where checkpoint_rollback enters",
		"state/state/after_checkpoint/persistent/ledger_readback never_crossed: " + who + "checkpoint.write, where checkpoint_rollback enters",
		"state/worker/after_checkpoint/isolated/checkpoint_store never_crossed: " + who + "checkpoint.write, where worker_restart enters",
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store never_crossed: " + who + "checkpoint.write, where missing_checkpoint or stale_checkpoint or future_version_checkpoint or corrupt_checkpoint enter",
		"state/branch_join/before_commit/isolated/join_record never_crossed: " + who + "branch.run, where branch_failure enters",
	}
	if diff := cmp.Diff(want, rowsOf(r.NeverCrossed)); diff != "" {
		t.Fatalf("never crossed (-want +got):\n%s", diff)
	}
	for _, k := range r.Unvisited {
		if k.Status == coverage.StatusNeverCrossed || strings.Contains(k.Key, "checkpoint") {
			t.Errorf("unvisited lists %s (%s)", k.Key, k.Status)
		}
	}
	// the checkpoint keys: never crossed, no visit, in the key table too
	checkpoint := 0
	for _, k := range r.Keys {
		if strings.Contains(k.Reason, "checkpoint.write") {
			checkpoint++
			if k.Status != coverage.StatusNeverCrossed || k.Visits != 0 || k.Schedule != nil {
				t.Errorf("%s: %s, %d visits", k.Key, k.Status, k.Visits)
			}
		}
	}
	if checkpoint != 5 {
		t.Fatalf("%d checkpoint keys, want 5", checkpoint)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"Coverage: 2 of 23 keys the systems can reach visited (8.7%; 40 reachable by the catalogue, 17 left out, each with why)\n",
		"  left out of the systems' universe and of the ratio: 7 never crossed, 0 not applicable (declared), 0 not enacted by their path, 10 exploration does not draw (a modifier, or a kind on that workload)\n",
		"  systems: tickets (3 runs, 10 events crossed)\n",
		"\nKeys never crossed by this system (7):\n  context/memory/before_commit/isolated/checkpoint_store  never_crossed: " + who + "memory.read, where memory_loss enters\n",
		"\nKeys not applicable to this system (0):\n  none\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q", line)
		}
	}
}

// TestNotApplicableBoundaries: a system that declares it has no
// checkpoint store, no memory and no branch join gets those three keys
// reported not applicable (not counted among the applicable keys); the
// checkpoint keys at other boundaries stay never crossed.
func TestNotApplicableBoundaries(t *testing.T) {
	sys := &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"memory", "checkpoint_store", "branch_join"}}
	d := ticketCampaign(t, sys).Data()
	if got := d.Systems["tickets"].NotApplicable; !cmp.Equal(got, []model.Boundary{"branch_join", "checkpoint_store", "memory"}) {
		t.Fatalf("declared %v", got)
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	s := r.Summary
	if s.NotApplicable != 3 || s.NeverCrossed != 4 || s.NotDrawn != 10 || s.Applicable != 23 || s.Ratio != 2.0/23 || s.Visited != 2 {
		t.Fatalf("summary %+v", s)
	}
	want := []string{
		"context/memory/before_commit/isolated/checkpoint_store not_applicable: not applicable: tickets declares it has no memory boundary",
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store not_applicable: not applicable: tickets declares it has no checkpoint_store boundary",
		"state/branch_join/before_commit/isolated/join_record not_applicable: not applicable: tickets declares it has no branch_join boundary",
	}
	if diff := cmp.Diff(want, rowsOf(r.NotApplicable)); diff != "" {
		t.Fatalf("not applicable (-want +got):\n%s", diff)
	}
	var text, md, html bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, out, want string }{
		{"text", text.String(), "Coverage: 2 of 23 keys the systems can reach visited (8.7%; 40 reachable by the catalogue, 17 left out, each with why)\n"},
		{"text", text.String(), "  systems: tickets (3 runs, 10 events crossed; no branch_join, checkpoint_store, memory)\n"},
		{"text", text.String(), "\nKeys not applicable to this system (3):\n  context/memory/before_commit/isolated/checkpoint_store  not_applicable: not applicable: tickets declares it has no memory boundary\n"},
		{"markdown", md.String(), "### Coverage: 2 of 23 keys the systems can reach visited (8.7%; 40 reachable by the catalogue, 17 left out, each with why)\n"},
		{"markdown", md.String(), "\n#### Keys not applicable to this system (3)\n\n- `context/memory/before_commit/isolated/checkpoint_store` (➖ not applicable): not applicable: tickets declares it has no memory boundary\n"},
		{"markdown", md.String(), "\n#### Keys never crossed by this system (4)\n\n- `state/state/after_checkpoint/isolated/ledger_readback` (🚫 never crossed): "},
		{"html", html.String(), "<title>faultline coverage: 2 of 23 keys the systems can reach visited (8.7%; 40 reachable by the catalogue, 17 left out, each with why)</title>"},
		{"html", html.String(), `<h2>Keys not applicable to this system (3)</h2>`},
		{"html", html.String(), `<li><code>state/branch_join/before_commit/isolated/join_record</code> (not applicable): not applicable: tickets declares it has no branch_join boundary</li>`},
		{"html", html.String(), `<h2>Keys never crossed by this system (4)</h2>`},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s report lacks %q", c.name, c.want)
		}
	}
	// the gate counts the keys the system can reach; a required key that is
	// not applicable is still missing, with its reason
	g, err := coverage.Gate(coverage.Default(), d, coverage.GateOptions{MinRatio: 2.0 / 23, HasMinRatio: true,
		Require: []coverage.Requirement{{Line: 1, Values: [5]string{"state", "branch_join", "*", "*", "*"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var gb bytes.Buffer
	g.WriteText(&gb)
	if g.Passed() || !g.RatioMet() || !strings.Contains(gb.String(), "  ratio 0.0870 (2 of 23 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 0.0870: met\n") ||
		!strings.Contains(gb.String(), "unvisited state/branch_join/before_commit/isolated/join_record: not_applicable: not applicable: tickets declares") {
		t.Fatalf("gate:\n%s", gb.String())
	}
}

// TestDeclarationNeverHidesAVisit: a visit under a boundary the system
// declares it does not have stays a visit, with a note.
func TestDeclarationNeverHidesAVisit(t *testing.T) {
	tr, err := coverage.NewTracker(nil, &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"effect"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Record(systemRun(t, ticketEvents, []string{"answered_once"}, nil, planted{"timeout_after_commit", 1, true})); err != nil {
		t.Fatal(err)
	}
	r := coverage.NewReport(coverage.Default(), tr.Data(), coverage.ReportOptions{})
	for _, k := range r.Keys {
		if k.Key == "tool/effect/after_commit/isolated/ledger_readback" &&
			(k.Status != coverage.StatusHeld || k.Reason != "visited, although tickets declared no effect boundary") {
			t.Fatalf("row %+v", k)
		}
	}
	if r.Summary.Visited != 1 {
		t.Fatalf("summary %+v", r.Summary)
	}
}

// TestUserInvariantFileRoundTrips: a coverage file holding a system's own
// invariant (charged_once) reads back, and every later flush into it
// merges (before, the file became unreadable after the first flush and
// every later flush failed: 1 flush in the file, the others lost).
func TestUserInvariantFileRoundTrips(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	invs := []string{"charged_once", "paid_has_receipt"}
	billing := &model.Definition{Name: "billing", ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestReplay$' ./billing"}
	for range 5 {
		tr, err := coverage.NewTracker(nil, billing)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if err := tr.Record(systemRun(t, ticketEvents, invs, []string{"charged_once"}, planted{"timeout_after_commit", 1, true})); err != nil {
				t.Fatal(err)
			}
		}
		if err := tr.FlushTo(p); err != nil {
			t.Fatal(err)
		}
	}
	d, err := coverage.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Keys[mustKey(t, "tool/effect/after_commit/isolated/ledger_readback")]
	if d.Runs != 20 || d.Systems["billing"].Runs != 20 || e.Visits != 20 || e.System != "billing" ||
		len(e.Counterexamples) != 1 || e.Counterexamples[0].Invariant != "charged_once" || e.Counterexamples[0].Count != 20 {
		t.Fatalf("file: runs %d, entry %+v", d.Runs, e)
	}
	r := coverage.NewReport(coverage.Default(), coverage.Merge(d, d), coverage.ReportOptions{Dir: "cx"})
	row := r.Keys[11]
	if row.Counterexamples[0].Invariant != "charged_once" || row.Counterexamples[0].Count != 40 ||
		row.Counterexamples[0].Schedule.Replay != "FAULTLINE_REPLAY=cx/"+row.Counterexamples[0].Schedule.File+" go test -run '^TestReplay$' ./billing" {
		t.Fatalf("row %+v", row)
	}
}

// TestRecordRefusesAnInvalidInvariantName: a name a file could not read
// back is refused when recorded, naming it, and nothing is counted.
func TestRecordRefusesAnInvalidInvariantName(t *testing.T) {
	tr, err := coverage.NewTracker(nil, &model.Definition{Name: "billing"})
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Record(systemRun(t, ticketEvents, []string{"Charged Once"}, nil, planted{"timeout_after_commit", 1, true}))
	if err == nil || err.Error() != `coverage: record: invariant name "Charged Once": must start with a lower-case letter a-z` {
		t.Fatalf("error %v", err)
	}
	if d := tr.Data(); d.Runs != 0 || len(d.Keys) != 0 || len(d.Systems) != 0 {
		t.Fatalf("counted %+v", d)
	}
	for name, want := range map[string]string{
		"charged_once":          "",
		"c":                     "",
		"x9_":                   "",
		"":                      `invariant name "": empty`,
		"9lives":                `invariant name "9lives": must start with a lower-case letter a-z`,
		"charged.once":          `invariant name "charged.once": byte 7 ('.') is not a lower-case letter, digit or underscore`,
		strings.Repeat("a", 64): "",
		strings.Repeat("a", 65): `invariant name "` + strings.Repeat("a", 65) + `": 65 bytes, longer than 64`,
	} {
		err := coverage.CheckInvariantName(name)
		if (want == "" && err != nil) || (want != "" && (err == nil || err.Error() != want)) {
			t.Errorf("%q: %v, want %q", name, err, want)
		}
	}
}

// TestSystemDeclarationIsChecked: a bad name, boundary or replay template
// is refused with an error naming it.
func TestSystemDeclarationIsChecked(t *testing.T) {
	for _, c := range []struct {
		sys  *model.Definition
		want string
	}{
		{&model.Definition{}, `coverage: system: system name "": empty`},
		{&model.Definition{Name: "Billing"}, `coverage: system: system name "Billing": must start with a lower-case letter a-z`},
		{&model.Definition{Name: "billing", NotApplicable: []model.Boundary{"vault"}}, `coverage: system billing: not applicable: unknown boundary "vault" (valid: proposal, authority,`},
		{&model.Definition{Name: "billing", NotApplicable: []model.Boundary{"memory", "memory"}}, `coverage: system billing: not applicable: boundary "memory" listed twice`},
		{&model.Definition{Name: "billing", ReplayCommand: "go test ./billing"}, `coverage: system billing: replay template "go test ./billing": holds 0 %s, want exactly one (the schedule file)`},
		{&model.Definition{Name: "billing", ReplayCommand: "cp %s %s"}, `holds 2 %s`},
		{&model.Definition{Name: "billing", ReplayCommand: "run %d %s"}, `a % that is neither %s nor %%`},
	} {
		_, err := coverage.NewTracker(nil, c.sys)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.sys, err, c.want)
		}
	}
	if _, err := coverage.NewTracker(nil, nil); err == nil || err.Error() != "coverage: system definition: nil" {
		t.Errorf("nil definition: %v", err)
	}
	// "%%" is a literal "%" in the replay line
	tr := ticketCampaign(t, &model.Definition{Name: "x", ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestX$' ./x # 100%%"})
	for _, k := range coverage.NewReport(coverage.Default(), tr.Data(), coverage.ReportOptions{}).Keys {
		if k.Schedule != nil && k.Schedule.Replay != "FAULTLINE_REPLAY="+k.Schedule.File+" go test -run '^TestX$' ./x # 100%" {
			t.Fatalf("template: %q", k.Schedule.Replay)
		}
	}
}

// TestReplayFollowsTheSystem: in one file merged from two systems, each
// schedule replays with its own system's command: the billing template,
// the faultline command's for the reference system, or a template given to the
// report; a system that recorded none replays with the report's default
// (the entry ""), or with no command.
func TestReplayFollowsTheSystem(t *testing.T) {
	billing, err := coverage.NewTracker(nil, &model.Definition{Name: "billing", ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestReplay$' ./billing"})
	if err != nil {
		t.Fatal(err)
	}
	if err := billing.Record(systemRun(t, ticketEvents, []string{"charged_once"}, []string{"charged_once"}, planted{"timeout_after_commit", 1, true})); err != nil {
		t.Fatal(err)
	}
	ref := record(t, single(t, "stale_policy", copperfin.ProfileBaseline))
	d := coverage.Merge(billing.Data(), ref.Data())
	replays := func(opts coverage.ReportOptions) map[string]string {
		out := map[string]string{}
		for _, k := range coverage.NewReport(coverage.Default(), d, opts).Keys {
			if k.Schedule != nil {
				out[k.Key] = k.Schedule.System + ": " + k.Schedule.Replay
			}
			for _, c := range k.Counterexamples {
				out[k.Key+" "+c.Invariant] = c.Schedule.System + ": " + strings.Fields(c.Schedule.Replay)[0]
			}
		}
		return out
	}
	got := replays(coverage.ReportOptions{Dir: "s", Replay: faultlineReplay.Replay})
	tool, policy := "tool/effect/after_commit/isolated/ledger_readback", "context/proposal/before_validation/isolated/policy_record"
	if !strings.HasPrefix(got[tool], "billing: FAULTLINE_REPLAY=s/timeout_after_commit-") || !strings.HasSuffix(got[tool], ".json go test -run '^TestReplay$' ./billing") ||
		!strings.HasPrefix(got[policy], "copperfin: faultline replay s/stale_policy-") ||
		got[tool+" charged_once"] != "billing: "+strings.Fields(got[tool])[1] {
		t.Fatalf("replay commands %v", got)
	}
	got = replays(coverage.ReportOptions{Replay: map[string]string{"billing": "billing-replay %s", "": "faultline replay %s"}})
	if !strings.HasPrefix(got[tool], "billing: billing-replay timeout_after_commit-") || !strings.HasPrefix(got[policy], "copperfin: faultline replay stale_policy-") {
		t.Fatalf("with a template: %v", got)
	}
	d = ticketCampaign(t, &model.Definition{Name: "tickets"}).Data()
	for opts, want := range map[*coverage.ReportOptions]string{
		{}: "(no replay command recorded)",
		{Replay: map[string]string{"": "prog replay %s"}}: "prog replay timeout_after_commit-",
	} {
		r := coverage.NewReport(coverage.Default(), d, *opts)
		if k := r.Keys[slices.IndexFunc(r.Keys, func(k coverage.KeyRow) bool { return k.Key == tool })]; !strings.HasPrefix(k.Schedule.Replay, want) {
			t.Errorf("no template, %v: %q, want %q", opts.Replay, k.Schedule.Replay, want)
		}
		if r.Systems[0].Replay != opts.Replay[""] {
			t.Errorf("system row: %q", r.Systems[0].Replay)
		}
	}
}

// TestCheckMergeRefusesTwoDeclarations: one system declared with two
// sets of boundaries in two files is refused, naming both; two replay
// templates are not two declarations.
func TestCheckMergeRefusesTwoDeclarations(t *testing.T) {
	a := ticketCampaign(t, &model.Definition{Name: "tickets"}).Data()
	b := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"memory"}}).Data()
	c := ticketCampaign(t, &model.Definition{Name: "tickets", ReplayCommand: "replay %s"}).Data()
	if err := coverage.CheckMerge(a, a); err != nil {
		t.Fatal(err)
	}
	if err := coverage.CheckMerge(a, b); err == nil || err.Error() != `systems["tickets"]: not-applicable boundaries differ: [] and [memory]` {
		t.Errorf("boundaries: %v", err)
	}
	// two replay templates of one system merge, either way round, to the
	// declared one (one declared, the other the default), or to the
	// smaller of two declared
	d := ticketCampaign(t, &model.Definition{Name: "tickets", ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestTickets$' ./tickets"}).Data()
	for _, c := range []struct {
		x, y *coverage.Data
		want string
	}{{a, c, "replay %s"}, {c, a, "replay %s"}, {c, d, "FAULTLINE_REPLAY=%s go test -run '^TestTickets$' ./tickets"}, {d, c, "FAULTLINE_REPLAY=%s go test -run '^TestTickets$' ./tickets"}} {
		if err := coverage.CheckMerge(c.x, c.y); err != nil {
			t.Fatalf("replay templates: %v", err)
		}
		m := coverage.Merge(c.x, c.y)
		if got := m.Systems["tickets"].Replay; got != c.want || m.Systems["tickets"].Runs != 6 {
			t.Errorf("merged replay %q, want %q (%d runs)", got, c.want, m.Systems["tickets"].Runs)
		}
	}
	p := filepath.Join(t.TempDir(), "cov.json")
	if err := coverage.WriteFile(p, a); err != nil {
		t.Fatal(err)
	}
	if err := coverage.MergeIntoFile(p, b); err == nil || !strings.Contains(err.Error(), "merging into "+p+`: systems["tickets"]: not-applicable boundaries differ`) {
		t.Errorf("merge into file: %v", err)
	}
}

// TestVersion1FileReadsToTheSameData: a file written by the previous
// version (testdata/v1.json: four reference runs, a counterexample, a
// fault not reached) reads to the data it always held, with no system and
// no crossings, so its text and Markdown reports are byte for byte those
// the previous version printed (testdata/v1-report.*); written again it is
// a version-2 file that reads back to the same data. The golden reports
// change only with the catalogue (its kinds and reasons) and with the
// schedule format (a report shows each schedule, and names its replay
// file, in the current canonical form); a change there must leave every
// section but those it names as it is.
func TestVersion1FileReadsToTheSameData(t *testing.T) {
	d, err := coverage.ReadFile("testdata/v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if d.Runs != 4 || len(d.Keys) != 4 || d.Systems != nil {
		t.Fatalf("data %+v", d)
	}
	for k, e := range d.Keys {
		if e.System != "" {
			t.Errorf("%s: system %q", k, e.System)
		}
	}
	r := coverage.NewReport(coverage.Default(), d, faultlineReplay)
	if r.Summary.Crossings || r.Summary.NeverCrossed != 0 || len(r.Systems) != 0 {
		t.Fatalf("summary %+v", r.Summary)
	}
	for file, write := range map[string]func(*bytes.Buffer) error{
		"testdata/v1-report.txt": func(b *bytes.Buffer) error { return r.WriteText(b) },
		"testdata/v1-report.md":  func(b *bytes.Buffer) error { return r.WriteMarkdown(b) },
	} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s differs:\n%s", file, b.String())
		}
	}
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "{\n  \"version\": 3,\n  \"runs\": 4,\n  \"not_adjudicated\": 0,\n  \"systems\": {},\n") {
		t.Fatalf("rewritten:\n%s", b.String())
	}
	back, err := coverage.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back); diff != "" {
		t.Fatalf("rewritten file reads differently (-v1 +v2):\n%s", diff)
	}
	// a version-1 file has no field of version 2
	v1, _ := os.ReadFile("testdata/v1.json")
	bad := strings.Replace(string(v1), `"visits": 1,`, `"visits": 1, "system": "reference",`, 1)
	if _, err := coverage.Read(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), `"system" is a field of version 2, not of version 1`) {
		t.Fatalf("v2 field in v1: %v", err)
	}
}

// TestMainFailsOnAFailedFlush: a flush into a path that cannot be written
// fails the test binary (exit 1 although the tests passed) with a FAIL
// line naming the runs lost and the cause; the tracker keeps its data.
func TestMainFailsOnAFailedFlush(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr := ticketCampaign(t, &model.Definition{Name: "tickets"})
	errb := captureStderr(t)
	p := filepath.Join(file, "cov.json")
	if code := coverage.Main(fakeM{0}, p, tr); code != 1 {
		t.Fatalf("code %d, want 1", code)
	}
	msg := errb.String()
	if !strings.HasPrefix(msg, "FAIL: coverage: 3 runs not recorded (the tests' own result is above; exit 4, an I/O or internal error): ") ||
		!strings.Contains(msg, p) || !strings.Contains(msg, "not a directory") {
		t.Fatalf("stderr %q", msg)
	}
	if tr.Data().Runs != 3 {
		t.Fatal("the tracker lost its runs")
	}
	// a file that does not read fails the flush the same way
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 1, "runs": "many"}`), 0o644)
	errb.Reset()
	if code := coverage.Main(fakeM{0}, bad, tr); code != 1 || !strings.Contains(errb.String(), bad+": coverage file:") {
		t.Fatalf("unreadable file: code %d, stderr %q", code, errb.String())
	}
}

// fakeTB records what FlushAfter does with a test.
type fakeTB struct {
	cleanups []func()
	errs     []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// TestFlushAfterFailsTheTest: the per-test flush merges into the file
// when the test ends, and a flush that fails fails the test, naming the
// runs lost and the cause.
func TestFlushAfterFailsTheTest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cov.json")
	for range 2 {
		tb := &fakeTB{}
		ticketCampaign(t, &model.Definition{Name: "tickets"}).FlushAfter(tb, p)
		if len(tb.cleanups) != 1 {
			t.Fatalf("%d cleanups", len(tb.cleanups))
		}
		tb.cleanups[0]()
		if len(tb.errs) != 0 {
			t.Fatal(tb.errs)
		}
	}
	if d, err := coverage.ReadFile(p); err != nil || d.Runs != 6 {
		t.Fatalf("file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	bad := filepath.Join(dir, "file", "cov.json")
	tb := &fakeTB{}
	ticketCampaign(t, &model.Definition{Name: "tickets"}).FlushAfter(tb, bad)
	tb.cleanups[0]()
	if len(tb.errs) != 1 || !strings.HasPrefix(tb.errs[0], "coverage: 3 runs not recorded (exit 4, an I/O or internal error): ") ||
		!strings.Contains(tb.errs[0], "not a directory") {
		t.Fatalf("errors %q", tb.errs)
	}
	tb = &fakeTB{}
	ticketCampaign(t, &model.Definition{Name: "tickets"}).FlushAfter(tb, "")
	if len(tb.cleanups) != 0 {
		t.Fatal("an empty path registered a flush")
	}
}

// TestNeverCrossedByTwoSystems: in a file of two systems, a key is never
// crossed only when neither crossed it, and not applicable only when both
// declare its boundary; one system's crossing makes the key an ordinary
// unvisited one.
func TestNeverCrossedByTwoSystems(t *testing.T) {
	tickets := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"memory", "branch_join"}}).Data()
	search, err := coverage.NewTracker(nil, &model.Definition{Name: "search", NotApplicable: []model.Boundary{"memory"}})
	if err != nil {
		t.Fatal(err)
	}
	// the search agent checkpoints and fans out, but reads no memory
	events := append(append([]model.EventName(nil), ticketEvents...), model.EvCheckpointWrite, model.EvBranchRun)
	if err := search.Record(systemRun(t, events, []string{"answered_once"}, nil, planted{"timeout_after_commit", 1, true})); err != nil {
		t.Fatal(err)
	}
	r := coverage.NewReport(coverage.Default(), coverage.Merge(tickets, search.Data()), coverage.ReportOptions{})
	// the proposal event, which both cross, is where stale_context and
	// omitted_context enter the key cross_source_conflict enters at
	// context.eligibility: no key is left never crossed
	var want []string
	if diff := cmp.Diff(want, rowsOf(r.NeverCrossed)); diff != "" {
		t.Fatalf("never crossed (-want +got):\n%s", diff)
	}
	want = []string{"context/memory/before_commit/isolated/checkpoint_store not_applicable: not applicable: search, tickets declare they have no memory boundary"}
	if diff := cmp.Diff(want, rowsOf(r.NotApplicable)); diff != "" {
		t.Fatalf("not applicable (-want +got):\n%s", diff)
	}
	for _, k := range r.Keys {
		if k.Key == "state/branch_join/before_commit/isolated/join_record" && k.Status != coverage.StatusNeverTried {
			t.Fatalf("branch join: %s", k.Status)
		}
		if k.Key == "state/state/after_checkpoint/isolated/ledger_readback" &&
			(k.Status != coverage.StatusNotReached || k.Reason != "scheduled 1 time, but its event never occurred (checkpoint_rollback)") {
			t.Fatalf("checkpoint rollback: %s: %s", k.Status, k.Reason)
		}
	}
}

// TestDeclarationsWithoutTimelines: runs recorded without their timeline
// (the assay's fast path) leave the crossings unknown, so nothing is
// reported never crossed, while the system's declaration still makes its
// keys not applicable; merged with a version-1 file's runs of no system,
// the declaration no longer speaks for every run.
func TestDeclarationsWithoutTimelines(t *testing.T) {
	tr, err := coverage.NewTracker(nil, &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"memory"}})
	if err != nil {
		t.Fatal(err)
	}
	res := systemRun(t, ticketEvents, []string{"answered_once"}, nil, planted{"timeout_after_commit", 1, true})
	res.Timeline = model.Timeline{}
	if err := tr.Record(res); err != nil {
		t.Fatal(err)
	}
	d := tr.Data()
	if sr := d.Systems["tickets"]; sr.Runs != 1 || sr.Traced != 0 || sr.Crossed != nil {
		t.Fatalf("system %+v", sr)
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	if s := r.Summary; s.Crossings || s.NeverCrossed != 0 || s.NotApplicable != 1 || s.NotDrawn != 10 || s.Applicable != 29 {
		t.Fatalf("summary %+v", s)
	}
	var text bytes.Buffer
	r.WriteText(&text)
	if !strings.Contains(text.String(), "\n  crossings unknown for 1 of 1 runs (recorded without their timelines): no key is reported never crossed\n  systems: tickets (1 run, 0 events crossed; no memory)\n") ||
		!strings.Contains(text.String(), "\nKeys not applicable to this system (1):\n  context/memory/before_commit/isolated/checkpoint_store  not_applicable: ") || strings.Contains(text.String(), "Keys never crossed") {
		t.Fatalf("text:\n%s", text.String())
	}
	v1, err := coverage.ReadFile("testdata/v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := coverage.NewReport(coverage.Default(), coverage.Merge(d, v1), coverage.ReportOptions{}).Summary; s.NotApplicable != 0 || s.Runs != 5 {
		t.Fatalf("merged with version 1: %+v", s)
	}
}

// TestSystemUniverse: a system's universe is what it can reach. The ticket
// agent's adapters enact the tool kinds at tool.commit only, and it
// declares the worker keys not applicable with a reason: each key left
// out is listed with why (never crossed, not applicable with the declared
// reason, not enacted, not drawn), and the ratio is over the rest.
func TestSystemUniverse(t *testing.T) {
	sys := &model.Definition{Name: "tickets", Enacts: []string{"timeout_after_commit", "partial_success_response", "malformed_response", "output_drift", "stale_policy"},
		NotApplicableKeys: map[string]string{"identity/worker/*/*/*": "one task per worker"}}
	d := ticketCampaign(t, sys).Data()
	// the five kinds and the two the harness enacts on every path
	if sr := d.Systems["tickets"]; !slices.Equal(sr.Enacts, []string{"malformed_response", "output_drift", "partial_success_response", "stale_policy", "timeout_after_commit", "worker_crash", "worker_restart"}) || sr.NotApplicableKeys["identity/worker/*/*/*"] != "one task per worker" {
		t.Fatalf("system %+v", sr)
	}
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := coverage.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back); diff != "" {
		t.Fatalf("read back (-want +got):\n%s", diff)
	}
	r := coverage.NewReport(coverage.Default(), back, coverage.ReportOptions{})
	s := r.Summary
	// 40 reachable: 7 never crossed, 1 not applicable, 19 not enacted, 6
	// not drawn (the synchronized and shared keys of enacted kinds), 7
	// left: 2 visited, and the 4 repeated and persistent keys of the
	// after-commit kinds, never tried
	if s.NeverCrossed != 7 || s.NotApplicable != 1 || s.NotEnacted != 19 || s.NotDrawn != 6 || s.Applicable != 7 || s.Visited != 2 || s.Ratio != 2.0/7 {
		t.Fatalf("summary %+v", s)
	}
	if got, want := rowsOf(r.NotApplicable), []string{
		"identity/worker/before_validation/persistent/capability_record not_applicable: not applicable: tickets declares identity/worker/*/*/* not applicable: one task per worker",
	}; !cmp.Equal(got, want) {
		t.Fatalf("not applicable %q", got)
	}
	if got := rowsOf(r.NotEnacted); len(got) != 19 || got[0] != "identity/proposal/before_validation/isolated/capability_record not_enacted: cannot be enacted: the path of tickets enacts none of subject_swap, tenant_swap, purpose_swap (model.Definition.Enacts)" {
		t.Fatalf("not enacted %q", got)
	}
	var keys []string
	for _, k := range r.Keys {
		if k.Status == coverage.StatusHeld || k.Status == coverage.StatusViolated || k.Status == coverage.StatusNeverTried || k.Status == coverage.StatusNotReached {
			keys = append(keys, k.Key+" "+k.Status)
		}
	}
	if want := []string{
		"context/proposal/before_validation/isolated/policy_record held",
		"tool/effect/after_commit/isolated/ledger_readback violated",
		"tool/effect/after_commit/isolated/receipt never_tried",
		"tool/effect/after_commit/repeated/ledger_readback never_tried",
		"tool/effect/after_commit/repeated/receipt never_tried",
		"tool/effect/after_commit/persistent/ledger_readback never_tried",
		"tool/effect/after_commit/persistent/receipt never_tried",
	}; !cmp.Equal(keys, want) {
		t.Fatalf("the universe %q", keys)
	}
	// a pattern without a reason, or one matching no reachable key, is bad
	// input naming the pattern
	for pat, want := range map[string]string{
		"identity/worker/*/*/*":                 `not-applicable key pattern "identity/worker/*/*/*": no reason given`,
		"tool/proposal/*/*/*":                   `not-applicable key pattern "tool/proposal/*/*/*" matches no reachable key`,
		"tool/nowhere/*/*/*":                    `not-applicable key pattern "tool/nowhere/*/*/*": unknown boundary "nowhere"`,
		"tool/effect/after_commit/isolated/x/y": `not-applicable key pattern "tool/effect/after_commit/isolated/x/y": "tool/effect/after_commit/isolated/x/y": want 5 values`,
	} {
		reason := ""
		if !strings.Contains(want, "no reason") {
			reason = "because"
		}
		_, err := coverage.NewTracker(nil, &model.Definition{Name: "tickets", NotApplicableKeys: map[string]string{pat: reason}})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "exit 2") {
			t.Errorf("%s: error %v, want %q", pat, err, want)
		}
	}
	if _, err := coverage.NewTracker(nil, &model.Definition{Name: "tickets", Enacts: []string{"no_such_kind"}}); err == nil || !strings.Contains(err.Error(), `enacts: "no_such_kind" is not a fault kind`) {
		t.Errorf("unknown enacted kind: %v", err)
	}
}
