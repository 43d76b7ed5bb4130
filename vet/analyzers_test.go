package vet_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/faultline/faultline/vet"
)

func TestRetryKey(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), vet.RetryKey, "retrykey")
}

func TestRetryKeyFix(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), vet.RetryKey, "retrykeyfix")
}

func TestUnknownOutcome(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	analysistest.Run(t, analysistest.TestData(), vet.UnknownOutcome, "unknownoutcome")
}

func TestWallClock(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	analysistest.Run(t, analysistest.TestData(), vet.WallClock, "wallclock")
}
