//go:build race

package billing_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The explorations and the replay subprocess skip under it: the
// agent and the harness start no goroutine, so the race detector has
// nothing to check there, and go test ./... runs them in full.
const raceDetector = true
