// Package spill keeps long text out of a model's context: it writes the text
// whole to a new file in the workbench's spill folder and gives the pointer
// that stands for it in context (a line naming the file, its size, and how
// to read it back) followed by the text's first characters.
//
// Layer three (spill-guard) spills long tool results as they happen; layer
// four (prune-session --trim) spills long results of a stored transcript.
// Both go through Write (spill-guard through WriteUnsynced), so the file
// naming, the permissions and the pointer wording live here once.
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

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// Tool output can hold secrets (tokens in env dumps, keys in config files),
// so the folder and its files are the owner's alone.
const (
	DirPerm  fs.FileMode = workbench.DirPerm
	FilePerm fs.FileMode = workbench.FilePerm
)

// maxNameBytes caps a spill file's name well under NAME_MAX (255 bytes on
// Linux and macOS), leaving room for the temp-file prefix and suffix that
// package atomicfile adds beside it.
const maxNameBytes = 160

// maxTries bounds the search for a free name: the hint already holds the
// tool_use_id, so a clash means the same call was spilled again (a retry).
const maxTries = 1000

// Dir is the spill folder of the workbench rooted at root.
func Dir(root string) string { return filepath.Join(root, workbench.SpillDir) }

// Ready reports whether dir is a spill folder as Prepare leaves one: a
// folder, not a symlink, with DirPerm, in a workbench folder that is not a
// symlink either. Prepare then changes nothing.
func Ready(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != DirPerm {
		return false
	}
	wb, err := os.Lstat(filepath.Dir(dir))
	return err == nil && wb.IsDir()
}

// Prepare makes dir usable as a spill folder. The folder above it is the
// workbench: it is created if missing (with its parents, DirPerm, and a
// .gitignore: see workbench.Make), then dir in it. Either is refused when it
// is a symlink (a repository can commit one that leads anywhere: tool
// output would follow it) or not a folder, and dir's permissions are
// narrowed to DirPerm. Each check follows the mkdir, so what passes is what
// is there. A folder already Ready costs two lstats.
func Prepare(dir string) error {
	if Ready(dir) {
		return nil
	}
	w, err := workbench.Make(filepath.Dir(dir))
	if err != nil {
		return err
	}
	defer w.Close()
	return w.Folder(filepath.Base(dir))
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

// Write creates a new file in dir holding what fill writes, and returns its
// description with the first head characters. The file is named from hint
// (sanitized, with ".txt"), with "-2", "-3", … added when the name is taken:
// Write never replaces a file. The file is complete on disk (written to a
// temporary file, synced, linked into place) before Write returns; when
// fill or the write fails nothing is left behind. If a parallel writer takes
// the chosen name between the check and the link, fill runs again for the
// next name, so it must be able to write the text more than once. Each of
// fill's writes goes to the file as it is: write large pieces.
func Write(dir, hint string, head int, fill func(io.Writer) error) (File, error) {
	return write(dir, hint, head, fill, true)
}

// WriteUnsynced is Write without the fsync. The file is still whole or
// absent for every reader when the process dies midway (killed at its
// timeout, say); only a crash of the whole system before the kernel writes
// it back may lose it. spill-guard uses it: its pointer lives only in
// Claude Code's transcript, which Claude Code 2.1.328 appends to without
// fsync (checked with strace: of its files it syncs only .claude.json), so
// a system crash that loses the file is likely to lose the pointer too; and
// Write's fsync never covered the folder entry either. The sync took 1 to
// 2 ms of a 20 ms run for a 10 KB output, and a wait for the disk for a
// large one.
func WriteUnsynced(dir, hint string, head int, fill func(io.Writer) error) (File, error) {
	return write(dir, hint, head, fill, false)
}

// tmpName is the folder in the spill folder where spill files are written
// before they are linked into place: a folder of their own, so that the
// leftovers of a writer killed midway are found without listing every
// spill there ever was. It stays once made: removing an empty folder cost
// 0.3 to 4 ms on ext4, a third of a hook's run.
const tmpName = ".tmp"

// create writes path with what fill writes, through a temporary file in
// the folder tmp.
func create(tmp, path string, sync bool, fill func(io.Writer) error) error {
	if err := os.Mkdir(tmp, DirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(tmp); err != nil || !fi.IsDir() {
		// A symlink planted there could send tool output out of the
		// workbench.
		return fmt.Errorf("%s is not a folder", tmp)
	}
	return atomicfile.WriteNewIn(tmp, path, FilePerm, sync, fill)
}

// RemoveStale removes what killed writers left in the spill folder dir
// (atomicfile.RemoveStale).
func RemoveStale(dir string) { atomicfile.RemoveStale(filepath.Join(dir, tmpName)) }

func write(dir, hint string, head int, fill func(io.Writer) error, sync bool) (File, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return File{}, err
	}

	base := sanitize(hint)
	for try := 1; try <= maxTries; try++ {
		name := base + ".txt"
		if try > 1 {
			name = fmt.Sprintf("%s-%d.txt", base, try)
		}
		path := filepath.Join(abs, name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		var c *counter
		err := create(filepath.Join(abs, tmpName), path, sync, func(w io.Writer) error {
			// Unbuffered: every fill writes large pieces (spill-guard's
			// decoded chunks, a whole text, io.Copy's 32 KB), and a buffer
			// would only copy them once more.
			c = newCounter(w, head)
			return fill(c)
		})
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return File{}, err
		}
		return File{Path: path, Chars: c.chars, Lines: c.lines(), Head: string(c.head)}, nil
	}
	return File{}, fmt.Errorf("no free name for %s in %s after %d tries", base, abs, maxTries)
}

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
