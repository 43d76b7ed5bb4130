//go:build race

package cli_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). A few tests repeat in one goroutine what another test
// already ran under the detector; go test ./... runs them in full.
const raceDetector = true
