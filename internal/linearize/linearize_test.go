package linearize_test

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/internal/linearize"
)

// commit is a commit by worker w over [call, ret] with outcome o.
func commit(w int, action, key string, o linearize.Outcome, receipt string, call, ret int) linearize.Op {
	return linearize.Op{Worker: w, Kind: linearize.KindCommit, Action: action, Key: key, Outcome: o, Receipt: receipt, Call: call, Return: ret}
}

// readback is a readback by worker w over [call, ret] that returned entries,
// written "key:receipt".
func readback(w int, action string, call, ret int, entries ...string) linearize.Op {
	es := []linearize.Entry{}
	for _, e := range entries {
		k, r, _ := strings.Cut(e, ":")
		es = append(es, linearize.Entry{Key: k, Receipt: r})
	}
	return linearize.Op{Worker: w, Kind: linearize.KindReadback, Action: action, Entries: es, Call: call, Return: ret}
}

const committed, rejected, unknown = linearize.OutcomeCommitted, linearize.OutcomeRejected, linearize.OutcomeUnknown

// check runs Check with no time limit and fails the test on a history error.
func check(t *testing.T, h linearize.History) linearize.Result {
	t.Helper()
	res, err := linearize.Check(h, 0)
	require.NoError(t, err, "Check")
	return res
}

func wantVerdict(t *testing.T, res linearize.Result, v linearize.Verdict, action string) {
	t.Helper()
	require.Equal(t, v, res.Verdict, "%s", res)
	require.Equal(t, action, res.Action, "%s", res)
}

// A commit completes at 2; a readback invoked at 3, after that response,
// returns nothing: no serial order explains it.
func TestLaggingReadIsIllegal(t *testing.T) {
	res := check(t, linearize.History{
		commit(0, "a1", "k1", committed, "r1", 1, 2),
		readback(1, "a1", 3, 4),
	})
	wantVerdict(t, res, linearize.Illegal, "a1")
	assert.Equal(t, 1, res.Actions)
	assert.Empty(t, res.Undecided)
	assert.Equal(t, "illegal: action a1 has no linearization (of 1 action)", res.String())
}

func TestReadAfterCommitSeesItIsOk(t *testing.T) {
	res := check(t, linearize.History{
		commit(0, "a1", "k1", committed, "r1", 1, 2),
		readback(1, "a1", 3, 4, "k1:r1"),
	})
	wantVerdict(t, res, linearize.Ok, "")
	assert.Equal(t, "ok: 1 action, each linearizable", res.String())
}

func TestEmptyHistoryIsOkWithNoActions(t *testing.T) {
	res := check(t, nil)
	wantVerdict(t, res, linearize.Ok, "")
	assert.Equal(t, 0, res.Actions)
	assert.Equal(t, "ok: 0 actions, each linearizable", res.String())
}

// A readback inside the commit's interval may be ordered before or after it.
func TestOverlappingCommitAndReadbackIsOkEitherWay(t *testing.T) {
	for _, tc := range []struct {
		name       string
		call, ret  int
		seen       []string
		wantAction string
	}{
		{"inside, before the effect", 2, 3, nil, ""},
		{"inside, after the effect", 2, 3, []string{"k1:r1"}, ""},
		{"straddling the call, before", 0, 2, nil, ""},
		{"straddling the return, after", 3, 5, []string{"k1:r1"}, ""},
		{"touching the return (closed interval), before", 4, 6, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := check(t, linearize.History{
				commit(0, "a1", "k1", committed, "r1", 1, 4),
				readback(1, "a1", tc.call, tc.ret, tc.seen...),
			})
			wantVerdict(t, res, linearize.Ok, "")
		})
	}
}

