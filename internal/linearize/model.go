package linearize

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// input is a porcupine operation's input: what was asked.
type input struct {
	kind   Kind
	action string
	key    string // commit only
}

// output is a porcupine operation's output: what came back. entries are
// sorted by key, then receipt.
type output struct {
	outcome Outcome // commit only
	receipt string  // commit only; "" when the reply carried none
	entries []Entry // readback only
}

// slot is one committed entry of the model's ledger; receipt is "" while
// no reply or readback has shown it (an unknown-outcome commit's effect).
type slot struct {
	key     string
	receipt string
}

// ledger is the model's state for one action ref: its committed entries,
// sorted by key, one per key. Step never mutates a ledger.
type ledger []slot

func inputOf(o Op) input { return input{kind: o.Kind, action: o.Action, key: o.Key} }

func outputOf(o Op) output {
	out := output{outcome: o.Outcome, receipt: o.Receipt}
	if o.Kind == KindReadback {
		out.entries = slices.Clone(o.Entries)
		if out.entries == nil {
			out.entries = []Entry{}
		}
		slices.SortFunc(out.entries, func(a, b Entry) int {
			return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Receipt, b.Receipt))
		})
	}
	return out
}

// Model returns the porcupine model of the provider ledger, partitioned by
// action ref (partitions in sorted order). Its operations are the ones
// [History.Operations] makes; any other input or output is a programmer
// error and panics with a message naming its type.
//
// State, per action ref: the committed request keys with their receipts.
// A committed commit adds its key with its receipt, or, when the key is
// already there, must return the original receipt and adds nothing (a
// different receipt is a duplicate effect). A rejected commit changes
// nothing. An unknown-outcome commit may add its key (receipt not yet
// seen; the next reply or readback that shows it fixes it). A readback
// returns exactly the action's entries, each key once.
func Model() porcupine.Model {
	return porcupine.Model{
		Partition: partition,
		Init:      func() any { return ledger{} },
		Step:      step,
		Equal: func(a, b any) bool {
			return slices.Equal(a.(ledger), b.(ledger))
		},
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			for _, e := range s.(ledger) {
				h.Write([]byte(e.key))
				h.Write([]byte{0})
				h.Write([]byte(e.receipt))
				h.Write([]byte{0})
			}
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string {
			return describe(mustInput(in), mustOutput(out))
		},
		DescribeState: func(s any) string {
			l := s.(ledger)
			keys := make([]string, len(l))
			receipts := make([]string, len(l))
			for i, e := range l {
				keys[i], receipts[i] = e.key, cmp.Or(e.receipt, "?")
			}
			return entriesString(keys, receipts)
		},
	}
}

func mustInput(v any) input {
	in, ok := v.(input)
	if !ok {
		panic(fmt.Sprintf("linearize: operation input is %T, not one History.Operations made", v))
	}
	return in
}

func mustOutput(v any) output {
	out, ok := v.(output)
	if !ok {
		panic(fmt.Sprintf("linearize: operation output is %T, not one History.Operations made", v))
	}
	return out
}

// partition splits a history by action ref, in sorted order of the refs,
// keeping each partition's operations in history order.
func partition(ops []porcupine.Operation) [][]porcupine.Operation {
	by := map[string][]porcupine.Operation{}
	for _, op := range ops {
		a := mustInput(op.Input).action
		by[a] = append(by[a], op)
	}
	out := make([][]porcupine.Operation, 0, len(by))
	for _, a := range slices.Sorted(maps.Keys(by)) {
		out = append(out, by[a])
	}
	return out
}

func step(state, in, out any) (bool, any) {
	l := state.(ledger)
	i, o := mustInput(in), mustOutput(out)
	switch i.kind {
	case KindCommit:
		at, found := slices.BinarySearchFunc(l, i.key, func(e slot, k string) int { return cmp.Compare(e.key, k) })
		switch o.outcome {
		case OutcomeRejected:
			return true, l
		case OutcomeUnknown:
			if found {
				return true, l
			}
			return true, slices.Insert(slices.Clone(l), at, slot{key: i.key})
		case OutcomeCommitted:
			if !found {
				return true, slices.Insert(slices.Clone(l), at, slot{key: i.key, receipt: o.receipt})
			}
			switch {
			case o.receipt == "" || o.receipt == l[at].receipt:
				return true, l
			case l[at].receipt == "":
				next := slices.Clone(l)
				next[at].receipt = o.receipt
				return true, next
			}
			return false, l // a second receipt for one key: a duplicate effect
		}
	case KindReadback:
		if len(o.entries) != len(l) {
			return false, l
		}
		var next ledger
		for j, e := range o.entries {
			if e.Key != l[j].key {
				return false, l
			}
			if l[j].receipt == e.Receipt {
				continue
			}
			if l[j].receipt != "" {
				return false, l
			}
			if next == nil {
				next = slices.Clone(l)
			}
			next[j].receipt = e.Receipt
		}
		if next != nil {
			return true, next
		}
		return true, l
	}
	return false, l
}

// describe renders an operation without its worker or times, e.g.
// "commit a1 key=k1 -> committed r1" or "readback a1 -> [k1:r1]".
func describe(i input, o output) string {
	if i.kind == KindReadback {
		keys := make([]string, len(o.entries))
		receipts := make([]string, len(o.entries))
		for j, e := range o.entries {
			keys[j], receipts[j] = e.Key, e.Receipt
		}
		return fmt.Sprintf("readback %s -> %s", i.action, entriesString(keys, receipts))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s key=%s -> %s", i.kind, i.action, i.key, o.outcome)
	if o.outcome == OutcomeCommitted {
		b.WriteByte(' ')
		b.WriteString(cmp.Or(o.receipt, "(no receipt)"))
	}
	return b.String()
}
