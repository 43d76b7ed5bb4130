package fileio

import (
	"errors"
	"fmt"
	"io/fs"
)

// Lock takes the exclusive lock of the file at path and returns the
// function that releases it; it blocks while another holder has it. The
// lock is the file PATH.lock beside the file a symbolic link at path leads
// to (so a link and its target share one lock); it is created when
// missing and left in place, since removing it would let two writers lock
// two different files. On Unix it is a flock(2) on a descriptor of its
// own, so it excludes other processes and other callers in this process
// alike, and the kernel releases it when a holder dies; elsewhere it
// excludes only callers in this process.
//
// Errors read "locking PATH: CAUSE" with path as given (never the lock
// file's name). Calling the returned function twice is harmless.
func Lock(path string) (unlock func(), err error) {
	target, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	unlock, err = lockFile(target + ".lock")
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, cause(err))
	}
	return unlock, nil
}

// Update replaces the file at path with what fn makes of its content,
// holding path's [Lock] from the read to the rename, so updates by
// concurrent callers and processes apply one after the other and none is
// lost. fn receives nil when the file does not exist (an empty file gives
// an empty, non-nil slice). The old content is read as by [ReadFile]:
// a file over limit bytes is refused before anything is read. The new
// content is written as by [WriteAtomic].
//
// An error from fn, or ReadFile's *InputError, is returned unchanged and
// the file is left as it was; other errors read "locking PATH: CAUSE",
// "reading PATH: CAUSE" or "writing PATH: CAUSE" with path as given.
func Update(path string, limit int64, fn func(old []byte) ([]byte, error)) error {
	unlock, err := Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	target, err := resolve(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	old, err := ReadFile(target, limit)
	var ie *InputError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case errors.As(err, &ie):
		ie.Path = path
		return ie
	case err != nil:
		return fmt.Errorf("reading %s: %w", path, cause(err))
	case old == nil:
		old = []byte{}
	}
	data, err := fn(old)
	if err != nil {
		return err
	}
	return WriteAtomic(path, data)
}

// Replace is [Update] for a caller that does not read the old content:
// it holds path's lock while fn makes the new content and writes it as by
// [WriteAtomic], and never reads the file (whatever its size). Errors are
// Update's.
func Replace(path string, fn func() ([]byte, error)) error {
	unlock, err := Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := fn()
	if err != nil {
		return err
	}
	return WriteAtomic(path, data)
}
