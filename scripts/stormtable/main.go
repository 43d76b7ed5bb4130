// Command stormtable measures the paper's retry storm (thought experiment
// 4) on fleets of the reference system: for each fleet size it runs
// copperfin.StormSchedule under the typed profile with neither fleet
// control, with each, and with both, and prints a Markdown table of the
// provider's load (docs/retry-storms.md). Usage:
//
//	go run ./scripts/stormtable [-agents 10,100,1000]
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func main() {
	agents := flag.String("agents", "10,100,1000", "fleet sizes, comma-separated (1 to 1000 each)")
	flag.Parse()
	var sizes []int
	for _, a := range strings.Split(*agents, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil || n < 1 || n > model.MaxWorkers {
			fmt.Fprintf(os.Stderr, "stormtable: -agents: %q is not a fleet size from 1 to %d\n", a, model.MaxWorkers)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	configs := []struct {
		name     string
		controls []copperfin.Control
	}{
		{"neither", nil},
		{"jittered_backoff", []copperfin.Control{copperfin.JitteredBackoff}},
		{"shared_retry_budget", []copperfin.Control{copperfin.SharedRetryBudget}},
		{"both (typed_fleet)", copperfin.FleetControls},
	}
	fmt.Println("| agents | capacity / 100 ms | controls (beside typed) | first burst | retries | peak load of a retry window | overloaded windows | released | no_retry_storm |")
	fmt.Println("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, n := range sizes {
		fx := copperfin.CopperfinFleet(n)
		for _, c := range configs {
			cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
			for _, x := range c.controls {
				cs = cs.With(x)
			}
			cfg := copperfin.ConfigOfControls(cs)
			cfg.Fixture = fx.Name
			s, err := copperfin.StormSchedule(cfg)
			if err != nil {
				fmt.Fprintln(os.Stderr, "stormtable:", err)
				os.Exit(4)
			}
			res, err := model.NewHarness(fx, model.Options{}).Run(copperfin.Factory(cs), s)
			if err != nil {
				fmt.Fprintln(os.Stderr, "stormtable:", err)
				os.Exit(4)
			}
			released := 0
			for _, cl := range res.Claims {
				if cl.Verdict == model.ClaimRelease {
					released++
				}
			}
			inv, _ := res.Invariant(model.InvNoRetryStorm)
			verdict := "holds"
			if !inv.Held {
				verdict = "violated"
			}
			l := res.Fleet
			fmt.Printf("| %d | %d | %s | %d | %d | %d | %d | %d | %s |\n", n, l.Capacity, c.name, l.Peak, l.RetryCount, l.StormPeak, l.Overloaded, released, verdict)
		}
	}
}