func TestIdempotentResend(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      linearize.History
		want   linearize.Verdict
		action string
	}{
		{"replay returns the original receipt", linearize.History{
			commit(0, "a1", "k1", committed, "r1", 1, 2),
			commit(0, "a1", "k1", committed, "r1", 3, 4),
			readback(1, "a1", 5, 6, "k1:r1"),
		}, linearize.Ok, ""},
		{"concurrent re-sends from two workers, one entry", linearize.History{
			commit(0, "a1", "k1", committed, "r1", 1, 4),
			commit(1, "a1", "k1", committed, "r1", 2, 3),
			readback(2, "a1", 5, 6, "k1:r1"),
		}, linearize.Ok, ""},
		{"re-send returns a second receipt", linearize.History{
			commit(0, "a1", "k1", committed, "r1", 1, 2),
			commit(0, "a1", "k1", committed, "r2", 3, 4),
		}, linearize.Illegal, "a1"},
		{"re-send creates a second entry", linearize.History{
			commit(0, "a1", "k1", committed, "r1", 1, 2),
			commit(0, "a1", "k1", committed, "r2", 3, 4),
			readback(1, "a1", 5, 6, "k1:r1", "k1:r2"),
		}, linearize.Illegal, "a1"},
		{"replayed receipt but two entries read back", linearize.History{
			commit(0, "a1", "k1", committed, "r1", 1, 2),
			commit(0, "a1", "k1", committed, "r1", 3, 4),
			readback(1, "a1", 5, 6, "k1:r1", "k1:r1"),
		}, linearize.Illegal, "a1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantVerdict(t, check(t, tc.h), tc.want, tc.action)
		})
	}
}

func TestUnknownOutcomeCommit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      linearize.History
		want   linearize.Verdict
		action string
	}{
		{"seen by a later readback", linearize.History{
			commit(0, "a1", "k1", unknown, "", 1, linearize.NoReturn),
			readback(1, "a1", 5, 6, "k1:r9"),
		}, linearize.Ok, ""},
		{"never seen", linearize.History{
			commit(0, "a1", "k1", unknown, "", 1, linearize.NoReturn),
			readback(1, "a1", 5, 6),
		}, linearize.Ok, ""},
		{"absent, then seen", linearize.History{
			commit(0, "a1", "k1", unknown, "", 1, linearize.NoReturn),
			readback(1, "a1", 2, 3),
			readback(1, "a1", 4, 5, "k1:r9"),
		}, linearize.Ok, ""},
		{"seen, then gone", linearize.History{
			commit(0, "a1", "k1", unknown, "", 1, linearize.NoReturn),
			readback(1, "a1", 2, 3, "k1:r9"),
			readback(1, "a1", 4, 5),
		}, linearize.Illegal, "a1"},
		{"seen, then a replay with another receipt", linearize.History{
			commit(0, "a1", "k1", unknown, "", 1, linearize.NoReturn),
			readback(1, "a1", 2, 3, "k1:r9"),
			commit(0, "a1", "k1", committed, "r8", 4, 5),
		}, linearize.Illegal, "a1"},
		{"a replay fixes the receipt a readback then shows", linearize.History{
			commit(0, "a1", "k1", unknown, "", 1, linearize.NoReturn),
			commit(0, "a1", "k1", committed, "r9", 4, 5),
			readback(1, "a1", 6, 7, "k1:r9"),
		}, linearize.Ok, ""},
		{"a committed reply without a receipt, then read back", linearize.History{
			commit(0, "a1", "k1", committed, "", 1, 2),
			readback(1, "a1", 3, 4, "k1:r1"),
		}, linearize.Ok, ""},
		{"a committed reply without a receipt, then a lagging read", linearize.History{
			commit(0, "a1", "k1", committed, "", 1, 2),
			readback(1, "a1", 3, 4),
		}, linearize.Illegal, "a1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantVerdict(t, check(t, tc.h), tc.want, tc.action)
		})
	}
}

func TestRejectedCommitHasNoEffect(t *testing.T) {
	wantVerdict(t, check(t, linearize.History{
		commit(0, "a1", "k1", rejected, "", 1, 2),
		readback(1, "a1", 3, 4),
	}), linearize.Ok, "")
	wantVerdict(t, check(t, linearize.History{
		commit(0, "a1", "k1", rejected, "", 1, 2),
		readback(1, "a1", 3, 4, "k1:r1"),
	}), linearize.Illegal, "a1")
}

