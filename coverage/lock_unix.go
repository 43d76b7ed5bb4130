//go:build unix

package coverage

import (
	"os"
	"syscall"
)

// lockPath takes an exclusive advisory lock on the file at path, creating
// it, and returns the function that releases it. The kernel releases the
// lock if the process dies.
func lockPath(path string) (func() error, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return f.Close()
	}, nil
}
