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
	smallOnce.Do(func() { smallVal, smallErr = assay.BuildDossier(smallConfig()) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	dir := filepath.Join(t.TempDir(), "dossier")
	if err := assay.WriteDossier(dir, smallVal); err != nil {
		t.Fatal(err)
	}
	return dir, smallVal
}
