//go:build race

package properties_test

import "testing"

// raceDetector reports whether the tests run under the race detector (go
// test -race). The tests that run in one goroutine skip under it (rapid's
// loop and the model start none; the exhaustive walk's workers and the
// production checks run under it), and go test ./... runs them in full.
const raceDetector = true

// oneGoroutine skips t, a test whose code runs in one goroutine, where the
// detector has nothing to check; go test ./... runs it.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("runs in one goroutine; go test ./... runs it")
}
