// Command credentialstorm measures the expired-credential storm of
// examples/mailfleet (docs/retry-storms.md, "Expired credentials"): for
// each sender's answer to a 401 (lockstep, jitter) it runs the default
// search of mailfleet.CredentialDefinition from scratch
// (properties.Explore, no count option) and the one-expiry schedule under
// -seeds seeds, and prints a Markdown table. Every figure is a pure
// function of the schedules, the same on every machine. Usage:
//
//	go run ./scripts/credentialstorm [-seeds 200]
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

func main() {
	testing.Init() // rapid consults testing.Short, which needs the test flags parsed
	seeds := flag.Int("seeds", 200, "seeds of the one-expiry schedule per sender (1 or more)")
	flag.Parse()
	if *seeds < 1 {
		fmt.Fprintf(os.Stderr, "credentialstorm: -seeds %d: give 1 or more (exit 2)\n", *seeds)
		os.Exit(2)
	}
	def := mailfleet.CredentialDefinition()
	fmt.Println("| sender (credential) | default search | schedules of the walk | random checks | shrunk | one-expiry seeds storming | worst storm peak |")
	fmt.Println("| --- | --- | ---: | ---: | --- | ---: | ---: |")
	for _, how := range []string{mailfleet.CredentialLockstep, mailfleet.CredentialJitter} {
		cfg := model.Config{Fixture: "mail-fleet-credential", System: json.RawMessage(`{"credential":"` + how + `"}`)}
		rep, err := properties.Explore(def, properties.WithConfig(cfg))
		if err != nil {
			fail(err)
		}
		found, shrunk := "holds", "-"
		if cx := rep.Counterexample; rep.Found && cx != nil {
			found = cx.Invariant + ": " + cx.Detail
			var fs []string
			for _, f := range cx.Shrunk.Faults {
				fs = append(fs, fmt.Sprintf("%s at %s#%d", f.Kind, f.Event, f.Ordinal))
			}
			shrunk = strings.Join(fs, ", ")
		}
		walk := 0
		if rep.Walk != nil {
			walk = rep.Walk.Schedules
		}
		storms, worst := 0, 0
		for i := range *seeds {
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "credential-" + strconv.Itoa(i), Config: cfg,
				Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "credential_expired"}}}
			res, err := def.Run(s, model.Options{})
			if err != nil {
				fail(err)
			}
			if st, _ := res.Invariant(model.InvNoRetryStorm); !st.Held {
				storms++
			}
			worst = max(worst, res.Fleet.StormPeak)
		}
		fmt.Printf("| %s | %s | %d | %d | %s | %d of %d | %d |\n", how, found, walk, rep.Checks, shrunk, storms, *seeds, worst)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "credentialstorm:", err)
	os.Exit(1)
}
