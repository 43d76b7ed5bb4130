package model

// ProviderOp is one operation on the provider's ledger as the caller saw
// it (a tool.commit or a ledger.readback), its invocation and response on
// one logical clock of half-steps of the timeline: the input of a
// linearizability check. A commit whose reply the caller never saw has
// Return -1. The clock: docs/vocabulary.md, "ProviderOp".
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
// under Options.ProviderHistory, with user invariants (which may read
// it), on a fleet fixture or in production code.
func (r *run) recordsProvider() bool { return r.h.history }

// sendOp records, on a detailed run, a commit sent now; it returns the
// op's index, or -1 when nothing is recorded.
func (r *run) sendOp(call ToolCall) int {
	if !r.recordsProvider() {
		return -1
	}
	r.provStart()
	r.prov = append(r.prov, ProviderOp{Task: r.index, Commit: true, Tool: call.Tool, Key: call.RequestKey,
		ActionRef: call.Action.IdempotencyKey, Outcome: OutcomeUnknown, Call: 2*len(r.evs) + 1, Return: -1})
	return len(r.prov) - 1
}

// provStart gives a run's first provider op storage sized as the last
// run's history: the Result takes it, so a history grown by doubling
// left about as many bytes again behind it.
func (r *run) provStart() {
	if r.prov == nil {
		r.prov = make([]ProviderOp, 0, max(r.provCap, 4))
	}
}

// replyOp records the reply of the commit sendOp recorded as op i, whose
// event is the next to be recorded.
func (r *run) replyOp(i int, res ToolResult) {
	if i < 0 {
		return
	}
	op := &r.prov[i]
	op.Outcome = res.Outcome
	if res.failedInBody() {
		op.Outcome = OutcomeRejected // the provider refused it: its envelope aside
	}
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
	r.provStart()
	r.prov = append(r.prov, ProviderOp{Task: r.index, ActionRef: q.ActionRef, Entries: append([]LedgerEntry(nil), out...), Call: s, Return: s})
}
