package spillguard

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// readsSpill reports whether the call read a spill file back: a Read whose
// file_path lies in the spill folder, or a Bash glance whose words may name
// a file there. Spilling that would answer the pointer's "use Read" with
// another pointer, a loop the model escapes a few lines at a time.
func (g *guard) readsSpill(tool, root string) bool {
	glances, err := ephemeral.NewGlances(g.cfg.Extras())
	config.Warn(g.c, err)
	dir, cwd := spill.Dir(root), g.p.Cwd()
	switch tool {
	case "Read":
		path, ok, err := g.p.ToolInputString("file_path")
		return err == nil && ok && path != "" && within(dir, inBase(cwd, path))
	case "Bash":
		cmd, ok, err := g.p.ToolInputString("command")
		return err == nil && ok && glances.IsEphemeral(cmd) && namesSpillFile(cmd, cwd, root, dir)
	}
	return false
}

// A glance let through wrongly only costs context, a loop more: a word whose
// meaning is open names a spill file, as does every word past these caps.
const (
	maxBases      = 64      // folders words are tried in: n cds could make 2^n
	maxBraceWords = 256     // words one brace expansion is tried as
	maxPaths      = 1 << 14 // paths tried for a command, a stat each at most
)

// namesSpillFile reports whether a word of cmd may name a file in the spill
// folder dir, from cwd, root, and every folder a plain cd in cmd moves to:
// a glob or brace when some expansion may lie in dir; a word known only
// when cmd runs names none.
func namesSpillFile(cmd, cwd, root, dir string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	// The command runs in root only if the payload's cwd is wrong: from
	// there (Mark) wildcards in folder names (*/*.go) are not matched.
	bases := []ephemeral.Dir{{Path: cwd}, {Path: root, Mark: true}}
	var words []*syntax.Word
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if target, isCd := cdTarget(n); isCd && ok {
				bases, ok = ephemeral.Cd(bases, target, maxBases)
			}
		case *syntax.Word:
			words = append(words, n)
			return false
		}
		return true
	})
	l := looker{dir: dir, left: maxPaths, holds: map[string]bool{}, down: map[string]string{}}
	return !ok || slices.ContainsFunc(words, func(w *syntax.Word) bool { return l.word(w, bases) })
}

// cdTarget is the folder a cd call moves to, when it is a plain word.
func cdTarget(call *syntax.CallExpr) (string, bool) {
	if len(call.Args) < 2 || call.Args[0].Lit() != "cd" {
		return "", false
	}
	args := call.Args[1:]
	for len(args) > 0 && len(args[0].Lit()) > 1 && args[0].Lit()[0] == '-' && strings.Trim(args[0].Lit()[1:], "LPe@") == "" {
		args = args[1:] // bash's cd options
	}
	if len(args) > 0 && args[0].Lit() == "--" {
		args = args[1:]
	}
	if len(args) != 1 {
		return "", false
	}
	words, why := ephemeral.Braces(args[0], maxBraceWords)
	if why != "" || len(words) != 1 {
		return "", false
	}
	v, glob, ok := value(words[0])
	return v, ok && !glob
}

// value is the value bash passes for w (ephemeral.Word), with a leading ~
// made the home folder.
func value(w *syntax.Word) (string, bool, bool) {
	v, glob, ok := ephemeral.Word(w)
	if v == "~" || strings.HasPrefix(v, "~/") {
		home, err := os.UserHomeDir()
		v, ok = home+v[1:], ok && err == nil
	}
	return v, glob, ok
}

// looker tries the words of one command against the spill folder dir,
// resolving each folder once.
type looker struct {
	dir   string
	left  int               // paths still to be tried before the answer is "it may"
	holds map[string]bool   // folder: it is dir or lies inside it
	down  map[string]string // folder: the way down from it to dir, "" if dir is not inside
}

// word reports whether w, tried from each of bases, may name a file in
// dir; so may the value of a --flag=value word.
func (l *looker) word(w *syntax.Word, bases []ephemeral.Dir) bool {
	words, why := ephemeral.Braces(w, maxBraceWords)
	if why != "" {
		return true // too many to try
	}
	for _, w := range words {
		v, glob, ok := value(w)
		if !ok && slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool { _, ext := p.(*syntax.ExtGlob); return ext }) {
			return true // @(a|b) and the like: a pattern, taken to match all it can
		}
		if !ok || v == "" {
			continue
		}
		vals := []string{v}
		if _, flagValue, isFlag := strings.Cut(v, "="); isFlag && v[0] == '-' && flagValue != "" {
			vals = append(vals, flagValue)
		}
		for _, v := range vals {
			for _, b := range bases {
				if l.left--; l.left < 0 || l.path(b, v, glob) {
					return true
				}
			}
		}
	}
	return false
}

// maxPathBytes is PATH_MAX on Linux: a longer word names no file, unless a
// wildcard stands for part of it.
const maxPathBytes = 4096

// path reports whether p, from b (a pattern if glob), may name a file
// inside dir: when the folder of its first wildcard is in dir, or holds dir
// (b no guess) and the rest of p matches the way down and deeper. "*" may
// match dot names (dotglob), "**" any depth (globstar).
func (l *looker) path(b ephemeral.Dir, p string, glob bool) bool {
	i := -1
	if glob {
		i = strings.IndexAny(p, "*?[")
	}
	if i < 0 {
		return len(p) <= maxPathBytes && l.file(inBase(b.Path, p))
	}
	slash := strings.LastIndex(p[:i], "/")
	from := cmp.Or(inBase(b.Path, p[:slash+1]), ".")
	if l.folderHolds(from) {
		return true
	}
	down, ok := l.down[from]
	if !ok {
		if rel, in := workbench.Within(from, l.dir); in {
			down = rel
		}
		l.down[from] = down
	}
	if down == "" || b.Mark {
		return false
	}
	steps := strings.Split(down, string(filepath.Separator))
	for i, c := range strings.FieldsFunc(p[slash+1:], func(r rune) bool { return r == '/' }) {
		if i == len(steps) || strings.Contains(c, "**") {
			return true
		}
		if ok, err := filepath.Match(c, steps[i]); err != nil || !ok {
			return err != nil // a pattern Go cannot read may still match
		}
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
	return err == nil && fi.Mode()&fs.ModeSymlink != 0 && within(l.dir, path)
}

// folderHolds reports whether folder is dir or lies inside it.
func (l *looker) folderHolds(folder string) bool {
	h, ok := l.holds[folder]
	if !ok {
		h = within(l.dir, filepath.Join(folder, "name"))
		l.holds[folder] = h
	}
	return h
}

// within reports whether path lies strictly inside dir, symlinks resolved.
func within(dir, path string) bool {
	_, ok := workbench.Within(dir, path)
	return ok
}

// inBase is path taken from base, when it is relative and there is a base.
func inBase(base, path string) string {
	if filepath.IsAbs(path) || base == "" {
		return path
	}
	return filepath.Join(base, path)
}
