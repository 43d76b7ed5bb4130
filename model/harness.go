package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/faultline/faultline/internal/hang"
)

// Options are the harness's run options. The zero value takes the defaults
// documented on each field.
type Options struct {
	// MaxRestarts bounds worker restarts per task (default 3). A task that
	// crashes more often ends with a hold and an inconclusive run verdict.
	MaxRestarts int
	// RetryBudget is the number of tool-call attempts a task may make after
	// its first (default 2). Restarts never reset it.
	RetryBudget int
	// Deadline is the task's deadline in logical milliseconds from its
	// first worker start (default 2000). Restarts never reset it.
	Deadline Millis
	// Join is the join policy of every task's fan-out (default
	// all_required).
	Join JoinPolicy
	// ContextCutoff, when positive, bounds the ephemeral context in
	// logical milliseconds: a memory.read misses an entry written longer
	// ago than that, as a context window drops what scrolled out of it.
	// 0 (the default) keeps every entry.
	ContextCutoff Millis
	// Builtin selects the built-in invariants checked, by name (see
	// [Invariants]): nil checks all eight (or a Definition's selection); a
	// non-nil list checks exactly those named, none when it is empty, in
	// place of a Definition's (properties.Check logs that it dropped them).
	// Selecting them narrows the outcome terms to what the invariants in
	// scope decide (see [Terms]). An unknown or repeated name is an error
	// returned by Run and Terms. Empty with no Invariants, a run checks
	// nothing: every door refuses such options.
	Builtin []string
	// Invariants are the user's own invariants, checked after every
	// crossing after the built-in ones and reported after them. A
	// nameless, repeated or check-less invariant, or one named like a
	// built-in, is an error returned by Run and Terms.
	Invariants []UserInvariant
	// Compat keeps the paper's invariant set ("--compat paper188"): the
	// invariants selected, without the recorded_agrees_with_ledger every
	// other run checks beside them (a run with Config.Notices still
	// checks it).
	Compat bool `json:",omitempty"`
	// ProviderHistory records the run's provider history
	// (Result.Provider, View.Provider) for a linearizability check
	// (package linearize). A run with user invariants records it anyway;
	// otherwise it is off, and a run records none.
	ProviderHistory bool
	// Stop declares stop conditions (see Stop); the zero value declares
	// none. Run and Terms return an error for an invalid Stop.
	Stop Stop
	// Clock, when set, is the logical clock of a run of production code
	// (a System implementing Observed), in milliseconds: every crossing
	// reads it, the run's time being its advance since the run started
	// (so a bubble earlier runs shared times a run as a fresh one does),
	// and the World's clock never goes back. properties sets it to the
	// synctest bubble's clock. nil (and every model run): each crossing
	// advances the clock by its logical cost.
	Clock func() Millis `json:"-"`
	// System describes the system under test for the run record (its
	// config in its own terms, its defences in the next step; see
	// Definition); nil records the config's system part as JSON and names
	// no control. Definition.Options sets it.
	System *Definition
}

// maxCallsPerTask bounds the crossings one task may make: a system that
// loops (an unbounded retry) is stopped there, the stop is recorded, and
// the task ends with a hold. It is far above any legitimate run.
const maxCallsPerTask = 400

