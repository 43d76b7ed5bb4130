package model

import (
	"context"
	"encoding/binary"
	"errors"
)

// Task is one logical action a system is asked to perform on one subject
// (one refund of one order, one charge of one account). Amount is
// optional: zero means the action carries none. The harness assigns Trace before the run; it is the trace of the
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
	// RetryBudget is the number of tool-call attempts the task may make
	// after its first; Deadline is its deadline in logical milliseconds
	// from its first worker start. A restart resets neither (the harness practice,
	// "Budgets and Terminal Verdicts"). Both are the harness's: it sets
	// them from Options (RetryBudget, Deadline) and the schedule's config
	// (retry_budget, deadline) before the run, so a fixture's values are
	// not read: a fixture task sets them zero or to the harness's own
	// Options (any other value is an error of the run, never dropped
	// silently).
	RetryBudget int
	Deadline    Millis
	// Started is the logical time the task's first worker started (set by
	// the harness): the deadline is Started + Deadline, for a worker that
	// starts fresh after a crash as for the first.
	Started Millis
	// Join is the join policy declared up front for the task's fan-out.
	Join JoinPolicy
	// TokenBudget, above zero, is the model tokens the task may spend:
	// the sum of Step.Tokens its crossings reported (what the model
	// boundary served, read by the adapter from each reply's own usage
	// fields, never the system's claim). The budget invariant checks it;
	// zero (the default) states no token budget. It is read from the
	// fixture.
	TokenBudget int `json:",omitempty"`
}

// JoinPolicy is how a fan-out's join treats failed branches (the harness practice,
// "Parallel branches"): all_required (the default), best_effort or compensate.
type JoinPolicy string

// Join policies.
const (
	// joinAllRequired: any required branch failure stops the join.
	joinAllRequired JoinPolicy = "all_required"
	// joinBestEffort: continue with an explicit degraded marker.
	joinBestEffort JoinPolicy = "best_effort"
	// joinCompensate: run a bounded compensating action, then stop.
	joinCompensate JoinPolicy = "compensate"
)

// joinPolicies lists the join policies.
var joinPolicies = []JoinPolicy{joinAllRequired, joinBestEffort, joinCompensate}

// Action is the typed action contract (the paper, worked example 3): what a
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
	// Duplicates is how many further times the model's reply carried this
	// same call (fault kind duplicate_tool_call); it is one logical
	// action, to be carried out once however often it is proposed.
	Duplicates int
	// Malformed is the parse error of the reply's tool-call arguments
	// (fault kind malformed_tool_call); "" when they parse.
	Malformed string
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

// String returns "committed", "rejected" or "unknown", as the timeline's
// outcome column prints it.
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
	// Guard names the parts of the action contract the provider must find
	// still true at commit time, atomically with the commit (a conditional
	// write); a request whose guard fails is rejected with
	// class "precondition_failed" and makes no effect. Zero asks for nothing.
	Guard Guard
	// Contract pins the provider's contract (API) version the call was
	// built under: version 1 at the start of a run, 2 once spec_drift moved
	// it (then the amount field is read in whole units, 100 minor units
	// each). A provider at another version refuses the call with class
	// "precondition_failed" and makes no effect. 0 pins nothing: the call
	// is read under the provider's current version.
	Contract int
}

// Guard is a set of action-contract preconditions a tool call asks the
// provider to check atomically with its commit: the paper's authority
// kernel, which "sees three failed preconditions and denies execution",
// evaluated at the effect itself so that no change of the world between
// the system's last check and the commit can slip through.
type Guard uint8

// Guards.
const (
	// GuardCapability: the action's capability is live (unrevoked,
	// unexpired) and covers the amount.
	GuardCapability Guard = 1 << iota
	// GuardState: the subject's record is at the action's expected state
	// version.
	GuardState
	// GuardContext: the tenant's current policy is the action's policy
	// version and allows the amount, the subject's authoritative record
	// is eligible, and the eligibility item the decision relies on is
	// still granted (deauthorised_evidence).
	GuardContext
	// GuardBinding: the action's actor, subject, tenant and purpose are
	// the ones the capability record was issued for (a typed action
	// contract bound outside the model text; liveness is GuardCapability's).
	GuardBinding
)

