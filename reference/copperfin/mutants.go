package copperfin

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Mutant is a seeded defect of the reference system: a mistake a real team
// could plausibly ship. Each is selected by name; the zero value is none.
type Mutant string

// The mutants. Each lacks one behaviour that defends against a fault.
const (
	// RejectionAsSuccess takes any reply that is not a timeout as success:
	// a sandbox denial, a rejection or a rate limit becomes a completed
	// refund.
	RejectionAsSuccess Mutant = "rejection_as_success"
	// TimeoutAsSuccess takes an unknown outcome as done.
	TimeoutAsSuccess Mutant = "timeout_as_success"
	// UncheckedReply takes whatever decoded from a reply as the receipt,
	// without checking it against the request.
	UncheckedReply Mutant = "unchecked_reply"
	// UnboundedRetry ignores the retry budget and the deadline.
	UnboundedRetry Mutant = "unbounded_retry"
	// RetryBudgetReset restores the full retry budget on every restart (and
	// so retries after a resumed attempt as if the budget were fresh).
	RetryBudgetReset Mutant = "retry_budget_reset"
	// DeadlineFromRestart measures the deadline from the last restart.
	DeadlineFromRestart Mutant = "deadline_from_restart"
	// CheckpointBeforeEffect writes the "effected" checkpoint before the
	// effect is committed and recorded.
	CheckpointBeforeEffect Mutant = "checkpoint_before_effect"
	// StaleCheckpointAccepted resumes from whatever the store serves: a
	// stale, future-version or corrupt checkpoint, or none (starting over).
	StaleCheckpointAccepted Mutant = "stale_checkpoint_accepted"
	// FabricatedApproval carries on without the approval when it is absent
	// from memory, instead of rebuilding it or holding.
	FabricatedApproval Mutant = "fabricated_approval"
	// FailedBranchDropped leaves a failed branch out of the join record and
	// joins as if all succeeded.
	FailedBranchDropped Mutant = "failed_branch_dropped"
	// KeyPerAttempt derives the idempotency key from the attempt number:
	// every retry is a new request to the provider.
	KeyPerAttempt Mutant = "key_per_attempt"
	// ReadbackFromCache answers every readback from the worker's own record
	// of the requests it sent instead of the provider's ledger.
	ReadbackFromCache Mutant = "readback_from_cache"
	// ReadbackBySubject reads the ledger back by subject and takes any
	// effect on the subject for this request's, with this request's key
	// and trace in the evidence.
	ReadbackBySubject Mutant = "readback_by_subject"
	// ReplyAsProof lets the evidence gate accept a committed reply (a 200)
	// as proof when no receipt or readback joins the decision.
	ReplyAsProof Mutant = "reply_as_proof"
	// ExpiryAtApproval lets the approval's own check of the capability stand
	// for the effect-time check: no re-read, no guarded commit.
	ExpiryAtApproval Mutant = "expiry_at_approval"
	// TracePerRetry starts a fresh trace on every retry and writes and looks
	// up the evidence under it.
	TracePerRetry Mutant = "trace_per_retry"
	// PolicyCached keeps each tenant's policy in a process-wide cache shared
	// by every task, treats it as fixed configuration (no policy guard on the
	// commit) and never re-reads it.
	PolicyCached Mutant = "policy_cached"
	// ResumeSkipsChecks has a resumed worker trust the pre-effect checks
	// its predecessor passed: it re-sends the saved request without
	// re-checking and without the commit guard, which is not persisted.
	ResumeSkipsChecks Mutant = "resume_skips_checks"
	// ResendUnseen reads the ledger back after a commit (with or without
	// effect_readback) and takes an effect the readback does not show as
	// not made: it sends the request once more, under a fresh request id
	// unless idempotency is on.
	ResendUnseen Mutant = "resend_unseen"
	// StateCheckUnguarded checks the state version by a read before the
	// commit (with or without state_precondition) and sends no state guard
	// with the commit: check-then-act against whatever replica served the
	// read.
	StateCheckUnguarded Mutant = "state_check_unguarded"
	// EnvelopeAsSuccess reads a reply's envelope and not its body: a
	// success envelope carrying the provider's error
	// (model.ClassErrorInBody) is taken as a completed refund.
	EnvelopeAsSuccess Mutant = "envelope_as_success"
	// RefusalAsDone takes a reply that proposes nothing (the model
	// refused, or answered without a tool call) as the task done, and
	// releases it.
	RefusalAsDone Mutant = "refusal_as_done"
	// DuplicateCallExecuted carries out every copy of a call the model's
	// reply repeats (model.Action.Duplicates), each as an attempt of its own.
	DuplicateCallExecuted Mutant = "duplicate_call_executed"
	// AuthorityCheckUnguarded checks the capability by a read before the
	// commit (with or without pre_effect_authority) and sends no
	// capability guard with the commit: the check's answer, from whatever
	// cache served it, stands for the record.
	AuthorityCheckUnguarded Mutant = "authority_check_unguarded"
	// DenyOverLedger denies without asking the provider's ledger: a
	// resumed worker whose pre-effect checks fail now denies a refund its
	// predecessor made, and an effect under a trace no decision wrote is
	// taken for another request's. Only recorded_agrees_with_ledger, which
	// checks a claim against the ledger, shows it.
	DenyOverLedger Mutant = "deny_over_ledger"
	// RestartForgetsBackoff keeps the back-off a rate-limited reply owes
	// in the worker's memory only: the checkpoint reserving the retry does
	// not record it, and a worker resumed from that checkpoint retries at
	// once. Only retry_paced shows it.
	RestartForgetsBackoff Mutant = "restart_forgets_backoff"
	// WorkerSpanAdopted takes a task's trace from its worker's ambient
	// context under evidence_gate too: a span a retry left running in the
	// worker (span_carry_over) becomes the trace a later task decides,
	// commits and proves under.
	WorkerSpanAdopted Mutant = "worker_span_adopted"
	// TransportErrorAsFailure takes a server error (5xx class) or a
	// failed connection as proof that nothing was committed: it denies the
	// refund as not made without asking the ledger, though the provider may
	// have committed it before the answer was lost.
	TransportErrorAsFailure Mutant = "transport_error_as_failure"
	// ResumeTrustsPlan has a worker resumed from a checkpoint that
	// reserved no attempt (the authorized one) take it that nothing was
	// sent, and make the effect without reading the ledger back under
	// effect_readback: true of a crashed predecessor, false of a forked
	// run's other worker (forked_run).
	ResumeTrustsPlan Mutant = "resume_trusts_plan"
	// PolicyAgeUnchecked is refresh_context as it was before the policy's
	// age was read: the re-read policy is acted on however old the
	// replica's copy is (Policy.AsOf). Only policy_fresh shows it.
	PolicyAgeUnchecked Mutant = "policy_age_unchecked"
	// ReadbackTrustsRef verifies on the field it queried by: an entry a
	// readback by the action's reference returns is taken as the action's
	// effect whatever its key, trace, subject or amount, with this
	// request's key and trace in the evidence (corrupted_readback).
	ReadbackTrustsRef Mutant = "readback_trusts_ref"
)

