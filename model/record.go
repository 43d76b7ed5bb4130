package model

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/faultline/faultline/internal/interleaving"
)

// recordVersion is the version of the run record format. Version 2 added
// Tasks (the per-task verdicts); version 3 names the system and its
// config in its own terms (Contract.System, Contract.Config) in place of
// the reference system's controls and mutant. A version 1 record decodes
// into RunRecord with Tasks nil.
const recordVersion = 3

// RunRecord is the evidence record of one run (the harness practice, "Evidence
// Output"): one machine-readable document with the frozen contract, the
// schedule, the verdicts, every invariant as pass or fail, every fault with
// where it entered and whether it was handled, the budget consumed, the
// timeline with the harness practice's fields and the run's limitations, plus a concise
// human summary. The fixture's identifiers (subjects, capabilities, tasks,
// traces, actors) are redacted to stable references ("ref-" and 8 hex
// digits of their FNV-32a hash) in every task and detail, each where it
// stands as a whole token (redactor), so a record can be attached to a
// pull request; the schedule is kept whole, to replay.
type RunRecord struct {
	Version      int               `json:"version"`
	RunID        string            `json:"run_id"`
	RunVerdict   RunVerdict        `json:"run_verdict"`
	ClaimVerdict ClaimVerdict      `json:"claim_verdict"`
	Terminal     string            `json:"terminal_reason,omitempty"`
	Contract     Contract          `json:"contract"`
	Schedule     *Schedule         `json:"schedule"`
	Invariants   map[string]string `json:"invariants"`
	Violations   []InvariantResult `json:"violations"`
	Faults       []RecordFault     `json:"faults"`
	Budget       BudgetUse         `json:"budget"`
	Terms        Terms             `json:"terms"`
	Claims       []TaskClaim       `json:"claims"`
	Tasks        []TaskVerdict     `json:"tasks"`
	Timeline     []Event           `json:"timeline"`
	// Interleaving and ContextSwitches are a concurrent run's picks and
	// context switches (Result.Interleaving); absent for a sequential run.
	Interleaving    []int `json:"interleaving,omitempty"`
	ContextSwitches int   `json:"context_switches,omitempty"`
	// Fleet is a fleet run's load on the provider (Result.Fleet); absent
	// for any other run.
	Fleet *FleetLoad `json:"fleet,omitempty"`
	// Unexpected names each task that did not end in the terminal state
	// its schedule expects (Result.Unexpected); absent without one.
	Unexpected  []string `json:"unexpected_terminal,omitempty"`
	Limitations []string `json:"limitations"`
	NextCheck   string   `json:"narrowest_next_verification"`
	Summary     string   `json:"summary"`
}

// Contract is the frozen contract a run was judged under. System is the
// system's name (Definition.Name, "" when the run had no Definition) and
// Config its config's system part as the system names it
// (Definition.Describe: "profile typed", "controls none"), or as JSON
// without a Definition.
type Contract struct {
	Fixture     string     `json:"fixture"`
	System      string     `json:"system,omitempty"`
	Config      string     `json:"config"`
	RetryBudget int        `json:"retry_budget"`
	DeadlineMs  Millis     `json:"deadline_ms"`
	Join        JoinPolicy `json:"join"`
	Invariants  []string   `json:"invariants"`
	Statement   string     `json:"statement"`
}

// RecordFault is one scheduled fault in a run record: At is
// "event#ordinal", or "event(tool)#ordinal" for a fault aimed at a tool
// (see FaultEntry.Placement); Handled is true when it fired and no invariant was
// broken by its consequence.
type RecordFault struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	At   string `json:"at"`
	// Correlation is the entry's correlation modifier, absent when it
	// has none.
	Correlation Correlation `json:"correlation,omitempty"`
	Reached     bool        `json:"reached"`
	Fired       int         `json:"fired"`
	Handled     bool        `json:"handled"`
}

// BudgetUse is the budget a run consumed: tool-call attempts against one
// plus the retry budget, and logical time against the deadline (of the
// first task).
type BudgetUse struct {
	Attempts            int    `json:"attempts"`
	RetryBudget         int    `json:"retry_budget"`
	ElapsedMs           Millis `json:"elapsed_ms"`
	DeadlineMs          Millis `json:"deadline_ms"`
	DeadlineRemainingMs Millis `json:"deadline_remaining_ms"`
	Restarts            int    `json:"restarts"`
	// Reconciled counts re-sends the budget allowed on top of the retry
	// budget: a restarted worker replaying, under the same key, a send its
	// crashed predecessor never recorded.
	Reconciled int `json:"reconciled,omitempty"`
	// Tokens and TokenBudget: the model tokens the task spent (Step.Tokens)
	// and its Task.TokenBudget, set only when the fixture states one.
	Tokens      int `json:"tokens,omitempty"`
	TokenBudget int `json:"token_budget,omitempty"`
}

