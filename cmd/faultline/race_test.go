//go:build race

package main

import "testing"

// raceDetector reports whether the tests run under the race detector (go
// test -race). Under it, a test that would repeat a computation another
// test already ran under the detector (the same goroutines over another
// input or into another output format) leaves the repetition, and a test
// that runs in one goroutine leaves itself, to go test ./..., which runs
// every test in full.
const raceDetector = true

// oneGoroutine skips t, a test whose code runs in one goroutine, where the
// detector has nothing to check; go test ./... runs it.
func oneGoroutine(t *testing.T) {
	t.Helper()
	t.Skip("runs in one goroutine; go test ./... runs it")
}
