package main

import (
	"fmt"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/reference/paper"
)

// TestMain makes every audit of the test binary share one computation
// per compat setting: the audit's output functions only read it, and the
// whole audit (single-fault runs, assays, both evidence studies) is the
// slowest thing the tests run. Likewise every dossier command of the
// test binary shares one build per configuration, and a dossier of the
// default evidence configuration takes its composition witnesses from the
// audit of the same compat setting when that audit has run: they are
// assay.CompositionPairs of the same system, base setup, kinds and
// composition config (the profiles, trials and studies do not enter it),
// and nothing else in the dossier is computed from them.
func TestMain(m *testing.M) {
	compute := gatherAudit
	type result struct {
		audits []paper.ProfileAudit
		ev     *assay.Evidence
		err    error
	}
	var once [2]sync.Once
	var res [2]result
	var audited [2]atomic.Bool
	index := func(compat bool) int {
		if compat {
			return 1
		}
		return 0
	}
	gatherAudit = func(compat bool) ([]paper.ProfileAudit, *assay.Evidence, error) {
		i := index(compat)
		once[i].Do(func() {
			res[i].audits, res[i].ev, res[i].err = compute(compat)
			audited[i].Store(res[i].err == nil)
		})
		return res[i].audits, res[i].ev, res[i].err
	}
	// whether cfg's composition witnesses are the default configuration's:
	// the same draws and base setup (the system is always the reference)
	def := paper.EvidenceConfig()
	defaultCompositions := func(cfg assay.EvidenceConfig) bool {
		a, b := cfg.Compositions, def.Compositions
		return a.Seed == b.Seed && a.Draws == b.Draws && a.MaxFaults == b.MaxFaults && a.Config == b.Config && reflect.DeepEqual(cfg.Base, def.Base)
	}
	build0 := buildDossier
	buildDossier = func(cfg assay.EvidenceConfig) (*assay.Dossier, error) {
		i := index(cfg.Compat)
		if cfg.Compositions.Draws == 0 || !audited[i].Load() || !defaultCompositions(cfg) {
			return build0(cfg)
		}
		_, ev, _ := gatherAudit(cfg.Compat)
		without := cfg
		without.Compositions.Draws = 0
		d, err := build0(without)
		if err != nil {
			return nil, err
		}
		d.Evidence.Compositions = ev.Compositions
		return d, nil
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
