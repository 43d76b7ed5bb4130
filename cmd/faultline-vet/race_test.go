//go:build race

package main

// raceDetector reports whether the tests run under the race detector (go
// test -race). The end-to-end test runs the tool in other processes, which
// the detector does not see, so it leaves itself to go test ./....
const raceDetector = true
