package model

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// NoticeStatus is what a provider's notice reports of one request:
// committed, failed or reversed.
type NoticeStatus string

// Notice statuses.
const (
	// noticeCommitted: the provider committed the request (a ledger
	// entry, whose receipt the notice names).
	noticeCommitted NoticeStatus = "committed"
	// noticeFailed: the provider refused the request (a rejection or a
	// rate limit); nothing was committed under it.
	noticeFailed NoticeStatus = "failed"
	// "reversed": the provider reversed a committed entry. The model's
	// provider never reverses one; an adapter over a real provider may
	// report it.
)

// Notice is one asynchronous notice from the provider (a webhook): what
// became of one request. ID is the provider's id of the notice, the same
// on every delivery of it; Seq is its place in the provider's own order
// (1-based), which delivery need not keep.
type Notice struct {
	ID        string
	Seq       int
	Status    NoticeStatus
	Tool      string
	Key       string // the request (idempotency) key
	ActionRef string // the request's Action.IdempotencyKey
	Subject   string
	Amount    int64
	Receipt   string // the receipt id of a committed entry, else ""
	Reason    string // why a request failed, else ""
}

// Notices is the system's inbox of the provider's notices, in a run whose
// provider sends them (Config.Notices; Env.Notices is nil otherwise).
// Receive returns the next notice delivered and true, or false when none
// is waiting; it returns ErrWorkerCrashed for a crashed worker. Event:
// notice.receive. Delivery is at least once and in no promised order: a
// notice may come late, out of order, twice, or never.
type Notices interface {
	Receive(ctx context.Context) (Notice, bool, error)
}

// queuedNotice is a notice the provider sent and the inbox has not yet
// delivered; it is deliverable once the run's checkpoint writes reach
// after.
type queuedNotice struct {
	n     Notice
	after int
}

// notices reports whether the run's provider sends notices.
func (r *run) notices() bool { return r.sched != nil && r.sched.Config.Notices }

// notify has the provider send a notice of call with status st (and the
// receipt of a committed entry, or why the request failed).
func (r *run) notify(call ToolCall, st NoticeStatus, receipt, reason string) {
	if !r.notices() {
		return
	}
	r.noticeSeq++
	a := call.Action
	r.outbox = append(r.outbox, queuedNotice{n: Notice{ID: "ntc-" + strconv.Itoa(r.noticeSeq), Seq: r.noticeSeq, Status: st,
		Tool: call.Tool, Key: call.RequestKey, ActionRef: a.IdempotencyKey, Subject: a.Subject, Amount: a.Amount,
		Receipt: receipt, Reason: reason}})
}

// notifyResult sends the notice of a provider's answer res to call: a
// commit (not a replay, which changes nothing) or a refusal.
func (r *run) notifyResult(call ToolCall, res ToolResult) {
	switch {
	case res.Outcome == OutcomeCommitted && !res.Replayed && res.Receipt != nil:
		r.notify(call, noticeCommitted, res.Receipt.ID, "")
	case res.Outcome == OutcomeRejected:
		r.notify(call, noticeFailed, "", res.Reason)
	}
}

// checkpointWrites is the number of checkpoint.write crossings of the run.
func (r *run) checkpointWrites() int { return r.counts[eventIndex(EvCheckpointWrite)] }

// deliverable returns the indexes in the outbox of the notices the inbox
// may deliver now, oldest first.
func (r *run) deliverable(buf []int) []int {
	w := r.checkpointWrites()
	for i, q := range r.outbox {
		if q.after <= w {
			buf = append(buf, i)
		}
	}
	return buf
}

// Receive implements Notices (event notice.receive): the oldest notice
// deliverable now, after the faults armed at the crossing acted on the
// inbox.
func (e *taskEnv) Receive(ctx context.Context) (Notice, bool, error) {
	c, ok := e.r.cross(EvNoticeReceive, costRead, "")
	if !ok {
		return Notice{}, false, ErrWorkerCrashed
	}
	r := c.r
	each(&c, func(h noticeHook, _ *armed) bool { return h.onNotice(r) })
	var buf [8]int
	d := r.deliverable(buf[:0])
	if len(d) == 0 {
		c.done("none", detailStr(""), "")
		return Notice{}, false, nil
	}
	n := r.outbox[d[0]].n
	r.outbox = slices.Delete(r.outbox, d[0], d[0]+1)
	detail := ""
	if r.detailed {
		detail = n.ID + " " + string(n.Status) + " key " + n.Key
	}
	c.done("delivered", detailStr(detail), "")
	return n, true, nil
}

// --- faults of the provider's notices ---

type (
	// noticeHook disturbs the inbox before a notice.receive crossing
	// delivers; it reports whether it acted.
	noticeHook interface{ onNotice(r *run) bool }

	lateNotice        struct{}
	reorderedNotice   struct{}
	redeliveredNotice struct{}
	lostNotice        struct{}
)

