// Command fleetstorms measures a storm kind of examples/mailfleet
// (docs/retry-storms.md, "Outages" and "An expired credential"): for each
// sender's answer to it, it runs the default search of the kind's fleet
// from scratch (properties.Explore, no count option) and the one-fault
// schedule under -seeds seeds, and prints a Markdown table. Every figure
// is a pure function of the schedules, the same on every machine. Usage:
//
//	go run ./scripts/fleetstorms -kind provider_outage|credential_expired [-seeds 200]
//
// Bad flags exit 2, a failed run 1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// storm is one storm kind's fleet: its definition, fixture, config key
// and senders, and the retry budget its senders run under (nil: the
// fixture's).
type storm struct {
	def     *model.Definition
	fixture string
	key     string
	senders []string
	budget  *int
}

func storms() map[string]storm {
	eight := 8
	return map[string]storm{
		"provider_outage": {mailfleet.OutageDefinition(), "mail-fleet-outage", "outage",
			[]string{mailfleet.OutageFixed, mailfleet.OutageCapped, mailfleet.OutageBackoff}, &eight},
		"credential_expired": {mailfleet.CredentialDefinition(), "mail-fleet-credential", "credential",
			[]string{mailfleet.CredentialLockstep, mailfleet.CredentialJitter}, nil},
	}
}

func main() {
	testing.Init() // rapid consults testing.Short, which needs the test flags parsed
	kind := flag.String("kind", "", "the storm kind: provider_outage or credential_expired")
	seeds := flag.Int("seeds", 200, "seeds of the one-fault schedule per sender (1 or more)")
	flag.Parse()
	st, ok := storms()[*kind]
	if !ok {
		fmt.Fprintf(os.Stderr, "fleetstorms: -kind %q: give provider_outage or credential_expired (exit 2)\n", *kind)
		os.Exit(2)
	}
	if *seeds < 1 {
		fmt.Fprintf(os.Stderr, "fleetstorms: -seeds %d: give 1 or more (exit 2)\n", *seeds)
		os.Exit(2)
	}
	fmt.Printf("| sender (%s) | default search | schedules of the walk | random checks | shrunk | one-fault seeds storming | worst storm peak |\n", st.key)
	fmt.Println("| --- | --- | ---: | ---: | --- | ---: | ---: |")
	for _, how := range st.senders {
		cfg := model.Config{Fixture: st.fixture, RetryBudget: st.budget, System: json.RawMessage(`{"` + st.key + `":"` + how + `"}`)}
		rep, err := properties.Explore(st.def, properties.WithConfig(cfg))
		if err != nil {
			fail(err)
		}
		found, shrunk := "holds", "-"
		if cx := rep.Counterexample; rep.Found && cx != nil {
			found = cx.Invariant + ": " + cx.Detail
			var fs []string
			for _, f := range cx.Shrunk.Faults {
				fs = append(fs, f.Kind+" at "+f.Placement())
			}
			shrunk = strings.Join(fs, ", ")
		}
		walk := 0
		if rep.Walk != nil {
			walk = rep.Walk.Schedules
		}
		storms, worst := 0, 0
		for i := range *seeds {
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: st.key + "-" + strconv.Itoa(i), Config: cfg,
				Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: *kind}}}
			res, err := st.def.Run(s, model.Options{})
			if err != nil {
				fail(err)
			}
			if inv, _ := res.Invariant(model.InvNoRetryStorm); !inv.Held {
				storms++
			}
			worst = max(worst, res.Fleet.StormPeak)
		}
		fmt.Printf("| %s | %s | %d | %d | %s | %d of %d | %d |\n", how, found, walk, rep.Checks, shrunk, storms, *seeds, worst)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fleetstorms:", err)
	os.Exit(1)
}
