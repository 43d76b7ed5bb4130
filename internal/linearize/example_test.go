package linearize_test

import (
	"fmt"

	"github.com/faultline/faultline/internal/linearize"
)

// A readback invoked after a commit's response that does not see the
// commit is a lagging read: no serial order explains it.
func ExampleCheck() {
	h := linearize.History{
		{Worker: 0, Kind: linearize.KindCommit, Action: "refund-7", Key: "k1", Outcome: linearize.OutcomeCommitted, Receipt: "r1", Call: 1, Return: 2},
		{Worker: 1, Kind: linearize.KindReadback, Action: "refund-7", Call: 3, Return: 4},
	}
	res, err := linearize.Check(h, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	for _, op := range h {
		fmt.Println(op)
	}
	// Output:
	// illegal: action refund-7 has no linearization (of 1 action)
	// w0 commit refund-7 key=k1 -> committed r1 [1,2]
	// w1 readback refund-7 -> [] [3,4]
}
