//go:build unix

package fileio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/internal/fileio"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// TestWriteAtomicReplacesWithMode0644: the file is replaced whole, gets mode
// 0644 whatever the old file's mode and the umask, and nothing else is left
// in the directory.
func TestWriteAtomicReplacesWithMode0644(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	require.NoError(t, fileio.WriteAtomic(p, []byte("new\n")))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, "new\n", read(t, p))
	assert.Equal(t, fs.FileMode(0o644), fi.Mode())
	assert.Equal(t, []string{"out.json"}, names(t, dir), "the directory")
	q := filepath.Join(dir, "fresh.json")
	require.NoError(t, fileio.WriteAtomic(q, nil))
	fi, err = os.Stat(q)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o644), fi.Mode(), "the new empty file")
	assert.Zero(t, fi.Size(), "the new empty file")
}

// TestWriteAtomicFollowsSymlinks: a link (relative, through a chain, or
// dangling) stays a link and its target gets the content; the lock is
// taken beside the target, not beside the link.
func TestWriteAtomicFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	target := filepath.Join(dir, "real", "cov.json")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.json")
	chain := filepath.Join(dir, "chain.json")
	require.NoError(t, os.Symlink(filepath.Join("real", "cov.json"), link))
	require.NoError(t, os.Symlink("link.json", chain))
	require.NoError(t, fileio.WriteAtomic(chain, []byte("new")))
	for _, l := range []string{link, chain} {
		fi, err := os.Lstat(l)
		require.NoError(t, err)
		require.NotZero(t, fi.Mode()&fs.ModeSymlink, "%s is no longer a link", l)
	}
	require.Equal(t, "new", read(t, target), "the target")
	unlock, err := fileio.Lock(chain)
	require.NoError(t, err)
	unlock()
	unlock() // harmless
	require.Equal(t, []string{"cov.json", "cov.json.lock"}, names(t, filepath.Join(dir, "real")), "real/: the target and its lock")
	require.Equal(t, []string{"chain.json", "link.json", "real"}, names(t, dir), "no lock or file beside the links")
	// a dangling link: its target is created
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink(filepath.Join(dir, "real", "later.json"), dangling)
	require.NoError(t, fileio.WriteAtomic(dangling, []byte("x")))
	require.Equal(t, "x", read(t, filepath.Join(dir, "real", "later.json")), "the dangling link's target")
	// a loop of links
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	assert.EqualError(t, fileio.WriteAtomic(a, nil), "writing "+a+": more than 40 symbolic links", "a link loop")
}

// TestWriteAtomicRemovesStaleTemps: a temporary file of the path's own
// pattern older than a minute is removed by the next write; a young one
// (a writer still at work), another path's, and a name that only looks
// similar stay.
func TestWriteAtomicRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cov.json")
	old := time.Now().Add(-2 * time.Minute)
	files := map[string]bool{ // name -> kept
		".cov.json.tmp-123456":   false,
		".cov.json.tmp-42":       true, // young
		".other.json.tmp-123456": true,
		".cov.json.tmp-12x":      true,
		"cov.json.tmp-123456":    true,
	}
	for name := range files {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte("partial"), 0o600))
		if name != ".cov.json.tmp-42" {
			require.NoError(t, os.Chtimes(f, old, old))
		}
	}
	require.NoError(t, fileio.WriteAtomic(p, []byte("new")))
	want := []string{"cov.json"}
	for name, kept := range files {
		if kept {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	assert.Equal(t, want, names(t, dir), "the directory")
}

// TestErrorsNameTheCallersPath: a failed write, lock or update names the
// path as given, never a temporary or lock file, and keeps the cause for
// errors.Is; a path that is not a regular file is refused.
func TestErrorsNameTheCallersPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "cov.json")
	err := fileio.WriteAtomic(missing, nil)
	assert.EqualError(t, err, "writing "+missing+": no such file or directory", "a write into a missing folder")
	assert.ErrorIs(t, err, fs.ErrNotExist, "a write into a missing folder")
	_, err = fileio.Lock(missing)
	assert.EqualError(t, err, "locking "+missing+": no such file or directory", "a lock in a missing folder")
	assert.EqualError(t, fileio.Update(missing, func(b []byte) ([]byte, error) { return b, nil }), "locking "+missing+": no such file or directory", "an update in a missing folder")
	assert.EqualError(t, fileio.WriteAtomic(dir, nil), "writing "+dir+": not a regular file (a directory)", "a write over a directory")
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	assert.EqualError(t, fileio.Update(fifo, func(b []byte) ([]byte, error) { return b, nil }), "locking "+fifo+": not a regular file (a named pipe)", "an update of a FIFO")
	// the callback's error comes back unchanged, and the file stays
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("keep"), 0o644)
	boom := errors.New("boom")
	assert.Same(t, boom, fileio.Update(p, func([]byte) ([]byte, error) { return []byte("lost"), boom }), "the callback's error")
	assert.Equal(t, "keep", read(t, p), "the file after a failed update")
}

// TestWriteFilesRenamesInOrder: nothing is renamed when a later file
// cannot be staged; otherwise every file is written.
func TestWriteFilesRenamesInOrder(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "a.json")
	os.WriteFile(a, []byte("old md"), 0o644)
	err := fileio.WriteFiles(fileio.File{Path: a, Data: []byte("new md")}, fileio.File{Path: filepath.Join(dir, "no", "a.json"), Data: []byte("new json")})
	require.ErrorContains(t, err, "writing "+filepath.Join(dir, "no", "a.json")+": ", "staging into a missing folder")
	require.Equal(t, "old md", read(t, a), "a.md after a failed set: the first file was renamed")
	require.Equal(t, []string{"a.md"}, names(t, dir), "left behind")
	require.NoError(t, fileio.WriteFiles(fileio.File{Path: a, Data: []byte("new md")}, fileio.File{Path: b, Data: []byte("new json")}))
	assert.Equal(t, "new md", read(t, a))
	assert.Equal(t, "new json", read(t, b))
}

// TestUpdateFromManyWriters: 16 goroutines each add 1 to a counter file
// 25 times through Update; every lock is a flock on a descriptor of its
// own, so they exclude each other within this process and the final
// count is exact. A link to the file shares its lock.
func TestUpdateFromManyWriters(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n")
	link := filepath.Join(dir, "link")
	os.Symlink("n", link)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			path := p
			if i%2 == 1 {
				path = link
			}
			for range 25 {
				err := fileio.Update(path, func(old []byte) ([]byte, error) {
					n := 0
					if old != nil {
						var err error
						if n, err = strconv.Atoi(string(old)); err != nil {
							return nil, err
						}
					}
					return []byte(strconv.Itoa(n + 1)), nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, "400", read(t, p), "the count (16 writers x 25)")
	require.Equal(t, []string{"link", "n", "n.lock"}, names(t, dir), "the directory")
	// Update sees a missing file as nil and an empty one as empty
	var seen []string
	for _, q := range []string{filepath.Join(dir, "none"), p} {
		if q == p {
			os.WriteFile(p, nil, 0o644)
		}
		fileio.Update(q, func(old []byte) ([]byte, error) {
			seen = append(seen, strconv.FormatBool(old == nil)+"/"+strconv.Itoa(len(old)))
			return old, nil
		})
	}
	assert.Equal(t, []string{"true/0", "false/0"}, seen, "old for a missing and an empty file")
}