// Contract statement of the harness practice ("Recovery Contract").
const contractStatement = "After recovery, resume from the latest durable checkpoint, preserve the task identity and safety policy, spend no more than the remaining retry/deadline budget, and commit each externally visible effect at most once."

// limitations every run of the harness has.
var limitations = []string{
	"Tool outputs were synthetic; no deployed tool, provider or MCP server was exercised.",
	"The proposer is a deterministic stub that returns the drafted action unless a fault disturbs it; no language model was run.",
	"Logical time only: no wall-clock timing, queueing or load was represented.",
}

// redactor is the one rule of what a written run hides: the identifiers
// of its fixture (each subject, capability and task, each task's trace:
// Task.Trace, and "trace-" and the task id, and each actor of a task or
// capability) become stable references (ref), each where it stands as a
// whole token (redact). Every writer of a run (the record, the counterexample
// files of properties, fuzz and the corpus, the replay timeline, the
// OpenTelemetry trace) writes from Result.Record, so all hide the same.
type redactor struct{ old []string }

func newRedactor(f *Fixture) *redactor {
	var ids []string
	for _, o := range f.Subjects {
		ids = append(ids, o.ID)
	}
	for _, c := range f.Capabilities {
		ids = append(ids, c.ID, c.Actor)
	}
	for _, t := range f.Tasks {
		ids = append(ids, t.ID, "trace-"+t.ID, t.Trace, t.Actor)
	}
	// longest first, so an identifier inside a longer one ("O-731" in
	// "refund-O-731") is not replaced on its own
	sort.SliceStable(ids, func(i, j int) bool { return len(ids[i]) > len(ids[j]) })
	return &redactor{old: slices.DeleteFunc(ids, func(id string) bool { return id == "" })}
}

// Ref returns the stable reference of an identifier.
func ref(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("ref-%08x", h.Sum32())
}

// redact replaces each identifier in s by its reference where it stands
// as a whole token, in one pass from the left (the longest identifier at
// a position wins), so no reference is rewritten by a later identifier.
// A token: letters and digits continue one ("TCK-10420" is another id,
// "desks" another word); '_' continues one next to an identifier without a
// digit (a word, as the actor "desk" in the table "desk_checkpoint"), and
// ends one next to an identifier with a digit ("credit_TCK-1042"); every
// other character ('-', ':', '.', spaces) ends one, so an id a key embeds
// is replaced in it ("credit-TCK-1042": "credit-ref-28d6239b").
func (r *redactor) redact(s string) string {
	if s == "" {
		return s
	}
	// the identifiers s holds, longest first (most strings hold none)
	var in []string
	for _, id := range r.old {
		if strings.Contains(s, id) {
			in = append(in, id)
		}
	}
	if len(in) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		hit := ""
		for _, id := range in {
			if strings.HasPrefix(s[i:], id) && whole(s, i, i+len(id), !strings.ContainsFunc(id, unicode.IsDigit)) {
				hit = id
				break
			}
		}
		if hit == "" {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(ref(hit))
		i += len(hit)
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// whole reports whether s[i:j] stands as a token (see redact): no letter
// or digit, nor for a word (an identifier without a digit) '_', on either
// side of it.
func whole(s string, i, j int, word bool) bool {
	cont := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) || word && c == '_' }
	if c, n := utf8.DecodeLastRuneInString(s[:i]); n > 0 && cont(c) {
		return false
	}
	c, n := utf8.DecodeRuneInString(s[j:])
	return n == 0 || !cont(c)
}

// redactAll returns l with each element redacted (nil for nil).
func (r *redactor) redactAll(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = r.redact(s)
	}
	return out
}

