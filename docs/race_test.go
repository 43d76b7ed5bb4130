//go:build race

package docs

// raceDetector reports whether the tests run under the race detector (go
// test -race). The docs tests read files in one goroutine and run the
// go command and faultline in other processes, which the race detector
// does not see: under it the slow ones leave their work to go test ./...,
// which runs every test in full.
const raceDetector = true
