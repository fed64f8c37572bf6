package spillguard

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// readsSpill reports whether the call read a spill file back: a Read whose
// file_path lies in the spill folder dir, or a Bash glance whose words name a
// file there (see namesSpillFile). Spilling that would answer the pointer's
// "use Read" with another pointer, a loop the model can only escape a few
// lines at a time.
func readsSpill(p *hook.Payload, g *ephemeral.Glances, tool, root, dir string) bool {
	switch tool {
	case "Read":
		path, ok, err := p.ToolInputString("file_path")
		return err == nil && ok && path != "" && spill.Holds(dir, inBase(p.Cwd(), path))
	case "Bash":
		cmd, ok, err := p.ToolInputString("command")
		return err == nil && ok && g.IsEphemeral(cmd) && namesSpillFile(cmd, p.Cwd(), root, dir)
	}
	return false
}

// The two ways of erring here are not equal: a read of a spill file spilled
// again is the loop above, while a glance wrongly let through only costs the
// context its output takes. So where a word's meaning is open, it is taken
// to name a spill file; only words whose value is known when the command
// runs (expansions, substitutions) are left out, having no value to test.
// The same goes for a command too costly to check: past the caps below the
// answer is "it may", at once, so that the work stays linear in the
// command's length and bounded (the glance table caps that length too).
const (
	// maxBases caps the folders words are tried against: a chain of n cds
	// could otherwise make 2^n of them. No glance needs more.
	maxBases = 64
	// maxBraceWords caps the words one brace expansion is taken apart into;
	// a word with more ({1..100000}) is taken to name a spill file.
	maxBraceWords = 256
	// maxPaths caps the paths (words times folders) tried for one command:
	// each costs a stat at most, about a microsecond, so the check stays
	// within milliseconds.
	maxPaths = 1 << 14
)

// namesSpillFile reports whether a word of cmd, a glance, may name a file in
// the spill folder dir. A word is tried relative to the payload cwd, to the
// workbench root, and to every folder a cd with a plain argument moves to
// from either, wherever that cd stands in cmd (the classifier has vouched
// for every segment, and trying a folder too many is the safe mistake). A
// glob or brace word names spill files when some path it could expand to
// lies in dir.
func namesSpillFile(cmd, cwd, root, dir string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	bases, ok := cdBases(f, []base{{path: cwd}, {path: root, guess: true}})
	if !ok {
		return true
	}
	l := looker{dir: dir, left: maxPaths, holds: map[string]bool{}, down: map[string]downTo{}}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok || found {
			return !found
		}
		found = l.word(w, bases)
		return false
	})
	return found
}

// base is a folder a command's relative words are tried in.
type base struct {
	path string
	// guess is true for the workbench root and the folders reached from it:
	// the command did not run there unless the payload's cwd is wrong, so
	// wildcards in folder names (*/*.go) are not matched against the way
	// down to the spill folder, which would let a common glance through
	// for a loop that needs a wrong cwd.
	guess bool
}

// cdBases returns bases and every folder a cd in f moves to from any of
// them, in source order, so that "cd a && cd b" gives a/b; false when they
// are more than maxBases.
func cdBases(f *syntax.File, bases []base) ([]base, bool) {
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		call, isCall := n.(*syntax.CallExpr)
		if !isCall || !ok {
			return ok
		}
		target, isCd := cdTarget(call)
		if !isCd {
			return true
		}
		for _, b := range slices.Clone(bases) {
			if next := (base{inBase(b.path, target), b.guess}); !slices.Contains(bases, next) {
				bases = append(bases, next)
			}
		}
		ok = len(bases) <= maxBases
		return ok
	})
	return bases, ok
}

// cdTarget is the folder a cd call moves to, when it is a plain word. "cd"
// alone (home) and "cd -" (the previous folder) have none the hook knows.
func cdTarget(call *syntax.CallExpr) (string, bool) {
	if len(call.Args) < 2 || call.Args[0].Lit() != "cd" {
		return "", false
	}
	args := call.Args[1:]
	for len(args) > 0 {
		opt := args[0].Lit()
		if opt == "--" {
			args = args[1:]
			break
		}
		// bash's cd options: -L, -P, -e, -@, and their combinations.
		if len(opt) < 2 || opt[0] != '-' || strings.Trim(opt[1:], "LPe@") != "" {
			break
		}
		args = args[1:]
	}
	if len(args) != 1 {
		return "", false
	}
	words, ok := expandBraces(args[0])
	if !ok || len(words) != 1 {
		return "", false
	}
	pat, ok := pattern(words[0])
	if !ok || pat == "" || pat == "-" || firstMeta(pat) >= 0 {
		return "", false
	}
	return unescape(pat), true
}

// looker tries the words of one command against the spill folder dir. It
// remembers what it learnt of each folder, so that a folder is resolved
// once however many words name files in it, and it counts the paths tried.
type looker struct {
	dir   string
	left  int               // paths still to be tried before the answer is "it may"
	holds map[string]bool   // folder: it is dir or lies inside it
	down  map[string]downTo // folder: the way down from it to dir
}

// downTo is the way from a folder down to the spill folder, if dir lies
// inside it.
type downTo struct {
	rel    string
	inside bool
}

