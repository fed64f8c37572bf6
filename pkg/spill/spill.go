// Package spill keeps long text out of a model's context: Folder.Write puts
// it whole in a new file of the workbench's spill folder, and File.Text is
// the pointer line and first characters that stand for it (spill-guard and
// prune-session --trim). Characters are code points; lines are the
// newlines, plus one for text after the last.
package spill

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// IgnoreFile and IgnoreRule are the spill folder's own git ignore rule: in
// the folder itself, no .gitignore above it can expose tool output (which
// can hold secrets) to a `git add -A`.
const (
	IgnoreFile = ".gitignore"
	IgnoreRule = "# Written by flower: the tool output kept here never goes into git.\n*\n"
)

const (
	maxNameBytes = 160  // under NAME_MAX (255), with room for atomicfile's affixes
	maxTries     = 1000 // the hint holds the tool_use_id: a clash is the same call again
	// TmpDir holds files until they are linked into place, so that what a
	// killed writer left is found without listing every spill.
	TmpDir = ".tmp"
)

// Dir is the spill folder of the workbench rooted at root.
func Dir(root string) string { return filepath.Join(root, workbench.SpillDir) }

// Folder is an open spill folder, read and written through a handle
// (os.Root) so that no name in it, committed or swapped in, leads outside.
type Folder struct {
	Path string // absolute
	root *os.Root
}

// Open makes dir, and the workbench above it, if missing (workbench.Make)
// and opens it; a symlink or non-folder is refused. Its ignore rule is
// written when missing; a folder with another .gitignore, or a repository's
// top folder (the rule would hide its new files), is refused.
func Open(dir string) (*Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	w, err := workbench.Make(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	err = w.Folder(filepath.Base(abs))
	w.Close()
	if err != nil {
		return nil, err
	}
	r, err := workbench.OpenFolder("spill folder", abs)
	if err != nil {
		return nil, err
	}
	f := &Folder{Path: abs, root: r}
	if err := f.ignore(); err != nil {
		r.Close()
		return nil, fmt.Errorf("spill folder %s: %v", abs, err)
	}
	return f, nil
}

// Close releases the handle.
func (f *Folder) Close() error { return f.root.Close() }

// Root is the handle, for reading and removing the folder's files.
func (f *Folder) Root() *os.Root { return f.root }

// ignore checks the folder's ignore rule, and writes it when it is missing.
func (f *Folder) ignore() error {
	ok, err := f.hasRule()
	switch {
	case ok:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("its %s is not flower's ignore rule, so tool output there could be committed: "+
			"remove it, or name a folder of flower's own", IgnoreFile)
	}
	if _, err := f.root.Lstat(".git"); err == nil {
		return errors.New("it is a repository's top folder, where flower's ignore rule would hide the repository's new files: name a folder of flower's own")
	}
	err = atomicfile.Create(f.root, ".", IgnoreFile, workbench.FilePerm, false, func(w io.Writer) error {
		_, err := io.WriteString(w, IgnoreRule)
		return err
	})
	if errors.Is(err, fs.ErrExist) { // a parallel spill wrote it first
		if ok, _ := f.hasRule(); !ok {
			return fmt.Errorf("its %s changed while it was written", IgnoreFile)
		}
		return nil
	}
	return err
}

// hasRule reports whether the folder's IgnoreFile is flower's rule.
func (f *Folder) hasRule() (bool, error) {
	file, _, err := f.OpenFile(IgnoreFile)
	if err != nil {
		return false, err
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, int64(len(IgnoreRule))+1))
	return err == nil && string(b) == IgnoreRule, err
}

// OpenFile opens the regular file name of the folder for reading: a link
// is refused, a FIFO swapped in after the lstat cannot block the hook, and
// the file opened must be the one the lstat saw.
func (f *Folder) OpenFile(name string) (*os.File, fs.FileInfo, error) {
	fi, err := f.root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file (%v)", filepath.Join(f.Path, name), fi.Mode().Type())
	}
	file, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	opened, err := file.Stat()
	if err != nil || !os.SameFile(fi, opened) {
		file.Close()
		return nil, nil, fmt.Errorf("%s changed while it was opened", filepath.Join(f.Path, name))
	}
	return file, opened, nil
}

// Write creates a new file holding what fill writes, named from hint
// (sanitized, ".txt", then "-2", "-3", … when taken: it never replaces a
// file), and describes it with its first head characters. The file is
// linked into place whole, synced when sync is set; on failure nothing is
// left. fill runs again for each name tried. spill-guard does not sync:
// its pointer lives in a transcript Claude Code appends to without fsync.
func (f *Folder) Write(hint string, head int, sync bool, fill func(io.Writer) error) (File, error) {
	if err := f.root.Mkdir(TmpDir, workbench.DirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return File{}, err
	}
	base := sanitize(hint)
	for try := 1; try <= maxTries; try++ {
		name := base + ".txt"
		if try > 1 {
			name = fmt.Sprintf("%s-%d.txt", base, try)
		}
		var c *Counter
		err := atomicfile.Create(f.root, TmpDir, name, workbench.FilePerm, sync, func(w io.Writer) error {
			c = NewCounter(w, head)
			return fill(c)
		})
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return File{}, err
		}
		return c.File(filepath.Join(f.Path, name)), nil
	}
	return File{}, fmt.Errorf("no free name for %s in %s after %d tries", base, f.Path, maxTries)
}

// sanitize turns hint into a file name: bytes but letters, digits, '.', '_'
// and '-' become '_', a leading dot goes (not hidden), at most maxNameBytes.
func sanitize(hint string) string {
	b := []byte(hint)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".")
	if s == "" {
		return "spill"
	}
	return s[:min(len(s), maxNameBytes)]
}

// Counter passes writes through, counting characters (the bytes that start
// one, so a character split across writes counts once) and lines, and
// keeping the first head characters.
type Counter struct {
	w               io.Writer
	chars, newlines int64
	last            byte // the last byte written, when any was
	any             bool
	headLeft        int
	head            []byte
	headDone        bool
}

// NewCounter returns a Counter writing to w that keeps the first head
// characters.
func NewCounter(w io.Writer, head int) *Counter {
	return &Counter{w: w, headLeft: head, headDone: head <= 0}
}

func (c *Counter) Write(p []byte) (int, error) {
	if !c.headDone {
		i := 0
		for ; i < len(p); i++ {
			if utf8.RuneStart(p[i]) {
				if c.headLeft == 0 {
					c.headDone = true
					break
				}
				c.headLeft--
			}
		}
		c.head = append(c.head, p[:i]...)
	}
	c.chars += int64(len(p) - continuations(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if len(p) > 0 {
		c.last, c.any = p[len(p)-1], true
	}
	return c.w.Write(p)
}

// File describes what was written as the file at path.
func (c *Counter) File(path string) File {
	lines := c.newlines
	if c.any && c.last != '\n' {
		lines++
	}
	return File{Path: path, Chars: c.chars, Lines: lines, Head: string(c.head)}
}

// continuations counts the bytes of p that continue a UTF-8 sequence
// (10xxxxxx), eight at a time: a byte loop was the largest cost of a 1 MB
// spill after the write itself.
func continuations(p []byte) int {
	n := 0
	for ; len(p) >= 8; p = p[8:] {
		x := binary.LittleEndian.Uint64(p)
		n += bits.OnesCount64(x &^ (x << 1) & 0x8080808080808080)
	}
	for _, b := range p {
		if b&0xC0 == 0x80 {
			n++
		}
	}
	return n
}
