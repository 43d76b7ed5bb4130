package cli_test

import (
	"fmt"
	"io"
	"os"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// A user's cmd/ registers its systems; main is then one line:
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, inventory.Definition())) }
//
// Here the program replays the inventory agent's planted-bug schedule:
// exit 1, its own invariant confirmed_once broken.
func ExampleMain() {
	code := cli.Main([]string{"replay", "../examples/inventory/testdata/planted-bug.json", "--config", `{"variant":"planted"}`},
		io.Discard, os.Stderr, inventory.Definition())
	fmt.Println("exit", code)
	// Output: exit 1
}

// A Program names the command and can add commands of its own.
func ExampleProgram() {
	p := &cli.Program{Name: "inventory", Systems: []*model.Definition{inventory.Definition()}}
	code := p.Run([]string{"replay", "../examples/inventory/testdata/planted-bug.json", "--config", `{"controls":["nope"]}`}, io.Discard, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// inventory: --config: control "nope" is not a control of inventory (valid: stable_keys, hold_lookup, typed_outcomes, checkpoint_check, bind_request, recheck_authority)
	// exit 2
}
