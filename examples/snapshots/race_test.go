//go:build race

package snapshots_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The 200-check exploration and the subprocess explorations
// skip under it; the single faults, the timeline twice, TestCheck's
// exploration and the fuzz seeds run there, over the goroutines of the
// MCP transports, the in-process HTTP handler and database/sql.
const raceDetector = true
