package properties_test

import (
	"context"
	"errors"
	"path/filepath"
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
	rep, err := exhaustive(define(panicking, inventory.Fixture()), append(opts, properties.WithMaxFaults(1))...)
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
	_, err = properties.Explore(define(panicking, inventory.Fixture()), opts...)
	if !errors.As(err, &pe) || len(pe.Schedule.Faults) != 1 || pe.Schedule.Faults[0].Kind != "tool_timeout" {
		t.Fatalf("explore: %v", err)
	}
	tb := &recordingTB{name: "TestPanicking"}
	properties.CheckTB(tb, nil, define(panicking, inventory.Fixture()), append(opts, properties.WithFailDir(t.TempDir()))...)
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "the system panicked in task") || !strings.Contains(tb.errors[0], "(the system failed: exit 1") {
		t.Fatalf("check: %q", tb.errors)
	}
	// without a fault the reply always carries its receipt
	if _, err := exhaustive(define(panicking, inventory.Fixture()), append(opts, properties.WithMaxFaults(1), properties.WithKinds("stale_policy"))...); errors.As(err, &pe) {
		t.Fatalf("a fault that leaves the reply alone: %v", err)
	}
}

// TestPanicScheduleIsStoredAndReplayed: Check stores the schedule that
// made the system panic in the test's fail folder and prints the command
// that replays it; the next Check replays it first and says the system
// failed (not that the file is broken); the fixed system holds over it.
func TestPanicScheduleIsStoredAndReplayed(t *testing.T) {
	rapidFlags(t, 100, 1)
	dir := t.TempDir()
	opts := checkoutOptions(properties.WithFailDir(dir))
	tb := &recordingTB{name: "TestPanicking"}
	properties.CheckTB(tb, nil, define(panicking, inventory.Fixture()), opts...)
	files, _ := filepath.Glob(filepath.Join(dir, "panic-*.json"))
	if len(tb.errors) != 1 || len(files) != 1 || !strings.Contains(tb.errors[0], "replay: FAULTLINE_REPLAY=") {
		t.Fatalf("check: %q, files %v", tb.errors, files)
	}
	again := &recordingTB{name: "TestPanicking"}
	properties.CheckTB(again, nil, define(panicking, inventory.Fixture()), opts...)
	if len(again.errors) != 1 || !strings.Contains(again.errors[0], "properties: replaying the counterexample stored in "+files[0]+": the system panicked in task ") ||
		!strings.Contains(again.errors[0], "(the system failed: exit 1; keep the file)") {
		t.Fatalf("second check: %q", again.errors)
	}
	fixed := &recordingTB{name: "TestPanicking"}
	properties.CheckTB(fixed, nil, define(func(model.Config) (model.Factory, error) {
		return inventory.Factory(inventory.Defended, inventory.Fixed), nil
	}, inventory.Fixture()), opts...)
	if len(fixed.errors) != 0 || !strings.Contains(strings.Join(fixed.logs, "\n"), "holds now: fixed") {
		t.Fatalf("fixed: %q %q", fixed.errors, fixed.logs)
	}
}

// TestConfigFixtureIsNeverIgnored: WithConfig's fixture picks one of the
// definition's fixtures, names an unknown one as an error, and one other
// than WithFixture's is an error: never silently the first fixture.
func TestConfigFixtureIsNeverIgnored(t *testing.T) {
	def := inventory.Definition()
	if _, err := properties.Explore(def, properties.WithConfig(model.Config{Fixture: "two"})); err == nil ||
		err.Error() != `properties: WithConfig: unknown fixture "two" (valid: inventory)` {
		t.Errorf("unknown fixture: %v", err)
	}
	if _, err := properties.Explore(def, properties.WithFixture("inventory"), properties.WithConfig(model.Config{Fixture: "two"})); err == nil ||
		err.Error() != `properties: WithConfig names fixture "two", but WithFixture names "inventory": give one of them` {
		t.Errorf("a fixture other than WithFixture's: %v", err)
	}
	rapidFlags(t, 5, 1)
	rep, err := properties.Explore(def, properties.WithConfig(model.Config{Fixture: "inventory", System: []byte(`{"variant":"fixed"}`)}),
		properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))
	if err != nil || rep.Checks != 5 {
		t.Errorf("the definition's own fixture by name: %v %+v", err, rep)
	}
}
