//go:build !unix

package fileio

import (
	"path/filepath"
	"sync"
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
