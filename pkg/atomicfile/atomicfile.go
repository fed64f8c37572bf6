// Package atomicfile writes files so that a reader sees the old content or
// the new, never a part: the data goes to a temporary file in the same
// folder, is synced (but by WriteNewUnsynced), and is renamed (or linked)
// into place. A failed write
// leaves the previous file as it was and no temporary file behind.
package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Write replaces path with data, atomically, with permissions perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path with what fill writes, atomically. If fill fails,
// path is untouched.
func WriteFunc(path string, perm os.FileMode, fill func(io.Writer) error) error {
	tmp, err := temp(filepath.Dir(path), path, perm, fill, true)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteNew creates path with what fill writes, atomically, and never replaces
// an existing file: if path exists it returns an error satisfying
// errors.Is(err, os.ErrExist) and leaves that file alone.
func WriteNew(path string, perm os.FileMode, fill func(io.Writer) error) error {
	return WriteNewIn(filepath.Dir(path), path, perm, true, fill)
}

// WriteNewIn is WriteNew with the temporary file in tmpDir, a folder on
// path's file system, and synced only when sync is set. A writer killed
// midway leaves its temporary file there, where the next writer finds it
// without listing path's folder (RemoveStale).
func WriteNewIn(tmpDir, path string, perm os.FileMode, sync bool, fill func(io.Writer) error) error {
	tmp, err := temp(tmpDir, path, perm, fill, sync)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	// link(2) fails with EEXIST instead of replacing, unlike rename(2).
	if err := os.Link(tmp, path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, os.ErrExist) {
			return &os.PathError{Op: "create", Path: path, Err: os.ErrExist}
		}
		return err
	}
	return nil
}

// temp writes a temporary file in dir, named after path and the process
// that writes it (see RemoveStale).
func temp(dir, path string, perm os.FileMode, fill func(io.Writer) error, sync bool) (string, error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+tmpMark+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := fill(f); err != nil {
		return fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// tmpMark comes before the writer's pid in a temporary file's name.
const tmpMark = ".tmp-"

// StaleAfter is how long a temporary file whose writer's pid runs is
// kept: that process may be another that got the pid of a writer killed
// long ago. A live writer writes its file in well under a second a
// megabyte, and a hook that runs past its timeout is killed.
const StaleAfter = time.Hour

// RemoveStale removes the temporary files in tmpDir that no running writer
// owns: files whose writer (the pid in their name) no longer runs, and
// files last written StaleAfter ago or earlier. Only regular files named
// as temp names them go: tmpDir lies in a folder a repository can commit,
// and what it plants there (a file of its own, tmpDir itself as a symlink
// to the project or the home folder) is not a leftover of ours. Errors are
// ignored: a file it cannot remove stays for the next call.
func RemoveStale(tmpDir string) {
	names, _ := readNames(tmpDir)
	for _, name := range names {
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, tmpMark) {
			continue
		}
		path := filepath.Join(tmpDir, name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if !running(name) || time.Since(fi.ModTime()) >= StaleAfter {
			os.Remove(path)
		}
	}
}

// readNames lists the folder dir, which must not be a symlink.
func readNames(dir string) ([]string, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
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
