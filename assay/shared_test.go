package assay_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/faultline/faultline/assay"
)

var (
	smallOnce sync.Once
	smallVal  *assay.Dossier
	smallErr  error
)

// smallDossier builds the dossier of smallConfig once for the package's
// tests (a dossier is a pure function of its configuration) and writes it
// into a fresh directory of t's, so each test reads and rewrites its own
// files. A test that checks that two builds agree builds its second one
// with writeDossier.
func smallDossier(t *testing.T) (string, *assay.Dossier) {
	t.Helper()
	smallOnce.Do(func() { smallVal, smallErr = assay.BuildDossier(refDef(), smallConfig()) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	dir := filepath.Join(t.TempDir(), "dossier")
	if err := assay.WriteDossier(dir, smallVal); err != nil {
		t.Fatal(err)
	}
	return dir, smallVal
}

var (
	budgetOnce sync.Once
	budgetVal  *assay.Dossier
	budgetErr  error
)

// budgetConfig is smallConfig with a retry budget of 3: the changed
// configuration TestDossierDiffTriggers and TestDossierPair both write.
func budgetConfig() assay.EvidenceConfig {
	cfg := smallConfig()
	cfg.Base.Options.RetryBudget = 3
	return cfg
}

// budgetDossier builds the dossier of budgetConfig once for the package's
// tests and writes it into a fresh directory of t's, as smallDossier does.
func budgetDossier(t *testing.T) (string, *assay.Dossier) {
	t.Helper()
	budgetOnce.Do(func() { budgetVal, budgetErr = assay.BuildDossier(refDef(), budgetConfig()) })
	if budgetErr != nil {
		t.Fatal(budgetErr)
	}
	dir := filepath.Join(t.TempDir(), "dossier")
	if err := assay.WriteDossier(dir, budgetVal); err != nil {
		t.Fatal(err)
	}
	return dir, budgetVal
}
