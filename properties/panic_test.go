package properties_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// receiptReader is the inventory agent behind a tool client that reads
// each reply's receipt id unchecked: a reply without a receipt (a timeout,
// a rejection) panics with a nil dereference.
type receiptReader struct{ model.System }

type uncheckedClient struct{ model.ToolClient }

var receiptIDs int

func (c uncheckedClient) Commit(ctx context.Context, call model.ToolCall) (model.ToolResult, error) {
	res, err := c.ToolClient.Commit(ctx, call)
	receiptIDs += len(res.Receipt.ID) // no nil check
	return res, err
}

func (s receiptReader) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	env.Tool = uncheckedClient{env.Tool}
	return s.System.Run(ctx, env, task)
}

func panicking(model.Config) (model.Factory, error) {
	inner := inventory.Factory(inventory.Defended, inventory.Fixed)
	return func() model.System { return receiptReader{inner()} }, nil
}

// TestSystemPanicIsAFailure: a system that panics under a fault is a
// failure of the system, never a crash of the exploration nor a pass: the
// walk and the exploration end with a *properties.PanicError holding the
// one-fault schedule that made it panic, where, and why; Check fails t
// with it; the same system without the fault holds.
func TestSystemPanicIsAFailure(t *testing.T) {
	opts := checkoutOptions()
	rep, err := properties.Exhaustive(panicking, append(opts, properties.WithMaxFaults(1))...)
	var pe *properties.PanicError
	if !errors.As(err, &pe) || rep != nil {
		t.Fatalf("exhaustive: report %v, error %v", rep, err)
	}
	f := pe.Schedule.Faults
	if len(f) != 1 || f[0].Kind != "tool_timeout" || f[0].Event != model.EvToolCommit || f[0].Ordinal != 1 ||
		!strings.Contains(pe.Panic.Value, "nil pointer dereference") || pe.Panic.Event != model.EvToolCommit ||
		!strings.Contains(pe.Panic.Stack, "uncheckedClient.Commit") {
		t.Fatalf("exhaustive: %v", err)
	}
	rapidFlags(t, 100, 1)
	_, err = properties.Explore(panicking, opts...)
	if !errors.As(err, &pe) || len(pe.Schedule.Faults) != 1 || pe.Schedule.Faults[0].Kind != "tool_timeout" {
		t.Fatalf("explore: %v", err)
	}
	tb := &recordingTB{name: "TestPanicking"}
	properties.Check(tb, panicking, opts...)
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "the system panicked in task") || !strings.Contains(tb.errors[0], "(the system failed: exit code 1 of the table") {
		t.Fatalf("check: %q", tb.errors)
	}
	// without a fault the reply always carries its receipt
	if _, err := properties.Exhaustive(panicking, append(opts, properties.WithMaxFaults(1), properties.WithKinds("stale_policy"))...); errors.As(err, &pe) {
		t.Fatalf("a fault that leaves the reply alone: %v", err)
	}
}
