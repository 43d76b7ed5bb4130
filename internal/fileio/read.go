package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Input limits of faultline's files, in bytes.
const (
	// ScheduleLimit bounds a schedule or counterexample file: 8 MiB.
	ScheduleLimit = 8 << 20
	// CoverageLimit bounds a coverage file: 256 MiB.
	CoverageLimit = 256 << 20
	// DossierLimit bounds a dossier file: 256 MiB.
	DossierLimit = 256 << 20
)

// ErrBadInput is matched (errors.Is) by every error of ReadFile that is
// the input's fault rather than the machine's: a file over its limit, or a
// path that names a FIFO, a device, a socket or a directory. A command
// maps it to exit code 2 (bad input). Any other error of ReadFile is an
// I/O failure (exit code 4), except that a missing file also matches
// fs.ErrNotExist.
var ErrBadInput = errors.New("bad input file")

// InputError is the error of ReadFile for a bad input file: Path and what
// is wrong with it (Problem). It matches ErrBadInput.
type InputError struct {
	Path    string
	Problem string
}

// Error is "PATH: PROBLEM".
func (e *InputError) Error() string { return e.Path + ": " + e.Problem }

// Is reports whether target is ErrBadInput.
func (e *InputError) Is(target error) bool { return target == ErrBadInput }

// ReadFile returns the contents of the regular file at path, or an error
// when the file is larger than limit bytes or path is not a regular file
// (both *InputError, matching ErrBadInput; a FIFO is refused before it is
// opened, so this never waits for a writer), or when it cannot be read
// (the *fs.PathError of the failed call).
func ReadFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced since Stat: check what was opened.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// regular returns an *InputError unless fi describes a regular file.
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &InputError{Path: path, Problem: "is " + Kind(fi.Mode()) + ", not a regular file"}
}

func tooLarge(path string, limit int64) error {
	return &InputError{Path: path, Problem: fmt.Sprintf("larger than the limit of %s for this kind of file", size(limit))}
}

// size writes n bytes in MiB when it is a whole number of them.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
