//go:build unix

package assay_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/internal/fileio"
)

// TestReadDossierRefusesAFIFO: a named pipe, named directly or as the
// dossier.json of a directory, is refused at once rather than read.
func TestReadDossierRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dossier.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, arg := range []string{p, dir} {
		_, _, err := assay.ReadDossier(arg)
		if !errors.Is(err, fileio.ErrBadInput) || err.Error() != p+": is a named pipe, not a regular file" {
			t.Errorf("%s: error %v", arg, err)
		}
	}
}
