//go:build unix

package fileio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/fileio"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteAtomicReplacesWithMode0644: the file is replaced whole, gets mode
// 0644 whatever the old file's mode and the umask, and nothing else is left
// in the directory.
func TestWriteAtomicReplacesWithMode0644(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	if err := fileio.WriteAtomic(p, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "new\n" || fi.Mode() != 0o644 {
		t.Fatalf("content %q mode %v, want \"new\\n\" and -rw-r--r--", got, fi.Mode())
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.json"}) {
		t.Fatalf("directory holds %v", got)
	}
	q := filepath.Join(dir, "fresh.json")
	if err := fileio.WriteAtomic(q, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(q); fi.Mode() != 0o644 || fi.Size() != 0 {
		t.Fatalf("new empty file: mode %v size %d", fi.Mode(), fi.Size())
	}
}

// TestWriteAtomicFollowsSymlinks: a link (relative, through a chain, or
// dangling) stays a link and its target gets the content; the lock is
// taken beside the target, not beside the link.
func TestWriteAtomicFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "real", "cov.json")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.json")
	chain := filepath.Join(dir, "chain.json")
	if err := os.Symlink(filepath.Join("real", "cov.json"), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("link.json", chain); err != nil {
		t.Fatal(err)
	}
	if err := fileio.WriteAtomic(chain, []byte("new")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, chain} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v %v", l, fi.Mode(), err)
		}
	}
	if got := read(t, target); got != "new" {
		t.Fatalf("target %q, want new", got)
	}
	unlock, err := fileio.Lock(chain)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	unlock() // harmless
	if got := names(t, filepath.Join(dir, "real")); !slices.Equal(got, []string{"cov.json", "cov.json.lock"}) {
		t.Fatalf("real/ holds %v, want the target and its lock", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"chain.json", "link.json", "real"}) {
		t.Fatalf("a lock or file beside the links: %v", got)
	}
	// a dangling link: its target is created
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink(filepath.Join(dir, "real", "later.json"), dangling)
	if err := fileio.WriteAtomic(dangling, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "real", "later.json")); got != "x" {
		t.Fatalf("dangling link's target %q", got)
	}
	// a loop of links
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	if err := fileio.WriteAtomic(a, nil); err == nil || err.Error() != "writing "+a+": more than 40 symbolic links" {
		t.Fatalf("link loop: %v", err)
	}
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
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".cov.json.tmp-42" {
			if err := os.Chtimes(f, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := fileio.WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	want := []string{"cov.json"}
	for name, kept := range files {
		if kept {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("directory holds %v, want %v", got, want)
	}
}

// TestErrorsNameTheCallersPath: a failed write, lock or update names the
// path as given, never a temporary or lock file, and keeps the cause for
// errors.Is; a path that is not a regular file is refused.
func TestErrorsNameTheCallersPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "cov.json")
	if err := fileio.WriteAtomic(missing, nil); err == nil || err.Error() != "writing "+missing+": no such file or directory" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("write into a missing folder: %v", err)
	}
	if _, err := fileio.Lock(missing); err == nil || err.Error() != "locking "+missing+": no such file or directory" {
		t.Errorf("lock in a missing folder: %v", err)
	}
	if err := fileio.Update(missing, func(b []byte) ([]byte, error) { return b, nil }); err == nil || err.Error() != "locking "+missing+": no such file or directory" {
		t.Errorf("update in a missing folder: %v", err)
	}
	if err := fileio.WriteAtomic(dir, nil); err == nil || err.Error() != "writing "+dir+": not a regular file (a directory)" {
		t.Errorf("write over a directory: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fileio.Update(fifo, func(b []byte) ([]byte, error) { return b, nil }); err == nil || err.Error() != "locking "+fifo+": not a regular file (a named pipe)" {
		t.Errorf("update of a FIFO: %v", err)
	}
	// the callback's error comes back unchanged, and the file stays
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("keep"), 0o644)
	boom := errors.New("boom")
	if err := fileio.Update(p, func([]byte) ([]byte, error) { return []byte("lost"), boom }); err != boom {
		t.Errorf("callback error: %v", err)
	}
	if got := read(t, p); got != "keep" {
		t.Errorf("file after a failed update: %q", got)
	}
}

// TestWriteFilesRenamesInOrder: nothing is renamed when a later file
// cannot be staged; otherwise every file is written.
func TestWriteFilesRenamesInOrder(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "a.json")
	os.WriteFile(a, []byte("old md"), 0o644)
	err := fileio.WriteFiles(fileio.File{Path: a, Data: []byte("new md")}, fileio.File{Path: filepath.Join(dir, "no", "a.json"), Data: []byte("new json")})
	if err == nil || !strings.Contains(err.Error(), "writing "+filepath.Join(dir, "no", "a.json")+": ") {
		t.Fatalf("staging into a missing folder: %v", err)
	}
	if got := read(t, a); got != "old md" {
		t.Fatalf("a.md %q after a failed set: the first file was renamed", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a.md"}) {
		t.Fatalf("left behind: %v", got)
	}
	if err := fileio.WriteFiles(fileio.File{Path: a, Data: []byte("new md")}, fileio.File{Path: b, Data: []byte("new json")}); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "new md" || read(t, b) != "new json" {
		t.Fatal("set not written")
	}
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
	if got := read(t, p); got != "400" {
		t.Fatalf("count %s, want 400 (16 writers x 25)", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"link", "n", "n.lock"}) {
		t.Fatalf("directory holds %v", got)
	}
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
	if strings.Join(seen, " ") != "true/0 false/0" {
		t.Fatalf("old for a missing and an empty file: %v", seen)
	}
}