// ToolResult is the tool's answer. Receipt is nil when the response carried
// none (a partial response). Replayed is true when the provider recognised
// RequestKey and returned the original effect's receipt.
type ToolResult struct {
	Outcome  Outcome
	Receipt  *Receipt
	Replayed bool
	Reason   string
	// Class types a rejection or an unknown outcome: ClassTimeout,
	// ClassRateLimited, "sandbox_denial", ClassRejected or
	// ClassInvalidOutput; empty for a plain commit. ClassErrorInBody on a
	// committed Outcome is a success envelope carrying an error: nothing
	// was committed, and a reader of the envelope alone is deceived.
	Class string
	// RetryAfter is the wait, in logical milliseconds, a rate-limited
	// provider asks for before a retry.
	RetryAfter Millis
	// Invalid is non-empty when the reply failed to decode (a malformed
	// body); Receipt then holds whatever did decode.
	Invalid string
}

// Classes of tool results. Only timeouts, invalid output and rate limits
// are retryable; a sandbox denial or an explicit rejection is not.
const (
	ClassTimeout       = "timeout"
	ClassRateLimited   = "rate_limited"
	classSandboxDenial = "sandbox_denial"
	ClassRejected      = "rejected"
	ClassInvalidOutput = "invalid_output"
	// ClassErrorInBody: the reply's envelope says success (a 2xx, a
	// JSON-RPC result) and its body carries the provider's error; the
	// provider committed nothing (fault kind false_success).
	ClassErrorInBody = "error_in_body"
	// classPrecondition: a guarded request whose guard failed at commit
	// time; nothing was committed.
	classPrecondition = "precondition_failed"
	// classDoNotRetry is a permanent rejection whose answer says not to
	// retry (a 4xx-class error): the task owes an unbounded back-off.
	classDoNotRetry = "do_not_retry"
	// classUnavailable: the provider is down (a 503 without a
	// retry-after, fault kind provider_outage); nothing was committed and
	// a retry may succeed once it is back.
	classUnavailable = "unavailable"
	// classUnauthorized: the provider refused the request's credential (a
	// 401, fault kind credential_expired); nothing was committed, and a
	// retry may succeed with a refreshed credential.
	classUnauthorized = "unauthorized"
	// classServerError is a server error (a 5xx-class answer) that does not
	// say whether the provider committed.
	classServerError = "server_error"
	// classNetworkError is a transport failure (connection refused or
	// reset): the client holds no answer at all.
	classNetworkError = "network_error"
)

// failedInBody reports whether res is a success envelope that carries an
// error (ClassErrorInBody): a refusal, whatever its envelope says.
func (res ToolResult) failedInBody() bool {
	return res.Outcome == OutcomeCommitted && res.Class == ClassErrorInBody
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
	// Degraded marks a release that continued past a failed branch under
	// the best_effort join policy.
	Degraded bool
	// Receipt is the provider's receipt id of the effect a release rests
	// on. A release of production code (a System implementing Observed)
	// must name one the provider's own store holds for the task
	// (recorded_agrees_with_ledger); model systems may leave it empty.
	Receipt string
	// TimedOut marks a claim made because the task's deadline ran out:
	// its terminal state is timed_out (TaskClaim.Terminal), not failed.
	TimedOut bool
}

// Errors the harness's Env returns.
var (
	// ErrWorkerCrashed is returned by every Env call of a worker instance
	// the harness has crashed; the instance must stop.
	ErrWorkerCrashed = errors.New("worker crashed")
	// ErrNotFound is returned by a reader for an unknown subject, tenant or
	// capability.
	ErrNotFound = errors.New("not found")
)

