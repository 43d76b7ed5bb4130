package copperfin

import "github.com/faultline/faultline/model"

// defence is one row of the reference system's defence table.
type defence struct {
	nominated []Control
	mutant    string
}

// defences is the reference system's defence table: for every catalogue
// kind and world event, the controls the paper nominates to interrupt the
// transfer and the seeded defect that lacks the behaviour defending
// against it. Both are declared predictions; tests and counterfactual
// pairs check them against the oracle.
var defences = map[string]defence{
	"subject_swap":              {[]Control{BindIdentity}, ""},
	"revoked_capability":        {[]Control{PreEffectAuthority}, ""},
	"stale_policy":              {[]Control{RefreshContext}, ""},
	"cross_source_conflict":     {[]Control{RefreshContext}, ""},
	"timeout_after_commit":      {[]Control{Idempotency, EffectReadback}, ""},
	"partial_success_response":  {[]Control{EffectReadback, EvidenceGate}, ""},
	"checkpoint_rollback":       {[]Control{Idempotency, EffectReadback}, ""},
	"concurrent_version_change": {[]Control{StatePrecondition}, ""},
	"drop_effect_receipt":       {[]Control{EffectReadback, EvidenceGate}, ""},
	"break_trace_lineage":       {[]Control{EvidenceGate}, ""},
	"sandbox_denial":            {nil, "rejection_as_success"},
	"timeout_before_send":       {nil, "timeout_as_success"},
	"reject_before_commit":      {nil, "rejection_as_success"},
	"malformed_response":        {[]Control{Idempotency, EffectReadback}, ""},
	"output_drift":              {[]Control{Idempotency, EffectReadback}, ""},
	"rate_limit":                {nil, "rejection_as_success"},
	"tool_timeout":              {[]Control{Idempotency}, ""},
	"budget_exhaustion":         {nil, "unbounded_retry"},
	"worker_restart":            {nil, "checkpoint_before_effect"},
	"missing_checkpoint":        {nil, "stale_checkpoint_accepted"},
	"stale_checkpoint":          {nil, "stale_checkpoint_accepted"},
	"future_version_checkpoint": {nil, "stale_checkpoint_accepted"},
	"corrupt_checkpoint":        {[]Control{EffectReadback}, "stale_checkpoint_accepted"},
	"memory_loss":               {[]Control{BindIdentity, PreEffectAuthority}, "fabricated_approval"},
	"branch_failure":            {nil, "failed_branch_dropped"},
	"clock_advance":             {nil, "deadline_from_restart"},
	"capability_revocation":     {[]Control{PreEffectAuthority}, ""},
	"policy_change":             {[]Control{RefreshContext}, ""},
	"state_version_change":      {[]Control{StatePrecondition}, ""},
	"worker_crash":              {[]Control{Idempotency, EffectReadback}, ""},
	// a lagging readback is harmless to a system that holds on a missing
	// effect (effect_readback's readback_mismatch) and to one whose
	// re-send is keyed (idempotency): the defect is a re-send of what the
	// readback does not show, under a fresh request id; effect_readback
	// also holds when the readback that should attribute a replayed
	// commit without a receipt does not show it
	"lagging_readback": {[]Control{Idempotency}, "resend_unseen"},
	// a stale state read passes state_precondition's read; the control's
	// defence is the state guard it sends with the commit, which the
	// provider checks against the primary (the defect drops the guard)
	"stale_state_read": {nil, "state_check_unguarded"},
	// a success envelope carrying the provider's error is read by its
	// body in every profile; the defect reads the envelope alone
	"false_success": {nil, "envelope_as_success"},
	// the model's reply: a repeated call is one logical action, carried
	// out once in every profile; the defect carries out each copy, which
	// idempotency alone contains (each copy goes under the action's key).
	// A reply that proposes nothing is denied in every profile; the defect
	// releases it as done.
	"duplicate_tool_call": {[]Control{Idempotency}, "duplicate_call_executed"},
	"model_refusal":       {nil, "refusal_as_done"},
	// the model's arguments and the context its reply relies on: a
	// tenant, a purpose or arguments cut short (purpose and amount empty)
	// fail bind_identity's binding (a tenant with no policy also
	// refresh_context's re-read); a stale or omitted state version fails
	// state_precondition's read and guard (an omitted policy version also
	// refresh_context's)
	"tenant_swap":         {[]Control{BindIdentity, RefreshContext}, ""},
	"purpose_swap":        {[]Control{BindIdentity}, ""},
	"malformed_tool_call": {[]Control{BindIdentity}, ""},
	"stale_context":       {[]Control{StatePrecondition}, ""},
	"omitted_context":     {[]Control{StatePrecondition, RefreshContext}, ""},
	// the provider's notices (model.NoticeKinds, in a run with notices):
	// notice_reconcile applies a notice once and only where the ledger
	// agrees, and reads back a settlement no notice reported
	"late_notice":        {[]Control{NoticeReconcile}, ""},
	"reordered_notice":   {[]Control{NoticeReconcile}, ""},
	"redelivered_notice": {[]Control{NoticeReconcile}, ""},
	"lost_notice":        {[]Control{NoticeReconcile}, ""},
	// a cached answer passes pre_effect_authority's check; the control's
	// defence is the capability guard it sends with the commit, which the
	// provider checks against the record (the defect drops the guard);
	// bounded_grant_age, no profile's, bounds the answer's age instead
	"sliding_grant_cache": {[]Control{PreEffectAuthority}, "authority_check_unguarded"},
	// a leaked principal fails bind_identity's binding guard at the
	// provider; per_task_identity, no profile's, re-derives the identity
	// per task instead
	"ambient_identity_leak": {[]Control{BindIdentity}, ""},
	// a span a retry left running: evidence_gate holds the task whose
	// retried call carries it, and a later task on the worker starts its
	// own trace (the defect adopts the span and proves under it);
	// per_task_identity, no profile's, re-derives the whole identity
	"span_carry_over": {[]Control{EvidenceGate}, "worker_span_adopted"},
	// a server error or a failed connection is an unknown outcome: after
	// a commit, idempotency replays the retry and effect_readback finds
	// the effect (the baseline's fresh key commits it twice); the defect
	// takes the error as a refund not made and denies it
	"server_error":  {[]Control{Idempotency, EffectReadback}, "transport_error_as_failure"},
	"network_error": {[]Control{Idempotency, EffectReadback}, "transport_error_as_failure"},
	// a forked run: effect_readback has the second worker find the
	// first's effect on resume (the defect skips the readback on a resume
	// before any attempt); idempotency alone dedupes the second commit,
	// but the second worker's stale checkpoint still withdraws the effect
	"forked_run": {[]Control{EffectReadback}, "resume_trusts_plan"},
	// a de-authorised evidence item: refresh_context re-reads the order
	// record, which takes precedence over the CRM item, and its context
	// guard refuses an effect whose item was withdrawn after the re-read
	"deauthorised_evidence": {[]Control{RefreshContext}, ""},
	// a corrupted verification path: effect_readback verifies the entry
	// on the key, subject and amount of the request and on its trace,
	// which another action's record or a forged one does not carry
	"corrupted_readback": {[]Control{EffectReadback}, "readback_trusts_ref"},
	// a contract that moved between plan and call: copperfin pins no
	// version; the provider's capability guard (pre_effect_authority) and
	// its policy guard (refresh_context) check the amount as the provider
	// reads it under the new version, and refuse 100 times the refund
	"spec_drift": {[]Control{PreEffectAuthority, RefreshContext}, ""},
}

