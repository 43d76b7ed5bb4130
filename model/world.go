package model

import "maps"

// Subject is the authoritative record of what an action acts on (an
// account, a ticket, a stock line, an order), in the system's own terms.
// Amount is in the system's minor units and optional: zero means the
// subject carries none. Attrs carries the system's own attributes; the
// core never reads them.
type Subject struct {
	ID     string
	Tenant string
	// Status is the subject's state in the system's own words ("active",
	// "open"). The core reads it only against the fixture's holds
	// (Fixture.Holds): a subject whose status is a hold may not be acted
	// on.
	Status  string
	Version int64
	Amount  int64
	Attrs   map[string]string
}

// clone returns a copy of s that shares no map with it.
func (s *Subject) clone() Subject {
	c := *s
	if s.Attrs != nil {
		c.Attrs = maps.Clone(s.Attrs)
	}
	return c
}

// statusHeld is the hold a fixture with no holds of its own declares
// (Fixture.Holds): the status a cross_source_conflict fault places on the
// authoritative record.
const statusHeld = "held"

// Policy is one version of a tenant's policy over the action.
type Policy struct {
	Tenant  string
	Version int64
	// Allows is true when the policy version allows the action at all.
	Allows bool
	// MaxAmount is the largest amount the policy allows, in minor units;
	// zero sets no cap.
	MaxAmount int64
	// AsOf is the logical time the policy replica serving a read last
	// fetched it: the read's own time while fetches succeed, an older one
	// after a failed fetch (policy_fetch_failed); the read's time minus
	// AsOf is the policy's age. It is zero on the World's records.
	AsOf Millis
}

// allowsAmount reports whether the policy allows an action of amount.
func (p Policy) allowsAmount(amount int64) bool {
	return p.Allows && (p.MaxAmount == 0 || amount <= p.MaxAmount)
}

// Eligibility is an eligibility assertion about a subject from one source.
// The authoritative source is the subject's own record (the fixture's
// Authoritative); secondary sources (a CRM summary, a cached search index)
// can disagree with it.
type Eligibility struct {
	Subject  string
	Eligible bool
	Source   string
	AsOf     Millis
}

// Capability is a grant of authority: an actor may act on a subject of a
// tenant for a purpose up to an amount until an expiry, unless revoked.
type Capability struct {
	ID      string
	Actor   string
	Subject string
	Tenant  string
	Purpose string
	Amount  int64
	Expiry  Millis
	Revoked bool
	// AsOf is the logical time an authority check's answer was read from
	// the capability record: the check's own time for a fresh read, and
	// the time its entry was filled for an answer a cache served. It is
	// zero on the World's records and on an approval.
	AsOf Millis
}

// Live reports whether the capability is unrevoked and unexpired at now.
func (c Capability) Live(now Millis) bool { return !c.Revoked && now < c.Expiry }

// LedgerEntry is one effect in the provider's ledger: the
// authoritative record of what the provider did. Task is set by the harness
// (the run that made the call), not by the system under test.
type LedgerEntry struct {
	Seq             int
	Task            string
	Tool            string
	Key             string // the provider's idempotency key for the request
	ActionRef       string // the logical action the request claims to be
	Actor           string
	Subject         string
	Tenant          string
	Purpose         string
	Amount          int64
	ExpectedVersion int64
	PolicyVersion   int64
	CapabilityID    string
	Trace           string
	ReceiptID       string
	At              Millis
}

// Receipt is the provider's acknowledgement of a committed effect.
type Receipt struct {
	ID      string
	Key     string
	Subject string
	Amount  int64
	Trace   string
	At      Millis
}

// EvidenceKind is the kind of an evidence-ledger record: decision, receipt,
// readback or denial.
type EvidenceKind string

// Evidence kinds.
const (
	evidenceDecision EvidenceKind = "decision" // an authority decision, with the decision's trace
	evidenceReceipt  EvidenceKind = "receipt"  // an effect receipt as the tool returned it
	evidenceReadback EvidenceKind = "readback" // an independent readback of the provider ledger
	evidenceDenial   EvidenceKind = "denial"   // a denial and its reason
	evidenceJoin     EvidenceKind = "join"     // a join record of a fan-out
)

