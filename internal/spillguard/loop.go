package spillguard

import (
	"fmt"
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
func readsSpill(p *hook.Payload, tool, root, dir string) bool {
	switch tool {
	case "Read":
		path, ok, err := p.ToolInputString("file_path")
		return err == nil && ok && path != "" && spill.Holds(dir, inBase(p.Cwd(), path))
	case "Bash":
		cmd, ok, err := p.ToolInputString("command")
		return err == nil && ok && ephemeral.IsEphemeral(cmd) && namesSpillFile(cmd, p.Cwd(), root, dir)
	}
	return false
}

// The two ways of erring here are not equal: a read of a spill file spilled
// again is the loop above, while a glance wrongly let through only costs the
// context its output takes. So where a word's meaning is open, it is taken
// to name a spill file; only words whose value is known when the command
// runs (expansions, substitutions) are left out, having no value to test.
const (
	// maxBases caps the folders words are tried against: a chain of n cds
	// could otherwise make 2^n of them. No glance needs more.
	maxBases = 64
	// maxBraceWords caps the words one brace expansion is taken apart into;
	// a word with more ({1..100000}) is taken to name a spill file.
	maxBraceWords = 256
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
	bases := cdBases(f, []base{{path: cwd}, {path: root, guess: true}})
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok || found {
			return !found
		}
		found = wordNamesSpill(w, bases, dir)
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
// them, in source order, so that "cd a && cd b" gives a/b.
func cdBases(f *syntax.File, bases []base) []base {
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		target, ok := cdTarget(call)
		if !ok {
			return true
		}
		for _, b := range slices.Clone(bases) {
			if next := (base{inBase(b.path, target), b.guess}); len(bases) < maxBases && !slices.Contains(bases, next) {
				bases = append(bases, next)
			}
		}
		return true
	})
	return bases
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

// wordNamesSpill reports whether w, tried relative to each of bases, may
// name a file in dir. The value of a --flag=value word is tried too.
func wordNamesSpill(w *syntax.Word, bases []base, dir string) bool {
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
				if patternInSpill(b, pat, dir) {
					return true
				}
			}
		}
	}
	return false
}

// patternInSpill reports whether pat, a path in filepath.Match syntax taken
// relative to b, may name a file strictly inside dir. Up to the folder that
// holds its first wildcard it is a plain path: if that folder is dir or
// inside it, every expansion is; if it holds dir (and b is no guess), the
// rest of pat is matched against the path down to dir, component by
// component, and pat must go deeper than dir. Dot names count as matched by
// "*" (bash's dotglob may be on), and "**" as reaching any depth (globstar
// may be).
func patternInSpill(b base, pat, dir string) bool {
	i := firstMeta(pat)
	if i < 0 {
		return spill.Holds(dir, inBase(b.path, unescape(pat)))
	}
	slash := strings.LastIndex(pat[:i], "/")
	from := inBase(b.path, unescape(pat[:slash+1]))
	if from == "" {
		from = "."
	}
	// A name in from lies in dir when from is dir or inside it.
	if spill.Holds(dir, filepath.Join(from, "name")) {
		return true
	}
	rel, ok := workbench.Within(from, dir)
	if !ok || b.guess {
		return false
	}
	down := strings.Split(rel, string(filepath.Separator))
	var rest []string
	for _, c := range strings.Split(pat[slash+1:], "/") {
		if c != "" {
			rest = append(rest, c)
		}
	}
	for i, c := range rest {
		if i == len(down) || strings.Contains(c, "**") {
			return true
		}
		if ok, err := filepath.Match(c, down[i]); err != nil || !ok {
			return err != nil // a pattern Go cannot read may still match
		}
	}
	return false
}

// expandBraces returns the words w expands to by brace expansion (w alone
// when it has none), false when they are more than maxBraceWords. It may
// rewrite w's parts, which are the caller's parse.
func expandBraces(w *syntax.Word) ([]*syntax.Word, bool) {
	if !syntax.SplitBraces(w) {
		return []*syntax.Word{w}, true
	}
	var words []*syntax.Word
	for x, err := range expand.BracesSeq(nil, w) {
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