// Defences returns the reference system's declared defences against a
// fault kind or world event: the controls the paper nominates to interrupt
// the transfer (nil when none does), and the seeded defect of the system
// that lacks the behaviour defending against it, for kinds whose defence
// is not one of the paper's controls ("" when the baseline profile already
// lacks it; a name of Mutants otherwise). A kind may declare both: its
// nominated controls are then co-defences, each of which contains the kind
// alone even in the system with the defect (memory_loss: bind_identity or
// pre_effect_authority refuse the fabricated approval; corrupt_checkpoint:
// effect_readback finds the effect the corrupt checkpoint lost), and the
// kind's whole defence is the behaviour and the controls together. An
// unknown kind has neither. The slice is a copy.
func Defences(kind string) (nominated []Control, mutant string) {
	d := defences[kind]
	return append([]Control(nil), d.nominated...), d.mutant
}

func init() {
	for _, s := range model.Catalogue() {
		if _, ok := defences[s.Kind]; !ok {
			panic("copperfin: no defence row for kind " + s.Kind)
		}
	}
	for _, s := range model.NoticeKinds() {
		if _, ok := defences[s.Kind]; !ok {
			panic("copperfin: no defence row for kind " + s.Kind)
		}
	}
	for _, s := range model.WorldEvents() {
		if _, ok := defences[s.Kind]; !ok {
			panic("copperfin: no defence row for world event " + s.Kind)
		}
	}
}

// Nominated returns the controls the paper nominates against kind (the
// first result of Defences).
func Nominated(kind string) []Control {
	n, _ := Defences(kind)
	return n
}

// MutantFor returns the seeded defect that lacks the behaviour defending
// against kind (the second result of Defences).
func MutantFor(kind string) string { return defences[kind].mutant }