// EvidenceRecord is one record of the evidence ledger. Trace is the trace
// of the decision it belongs to; EffectTrace and EffectKey identify the
// effect it vouches for (receipt and readback records).
type EvidenceRecord struct {
	Ref         string
	Task        string
	Kind        EvidenceKind
	Trace       string
	EffectKey   string
	EffectTrace string
	ReceiptID   string
	Detail      string
	At          Millis
}

// Checkpoint is a durable execution record. The core fields are the harness practice's
// ("Persist task id, workflow version, state name, completed effects,
// remaining budgets, and the checkpoint sequence"); Action and Data carry the
// system's own resumable state. Only what a Checkpoint holds survives a
// worker restart.
type Checkpoint struct {
	Task            string
	Seq             int
	WorkflowVersion int
	State           string
	// CompletedEffects names the effects the task has made, each as the
	// system saw it: the request key it sent the provider
	// (ToolCall.RequestKey) or the receipt id the provider returned for it
	// (Receipt.ID); either spelling is accepted, and a resumed worker gets
	// back exactly what was written. Each name must be an effect the
	// provider's ledger holds for the task when the checkpoint is written:
	// any other name (an effect not yet made, a name of the system's own)
	// breaks no_invented_progress.
	CompletedEffects []string
	// Attempt is the tool-call attempt the checkpoint reserves (0 before
	// the first).
	Attempt           int
	RetryRemaining    int
	DeadlineRemaining Millis
	Action            Action
	// Grant is the capability the action was approved under: the safety
	// policy a resumed worker must keep.
	Grant Capability
	Data  map[string]string
	// Checksum, At and Head are stamped by the store: the checksum of the
	// durable fields (see Checksum), the logical time the write was issued,
	// and on Load the highest sequence the store has acknowledged for the
	// task.
	Checksum uint64
	At       Millis
	Head     int
}

// World is the authoritative state that only the oracle trusts. It is
// mutated by the harness's Env (the provider commits, stores append) and by
// scheduled disturbances; the system under test never holds a pointer to it.
type world struct {
	Clock        Millis
	Subjects     []Subject
	Policies     []Policy // every version; the newest per tenant is current
	Capabilities []Capability
	Ledger       []LedgerEntry
	Evidence     []EvidenceRecord
	Checkpoints  []Checkpoint
	// Secondary holds eligibility assertions served by the secondary source.
	Secondary []Eligibility
	// heads is the highest checkpoint sequence the store acknowledged per
	// task (a durable counter, kept apart from the checkpoints); see Head.
	heads []taskHead
	// Joins are the join records written, in order.
	Joins []JoinRecord
	// replicas are the policy replicas whose fetches failed (see
	// policy_fetch_failed): the policy-age signal.
	replicas []replica
	// rules are the fixture's parameters of the generic invariants.
	rules rules
	// ix indexes the records by key, built by reset (see worldIndex).
	ix worldIndex
}

// worldIndex maps keys to positions in a World's slices, so a run's
// lookups cost the same however many tasks, subjects and capabilities the
// fixture holds. A position is checked against the slice on every use, and
// a key not indexed or a position that no longer holds it falls back to
// the scan, so a World built without reset is still read right. The maps
// are cleared, not reallocated, between runs. A fixture of at most
// smallIndex subjects, capabilities or tasks is not indexed for them: a
// scan of so few records costs less than filling and hashing a map.
type worldIndex struct {
	subjects map[string]int // id: position of the first subject
	caps     map[string]int // id: position of the first capability
	heads    map[string]int // task: position in heads
	// headsOn says heads indexes every head (more than smallIndex tasks)
	headsOn bool
}

// smallIndex is the largest number of records a World scans rather than
// indexes.
const smallIndex = 8

