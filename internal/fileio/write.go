package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// fileMode is the permission of every file this package writes, whatever
// the umask and whatever mode the replaced file had.
const fileMode fs.FileMode = 0o644

// maxLinks bounds how many symbolic links resolve follows.
const maxLinks = 40

// File is one file of a [WriteFiles] call: its path and its whole content.
type File struct {
	Path string
	Data []byte
}

// WriteAtomic replaces the file at path with data: written to a temporary
// file beside it (".NAME.tmp-DIGITS"), synced, given mode 0644, renamed
// over the file, and the directory synced, so a reader sees the old file
// or the new one, never a part, and the new one survives a crash once
// WriteAtomic returns. A symbolic link at path is followed: its target is
// replaced and the link stays. Temporary files of path's pattern whose
// writer is gone (killed before its rename; see [Sweep]) are removed
// first. WriteAtomic takes no lock (see [Lock] and [Update]).
//
// Errors read "writing PATH: CAUSE" with path as given (never the
// temporary file's name); path is unchanged on error. A path that names a
// directory, a device or anything else that is not a regular file is
// refused.
func WriteAtomic(path string, data []byte) error {
	return WriteFiles(File{Path: path, Data: data})
}

// WriteFiles writes several files atomically as one step each, in two
// phases: every file goes to its temporary file and is synced first (an
// error there leaves every file unchanged), then the temporary files are
// renamed over their paths in the order given and each directory is
// synced. A reader that trusts the last file only when the earlier ones
// agree with it (a manifest written last, naming the others' hashes) never
// mistakes a half-finished set for a whole one. Errors are WriteAtomic's;
// a rename that fails leaves the earlier files renamed and the later ones
// unchanged.
func WriteFiles(files ...File) error {
	type staged struct {
		path, target, tmp string
		f                 *os.File
	}
	var done []staged
	defer func() {
		for _, s := range done {
			if s.tmp != "" {
				os.Remove(s.tmp)
			}
			if s.f != nil {
				s.f.Close()
			}
		}
	}()
	for _, f := range files {
		target, err := resolve(f.Path)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		tmp, err := writeTemp(target, f.Data)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		done = append(done, staged{f.Path, target, tmp.Name(), tmp})
	}
	dirs := map[string]bool{}
	for i := range done {
		s := &done[i]
		if err := os.Rename(s.tmp, s.target); err != nil {
			return fmt.Errorf("writing %s: %w", s.path, cause(err))
		}
		s.tmp = ""
		dirs[filepath.Dir(s.target)] = true
	}
	for _, s := range done {
		if d := filepath.Dir(s.target); dirs[d] {
			delete(dirs, d)
			if err := syncDir(d); err != nil {
				return fmt.Errorf("writing %s: syncing its directory: %w", s.path, cause(err))
			}
		}
	}
	return nil
}

// writeTemp removes target's dead temporary files and writes data to a
// new one, synced and of mode fileMode. Where flock exists the file is
// returned open and held (see hold) until the caller closes it after the
// rename; elsewhere it is returned closed.
func writeTemp(target string, data []byte) (*os.File, error) {
	dir, prefix := filepath.Dir(target), tempPrefix(target)
	removeStale(dir, prefix)
	f, err := createHeld(dir, prefix)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(fileMode)
	}
	if err == nil {
		err = f.Sync()
	}
	if !holdsTemps {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, cause(err)
	}
	return f, nil
}

// createHeld creates a temporary file prefix+DIGITS in dir and holds it
// where the file system has flock. A sweep may remove the file between
// its creation and the hold: the
// file held is checked to be the one still at its name, else another is
// made.
func createHeld(dir, prefix string) (*os.File, error) {
	for {
		f, err := os.CreateTemp(dir, prefix+"*")
		if err != nil {
			return nil, cause(err)
		}
		// a file system without flock (ENOLCK, EOPNOTSUPP) leaves the file
		// unheld: a sweep's tryHold fails there too and keeps it
		_ = hold(f)
		held, herr := f.Stat()
		named, nerr := os.Lstat(f.Name())
		if herr == nil && nerr == nil && os.SameFile(held, named) {
			return f, nil
		}
		f.Close()
	}
}

// Sweep removes the temporary files in dir (".NAME.tmp-DIGITS", of this
// package's writes and of [Probe]) whose writer is gone: killed before
// its rename. Where flock exists a live writer holds its file and any
// other is removed whatever its age; elsewhere files older than a minute
// go. It is best effort: a file it cannot list or remove stays.
func Sweep(dir string) { removeStale(dir, "") }

// Probe checks that dir is writable by creating a temporary file in it
// (".faultline-probe.tmp-DIGITS", held as a write's is) and removing it;
// it sweeps dir first, so a probe or a write killed before its end leaves
// nothing past the next probe. Errors are the cause alone
// (fs.ErrPermission, say: the caller names dir).
func Probe(dir string) error {
	Sweep(dir)
	f, err := createHeld(dir, ".faultline-probe.tmp-")
	if err != nil {
		return err
	}
	f.Close()
	// a sweep may have taken it once closed
	if err := os.Remove(f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cause(err)
	}
	return nil
}

// tempPrefix is the name prefix of target's temporary files.
func tempPrefix(target string) string { return "." + filepath.Base(target) + ".tmp-" }

// removeStale removes the regular files in dir named prefix+DIGITS (with
// prefix "": any ".NAME.tmp-DIGITS") whose writer is gone (tryHold). It
// is best effort: a file it cannot list or remove stays.
func removeStale(dir, prefix string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !isTemp(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if release, ok := tryHold(name); ok {
			os.Remove(name)
			release()
		}
	}
}

// isTemp reports whether name is a temporary file's name of prefix (""
// for any: ".NAME.tmp-DIGITS").
func isTemp(name, prefix string) bool {
	if prefix == "" {
		i := strings.LastIndex(name, ".tmp-")
		if !strings.HasPrefix(name, ".") || i < 2 {
			return false
		}
		prefix = name[:i+len(".tmp-")]
	}
	rest, ok := strings.CutPrefix(name, prefix)
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// resolve follows the symbolic links at path (not those of its
// directories, which the kernel follows) and returns the file they lead
// to, which may not exist yet. It refuses a path that exists and is not a
// regular file.
func resolve(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", cause(err)
		}
		switch {
		case fi.Mode().IsRegular():
			return path, nil
		case fi.Mode()&fs.ModeSymlink == 0:
			return "", notRegular(fmt.Sprintf("not a regular file (%s)", Kind(fi.Mode())))
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", cause(err)
		}
		if !filepath.IsAbs(link) {
			// joined without cleaning, so ".." is resolved by the kernel
			// against the real directory, as for the link itself
			link = filepath.Dir(path) + string(filepath.Separator) + link
		}
		path = link
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// Kind names what a file mode describes when it is not a regular file:
// "a directory", "a named pipe", "a device", "a socket", else
// "mode " and the mode; every refusal of a non-regular path words it so.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// cause strips the file names from an *fs.PathError or *os.LinkError,
// which would name a temporary or lock file rather than the caller's path;
// errors.Is still sees the underlying error (fs.ErrNotExist and the like).
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// syncDir makes the directory entries of dir durable. Windows cannot sync
// a directory; there it does nothing.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// notRegular is the error for a write or lock whose path names something
// other than a regular file: the caller's input, so it matches
// ErrBadInput; the caller's wrapping names the path.
type notRegular string

func (e notRegular) Error() string { return string(e) }

// Is reports whether target is ErrBadInput.
func (e notRegular) Is(target error) bool { return target == ErrBadInput }
