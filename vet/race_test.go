//go:build race

package vet_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). Under it, a suite that would run the same analysis
// machinery over other test data leaves the repetition to go test ./...,
// which runs every test in full.
const raceDetector = true
