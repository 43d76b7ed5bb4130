package properties_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// waiter does the checkout agent's work, then waits on its context,
// which the harness never cancels.
type waiter struct{ model.System }

func (w waiter) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	if _, err := w.System.Run(ctx, env, task); err != nil {
		return model.Claim{}, err
	}
	<-ctx.Done()
	return model.Claim{}, ctx.Err()
}

// TestCheckReportsABlockedRun: in a synctest bubble, a system whose run
// never ends fails Check as the system's failure (not a harness error,
// not a leaked goroutine), with the schedule that hung stored and its
// replay line; the next Check replays the stored file first and fails
// the same way.
func TestCheckReportsABlockedRun(t *testing.T) {
	dir := t.TempDir()
	sys := func(model.Config) (model.Factory, error) {
		f := inventory.Factory(inventory.Defended, inventory.Fixed)
		return func() model.System { return waiter{f()} }, nil
	}
	opts := append(checkoutOptions(), properties.WithBubble(t), properties.WithFailDir(dir))
	tb := &recordingTB{name: "TestHang"}
	properties.CheckTB(tb, nil, define(sys, inventory.Fixture()), opts...)
	ents, _ := os.ReadDir(dir)
	if len(tb.errors) != 1 || len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "blocked-") {
		t.Fatalf("errors %q, files %v", tb.errors, ents)
	}
	path := filepath.Join(dir, ents[0].Name())
	msg := tb.errors[0]
	if !strings.HasPrefix(msg, `properties: the system's run never ended: System.Run blocked on something no crossing and no timer releases (the bubble ended in "deadlock: all goroutines in bubble are blocked"), under the schedule`+"\n") ||
		!strings.Contains(msg, "(the system failed: exit 1) replay: FAULTLINE_REPLAY="+path+" go test -run '^TestHang$'") ||
		strings.Contains(msg, "outlived") || strings.Contains(msg, "harness or option error") {
		t.Fatalf("message %q", msg)
	}
	again := &recordingTB{name: "TestHang"}
	properties.CheckTB(again, nil, define(sys, inventory.Fixture()), opts...)
	if len(again.errors) != 1 || !strings.HasPrefix(again.errors[0], "properties: replaying the schedule stored in "+path+": the system's run never ended") ||
		!strings.HasSuffix(again.errors[0], "(the system failed: exit 1; keep the file)") {
		t.Fatalf("replay of the stored file: %q", again.errors)
	}
}
