//go:build unix

package fileio

import (
	"os"
	"sync"
	"syscall"
)

// lockFile opens (creating) the file at name on a descriptor of its own and
// takes an exclusive flock on it. flock locks belong to the open file
// description, so two opens exclude each other within one process as
// between processes.
func lockFile(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: name, Err: err}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			// closing the descriptor releases the lock
			f.Close()
		})
	}, nil
}
