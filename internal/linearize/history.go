package linearize

import (
	"fmt"
	"strings"
)

// Kind is an operation's kind: a commit or a readback.
type Kind uint8

// Kinds. The zero Kind is invalid.
const (
	KindCommit   Kind = iota + 1 // a consequential request to the provider
	KindReadback                 // an independent read of the provider's ledger
)

// String returns "commit" or "readback", or "kind(N)" for an invalid kind.
func (k Kind) String() string {
	switch k {
	case KindCommit:
		return "commit"
	case KindReadback:
		return "readback"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Outcome is what a commit's caller saw.
type Outcome uint8

// Outcomes. The zero Outcome is invalid for a commit and required for a
// readback.
const (
	// OutcomeCommitted: the provider acknowledged the effect (a first
	// commit or an idempotent replay of the same key).
	OutcomeCommitted Outcome = iota + 1
	// OutcomeRejected: the provider refused the request; no effect.
	OutcomeRejected
	// OutcomeUnknown: no response (a timeout, a lost reply); the effect
	// may or may not have happened, at any time after the call.
	OutcomeUnknown
)

// String returns "committed", "rejected" or "unknown", "none" for the zero
// Outcome, or "outcome(N)" for an invalid one.
func (o Outcome) String() string {
	switch o {
	case 0:
		return "none"
	case OutcomeCommitted:
		return "committed"
	case OutcomeRejected:
		return "rejected"
	case OutcomeUnknown:
		return "unknown"
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// NoReturn is the Return of an operation that has no response: an
// unknown-outcome commit. The check treats it, as porcupine's
// documentation recommends for timed-out operations, as returning after
// every other event of the history, so it may take effect at any time
// after its call, or never.
const NoReturn = -1

// MaxSeq is the largest sequence number an operation may carry, so that
// an unknown-outcome commit's return can be placed after every other.
const MaxSeq = 1 << 62

// Entry is one provider-ledger entry as a readback returns it: the request
// key that made it and its receipt id.
type Entry struct {
	Key     string
	Receipt string
}

// Op is one operation of a history.
//
// Call and Return are logical sequence numbers (0 <= Call <= Return <= MaxSeq;
// intervals are closed, so equal numbers overlap). A commit has Key,
// Action and Outcome; Receipt is the receipt id it returned, empty for a
// committed reply that carried none and required empty for a rejected or
// unknown outcome. A readback has Action and Entries (in any order) and
// no Key, Outcome or Receipt.
type Op struct {
	Worker  int    // the client or worker that issued it; >= 0
	Kind    Kind   // KindCommit or KindReadback
	Action  string // the action ref committed or read back
	Key     string // commit: the provider's idempotency key
	Outcome Outcome
	Receipt string  // commit: the receipt id returned
	Entries []Entry // readback: the entries returned
	Call    int     // invocation sequence number
	Return  int     // response sequence number, or NoReturn
}

// String renders the operation on one line, e.g.
// "w1 commit a1 key=k1 -> committed r1 [3,4]" or
// "w2 readback a1 -> [k1:r1] [5,6]".
func (o Op) String() string {
	ret := fmt.Sprint(o.Return)
	if o.Return == NoReturn {
		ret = "-"
	}
	return fmt.Sprintf("w%d %s [%d,%s]", o.Worker, describe(inputOf(o), outputOf(o)), o.Call, ret)
}

// History is a set of operations from any number of workers, in any order.
type History []Op

// validate returns an error naming the first operation that is malformed,
// or a request key committed under two action refs (the partition by
// action would then be unsound, since the provider's idempotency key is
// global).
func (h History) validate() error {
	actionOfKey := map[string]string{}
	for i, o := range h {
		if err := o.validate(); err != nil {
			return fmt.Errorf("linearize: operation %d (%s): %w", i, o.Kind, err)
		}
		if o.Kind != KindCommit {
			continue
		}
		if a, ok := actionOfKey[o.Key]; ok && a != o.Action {
			return fmt.Errorf("linearize: operation %d: request key %q is committed under action refs %q and %q; a key must belong to one action", i, o.Key, a, o.Action)
		}
		actionOfKey[o.Key] = o.Action
	}
	return nil
}

func (o Op) validate() error {
	if o.Worker < 0 {
		return fmt.Errorf("worker %d is negative", o.Worker)
	}
	if o.Action == "" {
		return fmt.Errorf("empty action ref")
	}
	if o.Call < 0 {
		return fmt.Errorf("call %d is negative", o.Call)
	}
	if o.Call > MaxSeq || o.Return > MaxSeq {
		return fmt.Errorf("sequence number above MaxSeq (%d)", MaxSeq)
	}
	switch o.Kind {
	case KindCommit:
		if o.Key == "" {
			return fmt.Errorf("commit with an empty request key")
		}
		if len(o.Entries) > 0 {
			return fmt.Errorf("commit with readback entries")
		}
		switch o.Outcome {
		case OutcomeCommitted:
		case OutcomeRejected, OutcomeUnknown:
			if o.Receipt != "" {
				return fmt.Errorf("%s commit with receipt %q", o.Outcome, o.Receipt)
			}
		default:
			return fmt.Errorf("commit outcome %s is not committed, rejected or unknown", o.Outcome)
		}
		if o.Outcome == OutcomeUnknown {
			if o.Return != NoReturn {
				return fmt.Errorf("unknown-outcome commit with return %d; it has no response (NoReturn)", o.Return)
			}
			return nil
		}
	case KindReadback:
		if o.Key != "" || o.Outcome != 0 || o.Receipt != "" {
			return fmt.Errorf("readback with a commit's key, outcome or receipt")
		}
		for j, e := range o.Entries {
			if e.Key == "" || e.Receipt == "" {
				return fmt.Errorf("readback entry %d has an empty key or receipt", j)
			}
		}
	default:
		return fmt.Errorf("kind is not commit or readback")
	}
	if o.Return < o.Call {
		return fmt.Errorf("return %d before call %d", o.Return, o.Call)
	}
	return nil
}

// entriesString renders entries as "[k1:r1 k2:?]".
func entriesString(keys, receipts []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(keys[i])
		b.WriteByte(':')
		b.WriteString(receipts[i])
	}
	b.WriteByte(']')
	return b.String()
}
