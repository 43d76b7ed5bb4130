// Package unknownoutcomeadapters is production code that reads its
// clients' answers through the adapters' classifiers.
package unknownoutcomeadapters

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/sqlfault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var errFailed = errors.New("failed")

type janitor struct {
	cs     *mcp.ClientSession
	hc     *http.Client
	charge func(ctx context.Context, key string) (string, error)
}

func (j janitor) call(ctx context.Context, key string) (*mcp.CallToolResult, error) {
	return j.cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot", Meta: mcp.Meta{"idempotencyKey": key}})
}

func (j janitor) post(ctx context.Context, key string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/charges", nil)
	req.Header.Set("Idempotency-Key", key)
	return j.hc.Do(req)
}

func (j janitor) readBack(ctx context.Context, key string) (bool, error) { return false, nil }

func reconcile(ctx context.Context, key string) bool { return false }

// --- true positives ---

func (j janitor) mcpNoUnknownCase(ctx context.Context, key string) bool {
	res, err := j.call(ctx, key)
	switch mcpfault.OutcomeOf(res, err) { // want `switch on mcpfault.OutcomeOf\(res, err\) has no path for model.OutcomeUnknown`
	case model.OutcomeCommitted:
		return true
	case model.OutcomeRejected:
		return false
	}
	return true
}

func (j janitor) httpNotCommitted(ctx context.Context, key string) (bool, error) {
	resp, err := j.post(ctx, key)
	if httpfault.OutcomeOf(resp, err) != model.OutcomeCommitted { // want `in this if/else chain on httpfault.OutcomeOf\(resp, err\), model.OutcomeUnknown shares its case with model.OutcomeRejected`
		return false, errFailed
	}
	return true, nil
}

func (j janitor) callVariableDefault(ctx context.Context, key string) error {
	_, err := j.charge(ctx, key)
	oc := callfault.OutcomeOf(err)
	switch oc {
	case model.OutcomeCommitted:
		return nil
	default: // want `in this switch on oc, model.OutcomeUnknown falls to the default case`
		return errFailed
	}
}

func (j janitor) mcpInitShared(ctx context.Context, key string) bool {
	res, err := j.call(ctx, key)
	switch oc := mcpfault.OutcomeOf(res, err); oc {
	case model.OutcomeCommitted:
		return true
	case model.OutcomeRejected, model.OutcomeUnknown: // want `model.OutcomeUnknown shares its case with model.OutcomeRejected, as if it had not happened`
		return false
	}
	return false
}

func (j janitor) mcpBlindRetry(ctx context.Context, id string) bool {
	for attempt := 0; attempt < 3; attempt++ {
		res, err := j.call(ctx, id+strconv.Itoa(attempt))
		oc := mcpfault.OutcomeOf(res, err)
		switch {
		case oc == model.OutcomeCommitted:
			return true
		case oc == model.OutcomeRejected:
			return false
		case oc == model.OutcomeUnknown: // want `model.OutcomeUnknown has a case that neither reads the provider's ledger back nor holds: it retries blind`
			continue
		}
	}
	return false
}

func (j janitor) httpElseChain(ctx context.Context, key string) bool {
	var oc model.Outcome
	resp, err := j.post(ctx, key)
	oc = httpfault.OutcomeOf(resp, err)
	if oc == model.OutcomeCommitted {
		return true
	} else if oc == model.OutcomeRejected {
		return false
	} else { // want `in this if/else chain on oc, model.OutcomeUnknown falls to the default case`
		return false
	}
}

func (j janitor) callTaggedMissing(ctx context.Context, key string) string {
	_, err := j.charge(ctx, key)
	switch callfault.OutcomeOf(err) { // want `has no path for model.OutcomeUnknown`
	case model.OutcomeCommitted:
		return "done"
	case model.OutcomeRejected:
		return "refused"
	}
	return "done"
}

func sqlCommitFailed(tx interface{ Commit() error }) error {
	err := tx.Commit()
	if oc := sqlfault.OutcomeOf(err); oc != model.OutcomeCommitted { // want `in this if/else chain on oc, model.OutcomeUnknown shares its case with model.OutcomeRejected`
		return errFailed
	}
	return nil
}

// --- look-alikes: not findings ---

