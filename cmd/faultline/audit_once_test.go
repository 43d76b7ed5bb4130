package main

import (
	"os"
	"sync"
	"testing"

	"github.com/faultline/faultline/assay"
)

// TestMain makes every audit of the test binary share one computation
// per compat setting: the audit's output functions only read it, and the
// whole audit (single-fault runs, assays, both evidence studies) is the
// slowest thing the tests run.
func TestMain(m *testing.M) {
	compute := gatherAudit
	type result struct {
		audits []assay.ProfileAudit
		ev     *assay.Evidence
		err    error
	}
	var once [2]sync.Once
	var res [2]result
	gatherAudit = func(compat bool) ([]assay.ProfileAudit, *assay.Evidence, error) {
		i := 0
		if compat {
			i = 1
		}
		once[i].Do(func() {
			res[i].audits, res[i].ev, res[i].err = compute(compat)
		})
		return res[i].audits, res[i].ev, res[i].err
	}
	os.Exit(m.Run())
}
