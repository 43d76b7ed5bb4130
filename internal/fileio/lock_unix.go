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

// holdsTemps is true: a temporary file stays open, flocked, from its
// creation to its rename, so a sweep knows a live writer's from a dead
// one's whatever their age.
const holdsTemps = true

// hold takes an exclusive flock on f, waiting for a sweep that holds it.
func hold(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// tryHold opens the file at name and takes its flock without waiting; ok
// is false when another open file description holds it (a writer at
// work). release closes the descriptor.
func tryHold(name string) (release func(), ok bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