// The failing partition is the first illegal action ref in sorted order,
// whatever the history's order; partitions are independent.
func TestFailingPartitionIsDeterministic(t *testing.T) {
	h := linearize.History{
		commit(0, "c", "kc", committed, "rc", 1, 2),
		readback(1, "c", 3, 4),
		commit(0, "b", "kb", committed, "rb", 5, 6),
		readback(1, "b", 7, 8),
		commit(2, "a", "ka", committed, "ra", 1, 8),
		readback(3, "a", 9, 10, "ka:ra"),
	}
	for i := range 20 {
		res := check(t, h)
		wantVerdict(t, res, linearize.Illegal, "b")
		require.Equal(t, 3, res.Actions, "run %d", i)
	}
	// Entries of another action never satisfy a readback.
	wantVerdict(t, check(t, linearize.History{
		commit(0, "a", "ka", committed, "ra", 1, 2),
		readback(1, "b", 3, 4, "ka:ra"),
	}), linearize.Illegal, "b")
}

// hard is a partition porcupine cannot decide in any reasonable time: n
// concurrent commits and a concurrent readback returning an entry no
// commit made, so every subset of the commits is tried before the readback.
func hard(action string, n int) linearize.History {
	var h linearize.History
	for i := range n {
		h = append(h, commit(i, action, action+"-k"+strconv.Itoa(i), committed, "r"+strconv.Itoa(i), i, 1000+i))
	}
	return append(h, readback(n, action, n, 999, "ghost:r"))
}

func TestTimeoutIsUnknownNeverOk(t *testing.T) {
	h := append(hard("a", 40), commit(0, "b", "kb", committed, "rb", 1, 2), readback(1, "b", 3, 4, "kb:rb"))
	res, err := linearize.Check(h, 5*time.Millisecond)
	require.NoError(t, err)
	require.Equal(t, linearize.Unknown, res.Verdict)
	require.Empty(t, res.Action)
	// a ran out of time; b was never started because the budget was spent.
	assert.Equal(t, []string{"a", "b"}, res.Undecided)
	assert.Equal(t, 2, res.Actions)
	assert.Equal(t, "unknown: 2 of 2 actions undecided when the time budget ran out", res.String())
	assert.ErrorContains(t, res.WriteHTML(new(bytes.Buffer)), "no counterexample", "WriteHTML on unknown")
	var zero linearize.Result
	assert.NotEqual(t, linearize.Ok, zero.Verdict, "the zero Result is a pass")
}

func TestWriteHTML(t *testing.T) {
	res := check(t, linearize.History{
		commit(0, "refund-order-7", "k1", committed, "r1", 1, 2),
		readback(1, "refund-order-7", 3, 4),
	})
	wantVerdict(t, res, linearize.Illegal, "refund-order-7")
	var b bytes.Buffer
	require.NoError(t, res.WriteHTML(&b))
	html := b.String() // the operations are JSON in a script: ">" is \u003e
	for _, want := range []string{"<html", "commit refund-order-7 key=k1 -\\u003e committed r1", "readback refund-order-7 -\\u003e []", "[k1:r1]"} {
		assert.Contains(t, html, want, "the HTML")
	}
	ok := check(t, linearize.History{commit(0, "a", "k", committed, "r", 1, 2)})
	assert.ErrorContains(t, ok.WriteHTML(&b), "verdict ok", "WriteHTML on ok")
}

