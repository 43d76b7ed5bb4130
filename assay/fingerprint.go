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

// The change triggers of seed 000 ("Let the injected path decide
// release"): a change to any of them can invalidate the evidence and
// reopens the release gate.
const (
	TriggerToolSemantics   = "tool_semantics"
	TriggerStateSchema     = "state_schema"
	TriggerPolicy          = "policy"
	TriggerRetryLogic      = "retry_logic"
	TriggerOrchestration   = "orchestration"
	TriggerEvidenceRouting = "evidence_routing"
)

// Triggers lists the change triggers with what each covers.
var Triggers = []struct{ Name, Covers string }{
	{TriggerToolSemantics, "tool calls and their outcomes: every tool.commit and ledger.readback crossing of every run (outcome, ordinal, detail), the tool call and result types, the tool-domain fault specs"},
	{TriggerStateSchema, "durable and world state: the field schema of checkpoints, orders, policies, capabilities, ledger entries, evidence records, actions and tasks, and every checkpoint crossing"},
	{TriggerPolicy, "authority and refund policy: the fixture's orders, policies and capabilities, the profiles' control sets, and every context and authority crossing"},
	{TriggerRetryLogic, "retries and budgets: the options (retry budget, deadline, restart limit, stop conditions), the variation, and the attempt and retry budget at every tool crossing and restart"},
	{TriggerOrchestration, "the workflow: the sequence of crossings of every run (event, ordinal, actor, state before and after) and every claim"},
	{TriggerEvidenceRouting, "the evidence path: every evidence crossing (kind, outcome), the invariants and their oracles, the evidence-domain fault specs"},
}

func isEvidence(e model.EventName) bool { return strings.HasPrefix(string(e), "evidence.") }

// project returns the lines of one run's timeline that concern trigger t.
func project(t string, res *model.Result) []string {
	var out []string
	for _, e := range res.Timeline {
		var l string
		switch t {
		case TriggerToolSemantics:
			if e.Event == model.EvToolCommit || e.Event == model.EvLedgerReadback {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		case TriggerStateSchema:
			if e.Event == model.EvCheckpointWrite || e.Event == model.EvCheckpointLoad {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		case TriggerPolicy:
			if e.Event == model.EvAuthorityGrant || e.Event == model.EvAuthorityCheck || strings.HasPrefix(string(e.Event), "context.") || e.Event == model.EvProposal {
				l = fmt.Sprintf("%s#%d %s %s", e.Event, e.Ordinal, e.Outcome, e.Detail)
			}
		case TriggerRetryLogic:
			if e.Event == model.EvToolCommit || e.Event == model.EvWorkerStart || e.Event == model.EvWorkerCrash {
				l = fmt.Sprintf("%s#%d attempt %d retry_remaining %d worker %d", e.Event, e.Ordinal, e.Attempt, e.RetryRemaining, e.Worker)
			}
		case TriggerOrchestration:
			l = fmt.Sprintf("%s#%d %s %s->%s", e.Event, e.Ordinal, e.Actor, e.StateBefore, e.StateAfter)
			if e.Event == model.EvClaim {
				l += " " + e.Outcome
			}
		case TriggerEvidenceRouting:
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

// fingerprints hashes, per trigger, the projections of every distinct run
// of the study, in a fixed order.
func (r *runner) fingerprints() map[string]string {
	keys := make([]memoKey, 0, len(r.memo))
	for k := range r.memo {
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
	for _, t := range Triggers {
		h := sha256.New()
		for _, k := range keys {
			fmt.Fprintf(h, "run %d %s %s\n", k.config, k.controls, k.schedule)
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
