//go:build race

package cli_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The tests that run in one goroutine (an exploration, a
// replay) skip under it; go test ./... runs them in full.
const raceDetector = true