// firstPositions fills m (made when nil, cleared otherwise) with the
// position of the first record of each id, or only clears it when there are
// at most smallIndex ids.
func firstPositions(m map[string]int, n int, id func(int) string) map[string]int {
	if n <= smallIndex {
		clear(m)
		return m
	}
	if m == nil {
		m = map[string]int{}
	}
	clear(m)
	for i := range n {
		if _, ok := m[id(i)]; !ok {
			m[id(i)] = i
		}
	}
	return m
}

func (x *worldIndex) reset(f *Fixture) {
	x.subjects = firstPositions(x.subjects, len(f.Subjects), func(i int) string { return f.Subjects[i].ID })
	x.caps = firstPositions(x.caps, len(f.Capabilities), func(i int) string { return f.Capabilities[i].ID })
	x.headsOn = len(f.Tasks) > smallIndex
	if x.headsOn {
		if x.heads == nil {
			x.heads = map[string]int{}
		}
		clear(x.heads)
	}
}

// rules are a fixture's parameters of the generic invariants, as the
// World keeps them for one run.
type rules struct {
	holds         []string
	authoritative string
	once          bool
}

type taskHead struct {
	task string
	seq  int
}

// Head returns the highest checkpoint sequence the store has acknowledged
// for task (0 when none).
func (w *world) Head(task string) int {
	if w.ix.headsOn {
		// every head is indexed (setHead keeps the index, reset clears
		// both): a task not in it has none
		if i, ok := w.ix.heads[task]; ok {
			return w.heads[i].seq
		}
		return 0
	}
	for _, h := range w.heads {
		if h.task == task {
			return h.seq
		}
	}
	return 0
}

// setHead sets task's head to seq.
func (w *world) setHead(task string, seq int) {
	if w.ix.headsOn {
		if i, ok := w.ix.heads[task]; ok {
			w.heads[i].seq = seq
			return
		}
		w.ix.heads[task] = len(w.heads)
		w.heads = append(w.heads, taskHead{task, seq})
		return
	}
	for i := range w.heads {
		if w.heads[i].task == task {
			w.heads[i].seq = seq
			return
		}
	}
	w.heads = append(w.heads, taskHead{task, seq})
}

// Subject returns the record of subject id and whether it exists.
func (w *world) Subject(id string) (*Subject, bool) {
	if len(w.ix.subjects) > 0 {
		if i, ok := w.ix.subjects[id]; ok && i < len(w.Subjects) && w.Subjects[i].ID == id {
			return &w.Subjects[i], true
		}
	}
	for i := range w.Subjects {
		if w.Subjects[i].ID == id {
			return &w.Subjects[i], true
		}
	}
	return nil, false
}

// held reports whether status is one of the fixture's holds.
func (w *world) held(status string) bool {
	if len(w.rules.holds) == 0 {
		return status == statusHeld
	}
	for _, h := range w.rules.holds {
		if status == h {
			return true
		}
	}
	return false
}

// hold returns the status a fault places to hold a subject: the
// fixture's first hold, or statusHeld.
func (w *world) hold() string {
	if len(w.rules.holds) == 0 {
		return statusHeld
	}
	return w.rules.holds[0]
}

// Policy returns the current (newest) policy of tenant.
func (w *world) Policy(tenant string) (Policy, bool) {
	var best Policy
	found := false
	for _, p := range w.Policies {
		if p.Tenant == tenant && (!found || p.Version > best.Version) {
			best, found = p, true
		}
	}
	return best, found
}

// PolicyVersion returns the policy of tenant at version v.
func (w *world) PolicyVersion(tenant string, v int64) (Policy, bool) {
	for _, p := range w.Policies {
		if p.Tenant == tenant && p.Version == v {
			return p, true
		}
	}
	return Policy{}, false
}

// Capability returns the capability with id.
func (w *world) Capability(id string) (*Capability, bool) {
	if len(w.ix.caps) > 0 {
		if i, ok := w.ix.caps[id]; ok && i < len(w.Capabilities) && w.Capabilities[i].ID == id {
			return &w.Capabilities[i], true
		}
	}
	for i := range w.Capabilities {
		if w.Capabilities[i].ID == id {
			return &w.Capabilities[i], true
		}
	}
	return nil, false
}

