//go:build race

package properties_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). The tests that run in one goroutine skip under it (rapid's
// loop and the model start none; the exhaustive walk's workers and the
// production checks run under it), and go test ./... runs them in full.
const raceDetector = true
