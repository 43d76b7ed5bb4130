// Package linearize checks that a history of provider-ledger operations,
// commits and readbacks issued by several workers at once, is linearizable:
// that some serial order of the operations, each taking effect at one
// instant between its invocation and its response, explains every reply
// and every readback. A readback that lags behind a commit which had
// already completed is the typical violation: no serial order explains it.
//
// The check is github.com/anishathalye/porcupine's, run against a model of
// the ledger: a commit is idempotent by request key (a second commit with
// the same key returns the original receipt and adds nothing), and a
// readback of an action ref returns exactly the entries committed for it.
// The history is partitioned by action ref and each partition is checked
// on its own, in sorted order.
//
// Entry points:
//
//   - [History] and [Op]: operations with a worker id, a [Kind] (a commit
//     with its request key, action ref, [Outcome] and receipt, or a
//     readback with the [Entry] values it returned), and invocation and
//     response times as logical sequence numbers. An unknown-outcome
//     commit has no response ([NoReturn]).
//   - [Check]: the three-valued [Result] ([Ok], [Illegal], [Unknown]).
//     Unknown means the time budget ran out: inconclusive, never a pass.
//     For Illegal, [Result.Action] names the failing action ref and
//     [Result.WriteHTML] writes porcupine's visualization of it.
//   - [Model] and [History.Operations]: the porcupine model and the
//     history in porcupine's form, for callers that run porcupine
//     themselves.
//
// Determinism: the verdict never depends on map order. porcupine's timeout
// reads the wall clock, so a positive budget can turn a slow check into
// Unknown on a loaded machine; with a timeout of 0 (no limit) the result
// is a pure function of the history.
package linearize
