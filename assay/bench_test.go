package assay_test

import (
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/reference/copperfin"
)

// BenchmarkAssayPaper188 measures trials per second through the full model
// (harness, injector, reference system, oracle) for the paper's baseline
// and typed profiles, one worker, so the figure is per core.
func BenchmarkAssayPaper188(b *testing.B) {
	for _, p := range []copperfin.Profile{copperfin.ProfileBaseline, copperfin.ProfileTyped} {
		cs, _ := copperfin.ProfileControls(p)
		b.Run(string(p), func(b *testing.B) {
			const trials = 2000
			for b.Loop() {
				if _, err := assay.Run(refDef(), assay.Config{Profile: string(p), System: sysOf(cs), Trials: trials, Seed: 188, Compat: true, Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(trials*b.N)/b.Elapsed().Seconds(), "trials/s")
		})
	}
}

// BenchmarkAssayProgress is BenchmarkAssayPaper188's typed profile with a
// Config.Progress callback set, for comparing the cost of reporting.
func BenchmarkAssayProgress(b *testing.B) {
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	const trials = 2000
	calls := 0
	for b.Loop() {
		if _, err := assay.Run(refDef(), assay.Config{Profile: "typed", System: sysOf(cs), Trials: trials, Seed: 188, Compat: true, Workers: 1,
			Progress: func(int, int, int) { calls++ }}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(trials*b.N)/b.Elapsed().Seconds(), "trials/s")
}
