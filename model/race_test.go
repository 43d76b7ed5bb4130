//go:build race

package model_test

import "testing"

// raceDetector reports whether the tests run under the race detector (go
// test -race). The model starts no goroutine, so the detector has nothing
// to check in its longer comparisons, and go test ./... runs them in full;
// the allocation counts differ under it.
const raceDetector = true

// oneGoroutine skips t, a test whose code runs in one goroutine, where the
// detector has nothing to check; go test ./... runs it.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("runs in one goroutine; go test ./... runs it")
}
