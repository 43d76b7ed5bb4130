//go:build race

package measure_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The campaigns skip under it: the example agents and the
// harness start no goroutine, so the race detector has nothing to check
// there, and go test ./... runs them in full.
const raceDetector = true
