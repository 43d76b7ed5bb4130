package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
)

// TestResultErr: a run passes only when it tested what it scheduled. A
// fault placed at a crossing the system never makes, or that never fires,
// is inconclusive (3) even though every invariant held; a violation is 1;
// a clean run and a run whose fault fired and was survived are nil.
func TestResultErr(t *testing.T) {
	const head = `{"version":1,"seed":"err","config":{"controls":[]},"faults":[`
	opts := model.Options{Builtin: []string{model.InvBudget, model.InvNoInventedProgress}}
	code := func(err error) int {
		var re *model.RunError
		if !errors.As(err, &re) {
			t.Fatalf("%v is not a *model.RunError", err)
		}
		return re.Code
	}

	clean := runShopper(t, shopper{}, opts, head+`]}`)
	if err := clean.Err(); err != nil {
		t.Fatalf("clean run: %v", err)
	}
	survived := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"charge"}]}`)
	if err := survived.Err(); err != nil {
		t.Fatalf("a fault reached, fired and survived: %v", err)
	}

	// the shopper writes no checkpoint before its charge and calls its
	// tools twice: the third commit and the fifth write never happen
	unreached := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":3,"kind":"timeout_after_commit"}]}`)
	if !unreached.Held() {
		t.Fatalf("the unreached run broke an invariant: %+v", unreached.Invariants)
	}
	err := unreached.Err()
	if err == nil || code(err) != 3 || !strings.Contains(err.Error(), "f1 timeout_after_commit@tool.commit#3 (not reached)") {
		t.Fatalf("unreached fault: %v", err)
	}
	if un := model.Unreached(unreached); len(un) != 1 || un[0].ID != "f1" {
		t.Fatalf("Unreached() = %+v", un)
	}

	// a checkpoint naming an effect the provider never made: code 1, named
	// ahead of the unreached fault beside it
	invented := shopper{effectName: func(string, model.ToolResult) string { return "charge-done" }}
	bad := runShopper(t, invented, opts, head+`{"event":"tool.commit","ordinal":3,"kind":"timeout_after_commit"}]}`)
	err = bad.Err()
	if err == nil || code(err) != 1 || !strings.HasPrefix(err.Error(), "no_invented_progress violated: first false after seq ") ||
		!strings.Contains(err.Error(), "reached by no fault (the workload)") {
		t.Fatalf("invented effect: %v", err)
	}

	// no invariant in scope: the run checked nothing, whatever happened
	none := runShopper(t, invented, model.Options{Builtin: []string{}}, head+`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"charge"}]}`)
	if err := none.Err(); err == nil || code(err) != 3 || !strings.Contains(err.Error(), "no invariant in scope") || none.RunVerdict != model.Inconclusive {
		t.Fatalf("no invariant in scope: %v", err)
	}
}

// TestResultErrNamesTenFaultsAtMost: a schedule of many unreached faults
// gets a message naming the first ten and counting the rest.
func TestResultErrNamesTenFaultsAtMost(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"version":1,"seed":"err","config":{"controls":[]},"faults":[`)
	for i := range 12 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"event":"tool.commit","ordinal":%d,"kind":"timeout_after_commit"}`, i+3)
	}
	b.WriteString(`]}`)
	res := runShopper(t, shopper{}, model.Options{Builtin: []string{model.InvBudget}}, b.String())
	err := res.Err()
	if err == nil || !strings.HasSuffix(err.Error(), ", f10 timeout_after_commit@tool.commit#12 (not reached) and 2 more") ||
		strings.Contains(err.Error(), "f11") {
		t.Fatalf("twelve unreached faults: %v", err)
	}
	if len(model.Unreached(res)) != 12 {
		t.Fatalf("Unreached() holds %d faults, want all 12", len(model.Unreached(res)))
	}
}
