package workbench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/flowerhooks/flower/pkg/atomicfile"
)

// Workbench is an open workbench: a handle on its root folder through which
// every file of it is read and written. The handle is an os.Root, so no
// name under it (a committed symlink, one swapped in while a hook runs) can
// lead a read or a write outside the folder; and Open refuses a root that
// is itself a symlink, which the path the handle was opened from cannot
// show once it is open.
type Workbench struct {
	Path string // absolute, as given to Open
	root *os.Root
}

// ErrSymlink marks a workbench, or a folder or file of one, that is a
// symlink. A repository can commit `.flower -> ../elsewhere`: following it
// would put INDEX.md, state and spilled tool output wherever it points.
var ErrSymlink = errors.New("is a symlink; flower does not follow a symlink inside a project " +
	"(name the real folder with --workbench or FLOWER_WORKBENCH)")

// Open opens the workbench at path, which must exist and be a folder, not a
// symlink (the errors satisfy errors.Is(err, fs.ErrNotExist) and
// errors.Is(err, ErrSymlink)). The folders above it are followed as they
// are: they are the project the user started Claude Code in, or the folder
// the user named. A symlink the user names as a workbench is resolved
// before it gets here (hook.WorkbenchRoot).
func Open(path string) (*Workbench, error) {
	r, err := OpenFolder("workbench", path)
	if err != nil {
		return nil, err
	}
	return &Workbench{Path: path, root: r}, nil
}

// OpenFolder opens the folder at path as a handle (an os.Root) through
// which no name under it leads outside. path must exist and be a folder,
// not a symlink; what names it in an error ("workbench"). The folders
// above it are followed as they are.
func OpenFolder(what, path string) (*os.Root, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := kindError(what+" "+path, fi, true); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	// OpenRoot follows a symlink: check that what it opened is the folder
	// the lstat saw, so a swap between the two is caught, not followed.
	opened, err := r.Stat(".")
	if err != nil || !os.SameFile(fi, opened) {
		r.Close()
		return nil, fmt.Errorf("%s %s changed while it was opened", what, path)
	}
	return r, nil
}

// Make opens the workbench at path, creating it (DirPerm, and the folders
// above it) if it does not exist. A workbench Make creates gets the
// .gitignore that keeps its generated parts out of git; one that already
// existed keeps what it has, so Make never adds a file to a folder the user
// made (prune-session may spill into any folder named on its command line).
func Make(path string) (*Workbench, error) {
	_, err := os.Lstat(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(path, DirPerm); err != nil {
		return nil, err
	}
	// Checked after the mkdir: a symlink planted before it or in its place
	// is refused by Open, not followed.
	w, err := Open(path)
	if err != nil {
		return nil, err
	}
	if created {
		if err := w.ensureGitignore(); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// Close releases the handle.
func (w *Workbench) Close() error { return w.root.Close() }

// kindError says why fi is not what a workbench may hold there: a folder
// (dir) or a regular file. A symlink is named as such.
func kindError(what string, fi fs.FileInfo, dir bool) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w", what, ErrSymlink)
	case dir && !fi.IsDir():
		return fmt.Errorf("%s is not a folder", what)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%v)", what, fi.Mode().Type())
	}
	return nil
}

// Check refuses the workbench if one of the named entries exists and is
// not what the layout says it is: a folder for ScriptsDir, ArtifactsDir,
// SpillDir and StateDir, a regular file for anything else. A missing entry
// is fine. The error names the entry.
func (w *Workbench) Check(names ...string) error {
	for _, name := range names {
		fi, err := w.root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		dir := name == ScriptsDir || name == ArtifactsDir || name == SpillDir || name == StateDir
		if err := kindError(filepath.Join(w.Path, name), fi, dir); err != nil {
			return err
		}
	}
	return nil
}

// Folder creates the folder name (one level under the root, DirPerm) if it
// is missing, and refuses it when it is a symlink or not a folder. The check
// follows the mkdir, so what it passes is the folder that is there. A folder
// that existed keeps its mode: flower changes the mode of no folder it did
// not make.
func (w *Workbench) Folder(name string) error {
	if err := w.root.Mkdir(name, DirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := w.root.Lstat(name)
	if err != nil {
		return err
	}
	return kindError(name+" folder "+filepath.Join(w.Path, name), fi, true)
}

// errTooLarge marks a file past the cap it is read up to.
var errTooLarge = errors.New("larger than flower reads")

// openRegular opens the workbench file name for reading. It is opened
// non-blocking, so a FIFO or a device planted under the name cannot hold
// the hook until Claude Code kills it, and the opened file must be a
// regular file.
func (w *Workbench) openRegular(name string) (*os.File, error) {
	f, err := w.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%v)", name, fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// read returns the content of the regular workbench file name (see
// openRegular), at most limit bytes: a larger file is an error, not read
// further (a 2 GB sparse INDEX.md costs nothing).
func (w *Workbench) read(name string, limit int64) ([]byte, error) {
	f, err := w.openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", name, errTooLarge, limit)
	}
	return b, nil
}

// write puts data at name whole, through the handle (package atomicfile):
// replacing what is there, or failing with fs.ErrExist when !replace. No
// fsync: what the workbench writes itself is regenerated from scripts/ and
// artifacts/.
func (w *Workbench) write(name string, data []byte, replace bool) error {
	fill := func(f io.Writer) error { _, err := f.Write(data); return err }
	if replace {
		return atomicfile.Replace(w.root, name, FilePerm, false, fill)
	}
	return atomicfile.Create(w.root, filepath.Dir(name), name, FilePerm, false, fill)
}

// ensureGitignore writes the workbench's .gitignore unless there is one
// (or anything else by that name): the user's own is never replaced.
func (w *Workbench) ensureGitignore() error {
	if _, err := w.root.Lstat(gitignoreFile); err == nil {
		return nil
	}
	if err := w.write(gitignoreFile, []byte(gitignore), false); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// stateCap bounds a state file: a session's shown index and the scan
// record hold at most a few hundred entries of at most a few KB each.
const stateCap = 4 << 20

// ReadState returns the content of the state file name (under StateDir),
// read as read reads: non-blocking, a regular file, at most 4 MB.
func (w *Workbench) ReadState(name string) ([]byte, error) {
	return w.read(filepath.Join(StateDir, name), stateCap)
}

// WriteState replaces the state file name whole, creating StateDir if need
// be.
func (w *Workbench) WriteState(name string, data []byte) error {
	if err := w.Folder(StateDir); err != nil {
		return err
	}
	return w.write(filepath.Join(StateDir, name), data, true)
}

// States lists the entries of StateDir (none when it is missing).
func (w *Workbench) States() ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(w.root.FS(), StateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return es, err
}

// RemoveState removes the state file name.
func (w *Workbench) RemoveState(name string) error {
	return w.root.Remove(filepath.Join(StateDir, name))
}
