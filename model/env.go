package model

import (
	"context"
	"errors"
)

// Task is one logical action a system is asked to perform: one refund of one
// order. The harness assigns Trace before the run; it is the trace of the
// task's decision and the root of its evidence lineage.
type Task struct {
	ID         string
	Actor      string
	Subject    string
	Tenant     string
	Purpose    string
	Amount     int64
	Capability string // the capability grant the task was approved under
	Trace      string
}

// Action is the typed action contract (seed 000, worked example 3): what a
// proposal becomes before it may become an effect.
type Action struct {
	Actor            string
	Subject          string
	Tenant           string
	Purpose          string
	Amount           int64
	ExpectedVersion  int64
	PolicyVersion    int64
	CapabilityID     string
	CapabilityExpiry Millis
	// IdempotencyKey is the logical action's stable key ("O-731:refund:v1").
	IdempotencyKey string
	TraceID        string
}

// Outcome is the three-valued result of a consequential tool call, as Jepsen
// and FoundationDB treat commits: Committed (with a receipt, normally),
// Rejected (an explicit "did not happen"), or Unknown (a timeout or a lost
// reply). Unknown must be resolved by idempotent retry or independent
// readback; it never means "did not happen".
type Outcome int

// Tool outcomes.
const (
	OutcomeUnknown Outcome = iota
	OutcomeCommitted
	OutcomeRejected
)

func (o Outcome) String() string {
	switch o {
	case OutcomeCommitted:
		return "committed"
	case OutcomeRejected:
		return "rejected"
	}
	return "unknown"
}

// ToolCall is one request to a consequential tool. RequestKey is the
// provider's idempotency key: a request with a key the provider has already
// committed is not committed again and replays the original receipt.
type ToolCall struct {
	Tool       string
	RequestKey string
	Action     Action
}

// ToolResult is the tool's answer. Receipt is nil when the response carried
// none (a partial response). Replayed is true when the provider recognised
// RequestKey and returned the original effect's receipt.
type ToolResult struct {
	Outcome  Outcome
	Receipt  *Receipt
	Replayed bool
	Reason   string
}

// ReadbackQuery selects provider-ledger entries by logical action reference.
// An independent readback reads the provider's ledger, not the system's
// memory of what it sent.
type ReadbackQuery struct {
	ActionRef string
	Subject   string // optional filter; empty means any
}

// EvidenceAck is the evidence ledger's answer to an append: the stored
// record's reference and whether the write is known to be durable. A write
// whose acknowledgement was lost has Outcome Unknown and an empty Ref.
type EvidenceAck struct {
	Ref     string
	Outcome Outcome
}

// ClaimVerdict is what the system tells its user, and (for Unsafe) what the
// oracle makes of a claim that released an unsafe effect.
type ClaimVerdict string

// Claim verdicts.
const (
	ClaimRelease ClaimVerdict = "release"
	ClaimHold    ClaimVerdict = "hold"
	ClaimDeny    ClaimVerdict = "deny"
	ClaimUnsafe  ClaimVerdict = "unsafe"
)

// Claim is a system's answer for a task.
type Claim struct {
	Verdict ClaimVerdict
	Reason  string
}

// Errors the harness's Env returns.
var (
	// ErrWorkerCrashed is returned by every Env call of a worker instance
	// the harness has crashed; the instance must stop.
	ErrWorkerCrashed = errors.New("worker crashed")
	// ErrNotFound is returned by a reader for an unknown subject, tenant or
	// capability.
	ErrNotFound = errors.New("not found")
	// ErrStopped is returned when a stop condition ended the run.
	ErrStopped = errors.New("run stopped by a stop condition")
)

// ContextReader reads the action-bearing context: the order, the policy
// and eligibility assertions. Events: context.order, context.policy,
// context.eligibility.
type ContextReader interface {
	ReadOrder(ctx context.Context, subject string) (Order, error)
	ReadPolicy(ctx context.Context, tenant string) (Policy, error)
	// ReadEligibility reads an assertion from a source (SourceAuthoritative
	// or SourceSecondary). Context assembly reads the secondary source; a
	// refresh with source precedence reads the authoritative one.
	ReadEligibility(ctx context.Context, subject, source string) (Eligibility, error)
}

// Proposer is the stochastic component (a language model) that turns a
// drafted action into a proposal. The harness's proposer returns the draft
// unchanged unless a fault disturbs it. Event: proposal.
type Proposer interface {
	Propose(ctx context.Context, draft Action) (Action, error)
}

// Authority issues and re-checks capability grants. Approve returns the
// capability the task was approved under (event authority.grant); Check
// reads the capability's current record (event authority.check).
type Authority interface {
	Approve(ctx context.Context, task Task, a Action) (Capability, error)
	Check(ctx context.Context, id string) (Capability, error)
}

// StateReader reads the authoritative state version of a subject. Event:
// state.read.
type StateReader interface {
	ReadVersion(ctx context.Context, subject string) (int64, error)
}

// ToolClient makes consequential tool calls. Event: tool.commit.
type ToolClient interface {
	Commit(ctx context.Context, call ToolCall) (ToolResult, error)
}

// LedgerReader reads the provider's ledger: the independent readback path.
// Event: ledger.readback.
type LedgerReader interface {
	Readback(ctx context.Context, q ReadbackQuery) ([]LedgerEntry, error)
}

// EvidenceLedger appends and looks up evidence records. Events:
// evidence.<kind> for appends, evidence.lookup for lookups.
type EvidenceLedger interface {
	Append(ctx context.Context, r EvidenceRecord) (EvidenceAck, error)
	Lookup(ctx context.Context, trace string) ([]EvidenceRecord, error)
}

// CheckpointStore is the durable checkpoint store. Load returns the newest
// checkpoint the store serves for task and false when it has none. Events:
// checkpoint.write, checkpoint.load.
type CheckpointStore interface {
	Save(ctx context.Context, cp Checkpoint) error
	Load(ctx context.Context, task string) (Checkpoint, bool, error)
}

// Signals is how a system reports what it noticed: a warning is a typed
// anomaly (an unknown outcome, a subject mismatch, a missing receipt). The
// oracle counts a fault as detected only when a warning follows the fault's
// disturbance in the timeline.
type Signals interface {
	Warn(code, detail string)
}

// Env is everything a System under test is given. Every call through it is
// a boundary crossing: the harness routes it through the injector, checks
// every invariant after it, and records it in the timeline. A user's own
// system takes the same Env.
type Env struct {
	Context   ContextReader
	Proposer  Proposer
	Authority Authority
	State     StateReader
	Tool      ToolClient
	Ledger    LedgerReader
	Evidence  EvidenceLedger
	Store     CheckpointStore
	Signals   Signals
	// Now returns the logical clock in milliseconds.
	Now func() Millis
	// NewRequestID returns a fresh, never repeated request identity,
	// deterministic for a given schedule.
	NewRequestID func() string
}

// System is the thing under test. Run performs task through env and returns
// its claim. A run the harness crashes returns ErrWorkerCrashed (or any
// error wrapping it); the harness then starts a fresh instance, with no
// memory, that must resume from env.Store.
type System interface {
	Run(ctx context.Context, env Env, task Task) (Claim, error)
}

// Factory makes a fresh System instance. A worker restart calls it again:
// nothing survives in memory.
type Factory func() System
