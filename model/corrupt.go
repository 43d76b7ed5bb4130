package model

// corruptedReadback corrupts the verification path: the readback is
// served by a path in front of the provider's ledger (a cache, a
// replica's index, a receipt-verification service) whose answer for the
// query is another action's record.
type corruptedReadback struct{}

// onReadback answers a readback whose true answer is empty (the ledger
// holds no effect of the query) with a record that matches the query
// only on the fields it selects by: the ledger's newest entry (another
// action's, with its own key, trace and receipt) relabelled with the
// query's reference and subject, or, on an empty ledger, a forged record
// of those two fields and a receipt the provider never issued. The path
// stays corrupted for the task: its later readbacks whose true answer is
// empty get the same answer. A query the ledger answers has nothing to
// corrupt (the kind does not fire).
func (corruptedReadback) onReadback(r *run, q ReadbackQuery, entries []LedgerEntry) ([]LedgerEntry, bool) {
	if len(entries) > 0 || r.corruptPath {
		return entries, false
	}
	r.corruptPath = true
	return r.corruptedAnswer(q), true
}

// forgedReceipt is the receipt id of a forged readback record.
const forgedReceipt = "rcpt-forged"

// corruptedAnswer is the corrupted path's answer to q (see
// corruptedReadback).
func (r *run) corruptedAnswer(q ReadbackQuery) []LedgerEntry {
	e := LedgerEntry{ReceiptID: forgedReceipt}
	if n := len(r.world.Ledger); n > 0 {
		e = r.world.Ledger[n-1]
	}
	if q.ActionRef != "" {
		e.ActionRef = q.ActionRef
	}
	if q.Subject != "" {
		e.Subject = q.Subject
	}
	return []LedgerEntry{e}
}