// MutantInfo names a mutant and says what it gets wrong.
type MutantInfo struct {
	Name Mutant `json:"name"`
	Doc  string `json:"doc"`
	// MaskedBy are the controls of the typed profile that contain the
	// defect whatever the schedule (a declared prediction, like the
	// nominated controls of Defences): exploration shows the mutant with
	// them removed.
	MaskedBy []Control `json:"masked_by,omitempty"`
}

var mutants = []MutantInfo{
	{RejectionAsSuccess, "any reply that is not a timeout is taken as success", nil},
	{TimeoutAsSuccess, "an unknown outcome is taken as done", nil},
	{UncheckedReply, "whatever decoded from a reply is taken as the receipt, unchecked", nil},
	{UnboundedRetry, "the retry budget and the deadline are ignored", nil},
	{RetryBudgetReset, "the retry budget is reset on restart", nil},
	{DeadlineFromRestart, "the deadline is measured from the last restart", nil},
	{CheckpointBeforeEffect, "the effected checkpoint is written before the effect is recorded", nil},
	{StaleCheckpointAccepted, "a stale, future-version, corrupt or missing checkpoint is accepted on resume", nil},
	{FabricatedApproval, "an approval absent from memory is fabricated instead of rebuilt or held", []Control{BindIdentity, PreEffectAuthority}},
	{FailedBranchDropped, "a failed branch is dropped at the join", nil},
	{KeyPerAttempt, "a new idempotency key on each retry", nil},
	{ReadbackFromCache, "readback from the local record of sent requests instead of the provider ledger", nil},
	{ReadbackBySubject, "readback matching by subject instead of key", nil},
	{ReplyAsProof, "a committed reply (a 200) accepted as proof", nil},
	{ExpiryAtApproval, "capability expiry checked at approval time instead of effect time", nil},
	{TracePerRetry, "trace id regenerated on retry", nil},
	{PolicyCached, "policy read cached across tasks", nil},
	{ResumeSkipsChecks, "a resumed worker trusts its predecessor's pre-effect checks and re-sends unguarded", nil},
	{ResendUnseen, "an effect a post-commit readback does not show is re-sent", []Control{Idempotency}},
	{StateCheckUnguarded, "the state version is checked by a read, with no state guard on the commit", nil},
	{EnvelopeAsSuccess, "a success envelope carrying an error is taken as a completed refund", nil},
	{RefusalAsDone, "a model reply that proposes nothing is taken as the task done", nil},
	{DuplicateCallExecuted, "every copy of a tool call the model's reply repeats is carried out", []Control{Idempotency}},
}

