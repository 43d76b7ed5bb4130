//go:build race

package snapshots_test

import (
	"flag"

	"github.com/faultline/faultline/properties"
)

// raceDetector reports whether the tests run under the race detector (go
// test -race). The 200-check exploration and the subprocess explorations
// skip under it; the single faults, the timeline twice, TestCheck's
// exploration and the fuzz seeds run there, over the goroutines of the MCP
// transports, the in-process HTTP handler and database/sql. .ci/run's race
// pass leaves TestSweep (the front page's code, TestCheck's System) to go
// test ./... with -skip.
const raceDetector = true

// raceOptions cut TestCheck's walk to its clean run and 22 single faults:
// its 474 bubbled runs take ten times longer under the detector (go test
// ./... runs them all).
var raceOptions = []properties.Option{properties.WithMaxSchedules(23)}

// Under the detector rapid's default is 10 checks (the same goroutines run in
// each); -rapid.checks on the command line still wins, and go test ./... runs
// rapid's 100.
func init() {
	if err := flag.Set("rapid.checks", "10"); err != nil {
		panic(err)
	}
}
