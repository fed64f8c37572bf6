// Package workbench is the folder of layer two (.flower/ by default) that
// outlives the conversation: opened as a handle no name under it can lead out
// of, its index kept in INDEX.md, and the prompt blocks that show it to a
// model (docs/REFERENCE.md, "Layer two"; docs/SECURITY.md).
package workbench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/flowerhooks/flower/pkg/atomicfile"
)

// The workbench layout, relative to its root.
const (
	ScriptsDir   = "scripts"
	ArtifactsDir = "artifacts"
	SpillDir     = "spill"
	IndexFile    = "INDEX.md"
	// StateDir holds index-guard's bookkeeping: hidden, and going where the
	// workbench goes.
	StateDir      = ".state"
	gitignoreFile = ".gitignore"
)

// DirPerm and FilePerm are private: spills may hold anything a tool printed.
const (
	DirPerm  = 0o700
	FilePerm = 0o600
)

// gitignore is what a workbench gets when flower creates it, or when
// index-guard finds it without one.
const gitignore = `# Written by flower on creating the workbench; edit freely, it is never replaced.
# scripts/ and artifacts/ travel with the project; these do not.
/INDEX.md
/spill/
/.state/
`

// Workbench is an open workbench: every file of it is read and written
// through an os.Root, so that no name under it, committed or swapped in
// while a hook runs, leads outside.
type Workbench struct {
	Path string // absolute, as given to Open
	root *os.Root
}

// ErrSymlink marks a workbench, or a part of one, that is a symlink: a
// repository can commit `.flower -> ../elsewhere`.
var ErrSymlink = errors.New("is a symlink; flower does not follow a symlink inside a project " +
	"(name the real folder with --workbench or FLOWER_WORKBENCH)")

// Open opens the workbench at path, which must exist and be a folder, not a
// symlink (errors.Is fs.ErrNotExist, ErrSymlink). The folders above it are
// the user's choice, and followed.
func Open(path string) (*Workbench, error) {
	r, err := OpenFolder("workbench", path)
	if err != nil {
		return nil, err
	}
	return &Workbench{Path: path, root: r}, nil
}

// OpenFolder opens the folder at path, which must exist and not be a
// symlink, as an os.Root; what names it in an error.
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
	// OpenRoot follows a symlink: a swap after the lstat is caught here.
	if opened, err := r.Stat("."); err != nil || !os.SameFile(fi, opened) {
		r.Close()
		return nil, fmt.Errorf("%s %s changed while it was opened", what, path)
	}
	return r, nil
}

// Make opens the workbench at path, creating it and the folders above it if
// need be. Only one Make creates gets the .gitignore.
func Make(path string) (*Workbench, error) {
	_, err := os.Lstat(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(path, DirPerm); err != nil {
		return nil, err
	}
	// Open, after the mkdir, refuses a symlink planted in its place.
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

// kindError says why fi is not a folder (dir) or a regular file.
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
// not a folder (the four folders) or a regular file (anything else).
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

// Folder creates the folder name if it is missing, and refuses it (checked
// after the mkdir) when it is a symlink or not a folder.
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

// openRegular opens the regular file name, non-blocking so that a planted
// FIFO cannot hold the hook.
func (w *Workbench) openRegular(name string) (*os.File, fs.FileInfo, error) {
	f, err := w.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%v)", name, fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// read returns the regular file name; one over limit bytes is an error.
func (w *Workbench) read(name string, limit int64) ([]byte, error) {
	f, fi, err := w.openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	b.Grow(int(min(fi.Size(), limit)) + bytes.MinRead) // one read, and one for EOF
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", name, errTooLarge, limit)
	}
	return b.Bytes(), nil
}

// write puts data at name whole, or fails with fs.ErrExist when !replace.
// No fsync: what the workbench writes itself can be regenerated.
func (w *Workbench) write(name string, data []byte, replace bool) error {
	fill := func(f io.Writer) error { _, err := f.Write(data); return err }
	if replace {
		return atomicfile.Replace(w.root, name, FilePerm, false, fill)
	}
	return atomicfile.Create(w.root, filepath.Dir(name), name, FilePerm, false, fill)
}

// ensureGitignore writes the .gitignore unless anything has that name.
func (w *Workbench) ensureGitignore() error {
	if _, err := w.root.Lstat(gitignoreFile); err == nil {
		return nil
	}
	if err := w.write(gitignoreFile, []byte(gitignore), false); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// stateCap bounds a state file: at most a few hundred entries of a few KB.
const stateCap = 4 << 20

// ReadState returns the state file name.
func (w *Workbench) ReadState(name string) ([]byte, error) {
	return w.read(filepath.Join(StateDir, name), stateCap)
}

// WriteState replaces the state file name whole.
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

// Indexed reports whether path lies under the scripts/ or artifacts/ of the
// workbench at root.
func Indexed(root, path string) bool {
	rel, ok := Within(root, path)
	first, rest, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return ok && rest != "" && (first == ScriptsDir || first == ArtifactsDir)
}

// Within reports whether path lies strictly inside dir once both are
// resolved (a symlink can make a path outside look inside and the reverse),
// and returns it relative to dir.
func Within(dir, path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(Resolve(dirAbs), Resolve(abs))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Resolve returns path with its symlinks resolved as far as it exists: the
// rest is joined to its nearest existing ancestor.
func Resolve(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	sep := string(filepath.Separator)
	exists, rest := sep, strings.TrimPrefix(path, sep) // exists is known to, rest not yet
	for rest != "" {
		comp, tail, _ := strings.Cut(rest, sep)
		next := filepath.Join(exists, comp)
		if _, err := os.Lstat(next); err != nil {
			break
		}
		exists, rest = next, tail
	}
	base, err := filepath.EvalSymlinks(exists)
	if err != nil {
		return path // a dangling symlink on the way: nothing to resolve through
	}
	return filepath.Join(base, rest)
}
