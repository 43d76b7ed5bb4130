package linearize

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// FromRun converts a run's provider history (model.Result.Provider, or
// model.View.Provider during a run) into a History: each task is one
// worker (its fixture position), a commit keeps its request key, action
// ref, outcome and receipt, and a readback of an action ref keeps the
// entries it returned. A readback by subject or of the whole ledger, and
// an operation without an action ref, name no one action's partition and
// are left out. A commit the caller never saw answered has no response
// (NoReturn).
func FromRun(ops []model.ProviderOp) History {
	h := make(History, 0, len(ops))
	for _, p := range ops {
		if p.ActionRef == "" {
			continue
		}
		o := Op{Worker: p.Task, Action: p.ActionRef, Call: p.Call, Return: p.Return}
		if p.Commit {
			o.Kind, o.Key = KindCommit, p.Key
			switch p.Outcome {
			case model.OutcomeCommitted:
				o.Outcome, o.Receipt = OutcomeCommitted, p.Receipt
			case model.OutcomeRejected:
				o.Outcome = OutcomeRejected
			default:
				o.Outcome, o.Return = OutcomeUnknown, NoReturn
			}
		} else {
			o.Kind = KindReadback
			o.Entries = make([]Entry, 0, len(p.Entries))
			for _, e := range p.Entries {
				o.Entries = append(o.Entries, Entry{Key: e.Key, Receipt: e.ReceiptID})
			}
		}
		h = append(h, o)
	}
	return h
}

// CheckRun checks the provider history of a run made with
// model.Options.ProviderHistory (or with user invariants)
// with Check (timeout as there; 0 for a verdict that depends on the run
// alone). Unknown is inconclusive, never a pass.
func CheckRun(res *model.Result, timeout time.Duration) (Result, error) {
	if res == nil {
		return Result{}, fmt.Errorf("linearize: no run result")
	}
	return Check(FromRun(res.Provider), timeout)
}

// WriteBeside writes, for an Illegal r, porcupine's visualization next to
// a counterexample file: cx with its extension replaced by
// ".linearize.html" (cx-name.json -> cx-name.linearize.html). It returns
// the path written, or an error for a Result that is not Illegal or a
// failed write.
func WriteBeside(cx string, r Result) (string, error) {
	path := strings.TrimSuffix(cx, ".json") + ".linearize.html"
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		return "", err
	}
	if err := fileio.WriteAtomic(path, b.Bytes()); err != nil {
		return "", fmt.Errorf("linearize: %w", err)
	}
	return path, nil
}

// InvLinearizable names the invariant of Invariant.
const InvLinearizable = "provider_linearizable"

// Invariant returns the optional invariant that the provider's history
// so far is linearizable against the ledger model (see Check), checked
// after every tool.commit and ledger.readback crossing. Add it to
// model.Options.Invariants (properties.WithHarnessOptions for an
// exploration). It checks with no time budget, so its verdict depends on
// the run alone and porcupine's Unknown cannot arise; a history too large
// to decide quickly makes it slow, not green.
func Invariant() model.UserInvariant {
	return model.UserInvariant{
		Name: InvLinearizable, Owner: "provider", Oracle: "ledger_readback",
		Doc: "every commit reply and readback of the provider is explained by one serial order of the operations",
		Check: func(v model.View) string {
			if ev := v.Event(); ev != model.EvToolCommit && ev != model.EvLedgerReadback {
				return ""
			}
			r, err := Check(FromRun(v.Provider()), 0)
			if err != nil {
				return "provider history: " + err.Error()
			}
			if r.Verdict != Ok {
				return r.String()
			}
			return ""
		},
	}
}