// EffectsOf returns the ledger entries made by task's runs.
func (w *world) EffectsOf(task string) []LedgerEntry {
	var out []LedgerEntry
	for _, e := range w.Ledger {
		if e.Task == task {
			out = append(out, e)
		}
	}
	return out
}

// Fixture is the initial World and tasks of a run: a workload. Copy makes a
// deep copy, so one fixture seeds many runs.
//
// The invariants are generic over what a fixture declares: with no
// Subjects, no subject record is checked; with no Policies, no policy
// governs the action. Holds, Authoritative and OncePerSubject are the
// parameters of the generic invariants a domain may set (the reference
// refund world sets all three).
type Fixture struct {
	Name         string
	Subjects     []Subject
	Policies     []Policy
	Capabilities []Capability
	Secondary    []Eligibility
	Tasks        []Task
	// Holds are the subject statuses under which no effect on the subject
	// is entitled; the first is the one a cross_source_conflict fault
	// places. Nil declares statusHeld alone.
	Holds []string
	// Authoritative names the eligibility source that is the subject's own
	// record (ContextReader.ReadEligibility); a read of any other source is
	// served from Secondary when it holds an assertion for the subject.
	Authoritative string
	// AtLeastOnce declares that the fixture's tasks are handed out at
	// least once (a queue that redelivers, a lease that lapses while its
	// holder pauses): a run may fork, and the default search draws
	// forked_run.
	AtLeastOnce bool
	// GrantedSources declares that the fixture's eligibility sources are
	// read under grants their owner may withdraw while a task runs (a
	// consent, a purpose-scoped data share): the default search draws
	// deauthorised_evidence.
	GrantedSources bool
	// ReadbackProxy declares that the system's readbacks are served by a
	// path in front of the provider's ledger (a cache, a replica's index,
	// a receipt-verification service) whose answer may be corrupted: the
	// default search draws corrupted_readback.
	ReadbackProxy bool
	// VersionedContracts declares that the fixture's tool providers
	// version their contracts and may move to a new version between a
	// task's plan and its call (an API version upgrade): the default
	// search draws spec_drift.
	VersionedContracts bool
	// OncePerSubject makes effect_at_most_once hold across the tasks of a
	// run too: one effect per tenant, subject and purpose, whichever task
	// asks for it (a refund is owed once per order). Without it the rule is
	// one effect per logical action (per tool) of a task.
	OncePerSubject bool
	// Fleet, when set, makes the fixture a fleet: its tasks run as
	// concurrent agents on clocks of their own against a provider of
	// declared capacity (see Fleet). Nil: an ordinary fixture.
	Fleet *Fleet
	// MaxPolicyAge, when above zero, is the oldest policy, in logical ms,
	// an effect may be committed on: a run checks policy_fresh against
	// the age of the tenant's policy replica (Policy.AsOf), and the
	// default search draws policy_fetch_failed. 0 to 3,600,000 (one hour);
	// anything else is an error of the fixture.
	MaxPolicyAge Millis
}

// reset makes w the fixture's initial state, reusing w's storage.
func (w *world) reset(f *Fixture) {
	w.Clock = 0
	w.Subjects = append(w.Subjects[:0], f.Subjects...)
	w.rules = rules{holds: f.Holds, authoritative: f.Authoritative, once: f.OncePerSubject}
	w.Policies = append(w.Policies[:0], f.Policies...)
	w.Capabilities = append(w.Capabilities[:0], f.Capabilities...)
	w.Secondary = append(w.Secondary[:0], f.Secondary...)
	w.Ledger = w.Ledger[:0]
	w.Evidence = w.Evidence[:0]
	w.Checkpoints = w.Checkpoints[:0]
	w.Joins = w.Joins[:0]
	w.replicas = w.replicas[:0]
	w.heads = w.heads[:0]
	w.ix.reset(f)
}
