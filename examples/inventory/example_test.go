package inventory_test

import (
	"fmt"
	"os"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// Replay the hand-written schedule against both variants: the planted bug
// confirms the cart twice, the fixed agent recovers.
func Example() {
	data, err := os.ReadFile("testdata/planted-bug.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	sched, err := model.ParseSchedule(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	h := model.NewHarness(inventory.Fixture(), inventory.HarnessOptions())
	for _, v := range []inventory.Variant{inventory.Planted, inventory.Fixed} {
		res, err := h.Run(inventory.Factory(inventory.Defended, v), sched)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, claim %s\n", v, res.RunVerdict, res.Verdict)
		for _, inv := range res.Invariants {
			if !inv.Held {
				fmt.Printf("  %s broken after seq %d (%s, fault %s): %s\n", inv.Invariant, inv.FirstSeq, inv.Event, inv.FaultID, inv.Detail)
			}
		}
	}
	// Output:
	// planted: unrecoverable, claim unsafe
	//   recorded_agrees_with_ledger broken after seq 19 (claim, fault f1): the task's record (checkpoint 5) lacks effect cart-7:confirm of the provider's ledger
	//   confirmed_once broken after seq 17 (tool.commit, fault f1): cart-7 confirmed 2 times
	// fixed: recovered, claim release
}