// cacheMutants are the seeded defects kept out of Mutants(), whose every
// entry exploration over the catalogue must kill with the eight built-in
// invariants; ParseMutant accepts them. authority_check_unguarded shows
// only under the kinds outside the catalogue (model.CacheAndWorkerKinds),
// transport_error_as_failure only under server_error and network_error,
// deny_over_ledger only to recorded_agrees_with_ledger, worker_span_adopted
// only where one worker runs several tasks (span_carry_over),
// resume_trusts_plan only where a run forks (forked_run);
// policy_age_unchecked only to policy_fresh (policy_fetch_failed);
// readback_trusts_ref only where the verification path is corrupted
// (corrupted_readback).
var cacheMutants = []MutantInfo{
	{AuthorityCheckUnguarded, "the capability is checked by a read, with no capability guard on the commit", nil},
	{DenyOverLedger, "a denial made without reading the provider's ledger, which may hold the task's refund", nil},
	{RestartForgetsBackoff, "a resumed worker forgets the back-off its predecessor owed and retries at once", nil},
	{WorkerSpanAdopted, "a span left running in the worker adopted as a later task's trace", nil},
	{TransportErrorAsFailure, "a server error or a failed connection taken as a refund not made", nil},
	{ResumeTrustsPlan, "a worker resumed before any attempt takes it that nothing was sent and skips the readback", nil},
	{PolicyAgeUnchecked, "a policy re-read is acted on however old the replica's copy is", nil},
	{ReadbackTrustsRef, "any entry a readback by the action's reference returns is taken as the action's effect", nil},
}

// policyCache is the process-wide policy cache of the policy_cached mutant:
// one per factory, shared by every instance the factory makes (so a
// factory with this mutant serves one run).
type policyCache struct{ byTenant []model.Policy }

func (c *policyCache) get(tenant string) (model.Policy, bool) {
	for _, p := range c.byTenant {
		if p.Tenant == tenant {
			return p, true
		}
	}
	return model.Policy{}, false
}

func (c *policyCache) put(p model.Policy) { c.byTenant = append(c.byTenant, p) }

// Mutants lists every mutant in a fixed order.
func Mutants() []MutantInfo { return append([]MutantInfo(nil), mutants...) }

// ParseMutant returns the mutant named s ("" is none), or an error naming s
// and the valid names.
func ParseMutant(s string) (Mutant, error) {
	if s == "" {
		return "", nil
	}
	// the lists as they are: a system is built from its config on every
	// run, and only an unknown name needs them joined
	for _, list := range [][]MutantInfo{mutants, cacheMutants} {
		for _, m := range list {
			if string(m.Name) == s {
				return m.Name, nil
			}
		}
	}
	all := append(Mutants(), cacheMutants...)
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = string(m.Name)
	}
	return "", fmt.Errorf("unknown mutant %q (valid: %s)", s, strings.Join(names, ", "))
}

func (m Mutant) is(x Mutant) bool { return m == x }
