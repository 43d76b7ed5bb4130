//go:build race

package model_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The model starts no goroutine, so the detector has nothing
// to check in its longer comparisons, and go test ./... runs them in full;
// the allocation counts differ under it.
const raceDetector = true