// word reports whether w, tried relative to each of bases, may name a file
// in dir. The value of a --flag=value word is tried too.
func (l *looker) word(w *syntax.Word, bases []base) bool {
	words, ok := expandBraces(w)
	if !ok {
		return true // too many to try
	}
	for _, w := range words {
		pat, ok := pattern(w)
		if !ok || pat == "" {
			continue
		}
		pats := []string{pat}
		if _, value, isFlag := strings.Cut(pat, "="); isFlag && pat[0] == '-' && value != "" {
			pats = append(pats, value)
		}
		for _, pat := range pats {
			for _, b := range bases {
				if l.left--; l.left < 0 || l.pattern(b, pat) {
					return true
				}
			}
		}
	}
	return false
}

// maxPathBytes is the longest path the kernel opens (PATH_MAX on Linux): a
// longer word names no file, unless a wildcard stands for part of it.
const maxPathBytes = 4096

// pattern reports whether pat, a path in filepath.Match syntax taken
// relative to b, may name a file strictly inside dir. Up to the folder that
// holds its first wildcard it is a plain path: if that folder is dir or
// inside it, every expansion is; if it holds dir (and b is no guess), the
// rest of pat is matched against the path down to dir, component by
// component, and pat must go deeper than dir. Dot names count as matched by
// "*" (bash's dotglob may be on), and "**" as reaching any depth (globstar
// may be).
func (l *looker) pattern(b base, pat string) bool {
	i := firstMeta(pat)
	if i < 0 {
		return len(pat) <= maxPathBytes && l.file(inBase(b.path, unescape(pat)))
	}
	slash := strings.LastIndex(pat[:i], "/")
	from := inBase(b.path, unescape(pat[:slash+1]))
	if from == "" {
		from = "."
	}
	if l.folderHolds(from) {
		return true
	}
	down := l.downFrom(from)
	if !down.inside || b.guess {
		return false
	}
	steps := strings.Split(down.rel, string(filepath.Separator))
	rest := pat[slash+1:]
	for i := 0; rest != ""; {
		c, tail, _ := strings.Cut(rest, "/")
		rest = tail
		if c == "" {
			continue
		}
		if i == len(steps) || strings.Contains(c, "**") {
			return true
		}
		if ok, err := filepath.Match(c, steps[i]); err != nil || !ok {
			return err != nil // a pattern Go cannot read may still match
		}
		i++
	}
	return false
}

// file reports whether path lies strictly inside dir: its folder is dir or
// inside it, or its last element is a symlink that leads there.
func (l *looker) file(path string) bool {
	if l.folderHolds(filepath.Dir(path)) {
		return true
	}
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0 && spill.Holds(l.dir, path)
}

// folderHolds reports whether folder is dir or lies inside it.
func (l *looker) folderHolds(folder string) bool {
	h, ok := l.holds[folder]
	if !ok {
		h = spill.Holds(l.dir, filepath.Join(folder, "name"))
		l.holds[folder] = h
	}
	return h
}

// downFrom is the way from folder down to dir.
func (l *looker) downFrom(folder string) downTo {
	d, ok := l.down[folder]
	if !ok {
		d.rel, d.inside = workbench.Within(folder, l.dir)
		l.down[folder] = d
	}
	return d
}

// expandBraces returns the words w expands to by brace expansion (w alone
// when it has none), false when they are more than maxBraceWords. It
// leaves w as it is: syntax.Walk panics on the brace nodes SplitBraces
// puts in a word, and cdBases reads words while it walks.
func expandBraces(w *syntax.Word) ([]*syntax.Word, bool) {
	split := *w
	if !syntax.SplitBraces(&split) {
		return []*syntax.Word{w}, true
	}
	var words []*syntax.Word
	for x, err := range expand.BracesSeq(nil, &split) {
		if err != nil || len(words) == maxBraceWords {
			return nil, false
		}
		words = append(words, x)
	}
	return words, true
}

// pattern is w after quote removal, in filepath.Match syntax: quoted
// wildcards are escaped, unquoted ones kept, and an extended glob (@(a|b))
// becomes "*", which matches all it can. A leading ~ or ~/ becomes the home
// folder. False when w holds an expansion whose value is only known when the
// command runs.
func pattern(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v := x.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				home, err := os.UserHomeDir()
				if err != nil || v != "~" && !strings.HasPrefix(v, "~/") {
					return "", false // ~user, or no home to go to
				}
				v = escape(home) + v[1:]
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(escape(x.Value))
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(lit.Value, `\`) {
					return "", false
				}
				b.WriteString(escape(lit.Value))
			}
		case *syntax.ExtGlob:
			b.WriteString("*")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// metaChars are the wildcards of filepath.Match, and of the shell's globs.
const metaChars = "*?["

// escape makes every character of s literal in filepath.Match syntax.
func escape(s string) string {
	if !strings.ContainsAny(s, metaChars+`\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(metaChars+`\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// firstMeta is the index in pat of its first wildcard not escaped by a
// backslash, or -1.
func firstMeta(pat string) int {
	for i := 0; i < len(pat); i++ {
		switch {
		case pat[i] == '\\':
			i++
		case strings.IndexByte(metaChars, pat[i]) >= 0:
			return i
		}
	}
	return -1
}

// unescape drops the backslashes of pat, a pattern without wildcards.
func unescape(pat string) string {
	if !strings.Contains(pat, `\`) {
		return pat
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		if pat[i] == '\\' && i+1 < len(pat) {
			i++
		}
		b.WriteByte(pat[i])
	}
	return b.String()
}

// inBase is path taken relative to base, when it is not absolute and there
// is a base.
func inBase(base, path string) string {
	if filepath.IsAbs(path) || base == "" {
		return path
	}
	return filepath.Join(base, path)
}

// openRegular opens path for reading and checks it is a regular file. The
// open does not block, so a FIFO planted at the path cannot hang the hook.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, fi, nil
}
