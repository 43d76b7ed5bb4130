//go:build race

package cli_test

import "testing"

// raceDetector reports whether the tests run under the race detector (go
// test -race). The tests that run in one goroutine (an exploration, a
// replay) skip under it; go test ./... runs them in full.
const raceDetector = true

// oneGoroutine skips t, a test whose code runs in one goroutine, where the
// detector has nothing to check; go test ./... runs it.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("runs in one goroutine; go test ./... runs it")
}