func TestBadHistory(t *testing.T) {
	good := commit(0, "a", "k", committed, "r", 1, 2)
	for _, tc := range []struct {
		name string
		op   func(linearize.Op) linearize.Op
		want string
	}{
		{"negative worker", func(o linearize.Op) linearize.Op { o.Worker = -1; return o }, "worker -1 is negative"},
		{"no action", func(o linearize.Op) linearize.Op { o.Action = ""; return o }, "empty action ref"},
		{"negative call", func(o linearize.Op) linearize.Op { o.Call = -2; return o }, "call -2 is negative"},
		{"sequence number too large", func(o linearize.Op) linearize.Op { o.Return = linearize.MaxSeq + 1; return o }, "sequence number above MaxSeq"},
		{"return before call", func(o linearize.Op) linearize.Op { o.Return = 0; return o }, "return 0 before call 1"},
		{"no kind", func(o linearize.Op) linearize.Op { o.Kind = 0; return o }, "kind is not commit or readback"},
		{"no key", func(o linearize.Op) linearize.Op { o.Key = ""; return o }, "empty request key"},
		{"no outcome", func(o linearize.Op) linearize.Op { o.Outcome = 0; return o }, "outcome none is not committed"},
		{"rejected with receipt", func(o linearize.Op) linearize.Op { o.Outcome = rejected; return o }, `rejected commit with receipt "r"`},
		{"unknown with a return", func(o linearize.Op) linearize.Op { o.Outcome, o.Receipt = unknown, ""; return o }, "unknown-outcome commit with return 2"},
		{"commit with entries", func(o linearize.Op) linearize.Op { o.Entries = []linearize.Entry{{"k", "r"}}; return o }, "commit with readback entries"},
		{"readback with key", func(o linearize.Op) linearize.Op { o.Kind = linearize.KindReadback; return o }, "readback with a commit's key"},
		{"readback entry without receipt", func(o linearize.Op) linearize.Op {
			return linearize.Op{Kind: linearize.KindReadback, Action: "a", Entries: []linearize.Entry{{Key: "k"}}, Call: 1, Return: 2}
		}, "readback entry 0 has an empty key or receipt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := linearize.Check(linearize.History{good, tc.op(good)}, 0)
			assert.ErrorContains(t, err, "operation 1")
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := linearize.Check(linearize.History{good, commit(1, "b", "k", committed, "r", 3, 4)}, 0)
	assert.ErrorContains(t, err, `request key "k" is committed under action refs "a" and "b"`, "a key under two actions")
	_, err = linearize.Check(linearize.History{good}, -time.Second)
	assert.ErrorContains(t, err, "negative timeout")
}

func TestOpString(t *testing.T) {
	for _, tc := range []struct {
		op   linearize.Op
		want string
	}{
		{commit(1, "a1", "k1", committed, "r1", 3, 4), "w1 commit a1 key=k1 -> committed r1 [3,4]"},
		{commit(1, "a1", "k1", committed, "", 3, 4), "w1 commit a1 key=k1 -> committed (no receipt) [3,4]"},
		{commit(0, "a1", "k1", unknown, "", 3, linearize.NoReturn), "w0 commit a1 key=k1 -> unknown [3,-]"},
		{readback(2, "a1", 5, 6, "k2:r2", "k1:r1"), "w2 readback a1 -> [k1:r1 k2:r2] [5,6]"},
	} {
		assert.Equal(t, tc.want, tc.op.String())
	}
}

// Model and Operations run under porcupine directly, partitioned by action.
func TestModelWithPorcupine(t *testing.T) {
	h := linearize.History{
		commit(0, "b", "kb", unknown, "", 1, linearize.NoReturn),
		commit(0, "a", "ka", committed, "ra", 1, 2),
		readback(1, "a", 3, 4),
	}
	ops, err := h.Operations()
	require.NoError(t, err)
	require.Len(t, ops, 3)
	assert.Equal(t, int64(5), ops[0].Return, "after every event")
	assert.Equal(t, int64(2), ops[1].Return)
	m := linearize.Model()
	parts := m.Partition(ops)
	require.Len(t, parts, 2, "partitions [a: 2 ops] [b: 1 op]")
	assert.Len(t, parts[0], 2)
	assert.Len(t, parts[1], 1)
	assert.False(t, porcupine.CheckOperations(m, ops), "porcupine accepts the lagging read")
	ok, state := m.Step(m.Init(), ops[0].Input, ops[0].Output)
	assert.True(t, ok)
	assert.Equal(t, "[kb:?]", m.DescribeState(state))
	assert.Equal(t, "[]", m.DescribeState(m.Init()))
	assert.Equal(t, "readback a -> []", m.DescribeOperation(ops[2].Input, ops[2].Output))
}

// The core model imports no checker: linearize depends on model's world,
// never the other way.
func TestModelDoesNotImportPorcupine(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../../model", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, "porcupine") || strings.Contains(imp.Path.Value, "faultline/linearize") {
				return fmt.Errorf("%s imports %s", path, imp.Path.Value)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.NotZero(t, n, "Go files under ../model")
}