// ContextReader reads the action-bearing context: the subject's record,
// the policy and eligibility assertions. Events: context.subject,
// context.policy, context.eligibility.
type ContextReader interface {
	// ReadSubject reads the record of subject id (ErrNotFound for none).
	ReadSubject(ctx context.Context, id string) (Subject, error)
	ReadPolicy(ctx context.Context, tenant string) (Policy, error)
	// ReadEligibility reads an assertion from a source: the fixture's
	// Authoritative source reads the subject's record (eligible unless its
	// status is a hold), any other source the fixture's Secondary
	// assertions for the subject, or the record when it has none. Context
	// assembly may read a secondary source; a refresh with source
	// precedence reads the authoritative one.
	ReadEligibility(ctx context.Context, subject, source string) (Eligibility, error)
}

// Proposer is the stochastic component (a language model) that turns a
// drafted action into a proposal. The harness's proposer returns the draft
// unchanged unless a fault disturbs it: the zero Action is a reply that
// proposes nothing (model_refusal), Action.Duplicates a call the reply
// repeats (duplicate_tool_call). Event: proposal.
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
// Event: ledger.readback. The entries a Readback returns are the
// system's to read, change and keep: no later call overwrites them.
type LedgerReader interface {
	Readback(ctx context.Context, q ReadbackQuery) ([]LedgerEntry, error)
}

// EvidenceLedger appends and looks up evidence records. Events:
// evidence.<kind> for appends, evidence.lookup for lookups. The records a
// Lookup returns are the system's to read, change and keep, as a
// LedgerReader's entries are.
type EvidenceLedger interface {
	Append(ctx context.Context, r EvidenceRecord) (EvidenceAck, error)
	Lookup(ctx context.Context, trace string) ([]EvidenceRecord, error)
}

// CheckpointStore is the durable checkpoint store. Save stores a copy and
// stamps its checksum and write time. Load returns the newest checkpoint the
// store serves for task and false when it serves none; in both cases the
// returned Head is the highest sequence the store has acknowledged for the
// task (0 for a fresh task), so a reader can tell a missing or stale
// checkpoint from a fresh start. Events: checkpoint.write, checkpoint.load.
type CheckpointStore interface {
	Save(ctx context.Context, cp Checkpoint) error
	Load(ctx context.Context, task string) (Checkpoint, bool, error)
}

// Checksum returns the checksum a store stamps on cp: a 64-bit
// multiply-xorshift hash over its length-prefixed durable fields (not
// Checksum, Head or At), deterministic across processes. A reader
// recomputes it to reject a corrupt checkpoint.
func Checksum(cp Checkpoint) uint64 {
	h := wordHash(0x9e3779b97f4a7c15)
	h.str(cp.Task).num(int64(cp.Seq)).num(int64(cp.WorkflowVersion)).str(cp.State)
	h.num(int64(len(cp.CompletedEffects)))
	for _, e := range cp.CompletedEffects {
		h.str(e)
	}
	h.num(int64(cp.RetryRemaining)).num(int64(cp.DeadlineRemaining)).num(int64(cp.Attempt))
	a := cp.Action
	h.str(a.Actor).str(a.Subject).str(a.Tenant).str(a.Purpose).num(a.Amount).num(a.ExpectedVersion).num(a.PolicyVersion)
	h.str(a.CapabilityID).num(int64(a.CapabilityExpiry)).str(a.IdempotencyKey).str(a.TraceID)
	g := cp.Grant
	h.str(g.ID).str(g.Actor).str(g.Subject).str(g.Tenant).str(g.Purpose).num(g.Amount).num(int64(g.Expiry))
	if g.Revoked {
		h.num(1)
	} else {
		h.num(0)
	}
	for _, k := range sortedKeys(cp.Data) {
		h.str(k).str(cp.Data[k])
	}
	return uint64(h.mix())
}

// wordHash hashes 64-bit words with a multiply-xorshift step, without
// allocation.
type wordHash uint64

