// Package atomicfile writes files so that a reader sees the old content or
// the new, never a part: the data goes to a temporary file beside it, which
// is renamed or linked into place, through a handle on the folder (an
// os.Root), so that no name in it, committed or swapped in meanwhile, leads
// the write elsewhere.
package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Write replaces the file at path with data, with permissions perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return inFolder(path, func(r *os.Root, name string) error {
		return Replace(r, name, perm, true, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	})
}

// WriteNew creates the file at path with what fill writes, synced when sync
// is set; it never replaces a file: when path exists the error satisfies
// errors.Is(err, fs.ErrExist).
func WriteNew(path string, perm os.FileMode, sync bool, fill func(io.Writer) error) error {
	return inFolder(path, func(r *os.Root, name string) error {
		return Create(r, ".", name, perm, sync, fill)
	})
}

func inFolder(p string, do func(r *os.Root, name string) error) error {
	r, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return err
	}
	defer r.Close()
	return do(r, filepath.Base(p))
}

// Replace replaces name, in the folder r, with what fill writes, synced when
// sync is set. If fill fails, name is untouched.
func Replace(r *os.Root, name string, perm os.FileMode, sync bool, fill func(io.Writer) error) error {
	tmp, err := temp(r, path.Dir(name), name, perm, sync, fill)
	if err != nil {
		return err
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return err
	}
	return nil
}

// Create creates name in the folder r with what fill writes, synced when
// sync is set, and never replaces a file: when name exists the error
// satisfies errors.Is(err, fs.ErrExist). The temporary file goes in tmpDir,
// a folder of r, where RemoveStale finds the leftovers of a writer killed
// midway.
func Create(r *os.Root, tmpDir, name string, perm os.FileMode, sync bool, fill func(io.Writer) error) error {
	tmp, err := temp(r, tmpDir, name, perm, sync, fill)
	if err != nil {
		return err
	}
	defer r.Remove(tmp)
	// link(2) fails with EEXIST instead of replacing, unlike rename(2).
	if err := r.Link(tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &os.PathError{Op: "create", Path: name, Err: fs.ErrExist}
		}
		return err
	}
	return nil
}

// temp writes a new temporary file in dir, named after name and the process
// that writes it (see RemoveStale), and returns its name in r.
func temp(r *os.Root, dir, name string, perm os.FileMode, sync bool, fill func(io.Writer) error) (string, error) {
	tmp := path.Join(dir, "."+path.Base(name)+tmpMark+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(rand.Uint64(), 36))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", err
	}
	err = f.Chmod(perm) // past the umask
	if err == nil {
		err = fill(f)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// tmpMark comes before the writer's pid in a temporary file's name.
const tmpMark = ".tmp-"

// StaleAfter is how long a temporary file whose writer's pid runs is kept:
// that process may be another that got the pid of a writer killed long ago,
// while a live writer takes well under a second a megabyte.
const StaleAfter = time.Hour

// RemoveStale removes the temporary files in tmpDir, a folder of r, that no
// running writer owns: those whose writer (the pid in their name) no longer
// runs, and those last written StaleAfter ago. Only regular files named as
// temp names them go: a repository may commit the folder. Errors are
// ignored: a file it cannot remove stays for the next call.
func RemoveStale(r *os.Root, tmpDir string) {
	if fi, err := r.Lstat(tmpDir); err != nil || !fi.IsDir() {
		return // a symlink planted there is not followed
	}
	entries, _ := fs.ReadDir(r.FS(), tmpDir)
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.Contains(name, tmpMark) {
			continue
		}
		if fi, err := e.Info(); err == nil && (!running(name) || time.Since(fi.ModTime()) >= StaleAfter) {
			r.Remove(path.Join(tmpDir, name))
		}
	}
}

// running reports whether the process that wrote the temporary file name
// may still run: its pid is in use (kill(pid, 0) does not answer ESRCH),
// or the name carries none.
func running(name string) bool {
	i := strings.LastIndex(name, tmpMark)
	if i < 0 {
		return true
	}
	pid, _, ok := strings.Cut(name[i+len(tmpMark):], "-")
	n, err := strconv.Atoi(pid)
	if !ok || err != nil || n <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(n, 0), syscall.ESRCH)
}
