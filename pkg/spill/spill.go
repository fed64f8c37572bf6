// Package spill keeps long text out of a model's context: it writes the text
// whole to a new file in the workbench's spill folder and gives the pointer
// that stands for it in context (a line naming the file, its size, and how
// to read it back) followed by the text's first characters.
//
// Layer three (spill-guard) spills long tool results as they happen; layer
// four (prune-session --trim) spills long results of a stored transcript.
// Both open the folder with Open and write through Folder.Write, so the
// folder's checks, its git ignore rule, the file naming, the permissions and
// the pointer wording live here once.
//
// Characters are counted as Unicode code points: the bytes that do not
// continue a UTF-8 sequence, which for valid UTF-8 is utf8.RuneCount. Lines
// are the newlines, plus one when the text does not end in a newline.
package spill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// Tool output can hold secrets (tokens in env dumps, keys in config files),
// so the folders flower makes for it and its files are the owner's alone.
const (
	DirPerm  fs.FileMode = workbench.DirPerm
	FilePerm fs.FileMode = workbench.FilePerm
)

// IgnoreFile and IgnoreRule are the spill folder's own git ignore rule. It
// lives in the folder that holds tool output, so that no .gitignore above it,
// committed or not, can expose the files to a `git add -A`; the `*` covers
// the rule's own file too.
const (
	IgnoreFile = ".gitignore"
	IgnoreRule = "# Written by flower: the tool output kept here never goes into git.\n*\n"
)

// maxNameBytes caps a spill file's name well under NAME_MAX (255 bytes on
// Linux and macOS), leaving room for the temp-file prefix and suffix that
// package atomicfile adds beside it.
const maxNameBytes = 160

// maxTries bounds the search for a free name: the hint already holds the
// tool_use_id, so a clash means the same call was spilled again (a retry).
const maxTries = 1000

// TmpDir is the folder in the spill folder where spill files are written
// before they are linked into place: a folder of their own, so that the
// leftovers of a writer killed midway are found without listing every
// spill there ever was.
const TmpDir = ".tmp"

// Dir is the spill folder of the workbench rooted at root.
func Dir(root string) string { return filepath.Join(root, workbench.SpillDir) }

// Folder is an open spill folder: a handle (os.Root) through which every
// file in it is written, so that no name in it, committed or swapped in
// while a hook runs, leads a write outside.
type Folder struct {
	Path string // absolute
	root *os.Root
}

// Open makes dir usable as a spill folder and opens it. The folder above it
// (the workbench) is created if missing, with its parents and the
// workbench's .gitignore (workbench.Make), then dir in it; folders are made
// with DirPerm, and one that exists keeps its mode. Either is refused when
// it is a symlink (a repository can commit one that leads anywhere) or not
// a folder, checked after the mkdir so that what passes is what is there.
// The folder's ignore rule is written when missing; a folder whose
// .gitignore is anything else, or that is a repository's top folder (its
// rule would hide the repository's new files), is refused: nothing is
// spilled there.
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
	b, err := f.read(IgnoreFile, len(IgnoreRule))
	switch {
	case err == nil && string(b) == IgnoreRule:
		return nil
	case err == nil || !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("its %s is not flower's ignore rule, so tool output there could be committed: "+
			"remove it, or name a folder of flower's own", IgnoreFile)
	}
	if _, err := f.root.Lstat(".git"); err == nil {
		return errors.New("it is a repository's top folder, where flower's ignore rule would hide the repository's new files: name a folder of flower's own")
	}
	err = atomicfile.Create(f.root, ".", IgnoreFile, FilePerm, false, func(w io.Writer) error {
		_, err := io.WriteString(w, IgnoreRule)
		return err
	})
	if errors.Is(err, fs.ErrExist) { // a parallel spill wrote it first
		if b, err := f.read(IgnoreFile, len(IgnoreRule)); err != nil || string(b) != IgnoreRule {
			return fmt.Errorf("its %s changed while it was written", IgnoreFile)
		}
		return nil
	}
	return err
}

// read returns the regular file name of the folder, of at most limit bytes.
// It is checked with lstat, not followed if a link, and opened without
// blocking, so that a FIFO swapped in cannot hold the hook.
func (f *Folder) read(name string, limit int) ([]byte, error) {
	fi, err := f.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	file, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if opened, err := file.Stat(); err != nil || !os.SameFile(fi, opened) {
		return nil, fmt.Errorf("%s changed while it was opened", name)
	}
	b, err := io.ReadAll(io.LimitReader(file, int64(limit)+1))
	if err == nil && len(b) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return b, err
}