func sqlReadsBack(ctx context.Context, tx interface{ Commit() error }, readBack func(context.Context) bool) bool {
	switch oc := sqlfault.OutcomeOf(tx.Commit()); oc {
	case model.OutcomeCommitted:
		return true
	case model.OutcomeUnknown:
		return readBack(ctx) // a func value named for the readback
	}
	return false
}

func (j janitor) mcpReadsBack(ctx context.Context, key string) (bool, error) {
	res, err := j.call(ctx, key)
	switch mcpfault.OutcomeOf(res, err) {
	case model.OutcomeCommitted:
		return true, nil
	case model.OutcomeRejected:
		return false, nil
	default:
		return j.readBack(ctx, key) // resolved by reading the provider's ledger back
	}
}

func (j janitor) httpReconciles(ctx context.Context, key string) bool {
	resp, err := j.post(ctx, key)
	oc := httpfault.OutcomeOf(resp, err)
	if oc == model.OutcomeUnknown {
		return reconcile(ctx, key)
	} else if oc == model.OutcomeCommitted {
		return true
	}
	return false
}

func (j janitor) callHolds(ctx context.Context, key string) model.ClaimVerdict {
	_, err := j.charge(ctx, key)
	switch callfault.OutcomeOf(err) {
	case model.OutcomeCommitted:
		return model.ClaimRelease
	case model.OutcomeRejected:
		return model.ClaimDeny
	case model.OutcomeUnknown:
		return model.ClaimHold
	}
	return model.ClaimHold
}

func (j janitor) mcpIdempotentRetry(ctx context.Context, id string) bool {
	for attempt := 0; attempt < 3; attempt++ {
		res, err := j.call(ctx, id) // the same key on every attempt: the provider recognises the retry
		oc := mcpfault.OutcomeOf(res, err)
		switch {
		case oc == model.OutcomeCommitted:
			return true
		case oc == model.OutcomeRejected:
			return false
		case oc == model.OutcomeUnknown:
			continue
		}
	}
	return false
}

func (j janitor) reassignedVariable(ctx context.Context, key string, replayed bool) bool {
	_, err := j.charge(ctx, key)
	oc := callfault.OutcomeOf(err)
	if replayed {
		oc = model.OutcomeCommitted // not a classifier's answer: the variable is out of scope
	}
	switch oc {
	case model.OutcomeCommitted:
		return true
	}
	return false
}

// OutcomeOf is the package's own function of the same name, not an
// adapter's classifier.
func OutcomeOf(err error) model.Outcome {
	if err != nil {
		return model.OutcomeRejected
	}
	return model.OutcomeCommitted
}

func (j janitor) ownClassifier(ctx context.Context, key string) bool {
	_, err := j.charge(ctx, key)
	switch OutcomeOf(err) {
	case model.OutcomeCommitted:
		return true
	}
	return false
}

func (j janitor) otherCondition(ctx context.Context, key string, quiet bool) bool {
	resp, err := j.post(ctx, key)
	if httpfault.OutcomeOf(resp, err) != model.OutcomeCommitted && !quiet { // && another test: out of scope
		return false
	}
	return true
}

func (j janitor) onlyRejected(ctx context.Context, key string) bool {
	res, err := j.call(ctx, key)
	if mcpfault.OutcomeOf(res, err) == model.OutcomeRejected { // takes the rejection alone
		return false
	}
	return true
}

func decide(oc model.Outcome) bool { // a parameter: no classifier's answer in sight
	switch oc {
	case model.OutcomeCommitted:
		return true
	}
	return false
}

func (j janitor) tupleAssigned(ctx context.Context, key string) bool {
	oc, ok := classify(j.charge(ctx, key))
	switch oc {
	case model.OutcomeCommitted:
		return ok
	}
	return false
}

func classify(_ string, err error) (model.Outcome, bool) { return callfault.OutcomeOf(err), true }

func (j janitor) ignored(ctx context.Context, key string) bool {
	res, err := j.call(ctx, key)
	//faultline:ignore the provider deletes idempotently by snapshot id and the sweep reruns nightly
	if mcpfault.OutcomeOf(res, err) != model.OutcomeCommitted {
		return false
	}
	return true
}
