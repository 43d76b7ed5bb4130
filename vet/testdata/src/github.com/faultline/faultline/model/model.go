// Package model is a stub of faultline's model package for the analyzers'
// tests: the types they recognise, with the real package's path.
package model

import "context"

type Millis int64

type Task struct {
	ID, Subject string
	RetryBudget int
}

type Action struct {
	Subject        string
	IdempotencyKey string
	TraceID        string
}

type Outcome int

const (
	OutcomeUnknown Outcome = iota
	OutcomeCommitted
	OutcomeRejected
)

type ToolCall struct {
	Tool       string
	RequestKey string
	Action     Action
}

type ToolResult struct {
	Outcome Outcome
	Class   string
}

type EvidenceAck struct {
	Ref     string
	Outcome Outcome
}

type ReadbackQuery struct{ ActionRef string }

type LedgerEntry struct{ Key string }

type ClaimVerdict string

const (
	ClaimRelease ClaimVerdict = "release"
	ClaimHold    ClaimVerdict = "hold"
	ClaimDeny    ClaimVerdict = "deny"
)

type Claim struct {
	Verdict ClaimVerdict
	Reason  string
}

type ToolClient interface {
	Commit(ctx context.Context, call ToolCall) (ToolResult, error)
}

type LedgerReader interface {
	Readback(ctx context.Context, q ReadbackQuery) ([]LedgerEntry, error)
}

type Env struct {
	Tool         ToolClient
	Ledger       LedgerReader
	Now          func() Millis
	Sleep        func(ctx context.Context, d Millis) error
	NewRequestID func() string
	Rand         func() (uint64, error)
}

type System interface {
	Run(ctx context.Context, env Env, task Task) (Claim, error)
}