// checkBudgets refuses a negative deadline, retry budget or restart
// bound (0 takes the default; see Options).
func (o Options) checkBudgets() error {
	switch {
	case o.Deadline < 0:
		return fmt.Errorf("model: options: Deadline %d ms must be positive (0 for the default 2000 ms)", o.Deadline)
	case o.RetryBudget < 0:
		return fmt.Errorf("model: options: RetryBudget %d must not be negative (0 for the default 2)", o.RetryBudget)
	case o.MaxRestarts < 0:
		return fmt.Errorf("model: options: MaxRestarts %d must not be negative (0 for the default 3)", o.MaxRestarts)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxRestarts == 0 {
		o.MaxRestarts = 3
	}
	if o.RetryBudget == 0 {
		o.RetryBudget = 2
	}
	if o.Deadline == 0 {
		o.Deadline = 2000
	}
	if o.Join == "" {
		o.Join = joinAllRequired
	}
	return o
}

// Logical costs of calls, in milliseconds: every crossing advances the
// clock, so expiries and deadlines are reachable without a wall clock.
const (
	costRead   Millis = 10
	costCommit Millis = 40
)

// readCost and commitCost are the logical milliseconds a read crossing
// and a tool commit advance the clock. The budget invariant takes the
// clock after a commit, so a system that checks Env.Now() against its
// deadline before committing leaves commitCost.
const (
	readCost   = costRead
	commitCost = costCommit
)

// Harness runs a System on a Fixture under a Schedule. It reuses its
// storage between runs, so it is not safe for concurrent use: give each
// goroutine its own Harness. A run is a pure function of the fixture, the
// schedule, the options and the system.
type Harness struct {
	fixture Fixture
	// shared is a copy of fixture that every Result of the harness points
	// to (the fixture is never changed after NewHarness)
	shared *Fixture
	opts   Options
	scope  scope
	// users are the invariants of a run beside the built-in ones, without
	// and with notices (runInvariants)
	users [2][]UserInvariant
	// history: the runs record the provider's history (see recordsProvider)
	history bool
	err     error    // invalid options, returned by every run
	traces  []string // per task: the trace id the harness assigns
	r       run
	// stopOn is true when opts.Stop declares a condition; stopErr is its
	// validation error.
	stopOn  bool
	stopErr error
	// sysIn is the system part of the last schedule validated and sysOut
	// its canonical form: a harness runs many schedules under one config,
	// and neither validation nor the run id re-encodes it each time.
	sysIn, sysOut []byte
	// sysHash is the run id hash of the fixture's name and sysOut,
	// emptyHash of the name and {} (no system part).
	sysHash, emptyHash uint64
	// lastHash and id are the last run id computed and the hash it names.
	lastHash uint64
	id       string
	// uniqueIDs is true when no two tasks of the fixture share an id: a
	// task's ledger entries, evidence and checkpoints then all lie past
	// the lengths those had when the task started, and the per-task
	// lookups scan only them.
	uniqueIDs bool
}

// NewHarness returns a harness over fixture f. Invalid options are
// reported by the first Run or Terms.
func NewHarness(f Fixture, opts Options) *Harness {
	h := &Harness{fixture: f, opts: opts.withDefaults()}
	shared := f
	h.shared = &shared
	h.scope, h.err = resolveScope(opts)
	if h.err == nil {
		h.err = opts.checkBudgets()
	}
	if f.Fleet != nil && h.err == nil {
		h.err = f.Fleet.validate(len(f.Tasks))
		for _, u := range h.scope.user {
			if u.Name == InvNoRetryStorm && h.err == nil {
				h.err = fmt.Errorf("model: options: invariant %q has the name of the fleet invariant", u.Name)
			}
		}
	}
	if err := checkMaxPolicyAge(&f); err != nil && h.err == nil {
		h.err = fmt.Errorf("model: fixture %q: %w", f.Name, err)
	}
	kind := fixtureKind{fleet: f.Fleet != nil, aged: f.MaxPolicyAge > 0}
	h.users = [2][]UserInvariant{runInvariants(h.scope, kind, false), runInvariants(h.scope, kind, true)}
	// the provider's history is recorded for invariants that may read it:
	// the user's own, the fleet's, and any of production code
	h.history = opts.ProviderHistory || len(h.scope.user) > 0 || f.Fleet != nil || f.MaxPolicyAge > 0 || opts.Clock != nil
	h.stopOn, h.stopErr = opts.Stop.set(), opts.Stop.Validate()
	seen := make(map[string]bool, len(f.Tasks))
	h.uniqueIDs = true
	for _, t := range f.Tasks {
		if err := h.fixtureValues(t); err != nil && h.err == nil {
			h.err = err
		}
		h.traces = append(h.traces, "trace-"+t.ID)
		h.uniqueIDs = h.uniqueIDs && !seen[t.ID]
		seen[t.ID] = true
	}
	x := idHash{v: 14695981039346656037}
	x.str(h.fixture.Name)
	x.str("{}")
	h.emptyHash = x.v
	h.r.reqNames = names{prefix: "req-", table: requestIDs[:]}
	h.r.rcptNames = names{prefix: "rcpt-", table: receiptIDs[:]}
	h.r.evNames = names{prefix: "ev-", table: evidenceRefs[:]}
	h.r.h = h
	h.r.taskState = &h.r.own
	h.r.env = &taskEnv{r: &h.r}
	return h
}

// armed is one scheduled fault in a run, with what the injector saw.
type armed struct {
	id    string
	entry FaultEntry
	kind  *faultKind
	event int
	// toolCalls counts the crossings of event whose tool is entry.Tool
	// (when set): the ordinal the entry counts.
	toolCalls int
	reached   bool
	fired     int
	firedAt   int // seq of the first firing, 0 if none
	// corr is the correlation the entry runs under (FaultEntry.Correlated);
	// ended is set when a persistent fault's Until event was crossed
	// after it fired; windowFrom is the World's clock at the fault's
	// ordinal (a synchronized fault's window and a lasting one's duration
	// open there, when the crossing is sent: a commit's reply, where it
	// fires, comes later); hitTasks
	// (synchronized: a set of fixture indexes) and hitTenants (shared)
	// are the tasks and tenants it has hit.
	corr       Correlation
	ended      bool
	windowFrom Millis
	hitTasks   taskSet
	hitTenants []string
	// scope is what a worker-scoped fault captured at its worker's start
	// (nil before, and after the worker restarted).
	scope *workerScope
}

// taskSet is a set of fixture indexes: a bit a task, and their count.
type taskSet struct {
	bits []uint64
	n    int
}

func (t *taskSet) reset() {
	clear(t.bits)
	t.n = 0
}

func (t *taskSet) has(i int) bool {
	return i>>6 < len(t.bits) && t.bits[i>>6]&(1<<(i&63)) != 0
}

func (t *taskSet) add(i int) {
	if t.has(i) {
		return
	}
	for i>>6 >= len(t.bits) {
		t.bits = append(t.bits, 0)
	}
	t.bits[i>>6] |= 1 << (i & 63)
	t.n++
}

// matches reports whether f hits the crossing whose count (its ordinal,
// or its tool's) is n, under its correlation (see FaultEntry).
func (r *run) matches(f *armed, n int) bool {
	o := f.entry.Ordinal
	if n == o {
		f.windowFrom = r.world.Clock
		switch f.corr {
		case correlationSynchronized:
			f.hitTasks.reset()
			f.hitTasks.add(r.index)
		case correlationShared:
			f.hitTenants = append(f.hitTenants[:0], r.task.Tenant)
		}
		return true
	}
	if n < o {
		return false
	}
	if d := f.kind.spec.LastsMs; d > 0 {
		// a lasting fault hits every crossing of every worker, from its
		// ordinal's (the workers that cross at that time included) until
		// it ends
		return f.reached && r.world.Clock-f.windowFrom < d
	}
	switch f.corr {
	case correlationRepeated:
		return n < o+f.entry.Repeat
	case correlationPersistent:
		return f.fired > 0 && !f.ended
	case correlationSynchronized:
		w := f.entry.WindowMs
		if w == 0 {
			w = defaultWindow
		}
		if f.hitTasks.n == 0 || r.world.Clock-f.windowFrom >= w || f.hitTasks.has(r.index) {
			return false
		}
		f.hitTasks.add(r.index)
		return true
	case correlationShared:
		if f.fired == 0 || slices.Contains(f.hitTenants, r.task.Tenant) {
			return false
		}
		f.hitTenants = append(f.hitTenants, r.task.Tenant)
		return true
	}
	return false
}

// run is the mutable state of one run.
type run struct {
	h *Harness
	// commits composes a commit's hooks (disturbCommit)
	commits commitChain
	env     *taskEnv
	world   world
	sched   *Schedule
	faults  []armed
	counts  [32]int
	// tl is a detailed run's timeline as it is recorded (see Timeline)
	tl recorder
	// store is a detailed run's Result storage, its record's among it
	// (newStore), from the run's start to its result
	store *resultStore
	// spare is the storage of Results handed back (see recycle)
	spare spareStores
	// evs holds every recorded event's name (the oracle's view of the
	// timeline); tl the full record when detailed.
	evs []EventName
	ids int
	// detailed is false on the Terms path: timeline details are not
	// formatted.
	detailed bool
	// runID is the run's id on the detailed path, stamped on every event
	runID string
	// crossIdx is the eventIndex of the last crossing entered, which its
	// record reads instead of looking the name up again
	crossIdx int

	// the current task's state: own in a sequential run; in a concurrent
	// run the running worker's, in its slot, which the run points at when
	// the worker resumes (a copy of it in and out at every switch read
	// about 12 lines of a cold slot and wrote them back)
	*taskState
	own taskState

	tasks []taskRecord
	// cpStored is set once the current checkpoint.write crossing has
	// stored its checkpoint.
	cpStored bool
	// cpRolledBack is set once a rollback undid the current
	// checkpoint.write crossing's write.
	cpRolledBack bool
	// stopped is set when a stop condition was met.
	stopped *StopReport
	// commitTool is the tool of the tool.commit crossing being recorded.
	commitTool string
	// commitWait is, in a concurrent run, the logical ms other workers
	// took while the current tool.commit waited for its turn: between the
	// system's call and its crossing, and between the send and the reply
	commitWait Millis
	// early is the run's first retry sent before the back-off it owed
	// (retry_paced), "" while none.
	early string
	// policyChecked is the number of ledger entries policy_fresh has
	// checked.
	policyChecked int
	// openSpan is the span a span_carry_over disturbance opened at the
	// current tool.commit (read right after it fires).
	openSpan string
	// live is the production-code side of a run (see Calls).
	live liveState

	oracle oracleState

	// ix indexes the ledger and the evidence ledger for the Env's reads.
	ix runIndex
	// reqNames, rcptNames and evNames name request ids, receipts and
	// evidence records.
	reqNames, rcptNames, evNames names

	// ledOut and evOut hold the entries Readback and the records Lookup
	// return, each call's its own part of the run's storage: a run's
	// reads allocate once, not once a call, and no run reuses another's
	// storage.
	ledOut arena[LedgerEntry]
	evOut  arena[EvidenceRecord]
	// rcptOut, joinOut and effOut hold the receipts of commit replies,
	// the branches of recorded joins and the completed effects of
	// written checkpoints, a part each
	rcptOut arena[Receipt]
	joinOut arena[BranchOutcome]
	effOut  arena[string]

	// conc is the scheduler of a concurrent run (nil: the tasks run one
	// after another); seqTask holds, in a concurrent run, the fixture
	// index of the task of each recorded event (index seq-1); picks and
	// switches are the scheduler's picks (task positions) and context
	// switches.
	conc    *scheduler
	seqTask []int32
	// ready is the scheduler's index, and slots and states its workers,
	// kept with their buffers for the next concurrent run; sortBuf is
	// sortTasks'.
	ready   readyList
	slots   []slot
	states  []workerState
	sortBuf []int
	// prov is a detailed run's provider history (Result.Provider), and
	// provCap the length of the last run's, the next one's size
	prov     []ProviderOp
	provCap  int
	picks    []int
	switches int
	// fleet is a fleet run's load and shared retry budget.
	fleet fleetState
	// outbox holds the notices the provider sent and the inbox has not
	// delivered (a run with Config.Notices), noticeSeq the number sent;
	// users are the invariants of the run beside the built-in ones
	// (Harness.users).
	outbox    []queuedNotice
	noticeSeq int
	users     []UserInvariant
	// grantCache is the sliding cache a sliding_grant_cache fault put in
	// front of the capability records (empty without one).
	grantCache grantCache
	// withdrawn are the evidence items whose grant a
	// deauthorised_evidence fault withdrew.
	withdrawn []withdrawal
	// spec is the provider's contract as a spec_drift fault moved it.
	spec specState
	// seqAmbient is the ambient context of a sequential run's worker.
	seqAmbient ambientCtx
	// commitTarget is the target of the commit hook running (a transport
	// fault's phase, see transportFault).
	commitTarget string
}

// taskState is the state of the task being run. A sequential run keeps
// one; a concurrent run keeps one per worker and swaps it into the run
// when the worker resumes.
type taskState struct {
	// index is the task's position in the fixture (0-based).
	index     int
	hitBuf    [4]*armed
	taskBuf   []Task
	taskFirst int // seq of the task's first event
	task      *Task
	worker    int
	crashed   bool
	// wclock is the worker's own logical clock in a fleet run (see
	// Fleet); the World's clock is set to it while the worker runs.
	wclock Millis
	// pendingCrash, when set by a disturbance, crashes the worker right
	// after the current crossing is recorded.
	pendingCrash string
	state        string
	attempts     int
	tokens       int // the model tokens the task spent (Step.Tokens)
	ckSeq        int
	taskStart    Millis
	restarts     int
	calls        int
	// callLimit is set when the task exceeded maxCallsPerTask.
	callLimit string
	// inconclusive is set when the task ended without the system's own
	// claim (restart limit, call limit).
	inconclusive bool
	// startEntitled is the oracle's entitlement of the task's request
	// when the task started (see taskFacts.startEntitled).
	startEntitled bool
	// memory is the current worker's ephemeral context.
	memory []kv
	// granted are the capability ids approved for the current task.
	granted []string
	// grantedAt is the logical time of the task's last approval.
	grantedAt Millis
	// branches are the branch outcomes the harness observed for the task,
	// and compensations the compensating actions run.
	branches      []BranchOutcome
	compensations int
	// invalidLoad is set while the worker runs on a checkpoint the store
	// served that is not the newest valid one (stale, future, corrupt or
	// missing); a later valid load clears it.
	invalidLoad string
	// tamper is what the store will do on the next load after a
	// checkpoint disturbance.
	tamper tamperKind
	// corruptPath is set once a corrupted_readback fault corrupted the
	// task's verification path.
	corruptPath bool
	// lastSend* describe the task's last tool call: the worker that sent
	// it, its request key, and whether that worker has not yet written a
	// checkpoint after it (its outcome is not durably recorded).
	lastSendWorker     int
	lastSendKey        string
	lastSendUnrecorded bool
	// reconciled counts re-sends that reconcile a crashed worker's unknown
	// last send; the budget allows them on top of the retry budget.
	reconciled int
	// inflight are requests a provider holds after the client timed out;
	// they commit just before the provider's next commit.
	inflight []ToolCall
	// pendingWorld are the world events armed at the current crossing;
	// they apply right after it is recorded.
	pendingWorld []*armed
	// ledFrom, evFrom and cpFrom are the lengths of the ledger, the
	// evidence ledger and the checkpoint store when the current task
	// started if the fixture's task ids are unique, else 0: every record
	// of the task lies at or past them (the harness stamps each with the
	// current task, and a rollback removes only the task's own newest
	// checkpoint), so per-task lookups start there and a run's cost grows
	// linearly in its tasks.
	ledFrom, evFrom, cpFrom int

	// the larger and rarer fields last: a concurrent run's scheduling
	// points read the fields above, a few cache lines of a resumed
	// worker's state

	// rng is the current worker's random stream (Env.Rand).
	rng      rng
	proposal Action
	proposed bool
	claim    Claim
	claimed  bool
	// fork is the task's pending fork (forked_run).
	fork forkState
	// relied is the evidence item the task's decision relies on while
	// an item is withdrawn (deauthorised_evidence).
	relied reliance
	// pace is the task's back-off owed (retry_paced), across restarts.
	pace pacing
}

// ledFromOf is where task's ledger entries begin: r.ledFrom for the
// current task, 0 for any other.
func (r *run) ledFromOf(task string) int {
	if task == r.task.ID {
		return r.ledFrom
	}
	return 0
}

// cpFromOf is where task's checkpoints begin: r.cpFrom for the current
// task, 0 for any other.
func (r *run) cpFromOf(task string) int {
	if task == r.task.ID {
		return r.cpFrom
	}
	return 0
}

type kv struct {
	k, v string
	at   Millis // when it was written, for Options.ContextCutoff
}

// tamperKind is a pending checkpoint-store disturbance.
type tamperKind int

const (
	tamperNone tamperKind = iota
	tamperStale
	tamperFuture
	tamperCorrupt
	tamperMissing
)

// taskRecord keeps what the oracle needs of each finished task.
type taskRecord struct {
	// index is the task's position in the fixture.
	index    int
	task     Task
	proposal Action
	proposed bool
	claim    Claim
	claimAt  Millis
	restarts int
	attempts int
	tokens   int
	started  Millis
	firstSeq int
	lastSeq  int
	// inconclusive: the task ended without the system's own claim.
	inconclusive bool
	// reconciled counts the re-sends the budget allowed after restarts.
	reconciled int
	// stopped: the run's declared stop condition ended this task.
	stopped bool
}

func (r *run) nextID() string {
	r.ids++
	return r.reqNames.name(r.ids)
}

func (r *run) crash(detail string) {
	if r.crashed {
		return
	}
	r.crashed = true
	r.forgive()
	if r.live.cancel != nil {
		// production code: the instance's context is cancelled and every
		// call it makes from now on fails (Calls.Err), its defers' too
		r.live.down.Store(true)
		r.live.stoppedAt = r.world.Clock
		r.live.stoppedCalls.Store(0)
		r.live.cancel()
	}
	r.record(EvWorkerCrash, 0, "", "", detail, stateFailed)
}

// Run runs factory's system over every task of the fixture under s and
// returns the full result: timeline, fault reports, invariant results and
// outcome terms. It returns an error only for a harness problem (an invalid
// schedule); faults and errors of the system are data in the result.
func (h *Harness) Run(factory Factory, s *Schedule) (*Result, error) {
	h.r.detailed = true
	if err := h.execute(factory, s); err != nil {
		return nil, err
	}
	return h.r.result(), nil
}

// Terms runs like Run and returns only the outcome terms, without copying
// the timeline: the assay's hot path through the same model.
func (h *Harness) Terms(factory Factory, s *Schedule) (Terms, error) {
	h.r.detailed = false
	if err := h.execute(factory, s); err != nil {
		return Terms{}, err
	}
	return h.r.terms(), nil
}

func (h *Harness) execute(factory Factory, s *Schedule) error {
	if h.err != nil {
		return h.err
	}
	if factory == nil {
		return errors.New("model: no factory: the system's Configure returned a nil Factory")
	}
	if err := h.validate(s); err != nil {
		return err
	}
	if h.stopErr != nil {
		return h.stopErr
	}
	if s.Config.Fixture != "" && s.Config.Fixture != h.fixture.Name {
		return fmt.Errorf("schedule: config names fixture %q, the harness runs %q", s.Config.Fixture, h.fixture.Name)
	}
	r := &h.r
	r.taskState = &r.own
	r.world.reset(&h.fixture)
	r.sched = s
	r.faults = r.faults[:0]
	for i, f := range s.Faults {
		k, _ := lookupKind(f.Kind)
		r.faults = append(r.faults, armed{id: s.faultID(i), entry: f, kind: k, event: eventIndex(f.Event), corr: f.Correlated()})
	}
	r.counts = [32]int{}
	r.grantCache = r.grantCache[:0]
	r.withdrawn = r.withdrawn[:0]
	r.spec = specState{}
	// a detailed run's timeline is handed to its Result (see result), so
	// each run starts its own, sized as the last one was
	if r.detailed {
		r.store = r.newStore()
	}
	r.evs = r.evs[:0]
	r.ids = 0
	r.tasks = r.tasks[:0]
	r.runID = ""
	if r.detailed {
		r.runID = h.runID(s)
	}
	r.stopped = nil
	r.early = ""
	r.policyChecked = 0
	r.commitWait = 0
	r.live = liveState{fired: r.live.fired[:0]}
	if h.opts.Clock != nil {
		r.live.clockBase = h.opts.Clock()
	}
	r.outbox, r.noticeSeq = r.outbox[:0], 0
	r.users = h.users[0]
	if s.Config.Notices {
		r.users = h.users[1]
	}
	r.oracle.reset(len(r.users))
	r.ix.reset()
	r.seqTask = r.seqTask[:0]
	r.ledOut.reset()
	r.rcptOut.reset()
	r.joinOut.reset()
	r.effOut.reset()
	r.evOut.reset()
	r.prov = nil
	r.picks = r.picks[:0]
	r.switches = 0
	r.fleet.reset(h.fixture.Fleet, len(h.fixture.Tasks))
	if fl := h.fixture.Fleet; fl != nil {
		// a fleet's agents are concurrent workers, all started at once
		// unless the schedule says otherwise
		c := s.Config.Concurrency
		if c == nil {
			c = &Concurrency{Workers: max(1, len(h.fixture.Tasks))}
		}
		if err := r.executeConcurrent(factory, c); err != nil {
			return err
		}
		return r.live.err
	}
	if c := s.Config.Concurrency; c != nil {
		if err := r.executeConcurrent(factory, c); err != nil {
			return err
		}
		return r.live.err
	}
	for ti := range h.fixture.Tasks {
		if err := r.runTask(ti, factory); err != nil {
			return err
		}
		if r.stopped != nil {
			break
		}
	}
	return r.live.err
}

// runTask runs the task at fixture index ti to its claim: its workers, one
// after another as they crash and restart, and the claim the last one
// makes (or the harness makes for it). It returns an error only for a
// harness problem of a run of production code.
func (r *run) runTask(ti int, factory Factory) error {
	h := r.h
	s := r.sched
	ctx := context.Background()
	r.index = ti
	r.taskBuf = append(r.taskBuf[:0], h.fixture.Tasks[ti])
	r.task = &r.taskBuf[0]
	r.task.Trace = h.traces[ti]
	r.task.RetryBudget, r.task.Deadline, r.task.Join = h.opts.RetryBudget, h.opts.Deadline, h.opts.Join
	if c := s.Config; c.RetryBudget != nil {
		r.task.RetryBudget = *c.RetryBudget
	}
	if c := s.Config; c.Deadline != nil {
		r.task.Deadline = *c.Deadline
	}
	if s.Config.Join != "" {
		r.task.Join = s.Config.Join
	}
	r.task.Started = r.world.Clock
	task := *r.task
	r.calls = 0
	r.callLimit = ""
	r.inconclusive = false
	r.granted = r.granted[:0]
	r.grantedAt = 0
	r.branches = r.branches[:0]
	r.compensations = 0
	r.invalidLoad = ""
	r.tamper = tamperNone
	r.fork = forkState{}
	r.relied = reliance{}
	r.corruptPath = false
	r.live.held = nil
	r.inflight = r.inflight[:0]
	r.live.holders = r.live.holders[:0]
	r.pendingWorld = r.pendingWorld[:0]
	r.worker = 0
	r.state = stateCreated
	r.attempts = 0
	r.tokens = 0
	r.lastSendWorker, r.lastSendKey, r.lastSendUnrecorded = 0, "", false
	r.reconciled = 0
	r.pace = pacing{}
	r.ckSeq = 0
	r.taskStart = r.world.Clock
	// with task ids unique, the task's records are all made from here
	// on, and its lookups read only them
	r.ledFrom, r.evFrom, r.cpFrom = 0, 0, 0
	if h.uniqueIDs {
		r.ledFrom, r.evFrom, r.cpFrom = len(r.world.Ledger), len(r.world.Evidence), len(r.world.Checkpoints)
		if r.conc != nil {
			// another worker's rollback may remove a checkpoint stored
			// before this task's
			r.cpFrom = 0
		}
	}
	r.proposed = false
	r.claimed = false
	r.restarts = 0
	// the oracle's entitlement of the task's own request before any
	// of its crossings: false when the workload itself makes the
	// request one to refuse (a repeated or unauthorized request)
	r.startEntitled = entitled(&r.world, &r.oracle, r.task, Action{}, false)
	first := len(r.evs) + 1
	r.taskFirst = first
	for {
		r.worker++
		r.crashed = false
		r.rng.seeded = false
		r.memory = r.memory[:0]
		// a worker's fan-out is its own: the join it writes must keep
		// the branches it ran; a crashed worker's unjoined branches are
		// abandoned child attempts
		r.branches = r.branches[:0]
		before := r.state
		after := stateRunning
		if r.worker > 1 {
			after = stateRecovering
		}
		sys := factory()
		if sys == nil {
			return errors.New("model: the system's factory returned a nil System")
		}
		r.live.observed, _ = sys.(Observed)
		if r.conc != nil && r.live.observed != nil {
			return fmt.Errorf("schedule: config: concurrent workers (a concurrency config, or a fleet fixture's workers) run model systems only; the system of fixture %q is production code (it implements Observed), whose calls the harness cannot hold between crossings", h.fixture.Name)
		}
		r.live.ctx = ctx
		wctx := ctx
		if r.live.observed != nil {
			if r.worker > 1 {
				if err := r.survives(); err != nil {
					return err
				}
			}
			var cancel context.CancelFunc
			wctx, cancel = context.WithCancel(ctx)
			r.live.cancel = cancel
			r.live.down.Store(false)
		}
		r.tick(costRead)
		r.counts[eventIndex(EvWorkerStart)]++
		ord := r.counts[eventIndex(EvWorkerStart)]
		amb := ambientOfTask(task)
		fid := r.workerStart(ord, &amb)
		r.state = before
		r.record(EvWorkerStart, ord, fid, "", r.forkDetail(), after)
		claim, err := r.runSystem(sys, r.ambientFor(wctx, amb), task)
		if r.live.cancel != nil {
			r.live.cancel()
			r.live.cancel = nil
		}
		if r.live.err != nil {
			return r.live.err
		}
		if r.stopped != nil {
			if !r.claimed {
				r.finishClaim(Claim{Verdict: ClaimHold, Reason: "stopped by a stop condition"}, "stopped: "+r.stopped.Condition)
			}
			break
		}
		if r.callLimit != "" {
			r.crashed = false
			r.inconclusive = true
			r.finishClaim(Claim{Verdict: ClaimHold, Reason: "stopped"}, r.callLimit)
			break
		}
		if r.crashed {
			if r.restarts >= h.opts.MaxRestarts {
				r.inconclusive = true
				r.finishClaim(Claim{Verdict: ClaimHold, Reason: "restart limit reached"}, "restart limit reached")
				break
			}
			r.restarts++
			continue
		}
		if err != nil {
			r.finishClaim(Claim{Verdict: ClaimHold, Reason: "system error"}, "system error: "+err.Error())
			break
		}
		if claim.Verdict != ClaimRelease && claim.Verdict != ClaimHold && claim.Verdict != ClaimDeny {
			r.finishClaim(Claim{Verdict: ClaimHold, Reason: "invalid claim"}, fmt.Sprintf("system returned invalid claim verdict %q", claim.Verdict))
			break
		}
		r.finishClaim(claim, claim.Reason)
		if r.forked() {
			continue
		}
		break
	}
	r.tasks = append(r.tasks, taskRecord{index: ti, task: task, proposal: r.proposal, proposed: r.proposed,
		claim: r.claim, claimAt: r.world.Clock, restarts: r.restarts, attempts: r.attempts, tokens: r.tokens,
		started: r.taskStart, firstSeq: first, lastSeq: len(r.evs), inconclusive: r.inconclusive, reconciled: r.reconciled,
		stopped: r.stopped != nil})
	return nil
}

// fixtureValues refuses a fixture task whose retry budget, deadline or
// join policy differs from the harness's (Options): the harness sets them
// before each run (from Options and the schedule's config) and never
// reads a fixture's, so a value there that differs would be dropped
// silently. Zero, or the harness's own value, is accepted.
func (h *Harness) fixtureValues(t Task) error {
	o := h.opts
	switch {
	case t.RetryBudget != 0 && t.RetryBudget != o.RetryBudget:
		return fmt.Errorf("model: fixture %q: task %s sets retry budget %d, but the harness runs every task with %d: set Options.RetryBudget or the schedule's retry_budget (a fixture's is never read)", h.fixture.Name, t.ID, t.RetryBudget, o.RetryBudget)
	case t.Deadline != 0 && t.Deadline != o.Deadline:
		return fmt.Errorf("model: fixture %q: task %s sets deadline %d ms, but the harness runs every task with %d ms: set Options.Deadline or the schedule's deadline (a fixture's is never read)", h.fixture.Name, t.ID, t.Deadline, o.Deadline)
	case t.Join != "" && t.Join != o.Join:
		return fmt.Errorf("model: fixture %q: task %s sets join policy %q, but the harness runs every task with %q: set Options.Join or the schedule's join (a fixture's is never read)", h.fixture.Name, t.ID, t.Join, o.Join)
	case t.Started != 0:
		return fmt.Errorf("model: fixture %q: task %s sets Started %d ms: the harness sets it when the task's first worker starts", h.fixture.Name, t.ID, t.Started)
	}
	return nil
}

// runSystem runs the worker's system on task, turning a panic of its code
// into the run's error (a *SystemPanic).
func (r *run) runSystem(sys System, ctx context.Context, task Task) (c Claim, err error) {
	defer func() {
		if p := recover(); p != nil {
			if b, ok := p.(runaway); ok {
				if r.live.err == nil {
					r.live.err = &hang.Blocked{Cause: string(b)}
				}
				return
			}
			sp := &SystemPanic{Task: task.ID, Seq: len(r.evs), Value: fmt.Sprint(p), Stack: string(debug.Stack())}
			if sp.Seq > 0 {
				sp.Event = r.evs[sp.Seq-1]
			}
			if r.live.err == nil {
				r.live.err = sp
			}
		}
	}()
	return sys.Run(ctx, r.env.Env(), task)
}

// SystemPanic is the error Harness.Run and Terms return when the
// system's code panicked during a run: a failure of the system under the
// schedule, not of the harness (the run has no Result). Seq is the last
// crossing recorded before the panic (0 when none) and Event its event;
// Value is the panic's value as fmt.Sprint prints it and Stack the
// panicking goroutine's stack.
type SystemPanic struct {
	Task  string
	Seq   int
	Event EventName
	Value string
	Stack string
}

// Error names the task, the crossing and the value; the stack is left to
// Stack.
func (p *SystemPanic) Error() string {
	if p.Seq == 0 {
		return fmt.Sprintf("the system panicked in task %s before its first crossing: %s", p.Task, p.Value)
	}
	return fmt.Sprintf("the system panicked in task %s after seq %d (%s): %s", p.Task, p.Seq, p.Event, p.Value)
}

func (r *run) finishClaim(c Claim, detail string) {
	r.claim = c
	r.claimed = true
	// the task's terminal state (TaskClaim.Terminal): a claim the deadline
	// forced is timed out, not failed
	after := TaskClaim{Verdict: c.Verdict, TimedOut: c.TimedOut}.Terminal()
	r.tick(costRead)
	r.record(EvClaim, 0, "", string(c.Verdict), detail, after)
}

// enterTool starts a crossing of event ev (for a tool.commit, of tool): it
// fails when the worker has crashed, advances the clock and the event's
// ordinal, and returns the faults armed for this occurrence. A fault aimed
// at a tool (FaultEntry.Tool) counts only the crossings of that tool, and
// is armed at the Ordinal-th of them.
func (r *run) enterTool(ev EventName, cost Millis, tool string) (ordinal int, hits []*armed, ok bool) {
	if r.crashed {
		if r.live.cancel != nil {
			r.afterCrash()
		}
		return 0, nil, false
	}
	if r.conc != nil {
		// a scheduling point: another worker may cross first
		before := r.world.Clock
		r.yieldAt(cost)
		if ev == EvToolCommit {
			// the other workers' time between the system's call and its
			// crossing, which no check of the system's could see (budget)
			r.commitWait = r.world.Clock - before
		}
		if r.stopped != nil {
			r.crashed = true
			return 0, nil, false
		}
	}
	r.calls++
	if r.calls > maxCallsPerTask {
		r.callLimit = fmt.Sprintf("stopped: more than %d crossings in one task", maxCallsPerTask)
		r.crashed = true
		return 0, nil, false
	}
	r.tick(cost)
	i := eventIndex(ev)
	r.crossIdx = i
	r.counts[i]++
	ordinal = r.counts[i]
	hits = r.hitBuf[:0]
	for j := range r.faults {
		f := &r.faults[j]
		if f.event != i {
			if f.corr == correlationPersistent && f.fired > 0 && f.entry.Until != "" && eventIndex(f.entry.Until) == i {
				f.ended = true
			}
			continue
		}
		n := ordinal
		if f.entry.Tool != "" {
			if tool != f.entry.Tool {
				continue
			}
			f.toolCalls++
			n = f.toolCalls
		}
		if r.matches(f, n) {
			f.reached = true
			if f.kind.spec.World {
				r.pendingWorld = append(r.pendingWorld, f)
				continue
			}
			hits = append(hits, f)
		}
	}
	return ordinal, hits, true
}

// fire marks f as having fired at the next timeline seq.
func (r *run) fire(f *armed) string {
	f.fired++
	if r.live.observed != nil {
		r.live.fired = append(r.live.fired, f.entry.Kind)
	}
	if f.firedAt == 0 {
		f.firedAt = len(r.evs) + 1
	}
	return f.id
}

// tick advances the World's clock for a crossing: by its logical cost, or
// to liveClock in a run of production code.
func (r *run) tick(cost Millis) {
	if r.live.observed != nil && r.h.opts.Clock != nil {
		if now := r.liveClock(); now > r.world.Clock {
			r.world.Clock = now
		}
		return
	}
	if r.conc != nil && r.conc.timed {
		r.wclock += cost
		r.world.Clock = r.wclock
		return
	}
	r.world.Clock += cost
}

// liveClock is the time since the run started by Options.Clock, which
// must be set: a run is timed alike in a testing/synctest bubble of its
// own and in one that earlier runs shared (properties.Explore inside one
// synctest.Test), whose clock they moved on.
func (r *run) liveClock() Millis { return r.h.opts.Clock() - r.live.clockBase }

// record appends a timeline event and checks every invariant after it.
// Without detail (the assay's Terms path) only the event name is kept: the
// oracle needs no more, and no event is recorded.
func (r *run) record(ev EventName, ordinal int, faultID, outcome, detail, stateAfter string) {
	r.recordD(ev, ordinal, faultID, outcome, detailStr(detail), stateAfter)
}

// detailStr is a detail given as its text.
func detailStr(s string) detail { return detail{kind: dStr, s1: s} }

// recordD is record with the detail as its parts (see detail), which a
// detailed run keeps and formats only when the timeline is read.
func (r *run) recordD(ev EventName, ordinal int, faultID, outcome string, d detail, stateAfter string) {
	r.evs = append(r.evs, ev)
	seq := len(r.evs)
	if r.conc != nil {
		r.seqTask = append(r.seqTask, int32(r.index))
	}
	if r.detailed && !r.tl.compact(r, ev, ordinal, faultID, outcome, &d, stateAfter) {
		r.recordWide(ev, ordinal, faultID, outcome, &d, stateAfter)
	}
	r.state = stateAfter
	if r.live.observed != nil {
		r.syncProvider(ev)
	}
	r.oracle.check(r, seq)
	if r.h.stopOn && r.stopped == nil {
		r.checkStop(seq)
	}
	if len(r.pendingWorld) > 0 && r.stopped == nil {
		if r.live.observed != nil {
			r.keepLiveWorld()
		}
		r.applyWorld()
	}
}

// recordWide records the event of recordD whole in a detailed run's
// timeline: one that does not fit a compact record (see evRec).
func (r *run) recordWide(ev EventName, ordinal int, faultID, outcome string, d *detail, stateAfter string) {
	c := &r.tl
	tool := ""
	if ev == EvToolCommit {
		tool = r.commitTool
	}
	at, retry, deadline := r.recordClock()
	c.addWide(Event{
		Seq: len(r.evs), At: at, StateBefore: r.state, StateAfter: stateAfter, Actor: actorOf(ev), Event: ev, Tool: tool,
		Ordinal: ordinal, Task: r.task.ID, Worker: r.worker, FaultID: faultID, Attempt: r.attempts, CheckpointSeq: r.ckSeq,
		RetryRemaining: retry, DeadlineRemainingMs: deadline, Outcome: outcome, Detail: d.text(),
	})
}

// recordClock returns what an event recorded now shows of the clock and
// the task's budget: the clock (logical ms), the retries left and the
// deadline's remaining ms.
func (r *run) recordClock() (at Millis, retry int, deadline Millis) {
	at = r.world.Clock
	return at, r.task.RetryBudget + r.reconciled - max(r.attempts-1, 0), r.task.Deadline - (at - r.taskStart)
}

// setEvidenceRef sets the evidence reference of the last recorded event.
func (r *run) setEvidenceRef(ref string) {
	if r.detailed {
		r.tl.setRef(ref)
	}
}

// actorOf returns the actor of an event of ev: the harness, the system,
// the provider, the world or the Env.
func actorOf(ev EventName) string {
	switch ev {
	case EvWorkerStart, EvWorkerCrash, EvStop:
		return "harness"
	case EvClaim, EvWarn:
		return "system"
	case EvToolCommit:
		return "provider"
	case evWorld:
		return "world"
	}
	return "env"
}

// Precomputed identifiers "prefix-n" for small n: every run makes a few,
// and the assay's hot path should not build them again.
var receiptIDs, evidenceRefs, requestIDs [64]string

func init() {
	for i := range receiptIDs {
		receiptIDs[i] = "rcpt-" + strconv.Itoa(i)
		evidenceRefs[i] = "ev-" + strconv.Itoa(i)
		requestIDs[i] = "req-" + strconv.Itoa(i)
	}
}

// arena is storage runs hand out in parts: each take is a part of its
// own, which later takes never overwrite (a take that outgrows the
// storage moves on to new storage, leaving the parts taken where they
// are). No part is handed out twice: reset, at the start of the next run,
// keeps the storage but not the parts taken, so the next run's takes
// carry on past them and a part a system keeps past its run stays its
// own. New storage holds at least arenaBlock elements, so that runs of a
// few reads share one allocation.
type arena[T any] struct {
	buf []T
}

// arenaBlock is the least number of elements of an arena's new storage
// (for ledger entries, about 7 KB).
const arenaBlock = 32

// take returns a part of n elements, its capacity n, so that an append
// to it copies rather than writes into the next part.
func (a *arena[T]) take(n int) []T {
	if len(a.buf)+n > cap(a.buf) {
		a.buf = make([]T, 0, max(n, arenaBlock))
	}
	i := len(a.buf)
	a.buf = a.buf[:i+n]
	return a.buf[i : i+n : i+n]
}

// reset starts a run: the parts taken so far stay their takers', and
// the run takes from the rest of the storage.
func (a *arena[T]) reset() {
	a.buf = a.buf[len(a.buf):]
}

// names are the identifiers "prefix-n" past a precomputed table, built
// once by a harness and kept for its later runs, so a run of many tasks
// does not build them again either.
type names struct {
	prefix string
	table  []string
	more   []string // more[i] names len(table)+i
}

func (x *names) name(n int) string {
	if n >= 0 && n < len(x.table) {
		return x.table[n]
	}
	i := n - len(x.table)
	if i < 0 {
		return x.prefix + strconv.Itoa(n)
	}
	for len(x.more) <= i {
		x.more = append(x.more, x.prefix+strconv.Itoa(len(x.table)+len(x.more)))
	}
	return x.more[i]
}

// validate is s.Validate, with the canonical check of the system part
// skipped when it is the part the harness last validated.
func (h *Harness) validate(s *Schedule) error {
	if len(s.Config.System) > 0 && !bytes.Equal(s.Config.System, h.sysIn) {
		out, err := canonicalSystem(s.Config.System)
		if err != nil {
			return fmt.Errorf("schedule: config: %w", err)
		}
		h.setSystem(s.Config.System, out)
	}
	return s.validateFaults()
}

// canonicalSystem returns the canonical form of s's system part ({} when
// none is set); s has passed validate.
func (h *Harness) canonicalSystem(s *Schedule) []byte {
	if len(s.Config.System) == 0 {
		return []byte("{}")
	}
	if !bytes.Equal(s.Config.System, h.sysIn) {
		out, _ := canonicalSystem(s.Config.System)
		h.setSystem(s.Config.System, out)
	}
	return h.sysOut
}

// setSystem caches in, the system part of a schedule, its canonical form
// out, and the run id hash of the fixture's name and out.
func (h *Harness) setSystem(in, out []byte) {
	h.sysIn, h.sysOut = append(h.sysIn[:0], in...), out
	x := idHash{v: 14695981039346656037}
	x.str(h.fixture.Name)
	x.bytes(out)
	h.sysHash = x.v
}

// runID derives a stable run id from the fixture's name and the canonical
// schedule: an FNV-1a hash of every field Format writes (the version
// excepted, which Format fixes), each length-prefixed, the system part in
// canonical form. Two schedules with one canonical form (Format) have one
// run id; the id is computed without encoding the schedule.
func (h *Harness) runID(s *Schedule) string {
	// the hash of the fixture's name and the canonical system part is
	// cached with the part
	x := idHash{v: h.emptyHash}
	if len(s.Config.System) > 0 {
		h.canonicalSystem(s)
		x.v = h.sysHash
	}
	x.str(s.Seed)
	c := &s.Config
	x.str(c.Fixture)
	if c.RetryBudget != nil {
		x.int(1)
		x.int(int64(*c.RetryBudget))
	} else {
		x.int(0)
	}
	if c.Deadline != nil {
		x.int(1)
		x.int(int64(*c.Deadline))
	} else {
		x.int(0)
	}
	x.str(string(c.Join))
	if c.Notices {
		x.str("notices") // a config without notices hashes as it did before them
	}
	x.int(int64(len(s.Faults)))
	for i := range s.Faults {
		f := &s.Faults[i]
		x.str(f.ID)
		x.str(string(f.Event))
		x.int(int64(f.Ordinal))
		x.str(f.Kind)
		x.str(f.Target)
		x.str(f.Tool)
		// a fault without a modifier hashes as it did before modifiers
		if f.Correlation != "" || f.Repeat != 0 || f.Until != "" || f.WindowMs != 0 {
			x.str("correlation")
			x.str(string(f.Correlation))
			x.int(int64(f.Repeat))
			x.str(string(f.Until))
			x.int(int64(f.WindowMs))
		}
	}
	// a sequential schedule's id is as it was before concurrency existed
	if cc := c.Concurrency; cc != nil {
		x.str("concurrency")
		x.int(int64(cc.Workers))
		x.str(cc.Seed)
		x.int(int64(len(cc.Interleaving)))
		for _, p := range cc.Interleaving {
			x.int(int64(p))
		}
	}
	if h.id == "" || x.v != h.lastHash {
		const digits = "0123456789abcdef"
		b := [20]byte{'r', 'u', 'n', '-'}
		for i := range 16 {
			b[19-i] = digits[x.v>>(4*i)&15]
		}
		h.lastHash, h.id = x.v, string(b[:])
	}
	return h.id
}

// idHash is an FNV-1a 64 hash over length-prefixed fields.
type idHash struct{ v uint64 }

func (x *idHash) byte(c byte) {
	x.v ^= uint64(c)
	x.v *= 1099511628211
}

// int hashes n's eight bytes, low first. A zero byte only multiplies
// by the prime (xor with 0 changes nothing), so the high zero bytes of a
// small n are one multiplication by a power of the prime: the same hash,
// in fewer steps.
func (x *idHash) int(n int64) {
	u := uint64(n)
	i := 0
	for ; i < 8 && u != 0; i++ {
		x.byte(byte(u))
		u >>= 8
	}
	x.v *= fnvPrimePow[8-i]
}

// fnvPrimePow[k] is the FNV-1a 64 prime to the k-th power (mod 2^64).
var fnvPrimePow = func() (p [9]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 1099511628211
	}
	return p
}()

func (x *idHash) str(s string) {
	x.int(int64(len(s)))
	for i := 0; i < len(s); i++ {
		x.byte(s[i])
	}
}

func (x *idHash) bytes(b []byte) {
	x.int(int64(len(b)))
	for _, c := range b {
		x.byte(c)
	}
}
