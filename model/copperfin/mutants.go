package copperfin

import (
	"fmt"
	"strings"
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
	// RetryBudgetReset restores the full retry budget on every restart.
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
)

// MutantInfo names a mutant and says what it gets wrong.
type MutantInfo struct {
	Name Mutant `json:"name"`
	Doc  string `json:"doc"`
}

var mutants = []MutantInfo{
	{RejectionAsSuccess, "any reply that is not a timeout is taken as success"},
	{TimeoutAsSuccess, "an unknown outcome is taken as done"},
	{UncheckedReply, "whatever decoded from a reply is taken as the receipt, unchecked"},
	{UnboundedRetry, "the retry budget and the deadline are ignored"},
	{RetryBudgetReset, "the retry budget is reset on restart"},
	{DeadlineFromRestart, "the deadline is measured from the last restart"},
	{CheckpointBeforeEffect, "the effected checkpoint is written before the effect is recorded"},
	{StaleCheckpointAccepted, "a stale, future-version, corrupt or missing checkpoint is accepted on resume"},
	{FabricatedApproval, "an approval absent from memory is fabricated instead of rebuilt or held"},
	{FailedBranchDropped, "a failed branch is dropped at the join"},
}

// Mutants lists every mutant in a fixed order.
func Mutants() []MutantInfo { return append([]MutantInfo(nil), mutants...) }

// ParseMutant returns the mutant named s ("" is none), or an error naming s
// and the valid names.
func ParseMutant(s string) (Mutant, error) {
	if s == "" {
		return "", nil
	}
	for _, m := range mutants {
		if string(m.Name) == s {
			return m.Name, nil
		}
	}
	names := make([]string, len(mutants))
	for i, m := range mutants {
		names[i] = string(m.Name)
	}
	return "", fmt.Errorf("unknown mutant %q (valid: %s)", s, strings.Join(names, ", "))
}

func (m Mutant) is(x Mutant) bool { return m == x }
