package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// folder is the spill folder, opened as a handle through which every file
// in it is read and removed, so that no name in it (a symlink planted or
// swapped in) leads outside.
type folder struct {
	path string
	root *os.Root
}

// openFolder opens the spill folder dir. It must exist: a marker never
// makes spill-guard create a workbench. spill.Open then refuses it when it
// or the workbench above it is a symlink (unless the user named the
// workbench), and checks its git ignore rule, as for any spill.
func openFolder(dir string) (*folder, error) {
	if _, err := os.Lstat(dir); err != nil {
		return nil, err
	}
	f, err := spill.Open(dir)
	if err != nil {
		return nil, err
	}
	return &folder{path: dir, root: f.Root()}, nil
}

func (d *folder) Close() error { return d.root.Close() }

// errNotOurs marks a marker that names no capture file of this session in
// this spill folder: text that looks like a marker, or a workbench the
// script and spill-guard disagree on.
var errNotOurs = errors.New("not a capture file of this session")

// open opens the capture file path for reading and returns its name in the
// folder. path must lie directly in the folder (compared with symlinks
// resolved, as the script may name it through another spelling of the same
// folder) and carry a capture file's name for sessionID; the file must be a
// regular file and no symlink. It is opened non-blocking, so that a FIFO
// swapped in cannot hold the hook.
func (d *folder) open(path, sessionID string) (*os.File, string, error) {
	rel, ok := workbench.Within(d.path, path)
	if !ok || rel != filepath.Base(rel) {
		return nil, "", fmt.Errorf("%s: %w (not directly in the spill folder %s)", path, errNotOurs, d.path)
	}
	if !IsSessionName(rel, sessionID) {
		return nil, "", fmt.Errorf("%s: %w (not a capture file's name for session %s)", path, errNotOurs, sessionID)
	}
	fi, err := d.root.Lstat(rel)
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s is not a regular file (%v)", path, fi.Mode().Type())
	}
	f, err := d.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	opened, err := f.Stat()
	if err == nil && !os.SameFile(fi, opened) {
		err = fmt.Errorf("%s changed while it was opened", path)
	}
	if err != nil {
		f.Close()
		return nil, "", err
	}
	// The script creates the file with the shell's umask; spilled output
	// is the owner's alone (the folder already is).
	if opened.Mode().Perm() != spill.FilePerm {
		f.Chmod(spill.FilePerm)
	}
	return f, rel, nil
}

// remove removes the capture file name, which the model has been shown
// whole. A file already gone is no error.
func (d *folder) remove(name string) error {
	err := d.root.Remove(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
