//go:build race

package fuzz_test

import "testing"

// raceDetector reports whether the tests run under the race detector (go
// test -race). The explorations that run in one goroutine skip under it:
// the fuzz package and the model start no goroutine, so the race detector
// has nothing to check there, and go test ./... runs them in full.
const raceDetector = true

// oneGoroutine skips t, a test whose code runs in one goroutine, where the
// detector has nothing to check; go test ./... runs it.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("runs in one goroutine; go test ./... runs it")
}