// File describes one spilled text.
type File struct {
	Path  string // absolute path of the spill file
	Chars int64  // characters (code points) in the file
	Lines int64  // lines in the file
	Head  string // the first characters of the text, cut on a character boundary
	// Note, when set, is one more sentence for the pointer, for example
	// that the file holds less than the whole output.
	Note string
}

// Pointer is the line that stands for the spilled text in context.
func (f File) Pointer() string {
	var b strings.Builder
	// The wording is what ParsePointers reads back (context-audit counts
	// spills from transcripts by it): change both together.
	b.WriteString(pointerStart)
	b.WriteString(count(f.Chars, pointerChars, pointerChar))
	b.WriteString(count(f.Lines, pointerLines, pointerLine))
	b.WriteString(f.Path)
	b.WriteString(pointerRead)
	if f.Note != "" {
		b.WriteString(" " + strings.TrimSpace(f.Note))
	}
	if f.Head != "" {
		if n := runeCount(f.Head); n == 1 {
			b.WriteString(" The first character follows.")
		} else {
			b.WriteString(" The first " + strconv.Itoa(n) + " characters follow.")
		}
	}
	b.WriteString("]")
	return b.String()
}

// count writes n and the plural or, for one, the singular suffix.
func count(n int64, plural, singular string) string {
	if n == 1 {
		return "1" + singular
	}
	return strconv.FormatInt(n, 10) + plural
}

// Text is what replaces the spilled text: the pointer line, then the head.
func (f File) Text() string {
	if f.Head == "" {
		return f.Pointer()
	}
	return f.Pointer() + "\n" + f.Head
}

// Write creates a new file in the folder holding what fill writes, and
// returns its description with the first head characters. The file is named
// from hint (sanitized, with ".txt"), with "-2", "-3", … added when the name
// is taken: Write never replaces a file. The file is whole before Write
// returns (written to a temporary file and linked into place), synced when
// sync is set; when fill or the write fails nothing is left behind. If a
// parallel writer takes the chosen name first, fill runs again for the next
// name, so it must be able to write the text more than once.
//
// Without the sync, the file is still whole or absent for every reader when
// the process dies midway (killed at its timeout, say); only a crash of the
// whole system may lose it. spill-guard writes so: its pointer lives only in
// Claude Code's transcript, which Claude Code 2.1.328 appends to without
// fsync, so such a crash is likely to lose the pointer too.
func (f *Folder) Write(hint string, head int, sync bool, fill func(io.Writer) error) (File, error) {
	if err := f.root.Mkdir(TmpDir, DirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return File{}, err
	}
	if fi, err := f.root.Lstat(TmpDir); err != nil || !fi.IsDir() {
		return File{}, fmt.Errorf("%s is not a folder", filepath.Join(f.Path, TmpDir))
	}
	base := sanitize(hint)
	for try := 1; try <= maxTries; try++ {
		name := base + ".txt"
		if try > 1 {
			name = fmt.Sprintf("%s-%d.txt", base, try)
		}
		if _, err := f.root.Lstat(name); err == nil {
			continue
		}
		var c *counter
		err := atomicfile.Create(f.root, TmpDir, name, FilePerm, sync, func(w io.Writer) error {
			// Unbuffered: every fill writes large pieces.
			c = newCounter(w, head)
			return fill(c)
		})
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return File{}, err
		}
		return File{Path: filepath.Join(f.Path, name), Chars: c.chars, Lines: c.lines(), Head: string(c.head)}, nil
	}
	return File{}, fmt.Errorf("no free name for %s in %s after %d tries", base, f.Path, maxTries)
}

// RemoveStale removes what killed writers left in the folder
// (atomicfile.RemoveStale).
func (f *Folder) RemoveStale() { atomicfile.RemoveStale(f.root, TmpDir) }

// sanitize turns hint into a file name: letters, digits, '.', '_' and '-'
// are kept, every other byte becomes '_', a leading dot is dropped so the
// file is not hidden, and the result is capped at maxNameBytes.
func sanitize(hint string) string {
	b := []byte(hint)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".")
	if len(s) > maxNameBytes {
		s = s[:maxNameBytes]
	}
	if s == "" {
		s = "spill"
	}
	return s
}

// Holds reports whether path (absolute, or relative to the current
// directory) names something inside the spill folder dir, after cleaning
// both and resolving their symlinks as far as they exist. A read of such a
// file must never be spilled again: the pointer's "use Read" would loop.
func Holds(dir, path string) bool {
	_, ok := workbench.Within(dir, path)
	return ok
}
