package fileio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/fileio"
)

func TestReadFileReadsARegularFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := fileio.ReadFile(p, 10) // exactly at the limit
	if err != nil || string(b) != "0123456789" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	_, err = fileio.ReadFile(p, 9)
	if !errors.Is(err, fileio.ErrBadInput) || err.Error() != p+": larger than the limit of 9 bytes for this kind of file" {
		t.Errorf("over the limit: %v", err)
	}
}

func TestReadFileNamesTheLimitInMiB(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, make([]byte, 2<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := fileio.ReadFile(p, 2<<20)
	var ie *fileio.InputError
	if !errors.As(err, &ie) || ie.Path != p || !strings.Contains(err.Error(), "larger than the limit of 2 MiB") {
		t.Errorf("error %v", err)
	}
}

func TestReadFileMissingIsNotBadInput(t *testing.T) {
	_, err := fileio.ReadFile(filepath.Join(t.TempDir(), "none.json"), 10)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, fileio.ErrBadInput) {
		t.Errorf("error %v", err)
	}
}

func TestLimits(t *testing.T) {
	if fileio.ScheduleLimit != 8<<20 || fileio.CoverageLimit != 256<<20 || fileio.DossierLimit != 256<<20 {
		t.Errorf("limits %d %d %d", fileio.ScheduleLimit, fileio.CoverageLimit, fileio.DossierLimit)
	}
}

// TestReadFileBoundsWhatItReads: a file whose size says 0 but which holds
// more (a /proc file) is cut off at the limit and refused.
func TestReadFileBoundsWhatItReads(t *testing.T) {
	const p = "/proc/self/maps"
	if fi, err := os.Stat(p); err != nil || fi.Size() != 0 {
		t.Skip("no /proc file of size 0")
	}
	_, err := fileio.ReadFile(p, 16)
	if !errors.Is(err, fileio.ErrBadInput) || err.Error() != p+": larger than the limit of 16 bytes for this kind of file" {
		t.Errorf("error %v", err)
	}
}
