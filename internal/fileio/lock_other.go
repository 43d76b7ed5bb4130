//go:build !unix

package fileio

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// locks holds one mutex per lock file name.
var locks sync.Map // string -> *sync.Mutex

// lockFile takes this process's mutex for name: without flock, writers in
// other processes are not excluded (each write is still atomic).
func lockFile(name string) (func(), error) {
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	m, _ := locks.LoadOrStore(name, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	var once sync.Once
	return func() { once.Do(mu.Unlock) }, nil
}

// staleAfter is the age (by file modification time) past which, where
// flock does not exist, a temporary file is taken to belong to a writer
// that died, and is removed by the next write of that path or sweep.
const staleAfter = time.Minute

// holdsTemps is false: without flock a temporary file is closed once
// written, and a sweep goes by age (staleAfter).
const holdsTemps = false

func hold(*os.File) error { return nil }

// tryHold is true for a file older than staleAfter (by modification time).
func tryHold(name string) (release func(), ok bool) {
	fi, err := os.Stat(name)
	if err != nil || time.Since(fi.ModTime()) <= staleAfter {
		return nil, false
	}
	return func() {}, true
}