// Record builds the run's evidence record.
func (res *Result) Record() RunRecord {
	fx := res.fixture
	if fx == nil {
		fx = &Fixture{} // a Result a program built itself
	}
	rd := newRedactor(fx)
	rec := RunRecord{
		Version: recordVersion, RunID: res.RunID, RunVerdict: res.RunVerdict, ClaimVerdict: res.Verdict,
		Schedule: res.Schedule, Invariants: map[string]string{}, Violations: []InvariantResult{},
		Terms: res.Terms, Limitations: append([]string(nil), limitations...),
		Fleet: res.Fleet, Unexpected: rd.redactAll(res.Unexpected),
	}
	if res.Claims != nil {
		rec.Claims = make([]TaskClaim, len(res.Claims))
		for i, c := range res.Claims {
			c.Task, c.Reason = rd.redact(c.Task), rd.redact(c.Reason)
			rec.Claims[i] = c
		}
	}
	if res.Tasks != nil {
		rec.Tasks = make([]TaskVerdict, len(res.Tasks))
		for i, t := range res.Tasks {
			t.Task = rd.redact(t.Task)
			rec.Tasks[i] = t
		}
	}
	rec.Contract = Contract{Fixture: fx.Name, Config: res.describeSystem(),
		RetryBudget: res.budget.RetryBudget, DeadlineMs: res.budget.DeadlineMs, Join: res.join, Statement: contractStatement,
		Invariants: []string{}}
	for _, inv := range res.Invariants {
		rec.Contract.Invariants = append(rec.Contract.Invariants, inv.Invariant)
	}
	for _, i := range res.Invariants {
		if i.Held {
			rec.Invariants[i.Invariant] = "pass"
			continue
		}
		rec.Invariants[i.Invariant] = "fail"
		i.Detail = rd.redact(i.Detail)
		rec.Violations = append(rec.Violations, i)
	}
	for _, f := range res.Faults {
		rf := RecordFault{ID: f.ID, Kind: f.Kind, At: f.Placement(), Correlation: f.Correlation, Reached: f.Reached,
			Fired: f.Fired, Handled: f.Fired > 0 && len(f.Observed) == 0}
		rec.Faults = append(rec.Faults, rf)
		if !f.Reached {
			rec.Limitations = append(rec.Limitations, fmt.Sprintf("Fault %s (%s) was scheduled at %s but its event never occurred: it was not tested.", f.ID, f.Kind, rf.At))
		} else if f.Fired == 0 {
			rec.Limitations = append(rec.Limitations, fmt.Sprintf("Fault %s (%s) was reached at %s but its disturbance had nothing to act on: it was not tested.", f.ID, f.Kind, rf.At))
		}
	}
	rec.Budget = res.budget
	rec.Interleaving, rec.ContextSwitches = res.Interleaving, res.ContextSwitches
	for _, c := range rec.Claims {
		if c.Verdict != ClaimRelease && rec.Terminal == "" {
			rec.Terminal = c.Reason
		}
	}
	tl := res.Timeline.Events()
	rec.Timeline = make([]Event, len(tl))
	for i, e := range tl {
		e.Task, e.Detail, e.EvidenceRef = rd.redact(e.Task), rd.redact(e.Detail), rd.redact(e.EvidenceRef)
		rec.Timeline[i] = e
	}
	if res.def != nil {
		rec.Contract.System = res.def.Name
	}
	rec.NextCheck = rd.redact(res.nextCheck())
	rec.Summary = rec.summary()
	return rec
}

// describeSystem names the run's system config: in the system's terms
// when the run had a Definition, as JSON otherwise (or when Describe
// fails, with its error).
func (res *Result) describeSystem() string {
	var sys []byte
	if res.Schedule != nil {
		sys = res.Schedule.Config.system()
	}
	s, err := res.def.describeSystem(sys)
	if err != nil {
		return fmt.Sprintf("system %s (%v)", sys, err)
	}
	return s
}

// nextCheck derives the narrowest next verification from the run.
func (res *Result) nextCheck() string {
	for _, i := range res.Invariants {
		if i.Held {
			continue
		}
		if i.FaultID == "" {
			return fmt.Sprintf("find the crossing before seq %d (%s) that broke %s with no fault fired: the clean path is wrong", i.FirstSeq, i.Event, i.Invariant)
		}
		var kind string
		for _, f := range res.Faults {
			if f.ID == i.FaultID {
				kind = f.Kind
			}
		}
		ctl := "the behaviour that defends against it"
		if names := res.def.defences(kind); len(names) > 0 {
			ctl = "control " + strings.Join(names, " or ")
		}
		return fmt.Sprintf("replay fault %s (%s) alone with %s enabled and check %s at %s", i.FaultID, kind, ctl, i.Invariant, i.Event)
	}
	for _, f := range res.Faults {
		if !f.Reached || f.Fired == 0 {
			on := string(f.Event)
			if f.Tool != "" {
				on += " calling tool " + f.Tool
			}
			return fmt.Sprintf("reschedule fault %s (%s) at an occurrence of %s that the run reaches (this run had %d)", f.ID, f.Kind, on, res.occurrences(f.Event, f.Tool))
		}
	}
	switch res.RunVerdict {
	case ContainedFailure:
		return "confirm the hold or denial reason reaches the right human route, then vary the fault's ordinal"
	case Recovered:
		if len(res.Faults) == 0 {
			return "inject one fault at a boundary this run crossed"
		}
		f := res.Faults[len(res.Faults)-1]
		return fmt.Sprintf("move fault %s (%s) to %s and vary the retry budget", f.ID, f.Kind, placement(f.Event, f.Tool, f.Ordinal+1, f.Target))
	}
	return "restore the fixture and contract, then replay"
}