func (h *wordHash) word(v uint64) {
	x := uint64(*h) ^ v
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 31
	*h = wordHash(x)
}

func (h *wordHash) mix() wordHash {
	x := uint64(*h)
	x ^= x >> 30
	x *= 0x94d049bb133111eb
	x ^= x >> 27
	return wordHash(x)
}

func (h *wordHash) num(v int64) *wordHash {
	h.word(uint64(v))
	return h
}

func (h *wordHash) str(s string) *wordHash {
	h.word(uint64(len(s)))
	for len(s) >= 8 {
		h.word(binary.LittleEndian.Uint64([]byte(s[:8])))
		s = s[8:]
	}
	var tail uint64
	for i := 0; i < len(s); i++ {
		tail |= uint64(s[i]) << (8 * i)
	}
	h.word(tail)
	return h
}

// Memory is the worker's ephemeral context (an agent's scratchpad or
// context window): it does not survive a worker restart, and a memory_loss
// fault clears named keys. Events: memory.write, memory.read.
type Memory interface {
	Put(ctx context.Context, key, value string) error
	Get(ctx context.Context, key string) (value string, ok bool, err error)
}

// BranchStatus is the state of one branch of a fan-out: success, failure,
// timeout or not_started.
type BranchStatus string

// Branch states (the harness practice: "The join record must retain success, failure,
// timeout, and not-started states").
const (
	branchSuccess    BranchStatus = "success"
	branchFail       BranchStatus = "failure"
	branchTimeout    BranchStatus = "timeout"
	branchNotStarted BranchStatus = "not_started"
)

// BranchOutcome is one branch's state in a join record.
type BranchOutcome struct {
	Name   string       `json:"name"`
	Status BranchStatus `json:"status"`
}

// JoinRecord is what a join keeps: the declared policy and every branch's
// state. A successful sibling never erases a failed branch.
type JoinRecord struct {
	Policy   JoinPolicy      `json:"policy"`
	Branches []BranchOutcome `json:"branches"`
	Degraded bool            `json:"degraded"`
}

// Branches runs the child attempts of a fan-out and records the join.
// Run starts one branch (event branch.run; a compensating action is a
// branch with compensate set); Join records the join (event branch.join)
// in the World and the evidence ledger.
type Branches interface {
	Run(ctx context.Context, name string, compensate bool) (BranchStatus, error)
	Join(ctx context.Context, rec JoinRecord) error
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
	Memory    Memory
	Branches  Branches
	Signals   Signals
	// Notices is the inbox of the provider's asynchronous notices (see
	// Notices) in a run whose provider sends them (Config.Notices); nil in
	// every other run.
	Notices Notices
	// Calls is the way in for production code: the adapters over real
	// clients report their calls through it (see Calls).
	Calls Calls
	// Now returns the logical clock in milliseconds.
	Now func() Millis
	// Sleep waits d logical milliseconds (event clock.sleep). It returns
	// ErrWorkerCrashed for a crashed worker.
	Sleep func(ctx context.Context, d Millis) error
	// NewRequestID returns a fresh, never repeated request identity,
	// deterministic for a given schedule.
	NewRequestID func() string
	// Rand returns the next 64 uniformly distributed bits of the worker's
	// random source, for jitter and sampling: a stream that is a pure
	// function of the schedule's seed string, the task and the worker's
	// number, so a replay draws the same values (a different seed string
	// draws others; a restarted worker gets a fresh stream of its own).
	// A draw is not a boundary crossing: it records no event and takes no
	// logical time. It returns ErrWorkerCrashed for a crashed worker. A
	// system reads no other randomness.
	Rand func() (uint64, error)
	// RetryToken takes one retry from the fleet's shared retry budget
	// (Fleet.RetryBudget), shared by every agent of a fleet fixture: true
	// when granted, false once the fleet has spent it; outside a fleet
	// it always grants. Like Rand it is not a boundary crossing. It
	// returns ErrWorkerCrashed for a crashed worker.
	RetryToken func() (bool, error)
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
