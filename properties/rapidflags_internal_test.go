package properties

import (
	"flag"
	"testing"
)

// TestWithRapidFlags: rapid's flags hold the given values while f runs
// and their previous values after, also when f panics; a flag rapid did
// not register is an error and runs nothing.
func TestWithRapidFlags(t *testing.T) {
	get := func(n string) string { return flag.Lookup(n).Value.String() }
	seed, checks := get("rapid.seed"), get("rapid.checks")
	set := map[string]string{"rapid.seed": "77", "rapid.checks": "3"}
	var during [2]string
	if err := withRapidFlags(set, func() { during = [2]string{get("rapid.seed"), get("rapid.checks")} }); err != nil {
		t.Fatal(err)
	}
	if during != [2]string{"77", "3"} || get("rapid.seed") != seed || get("rapid.checks") != checks {
		t.Fatalf("during %v, after %s %s, want 77 3 then %s %s", during, get("rapid.seed"), get("rapid.checks"), seed, checks)
	}
	func() {
		defer func() { _ = recover() }()
		_ = withRapidFlags(set, func() { panic("boom") })
	}()
	if get("rapid.seed") != seed || get("rapid.checks") != checks {
		t.Fatalf("after a panic: %s %s", get("rapid.seed"), get("rapid.checks"))
	}
	ran := false
	if err := withRapidFlags(map[string]string{"rapid.nosuch": "1"}, func() { ran = true }); err == nil || ran ||
		err.Error() != "properties: rapid's flag rapid.nosuch is not registered" {
		t.Fatalf("unregistered flag: %v, ran %t", err, ran)
	}
}
