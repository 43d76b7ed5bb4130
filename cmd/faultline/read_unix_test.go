//go:build unix

package main

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/faultline/faultline/internal/fileio"
)

// TestInputFIFOsAreRefused: a named pipe is refused at once (exit 2) by
// every command that reads a schedule, coverage or dossier file; reading
// it would wait for a writer that never comes.
func TestInputFIFOsAreRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	want := p + ": is a named pipe, not a regular file"
	for _, args := range [][]string{
		{"replay", p},
		{"coverage", "report", p},
		{"coverage", "gate", p, "--min-ratio", "0"},
		{"dossier", "diff", p, p},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
	}
	if _, _, err := loadSchedule(p); !errors.Is(err, fileio.ErrBadInput) {
		t.Errorf("loadSchedule of a FIFO: %v does not match fileio.ErrBadInput", err)
	}
}
