package assay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/faultline/faultline/model"
)

// The change triggers of the paper ("Let the injected path decide
// release"): a change to any of them can invalidate the evidence and
// reopens the release gate.
const (
	triggerToolSemantics   = "tool_semantics"
	triggerStateSchema     = "state_schema"
	triggerPolicy          = "policy"
	triggerRetryLogic      = "retry_logic"
	triggerOrchestration   = "orchestration"
	triggerEvidenceRouting = "evidence_routing"
)

// triggers lists the change triggers with what each covers. Every trigger
// also covers the specs of the fault kinds specTriggers assigns to it, so a
// changed or added kind fires the triggers of its domain and boundary; and
// every trigger's behavioural fingerprint names each run it hashes, so a
// run that appears or disappears (a new kind, a new pair) fires them all.
var triggers = []struct{ Name, Covers string }{
	{triggerToolSemantics, "tool calls and their outcomes: every tool.commit and ledger.readback crossing of every planned run (outcome, ordinal, detail), the tool call and result types, the specs of the tool-domain kinds and of the kinds entering at the effect, sandbox or tool-call boundary"},
	{triggerStateSchema, "durable and world state: the field schema of checkpoints, subjects, policies, capabilities, ledger entries, evidence records, actions, tasks and join records, every checkpoint crossing, the specs of the state-domain kinds and of the kinds entering at the state or checkpoint-store boundary"},
	{triggerPolicy, "authority and policy: the fixture's subjects, policies and capabilities, the profiles' control sets, every context and authority crossing, the specs of the identity- and context-domain kinds and of the kinds entering at the proposal or authority boundary"},
	{triggerRetryLogic, "retries and budgets: the options (retry budget, deadline, restart limit, stop conditions), the variation, the attempt and retry budget at every tool crossing and restart, the specs of the kinds entering at the tool-call boundary or judged by the budget counter"},
	{triggerOrchestration, "the workflow: the sequence of crossings of every planned run (event, ordinal, actor, state before and after) and every claim, the system's name, the specs of the kinds entering at the worker, branch-join or memory boundary"},
	{triggerEvidenceRouting, "the evidence path: every evidence crossing (kind, outcome), the invariants and their oracles, the specs of the evidence-domain kinds and of the kinds entering at the proof boundary"},
}

// specTriggers returns the change triggers a fault kind's spec belongs to,
// in triggers order: by its domain (identity and context: policy; tool:
// tool semantics; state: state schema; evidence: evidence routing), by the
// boundary it enters (proposal, authority: policy; effect, sandbox: tool
// semantics; tool call: tool semantics and retry logic; state, checkpoint
// store: state schema; worker, branch join, memory: orchestration; proof:
// evidence routing), and retry logic when the budget counter judges it.
// A change to the spec, or a new kind, fires these triggers (the paper: "Any
// change to tool semantics, state schema, policy, retry logic, model
// orchestration or evidence routing can reopen the gate").
func specTriggers(spec model.FaultSpec) []string {
	on := map[string]bool{}
	switch spec.Domain {
	case model.Domain("identity"), model.Domain("context"):
		on[triggerPolicy] = true
	case model.Domain("tool"):
		on[triggerToolSemantics] = true
	case model.Domain("state"):
		on[triggerStateSchema] = true
	case model.Domain("evidence"):
		on[triggerEvidenceRouting] = true
	}
	switch spec.Boundary {
	case model.Boundary("proposal"), model.Boundary("authority"):
		on[triggerPolicy] = true
	case model.Boundary("effect"), model.Boundary("sandbox"):
		on[triggerToolSemantics] = true
	case model.Boundary("tool_call"):
		on[triggerToolSemantics], on[triggerRetryLogic] = true, true
	case model.Boundary("state"), model.Boundary("checkpoint_store"):
		on[triggerStateSchema] = true
	case model.Boundary("worker"), model.Boundary("branch_join"), model.Boundary("memory"):
		on[triggerOrchestration] = true
	case model.Boundary("proof"):
		on[triggerEvidenceRouting] = true
	}
	if spec.Oracle == model.OracleName("budget_counter") {
		on[triggerRetryLogic] = true
	}
	var out []string
	for _, t := range triggers {
		if on[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out
}

func isEvidence(e model.EventName) bool { return strings.HasPrefix(string(e), "evidence.") }

// project returns the lines of one run's timeline that concern trigger t.
func project(t string, res *model.Result) []string {
	var out []string
	for _, e := range res.Timeline.Events() {
		var l string
		switch t {
		case triggerToolSemantics:
			if e.Event == model.EvToolCommit || e.Event == model.EvLedgerReadback {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		case triggerStateSchema:
			if e.Event == model.EvCheckpointWrite || e.Event == model.EvCheckpointLoad {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		case triggerPolicy:
			if e.Event == model.EvAuthorityGrant || e.Event == model.EvAuthorityCheck || strings.HasPrefix(string(e.Event), "context.") || e.Event == model.EvProposal {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		case triggerRetryLogic:
			if e.Event == model.EvToolCommit || e.Event == model.EvWorkerStart || e.Event == model.EvWorkerCrash {
				l = fmt.Sprintf("%s#%d attempt %d retry_remaining %d worker %d", e.Event, e.Ordinal, e.Attempt, e.RetryRemaining, e.Worker)
			}
		case triggerOrchestration:
			l = fmt.Sprintf("%s#%d %s %s->%s", e.Event, e.Ordinal, e.Actor, e.StateBefore, e.StateAfter)
			if e.Event == model.EvClaim {
				l += " " + e.Outcome
			}
		case triggerEvidenceRouting:
			if isEvidence(e.Event) {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func sha(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprints hashes, per trigger, the projections of every planned run
// of the study (the trial runs and the pairs' arms, see runner.planned),
// each named by its configuration, controls and schedule, in a fixed
// order. A planned run that appears or disappears (a new kind, a removed
// profile) changes every fingerprint; the same planned run behaving
// differently changes the fingerprints of the triggers whose crossings
// differ.
func (r *runner) fingerprints() map[string]string {
	keys := make([]memoKey, 0, len(r.planned))
	for k := range r.planned {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.config != b.config {
			return a.config < b.config
		}
		if a.controls != b.controls {
			return a.controls < b.controls
		}
		return a.schedule < b.schedule
	})
	out := map[string]string{}
	for _, t := range triggers {
		h := sha256.New()
		for _, k := range keys {
			fmt.Fprintf(h, "run %d %s %s\n", k.config, r.sys.str(k.controls), k.schedule)
			for _, l := range project(t.Name, r.memo[k]) {
				fmt.Fprintln(h, l)
			}
		}
		out[t.Name] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// typeSchema describes a type's fields recursively (name and type), the
// state schema a change to which is a trigger.
func typeSchema(t reflect.Type) string {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, indent string)
	walk = func(t reflect.Type, indent string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			fmt.Fprintf(&b, "%s%s.%s %s `%s`\n", indent, t.Name(), f.Name, f.Type, f.Tag)
			walk(f.Type, indent+"  ")
		}
	}
	walk(t, "")
	return b.String()
}
