package coverage_test

import (
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/reference/copperfin"
)

// BenchmarkAssayWithCoverage is assay's BenchmarkAssayPaper188 with a
// tracker observing every trial: the cost of recording coverage, in
// trials per second on one worker.
func BenchmarkAssayWithCoverage(b *testing.B) {
	for _, p := range []copperfin.Profile{copperfin.ProfileBaseline, copperfin.ProfileTyped} {
		cs, _ := copperfin.ProfileControls(p)
		b.Run(string(p), func(b *testing.B) {
			const trials = 2000
			tr := newTracker(b, nil)
			for b.Loop() {
				if _, err := assay.Run(copperfin.Definition(), assay.Config{Profile: string(p), System: copperfin.ConfigOfControls(cs).System, Trials: trials, Seed: 188, Compat: true, Workers: 1, Observe: tr.Record}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(trials*b.N)/b.Elapsed().Seconds(), "trials/s")
		})
	}
}