// onNotice holds back the notice this crossing would deliver: it becomes
// deliverable only after the system's next checkpoint write, that is,
// after the system has recorded an outcome.
func (lateNotice) onNotice(r *run) bool {
	var buf [8]int
	d := r.deliverable(buf[:0])
	if len(d) == 0 {
		return false
	}
	r.outbox[d[0]].after = r.checkpointWrites() + 1
	// behind every notice sent so far
	q := r.outbox[d[0]]
	r.outbox = append(slices.Delete(r.outbox, d[0], d[0]+1), q)
	return true
}

// onNotice delivers the newest deliverable notice before the older ones
// (it needs two to reorder).
func (reorderedNotice) onNotice(r *run) bool {
	var buf [8]int
	d := r.deliverable(buf[:0])
	if len(d) < 2 {
		return false
	}
	first, last := d[0], d[len(d)-1]
	q := r.outbox[last]
	r.outbox = slices.Insert(slices.Delete(r.outbox, last, last+1), first, q)
	return true
}

// onNotice delivers the notice this crossing delivers once more at the
// next crossing (the same notice, under the same id).
func (redeliveredNotice) onNotice(r *run) bool {
	var buf [8]int
	d := r.deliverable(buf[:0])
	if len(d) == 0 {
		return false
	}
	r.outbox = slices.Insert(r.outbox, d[0]+1, r.outbox[d[0]])
	return true
}

// onNotice drops the notice this crossing would deliver: it is never
// delivered.
func (lostNotice) onNotice(r *run) bool {
	var buf [8]int
	d := r.deliverable(buf[:0])
	if len(d) == 0 {
		return false
	}
	r.outbox = slices.Delete(r.outbox, d[0], d[0]+1)
	return true
}

// noticeKinds are the kinds of the provider's notices: a notice delivered
// late, out of order, twice, or never. They are defined, named in
// schedules and replayed like every kind (Spec, SingleFault,
// ParseSchedule), and kept out of Catalogue(): their event exists only in
// a run whose provider sends notices (Config.Notices), so the figures
// taken over the whole catalogue are those of runs without notices.
var noticeKinds = []faultKind{
	{FaultSpec{Kind: "late_notice", Domain: domainTool, Target: "provider notice", Event: EvNoticeReceive,
		Boundary: boundaryEffect, Phase: phaseAfterCheckpoint, Signal: signalAcknowledgement, Manner: mannerLate,
		Oracle: oracleLedgerReadback, Threatens: []string{InvRecordedAgreesWithLedger},
		Doc: "the notice due at this receive is held back until after the system's next checkpoint write (after it recorded an outcome)"}, lateNotice{}},
	{FaultSpec{Kind: "reordered_notice", Domain: domainTool, Target: "provider notice", Event: EvNoticeReceive,
		Boundary: boundaryEffect, Phase: phaseAfterReceipt, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvRecordedAgreesWithLedger},
		Doc: "the newest waiting notice is delivered before the older ones (two or more waiting)"}, reorderedNotice{}},
	{FaultSpec{Kind: "redelivered_notice", Domain: domainTool, Target: "provider notice", Event: EvNoticeReceive,
		Boundary: boundaryEffect, Phase: phaseAfterReceipt, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvRecordedAgreesWithLedger},
		Doc: "the notice delivered at this receive is delivered again, under the same id, at the next"}, redeliveredNotice{}},
	{FaultSpec{Kind: "lost_notice", Domain: domainTool, Target: "provider notice", Event: EvNoticeReceive,
		Boundary: boundaryEffect, Phase: phaseAfterReceipt, Signal: signalAcknowledgement, Manner: mannerAbsent,
		Oracle: oracleLedgerReadback, Threatens: []string{InvRecordedAgreesWithLedger},
		Doc: "the notice due at this receive is dropped and never delivered"}, lostNotice{}},
}

// NoticeKinds returns the specs of the kinds of the provider's notices
// (late_notice, reordered_notice, redelivered_notice, lost_notice), which
// are not in Catalogue(): each needs a run with Config.Notices, which
// SingleFault sets for them.
func NoticeKinds() []FaultSpec {
	out := make([]FaultSpec, len(noticeKinds))
	for i, k := range noticeKinds {
		out[i] = k.spec
	}
	return out
}

// InvRecordedAgreesWithLedger names the invariant of NoticeAgreement.
const InvRecordedAgreesWithLedger = "recorded_agrees_with_ledger"

// NoticeAgreement returns the invariant that the state a system records
// agrees with the provider's ledger: no checkpoint records an effect more
// often than the ledger holds it or withdraws one the ledger holds, a
// task that claims other than hold records every effect it made, and a
// release of production code names a receipt of the task's that the
// provider's own store holds (Claim.Receipt). Every run that checks
// another invariant checks it, but the paper's set (Options.Compat)
// without notices; add it to Options.Invariants to check it alone
// (docs/vocabulary.md, "recorded_agrees_with_ledger").
func NoticeAgreement() UserInvariant {
	return UserInvariant{Name: InvRecordedAgreesWithLedger, Owner: "workflow runtime", Oracle: oracleLedgerReadback,
		Doc:   "the effects a task's checkpoints record agree with the provider's ledger: none twice, none withdrawn, none missing when it releases or denies; a production release names a receipt the provider holds for the task",
		Check: recordedAgrees}
}

