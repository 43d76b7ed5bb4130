package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/faultline/faultline/internal/fileio"
)

// Exit codes of the table every command follows (the README gives it).
const (
	ExitOK           = 0
	ExitViolation    = 1
	ExitBadInput     = 2
	ExitInconclusive = 3
	ExitIO           = 4
)

// ExitError is an error with the exit code the program ends with. A
// command of the program (its own or one added through Program.Commands)
// returns one to choose the code; any other error a command returns is an
// I/O or internal error (4). An empty message prints nothing.
type ExitError struct {
	Code int
	Err  error
}

// Error is the wrapped error's message.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// BadInput returns the formatted message as exit 2 (bad input).
func BadInput(format string, args ...any) error {
	return &ExitError{Code: ExitBadInput, Err: fmt.Errorf(format, args...)}
}

// Inconclusive returns the formatted message as exit 3.
func Inconclusive(format string, args ...any) error {
	return &ExitError{Code: ExitInconclusive, Err: fmt.Errorf(format, args...)}
}

// IOFailure wraps err as exit 4 (an I/O or internal error), unless
// it already carries a code.
func IOFailure(err error) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: ExitIO, Err: err}
}

// OutputError maps a failure to write the command's output (stdout, a file
// it was asked to write) to exit 4; nil stays nil.
func OutputError(err error) error {
	if err == nil {
		return nil
	}
	return IOFailure(err)
}

// InputError maps a failure to read or decode an input file the user
// named: a missing path, a directory or another non-regular file, and
// every decoding problem (malformed, oversized, invalid) are bad input
// (2); an operating-system error while reading a file that exists (EIO,
// EACCES, ...) is an I/O error (4). An error that already carries a code
// keeps it; nil stays nil.
func InputError(err error) error {
	var ee *ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, fileio.ErrBadInput), errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR):
		return &ExitError{Code: ExitBadInput, Err: err}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &ExitError{Code: ExitIO, Err: err}
	}
	return &ExitError{Code: ExitBadInput, Err: err}
}

// writeError maps a failure to update a file the command writes into (a
// coverage file it merges into): an operating-system error is an I/O error
// (4), whatever it is, unless the path names no regular file (bad input,
// 2); a problem decoding what the file already holds is bad input (2). nil
// stays nil.
func writeError(err error) error {
	var ee *ExitError
	var errno syscall.Errno
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, fileio.ErrBadInput): // the path names no regular file
		return &ExitError{Code: ExitBadInput, Err: err}
	case errors.As(err, &errno):
		return &ExitError{Code: ExitIO, Err: err}
	}
	return &ExitError{Code: ExitBadInput, Err: err}
}

// ErrViolation is returned (exit 1) after a report was printed that shows
// a violated invariant or a failed gate; it prints nothing more.
var ErrViolation = &ExitError{Code: ExitViolation, Err: errors.New("")}

// ErrDone is returned by SystemFlags.Apply when its flags did the
// command's whole work (a listing, say): the command stops there and
// exits 0.
var ErrDone = errors.New("cli: done")

// writableDir checks, before a command runs anything, that it will be able
// to write into the directory dir that flag names: dir, when it exists,
// must be a directory (else bad input, 2: a file given for a folder); it
// is created (with its parents) when missing and probed (probeDir). So a
// campaign whose output cannot be written fails at once, not after it
// found what it would have written.
func writableDir(flag, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return BadInput("%s: %s is not a directory (%s)", flag, dir, kindOf(st.Mode()))
	}
	return probeDir(flag, dir)
}

// kindOf names what m describes: "a regular file", "a directory", ...
func kindOf(m fs.FileMode) string {
	if m.IsRegular() {
		return "a regular file"
	}
	return fileio.Kind(m)
}

// probeDir creates dir (and its parents) when missing and probes it
// (fileio.Probe: the temporary files of a killed run removed, a probe
// file written and removed). A failure is an I/O error (4) naming the
// flag and the directory.
func probeDir(flag, dir string) error {
	fail := func(err error) error {
		return &ExitError{Code: ExitIO, Err: fmt.Errorf("%s: %s: %w", flag, dir, err)}
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fail(errors.New("not a directory"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	// the probe sweeps first: what a killed run left there goes
	if err := fileio.Probe(dir); err != nil {
		return fail(fmt.Errorf("not writable: %w", err))
	}
	return nil
}

// writableFileDir checks the file path that flag names before a command
// runs anything: an existing path that is not a regular file (a
// directory, a device) is bad input (2), and its directory ("." for a
// bare name) is probed as probeDir does (4 when it cannot be written).
func writableFileDir(flag, path string) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return BadInput("%s: %s is not a regular file (%s)", flag, path, fileio.Kind(st.Mode()))
	}
	return probeDir(flag, filepath.Dir(path))
}

// CheckOutputDir checks, before a command runs anything, that it will be
// able to write into the directory dir that flag names, creating nothing:
// dir, or when missing the nearest folder above it that exists (where the
// command will create it), must be a directory it can write into, else an
// I/O error (4) naming the flag; dir itself a file is bad input (2). ""
// checks nothing.
func CheckOutputDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	at := filepath.Clean(dir)
	for {
		st, err := os.Stat(at)
		if err == nil {
			if !st.IsDir() && at == filepath.Clean(dir) {
				return BadInput("%s: %s is not a directory (%s)", flag, dir, kindOf(st.Mode()))
			}
			if !st.IsDir() {
				return &ExitError{Code: ExitIO, Err: fmt.Errorf("%s: %s: %s is not a directory", flag, dir, at)}
			}
			return writableDir(flag, at)
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return &ExitError{Code: ExitIO, Err: fmt.Errorf("%s: %s: %w", flag, dir, err)}
		}
		up := filepath.Dir(at)
		if up == at {
			return &ExitError{Code: ExitIO, Err: fmt.Errorf("%s: %s: %w", flag, dir, err)}
		}
		at = up
	}
}

// CheckCoverageFile checks, before a command runs anything, the coverage
// file flag names ("--coverage", or "$FAULTLINE_COVERAGE") that it will
// merge its runs into: an existing path must be a regular file holding a
// valid coverage file (else bad input, 2), and its directory writable
// (else 4). Errors begin "recording coverage into PATH". "" checks nothing.
func CheckCoverageFile(flag, path string) error {
	if path == "" {
		return nil
	}
	err := checkCoverageFile(path)
	var ee *ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.Code, Err: fmt.Errorf("recording coverage into %s (%s): %w", path, flag, ee.Err)}
	}
	return err
}

func checkCoverageFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return probeDir("its directory", filepath.Dir(path))
	}
	if m := st.Mode(); !m.IsRegular() {
		return BadInput("not a regular file (%s)", fileio.Kind(m))
	}
	if _, err := readCoverage(path); err != nil {
		return err
	}
	return probeDir("its directory", filepath.Dir(path))
}

// coverageFlag names where a command's coverage path came from: --coverage
// when given, else the environment variable.
func coverageFlag(flag string) string {
	if flag != "" {
		return "--coverage"
	}
	return "$" + CoverageEnv
}
