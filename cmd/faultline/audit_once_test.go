package main

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/faultline/faultline/assay"
)

// TestMain makes every audit of the test binary share one computation
// per compat setting: the audit's output functions only read it, and the
// whole audit (single-fault runs, assays, both evidence studies) is the
// slowest thing the tests run. Likewise every dossier command of the
// test binary shares one build per configuration.
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
	// the dossier command varies only the profiles and compat of the
	// default evidence configuration
	build := buildDossier
	type built struct {
		d   *assay.Dossier
		err error
	}
	var mu sync.Mutex
	dossiers := map[string]*built{}
	buildDossier = func(cfg assay.EvidenceConfig) (*assay.Dossier, error) {
		key := fmt.Sprintf("compat %t profiles %v", cfg.Compat, cfg.Profiles)
		mu.Lock()
		defer mu.Unlock()
		if b, ok := dossiers[key]; ok {
			return b.d, b.err
		}
		b := &built{}
		b.d, b.err = build(cfg)
		dossiers[key] = b
		return b.d, b.err
	}
	os.Exit(m.Run())
}