// releaseReceipt checks the receipt a release of production code names
// against the provider's own store, read by its own path: it must be one
// of the task's entries ("" when it is).
func releaseReceipt(r *run, receipt string) string {
	var own []string
	for _, e := range r.world.Ledger {
		if e.Task == r.task.ID && e.ReceiptID != "" {
			own = append(own, e.ReceiptID)
		}
	}
	held := "the provider's ledger holds none of the task"
	if len(own) > 0 {
		held = "the provider's ledger holds " + strings.Join(own, ", ") + " for the task"
	}
	if receipt == "" {
		// a system whose every release names no receipt fails here on its
		// clean run: say what the release must carry
		return "release with an empty receipt (Claim.Receipt: the receipt id the provider answered); " + held
	}
	for _, e := range r.world.Ledger {
		if e.ReceiptID == receipt {
			if e.Task == r.task.ID {
				return ""
			}
			return "release names receipt " + receipt + " of task " + e.Task + "; " + held
		}
	}
	return "release names receipt " + receipt + ", which the provider's ledger does not hold; " + held
}

// recordedAgrees is NoticeAgreement's check: the checkpoints and the claim
// against the ledger, and, in a run of production code (a System
// implementing Observed), a release's receipt (releaseReceipt).
func recordedAgrees(v View) string {
	ev := v.Event()
	if ev != EvCheckpointWrite && ev != EvClaim {
		return ""
	}
	r := v.r
	id := r.task.ID
	if ev == EvClaim && r.live.observed != nil {
		if c, ok := v.Claim(); ok && c.Verdict == ClaimRelease {
			if why := releaseReceipt(r, c.Receipt); why != "" {
				return why
			}
		}
	}
	// held counts the task's ledger entries by request key; name maps the
	// names a checkpoint may record an effect by (its request key or its
	// receipt id) to the key
	held := map[string]int{}
	name := map[string]string{}
	var keyBuf [8]string
	keys := keyBuf[:0]
	// the task's entries in ledger order, read by its chain (a scan of
	// the whole ledger at every checkpoint made a run quadratic in tasks)
	var posBuf [8]int
	pos := posBuf[:0]
	for i := range r.taskLedger(id, r.ledFromOf(id)) {
		pos = append(pos, i)
	}
	slices.Sort(pos)
	for _, i := range pos {
		e := &r.world.Ledger[i]
		if held[e.Key] == 0 {
			keys = append(keys, e.Key)
		}
		held[e.Key]++
		name[e.Key] = e.Key
		if e.ReceiptID != "" {
			name[e.ReceiptID] = e.Key
		}
	}
	records := func(c *Checkpoint, key string) bool {
		return slices.ContainsFunc(c.CompletedEffects, func(n string) bool { return name[n] == key })
	}
	var cpBuf [8]*Checkpoint
	cps := cpBuf[:0]
	for i := r.newestCheckpoint(id); i >= 0; i = r.olderCheckpoint(id, i) {
		cps = append(cps, &r.world.Checkpoints[i])
	}
	if len(cps) == 0 {
		return ""
	}
	slices.Reverse(cps) // oldest first
	newest := cps[len(cps)-1]
	if ev == EvClaim {
		if c, ok := v.Claim(); ok && c.Verdict == ClaimHold {
			return "" // a held task hands its record to a person, who reconciles it
		}
		for _, k := range keys {
			if !records(newest, k) {
				return "the task's record (checkpoint " + strconv.Itoa(newest.Seq) + ") lacks effect " + k + " of the provider's ledger"
			}
		}
		return ""
	}
	recorded := map[string]int{}
	for _, n := range newest.CompletedEffects {
		k, ok := name[n]
		if !ok {
			continue // an effect the ledger lacks is no_invented_progress's
		}
		recorded[k]++
		if recorded[k] > held[k] {
			return "checkpoint " + strconv.Itoa(newest.Seq) + " records effect " + k + " " + strconv.Itoa(recorded[k]) +
				" times; the provider's ledger holds it " + strconv.Itoa(held[k])
		}
	}
	for _, c := range cps[:len(cps)-1] {
		for _, n := range c.CompletedEffects {
			if k, ok := name[n]; ok && recorded[k] == 0 {
				return "checkpoint " + strconv.Itoa(newest.Seq) + " withdraws effect " + k + ", which checkpoint " +
					strconv.Itoa(c.Seq) + " recorded and the provider's ledger holds"
			}
		}
	}
	return ""
}
