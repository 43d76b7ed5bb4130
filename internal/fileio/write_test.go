//go:build unix

package fileio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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

// runtimeMem is the process's cumulative allocation.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

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

// holdOpen holds the flock of the file at name as a live writer does,
// until the test ends.
func holdOpen(t *testing.T, name string) {
	t.Helper()
	f, err := os.Open(name)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	t.Cleanup(func() { f.Close() })
}

// TestWriteAtomicRemovesStaleTemps: a temporary file of the path's own
// pattern that no writer holds (its writer was killed), old or just made,
// is removed by the next write; a held one (a writer still at work),
// another path's, and a name that only looks similar stay.
func TestWriteAtomicRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cov.json")
	old := time.Now().Add(-2 * time.Minute)
	files := map[string]bool{ // name -> kept
		".cov.json.tmp-123456":   false,
		".cov.json.tmp-42":       false, // young, but no writer holds it
		".cov.json.tmp-7":        true,  // held
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
		if name == ".cov.json.tmp-7" {
			holdOpen(t, f)
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

// TestSweepAndProbe: Sweep removes every temporary file of any name that
// no writer holds, a dead probe's included, and keeps a held one and the
// user's files; Probe sweeps, then leaves nothing of its own.
func TestSweepAndProbe(t *testing.T) {
	dir := t.TempDir()
	files := map[string]bool{ // name -> kept
		".run-c076.otlp.json.tmp-3141": false, // an explore --otel write killed before its rename
		".faultline-probe.tmp-99":      false, // a probe killed before its removal
		".cx-a.json.tmp-5":             true,  // held: a writer at work
		"cx-a.json":                    true,
		".tmp-5":                       true,
		".x.tmp-":                      true,
	}
	for name := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
		if name == ".cx-a.json.tmp-5" {
			holdOpen(t, filepath.Join(dir, name))
		}
	}
	require.NoError(t, fileio.Probe(dir))
	var want []string
	for name, kept := range files {
		if kept {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	assert.Equal(t, want, names(t, dir), "the directory after a probe")
	ro := filepath.Join(dir, "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	if os.Geteuid() != 0 {
		assert.ErrorIs(t, fileio.Probe(ro), fs.ErrPermission, "a read-only folder")
	}
}

// TestUpdateBoundsTheReadBeforeAllocating: a 3 GiB sparse file is refused
// by Update (ErrBadInput, naming the path) before it is read: the process
// allocates nothing near its size. Replace, which reads nothing, replaces
// it.
func TestUpdateBoundsTheReadBeforeAllocating(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(3<<30))
	require.NoError(t, f.Close())
	var before, after runtimeMem
	before.read()
	err = fileio.Update(p, 256<<20, func(old []byte) ([]byte, error) { return old, nil })
	after.read()
	require.ErrorIs(t, err, fileio.ErrBadInput)
	assert.EqualError(t, err, p+": larger than the limit of 256 MiB for this kind of file")
	assert.Less(t, after.total-before.total, uint64(16<<20), "bytes allocated by the refused update")
	require.NoError(t, fileio.Replace(p, func() ([]byte, error) { return []byte("{}"), nil }))
	assert.Equal(t, "{}", read(t, p), "the file after Replace")
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
	assert.EqualError(t, fileio.Update(missing, 1<<20, func(b []byte) ([]byte, error) { return b, nil }), "locking "+missing+": no such file or directory", "an update in a missing folder")
	assert.EqualError(t, fileio.WriteAtomic(dir, nil), "writing "+dir+": not a regular file (a directory)", "a write over a directory")
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	assert.EqualError(t, fileio.Update(fifo, 1<<20, func(b []byte) ([]byte, error) { return b, nil }), "locking "+fifo+": not a regular file (a named pipe)", "an update of a FIFO")
	// the callback's error comes back unchanged, and the file stays
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("keep"), 0o644)
	boom := errors.New("boom")
	assert.Same(t, boom, fileio.Update(p, 1<<20, func([]byte) ([]byte, error) { return []byte("lost"), boom }), "the callback's error")
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
				err := fileio.Update(path, 1<<20, func(old []byte) ([]byte, error) {
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
		fileio.Update(q, 1<<20, func(old []byte) ([]byte, error) {
			seen = append(seen, strconv.FormatBool(old == nil)+"/"+strconv.Itoa(len(old)))
			return old, nil
		})
	}
	assert.Equal(t, []string{"true/0", "false/0"}, seen, "old for a missing and an empty file")
}
