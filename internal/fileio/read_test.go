package fileio_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/internal/fileio"
)

func TestReadFileReadsARegularFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o644))
	b, err := fileio.ReadFile(p, 10) // exactly at the limit
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b))
	_, err = fileio.ReadFile(p, 9)
	assert.ErrorIs(t, err, fileio.ErrBadInput)
	assert.EqualError(t, err, p+": larger than the limit of 9 bytes for this kind of file")
}

func TestReadFileNamesTheLimitInMiB(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(p, make([]byte, 2<<20+1), 0o644))
	_, err := fileio.ReadFile(p, 2<<20)
	var ie *fileio.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, p, ie.Path)
	assert.ErrorContains(t, err, "larger than the limit of 2 MiB")
}

func TestReadFileMissingIsNotBadInput(t *testing.T) {
	_, err := fileio.ReadFile(filepath.Join(t.TempDir(), "none.json"), 10)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, err, fileio.ErrBadInput)
}

func TestLimits(t *testing.T) {
	assert.Equal(t, 8<<20, fileio.ScheduleLimit)
	assert.Equal(t, 256<<20, fileio.CoverageLimit)
	assert.Equal(t, 256<<20, fileio.DossierLimit)
}

// TestReadFileBoundsWhatItReads: a file whose size says 0 but which holds
// more (a /proc file) is cut off at the limit and refused.
func TestReadFileBoundsWhatItReads(t *testing.T) {
	const p = "/proc/self/maps"
	if fi, err := os.Stat(p); err != nil || fi.Size() != 0 {
		t.Skip("no /proc file of size 0")
	}
	_, err := fileio.ReadFile(p, 16)
	assert.ErrorIs(t, err, fileio.ErrBadInput)
	assert.EqualError(t, err, p+": larger than the limit of 16 bytes for this kind of file")
}
