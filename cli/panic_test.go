package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// receiptReader is the inventory agent behind a tool client that reads a
// reply's receipt id unchecked: a reply without a receipt panics.
type receiptReader struct{ model.System }

type uncheckedClient struct{ model.ToolClient }

func (c uncheckedClient) Commit(ctx context.Context, call model.ToolCall) (model.ToolResult, error) {
	res, err := c.ToolClient.Commit(ctx, call)
	_ = len(res.Receipt.ID) // no nil check
	return res, err
}

func (s receiptReader) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	env.Tool = uncheckedClient{env.Tool}
	return s.System.Run(ctx, env, task)
}

// TestSystemPanicExitsOne: a user's system that panics under a fault is a
// finding (exit 1) of explore, of the exhaustive walk and of replay, with
// the schedule that made it panic and the system's stack; never a crash
// of the command, nor bad input.
func TestSystemPanicExitsOne(t *testing.T) {
	def := inventory.Definition()
	configure := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		f, err := configure(system)
		if err != nil {
			return nil, err
		}
		return func() model.System { return receiptReader{f()} }, nil
	}
	p := program(def)
	for _, args := range [][]string{
		{"explore", "--exhaustive", "--max-faults", "1", "--domains", "tool", "--no-world"},
		append(exploreArgs[:len(exploreArgs):len(exploreArgs)], "--checks", "100"),
	} {
		code, out, stderr := runIn(t, p, args...)
		if code != 1 || out != "" || !strings.Contains(stderr, "inventory: properties: the system panicked in task ") ||
			!strings.Contains(stderr, "invalid memory address or nil pointer dereference, under the schedule:\n{") ||
			strings.Count(stderr, "(the system failed: exit 1)\ngoroutine ") != 1 || !strings.Contains(stderr, "uncheckedClient.Commit") {
			t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args, code, out, stderr)
		}
		sched := stderr[strings.Index(stderr, "\n{")+1 : strings.Index(stderr, "\n}\n")+3]
		code, out, stderr = runIn(t, p, "replay", write(t, "panic.json", sched))
		if code != 1 || out != "" || !strings.HasPrefix(stderr, "inventory: the system panicked in task ") {
			t.Fatalf("replay of %s: exit %d\nstdout %s\nstderr %s", sched, code, out, stderr)
		}
	}
}
