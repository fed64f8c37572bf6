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
	tmp, err := temp(path, perm, fill, true)
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
	return writeNew(path, perm, fill, true)
}

func writeNew(path string, perm os.FileMode, fill func(io.Writer) error, sync bool) error {
	tmp, err := temp(path, perm, fill, sync)
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

func temp(path string, perm os.FileMode, fill func(io.Writer) error, sync bool) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
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
