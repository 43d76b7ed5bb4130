package model

// ProviderOp is one operation on the provider's ledger as a run saw it from the caller's side: a tool.commit or a
// ledger.readback crossing, with its invocation and response on one
// logical clock shared by every worker of the run. It is the input of a
// linearizability check of the provider (package linearize).
//
// Call and Return are half-steps of the timeline: the event of sequence
// number s is at 2s; a commit is invoked when it is sent, at 2k+1 where k
// events were recorded before the send, and returns at its own event, so
// another worker's crossings made while it was in flight lie between its
// call and its return. A readback's call and return are its event's.
// A commit whose reply the caller never saw (an unknown outcome, or a
// worker that crashed while it was out) has Return -1.
type ProviderOp struct {
	// Task is the fixture position (0-based) of the task that issued it:
	// one sequential client.
	Task int
	// Commit is true for a tool.commit, false for a ledger.readback.
	Commit bool
	// Tool and Key are a commit's tool and request (idempotency) key;
	// ActionRef the action ref it commits (Action.IdempotencyKey), or the
	// readback's query (ReadbackQuery.ActionRef, "" for a query by
	// subject or of the whole ledger).
	Tool      string
	Key       string
	ActionRef string
	// Outcome is what the commit's caller saw, and Receipt the receipt id
	// its reply carried ("" for none).
	Outcome Outcome
	Receipt string
	// Entries are the entries a readback returned, as served.
	Entries []LedgerEntry
	Call    int
	Return  int
}

// recordsProvider reports whether the run records its provider history:
// under Options.ProviderHistory, or with user invariants (which may read
// it).
func (r *run) recordsProvider() bool { return r.h.opts.ProviderHistory || len(r.h.scope.user) > 0 }

// sendOp records, on a detailed run, a commit sent now; it returns the
// op's index, or -1 when nothing is recorded.
func (r *run) sendOp(call ToolCall) int {
	if !r.recordsProvider() {
		return -1
	}
	r.prov = append(r.prov, ProviderOp{Task: r.index, Commit: true, Tool: call.Tool, Key: call.RequestKey,
		ActionRef: call.Action.IdempotencyKey, Outcome: OutcomeUnknown, Call: 2*len(r.evs) + 1, Return: -1})
	return len(r.prov) - 1
}

// replyOp records the reply of the commit sendOp recorded as op i, whose
// event is the next to be recorded.
func (r *run) replyOp(i int, res ToolResult) {
	if i < 0 {
		return
	}
	op := &r.prov[i]
	op.Outcome = res.Outcome
	if res.Outcome == OutcomeCommitted && res.Receipt != nil {
		op.Receipt = res.Receipt.ID
	}
	if res.Outcome == OutcomeCommitted || res.Outcome == OutcomeRejected {
		op.Return = 2 * (len(r.evs) + 1)
	}
}

// readOp records, on a detailed run, a readback whose event is the next
// to be recorded.
func (r *run) readOp(q ReadbackQuery, out []LedgerEntry) {
	if !r.recordsProvider() {
		return
	}
	s := 2 * (len(r.evs) + 1)
	r.prov = append(r.prov, ProviderOp{Task: r.index, ActionRef: q.ActionRef, Entries: append([]LedgerEntry(nil), out...), Call: s, Return: s})
}