// occurrences counts the crossings of ev in the timeline, only those
// calling tool when tool is set.
func (res *Result) occurrences(ev EventName, tool string) int {
	n := 0
	for _, e := range res.Timeline.Events() {
		if e.Event == ev && (tool == "" || e.Tool == tool) {
			n++
		}
	}
	return n
}

// summary is the concise human summary of the harness practice: contract, schedule,
// verdict, failed invariants, budget consumption, narrowest next step.
func (rec *RunRecord) summary() string {
	var b strings.Builder
	c := rec.Contract
	fmt.Fprintf(&b, "Contract: %s; %s", c.Fixture, c.Config)
	fmt.Fprintf(&b, "; %d retries, %d ms deadline, %s join.\n", c.RetryBudget, c.DeadlineMs, c.Join)
	b.WriteString("Schedule: ")
	if len(rec.Faults) == 0 {
		b.WriteString("no fault")
	}
	for i, f := range rec.Faults {
		if i > 0 {
			b.WriteString("; ")
		}
		state := "not reached"
		switch {
		case f.Fired > 0 && f.Handled:
			state = "handled"
		case f.Fired > 0:
			state = "not handled"
		case f.Reached:
			state = "reached, not fired"
		}
		fmt.Fprintf(&b, "%s at %s (%s)", f.Kind, f.At, state)
	}
	if len(rec.Interleaving) > 0 {
		sw := "context switches"
		if rec.ContextSwitches == 1 {
			sw = "context switch"
		}
		fmt.Fprintf(&b, "; interleaving %s (%d %s)", interleaving.Format(rec.Interleaving), rec.ContextSwitches, sw)
	}
	fmt.Fprintf(&b, ".\nVerdict: %s (claim %s", rec.RunVerdict, rec.ClaimVerdict)
	if rec.Terminal != "" {
		fmt.Fprintf(&b, ": %s", rec.Terminal)
	}
	if len(rec.Tasks) > 1 {
		b.WriteString("; tasks:")
		for i, t := range rec.Tasks {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %s (%s", t.Task, t.RunVerdict, t.Claim)
			if t.CorrectDenial {
				b.WriteString(", a correct denial")
			}
			b.WriteString(")")
		}
	}
	if len(rec.Unexpected) > 0 {
		b.WriteString("; not the terminal states the schedule expects: " + strings.Join(rec.Unexpected, "; "))
	}
	b.WriteString(").\nFailed invariants: ")
	if len(rec.Violations) == 0 {
		b.WriteString("none")
	}
	for i, v := range rec.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s after seq %d (%s)", v.Invariant, v.FirstSeq, v.Event)
	}
	u := rec.Budget
	reconciled := ""
	if u.Reconciled > 0 {
		reconciled = fmt.Sprintf(" (+%d reconciling re-send after a restart)", u.Reconciled)
	}
	fmt.Fprintf(&b, ".\nBudget: %d of %d attempts%s, %d of %d ms (%d ms left), %d restarts.\n",
		u.Attempts, 1+u.RetryBudget, reconciled, u.ElapsedMs, u.DeadlineMs, u.DeadlineRemainingMs, u.Restarts)
	fmt.Fprintf(&b, "Next: %s.", rec.NextCheck)
	return b.String()
}

// DescribeConfig names the run's config as people read it: in the
// system's terms when the run had a Definition (Definition.DescribeConfig:
// "profile typed, retry_budget 1"), as Config.String otherwise.
func (res *Result) DescribeConfig() string {
	if res.Schedule == nil {
		return ""
	}
	if res.def != nil {
		if s, err := res.def.DescribeConfig(res.Schedule.Config); err == nil {
			return s
		}
	}
	return res.Schedule.Config.String()
}
