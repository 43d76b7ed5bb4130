//go:build unix

package coverage_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/fileio"
)

// TestReadFileRefusesAFIFO: a named pipe is refused at once, not read
// (which would wait for a writer).
func TestReadFileRefusesAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, err := coverage.ReadFile(p)
	if !errors.Is(err, fileio.ErrBadInput) || err.Error() != p+": is a named pipe, not a regular file" {
		t.Errorf("error %v", err)
	}
}
