package ephemeral

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flowerhooks/flower/pkg/extra"
)

// Extra is an entry a configuration adds to the glance table (docker ps),
// or with MainThread a hands-on command the main thread may run itself
// (make test). A line naming it passes every check any other line does;
// the entry only says which words may follow the name.
type Extra = extra.Entry

// Glances is the glance table with a configuration's extra entries; the
// built-in table alone is a nil *Glances (builtin).
type Glances struct {
	extras map[string][]*entry // by command name
	all    []*entry            // in the order given
}

var builtin *Glances

// entry is an Extra made ready to match.
type entry struct {
	Extra
	words []string // Command split at spaces; words[0] is the name
	allow options
}

// No entry may name these refusals: through them a line runs other code
// than its words show, never ends, or changes the shell.
var extraNever = []string{"runs another command",
	"a programming language: its script can write files and run commands",
	"interactive or never ends", "changes the shell or other processes"}

// shellWords are bash 5.2's builtins and keywords (compgen -b -k): bash
// runs its own, not the program of the name, and several run other code.
var shellWords = []string{".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd",
	"command", "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
	"enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help",
	"history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd",
	"read", "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
	"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
	"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
	"done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc"}

// codeRunners run code or another program they are given, also with a
// version after the name (python3.12, node18).
var codeRunners = []string{"python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl",
	"php", "lua", "luajit", "tclsh", "wish", "expect", "Rscript", "julia", "jshell", "groovy",
	"osascript", "pwsh", "powershell", "guile", "racket", "sbcl", "clisp", "ghci", "runghc",
	"npx", "pnpx", "bunx", "uvx", "pipx", "strace", "ltrace", "gdb", "lldb", "valgrind",
	"nix-shell", "firejail", "unshare", "nsenter", "systemd-run", "ssh", "script", "screen", "tmux",
	"at", "batch", "ed", "ex"}

// maxExtraWords bounds the words of an entry's Command, maxExtras the
// entries of a table: a configuration holds a few dozen.
const (
	maxExtraWords = 8
	maxExtras     = 1000
)

// NewGlances returns the built-in table with the extras that may be made;
// each that may not is left out and named in the error (an *ExtraError
// each, joined).
func NewGlances(extras []Extra) (*Glances, error) {
	if len(extras) > maxExtras {
		return builtin, fmt.Errorf("%d extra entries, at most %d: none is used", len(extras), maxExtras)
	}
	var g *Glances
	var errs []error
	for i, e := range extras {
		x, err := newExtra(e)
		if err != nil {
			errs = append(errs, &ExtraError{Index: i, Entry: e, Err: err})
			continue
		}
		if g == nil {
			g = &Glances{extras: map[string][]*entry{}}
		}
		g.extras[x.words[0]] = append(g.extras[x.words[0]], x)
		g.all = append(g.all, x)
	}
	return g, errors.Join(errs...)
}

// ExtraError is why one entry given to NewGlances may not be made.
type ExtraError struct {
	Index int
	Entry Extra
	Err   error
}

func (e *ExtraError) Error() string {
	key := "glances"
	if e.Entry.MainThread {
		key = "delegate-guard.main-thread"
	}
	msg := fmt.Sprintf("%s entry %q: %v", key, e.Entry.Command, e.Err)
	if e.Entry.File != "" {
		msg = fmt.Sprintf("%s:%d: %s", e.Entry.File, e.Entry.Line, msg)
	}
	return msg
}

func (e *ExtraError) Unwrap() error { return e.Err }

