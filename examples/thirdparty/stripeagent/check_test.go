package stripeagent_test

import (
	"os"
	"testing"

	"github.com/faultline/faultline/properties"
)

// TestCheck is the check a team writes: lost replies of Stripe's refunds,
// up to three (stripe-go's own two retries, then the agent's loop), each
// run in a synctest bubble. With the planted bug it fails with the shrunk
// schedule; TestCheckFindsThePlantedBug runs it in a process of its own.
func TestCheck(t *testing.T) {
	planted := os.Getenv("STRIPEAGENT_PLANTED") == "1"
	if planted && os.Getenv("STRIPEAGENT_BODY") == "" {
		t.Skip("the planted agent's check runs in TestCheckFindsThePlantedBug's subprocess")
	}
	opts := []properties.Option{properties.WithKinds("timeout_after_commit"), properties.WithMaxFaults(3), properties.WithExhaustive()}
	if dir := os.Getenv("STRIPEAGENT_FAIL_DIR"); dir != "" {
		opts = append(opts, properties.WithFailDir(dir))
	}
	properties.Check(t, definition(planted), opts...)
}
