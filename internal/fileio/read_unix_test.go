//go:build unix

package fileio_test

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/faultline/faultline/internal/fileio"
)

// TestReadFileRefusesAFIFO: a named pipe with no writer is refused at
// once; opening it would block until a writer came.
func TestReadFileRefusesAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, err := fileio.ReadFile(p, fileio.ScheduleLimit)
	assert.ErrorIs(t, err, fileio.ErrBadInput)
	assert.EqualError(t, err, p+": is a named pipe, not a regular file")
}

func TestReadFileRefusesDevicesDirectoriesAndSockets(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{dir: "is a directory, not a regular file"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "is a device, not a regular file"
	}
	sock := filepath.Join(dir, "s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		cases[sock] = "is a socket, not a regular file"
	}
	for p, want := range cases {
		_, err := fileio.ReadFile(p, fileio.DossierLimit)
		assert.ErrorIs(t, err, fileio.ErrBadInput, p)
		assert.EqualError(t, err, p+": "+want)
	}
}