func newExtra(e Extra) (*entry, error) {
	words := strings.Split(e.Command, " ")
	name := words[0]
	switch {
	case e.Command == "":
		return nil, errors.New("no command")
	case len(words) > maxExtraWords:
		return nil, fmt.Errorf("more than %d words", maxExtraWords)
	case name == "" || !isWordByte(name[0], "_") || !allBytes(name, "._+-"):
		return nil, fmt.Errorf("command name %q is not a plain name (letters, digits, and . _ + - after the first; no slash, no spaces around it)", name)
	case e.Operands < -1:
		return nil, fmt.Errorf("operands is %d, want 0 or more", e.Operands)
	}
	for _, w := range words[1:] {
		if w == "" || !allBytes(w, "_./:@%+,=-") {
			return nil, fmt.Errorf("word %q holds a character the shell gives a meaning, or is empty (one space between words)", w)
		}
	}
	why, refused := refusedWhy(name)
	switch {
	case slices.Contains(shellWords, name):
		return nil, fmt.Errorf("%s is a shell builtin or keyword: bash runs its own, not a program", name)
	case refused && slices.Contains(extraNever, why):
		return nil, fmt.Errorf("%s: %s; no entry may name it", name, why)
	case refused && why == writersWhy && !e.MainThread:
		return nil, fmt.Errorf("%s: %s; it cannot be a glance (a hands-on entry, under delegate-guard.main-thread, may name it)", name, why)
	}
	for _, r := range codeRunners {
		if rest, ok := strings.CutPrefix(name, r); ok && strings.Trim(rest, "0123456789.-") == "" {
			return nil, fmt.Errorf("%s: %s runs code it is given (a script, a package, another program); no entry may name it", name, r)
		}
	}
	if find(table, name) != nil && !e.MainThread {
		return nil, fmt.Errorf("%s is on the built-in glance table, whose rules an entry does not change", name)
	}
	x := &entry{Extra: e, words: words, allow: options{}}
	for _, spec := range e.Options {
		if !x.allow.add(spec) {
			return nil, fmt.Errorf("option %q: spell it -x, -x VALUE, --name, --name=VALUE or --name[=VALUE]", spec)
		}
	}
	return x, nil
}

// allBytes reports whether every byte of w is a letter, a digit or one of
// extra: no regexp, whose compiling every hook run would pay.
func allBytes(w, extra string) bool {
	for i := 0; i < len(w); i++ {
		if !isWordByte(w[i], extra) {
			return false
		}
	}
	return true
}

func isWordByte(c byte, extra string) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || isDigit(c) || strings.IndexByte(extra, c) >= 0
}

func (g *Glances) named(name string) []*entry {
	if g == nil {
		return nil
	}
	return g.extras[name]
}

// extraCall checks a simple command named by extra entries: the first
// whose words lead the arguments and whose rules they pass decides; else
// why the first whose words lead fails, or tableWhy, the built-in table's.
func (c *classifier) extraCall(name string, es []*entry, args []arg, tableWhy string) (reason, why string, mainThread bool) {
	if c.cdSeen {
		return "", name + " after cd may run in another folder, with that folder's configuration", false
	}
	for _, a := range args { // checked in call only when the table's rules take a glob
		if a.mayBeOption() {
			return "", name + ": glob " + a.src + " may expand to an option", false
		}
	}
	for _, e := range es {
		w, ok := e.admits(args)
		switch {
		case ok && e.MainThread:
			return e.Command + ": a hands-on command the main thread may run (" + e.Source + "), not a glance", "", true
		case ok:
			return e.Command + ": extra glance (" + e.Source + ")", "", false
		case why == "":
			why = w
		}
	}
	if why = cmp.Or(why, tableWhy); why != "" {
		return "", why, false
	}
	if w, refused := refusedWhy(name); refused {
		return "", name + ": " + w, false
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Command
	}
	return "", name + ": no extra entry takes these words (" + strings.Join(names, ", ") + ")", false
}

// admits reports whether args, the words after the name, pass e; when
// they lead with e's words but fail its rules, it says why.
func (e *entry) admits(args []arg) (string, bool) {
	lead := e.words[1:]
	if len(args) < len(lead) {
		return "", false
	}
	for i, w := range lead {
		if args[i].glob || args[i].value != w {
			return "", false
		}
	}
	operands, _, bad := e.allow.scan(args[len(lead):])
	switch {
	case bad != "":
		return e.Command + " option " + bad + " is not on its entry (" + e.Source + ")", false
	case e.Operands >= 0 && len(operands) > e.Operands:
		return e.Command + " " + operands[e.Operands].src + ": more operands than its entry allows (" + strconv.Itoa(e.Operands) + ")", false
	}
	for _, a := range operands {
		if e.Operands >= 0 && a.glob {
			return e.Command + ": glob " + a.src + " may expand to more operands than its entry allows", false
		}
	}
	return "", true
}

// Table returns Table followed by g's extra entries in the order given.
func (g *Glances) Table() []Entry {
	out := Table()
	if g == nil {
		return out
	}
	for _, e := range g.all {
		c := command{allow: e.allow, limit: e.Operands}
		if e.Operands <= 0 {
			c.limit = -1 - e.Operands // any number: 0; none: noOperands
		}
		about := "extra glance (" + e.Source + ")"
		if e.MainThread {
			about = "hands-on, the main thread may run it (" + e.Source + "); not a glance"
		}
		out = append(out, Entry{Command: e.Command, Glance: !e.MainThread, MainThread: e.MainThread, Extra: true, About: about, Rules: c.rules()})
	}
	return out
}
