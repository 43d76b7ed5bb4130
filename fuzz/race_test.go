//go:build race

package fuzz_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The explorations that run in one goroutine skip under it:
// the fuzz package and the model start no goroutine, so the race detector
// has nothing to check there, and go test ./... runs them in full.
const raceDetector = true
