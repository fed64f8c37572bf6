package ephemeral

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flowerhooks/flower/pkg/extra"
)

// Extra is an entry a user adds to the glance table (docker ps, kubectl
// get), or, with MainThread, a hands-on command the main thread may run
// itself (make test). A line that names it is read by the same parser and
// passes the same checks as any other (no substitution, expansion,
// redirection to a file, device, network name, control character, …); the
// entry only says which words may follow the command's name. What it
// cannot do is decided when the entry is made (NewGlances): name a shell,
// an interpreter, a command that runs another (env, xargs, sudo), a shell
// builtin or keyword, or, as a glance, a command that writes or one on the
// built-in table (whose rules stay as they are).
type Extra = extra.Entry

// Glances is the glance table with the extra entries of a configuration.
// The zero table (a nil *Glances) is the built-in table alone: Classify and
// IsEphemeral are its methods.
type Glances struct {
	extras map[string][]*entry // by command name
	all    []*entry            // in the order given
}

// entry is an Extra made ready to match.
type entry struct {
	Extra
	words []string // Command split at spaces; words[0] is the name
	allow *options
}

// builtin is the table without extras.
var builtin *Glances

// extraNever are the refusals no extra entry may name, of either kind:
// through them a line runs other code than the words show (a shell, an
// interpreter, env, xargs, eval), never ends, or changes the shell.
// The writers among the refusals may be hands-on entries, and go either.
var extraNever = []string{"runs another command",
	"a programming language: its script can write files and run commands",
	"interactive or never ends", "changes the shell or other processes"}

// writersWhy is the refusal of the commands that write or remove files:
// never a glance, but a hands-on entry may name them (git commit is one).
const writersWhy = "writes or removes files"

// shellWords are bash's builtins and keywords (bash 5.2, compgen -b and
// compgen -k). No extra entry may name one: bash runs its own, whatever
// program of that name lies on the PATH, and several run other code
// (command, builtin, eval, exec, source, trap) or change the shell.
var shellWords = []string{".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd",
	"command", "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
	"enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help",
	"history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd",
	"read", "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
	"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
	"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
	"done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc"}

// Shapes of an entry's words, checked byte by byte (a regexp compiled at
// start would cost every hook run, most of which read no entry). A name is
// looked up on the PATH, so it holds no slash; the other words are
// compared with what the shell passes, and hold no character the shell
// would read as anything but itself.
func isExtraName(w string) bool {
	return w != "" && isWordByte(w[0], "_") && allBytes(w, "._+-")
}

func isExtraWord(w string) bool { return w != "" && allBytes(w, "_./:@%+,=-") }

// allBytes reports whether every byte of w is a letter, a digit or one of
// extra.
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

// maxExtraWords bounds the words of an entry's Command; maxExtras the
// entries of one table. A configuration holds a few dozen.
const (
	maxExtraWords = 8
	maxExtras     = 1000
)

// NewGlances returns the built-in table with extras added: those that may
// be made. Each one that may not is left out and named in the error (an
// *ExtraError each, joined), so that a bad entry costs only itself: the
// hooks use the rest and say what they left out.
func NewGlances(extras []Extra) (*Glances, error) {
	if len(extras) == 0 {
		return builtin, nil
	}
	if len(extras) > maxExtras {
		return builtin, fmt.Errorf("%d extra entries, at most %d: none is used", len(extras), maxExtras)
	}
	g := &Glances{extras: map[string][]*entry{}}
	var errs []error
	for i, e := range extras {
		x, err := newExtra(e)
		if err != nil {
			errs = append(errs, &ExtraError{Index: i, Entry: e, Err: err})
			continue
		}
		g.extras[x.words[0]] = append(g.extras[x.words[0]], x)
		g.all = append(g.all, x)
	}
	if len(g.all) == 0 {
		g = builtin
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
	switch {
	case e.Command == "":
		return nil, errors.New("no command")
	case len(words) > maxExtraWords:
		return nil, fmt.Errorf("more than %d words", maxExtraWords)
	case !isExtraName(words[0]):
		return nil, fmt.Errorf("command name %q is not a plain name (letters, digits, and . _ + - after the first; no slash, no spaces around it)", words[0])
	case e.Operands < -1:
		return nil, fmt.Errorf("operands is %d, want 0 or more", e.Operands)
	}
	for _, w := range words[1:] {
		if !isExtraWord(w) {
			return nil, fmt.Errorf("word %q holds a character the shell gives a meaning, or is empty (one space between words)", w)
		}
	}
	name := words[0]
	if slices.Contains(shellWords, name) {
		return nil, fmt.Errorf("%s is a shell builtin or keyword: bash runs its own, not a program", name)
	}
	// The slices, not the maps Classify builds from them: most runs that
	// read an entry classify nothing, and building the maps cost more.
	if why, refused := refusalOf(name); refused {
		switch {
		case slices.Contains(extraNever, why):
			return nil, fmt.Errorf("%s: %s; no entry may name it", name, why)
		case why == writersWhy && !e.MainThread:
			return nil, fmt.Errorf("%s: %s; it cannot be a glance (a hands-on entry, under delegate-guard.main-thread, may name it)", name, why)
		}
	}
	if family, ok := runsCode(name); ok {
		return nil, fmt.Errorf("%s: %s runs code it is given (a script, a package, another program); no entry may name it", name, family)
	}
	if slices.ContainsFunc(table, func(c *command) bool { return c.name == name }) && !e.MainThread {
		return nil, fmt.Errorf("%s is on the built-in glance table, whose rules an entry does not change", name)
	}
	x := &entry{Extra: e, words: words, allow: &options{}}
	for _, spec := range e.Options {
		if err := x.allow.add(spec); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// codeRunners are programs, beyond the table's refusals, that run code or
// another program they are given; with a version after the name too
// (python3.12, node18, pypy3, ruby3.2, tclsh8.6): an entry naming one would
// let a line run whatever its arguments say.
var codeRunners = []string{"python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl",
	"php", "lua", "luajit", "tclsh", "wish", "expect", "Rscript", "julia", "jshell", "groovy",
	"osascript", "pwsh", "powershell", "guile", "racket", "sbcl", "clisp", "ghci", "runghc",
	"npx", "pnpx", "bunx", "uvx", "pipx", "strace", "ltrace", "gdb", "lldb", "valgrind",
	"nix-shell", "firejail", "unshare", "nsenter", "systemd-run", "ssh", "script", "screen", "tmux",
	"at", "batch", "ed", "ex"}

// runsCode reports whether name is one of codeRunners, alone or followed by
// a version (digits, dots and dashes), and which.
func runsCode(name string) (string, bool) {
	for _, r := range codeRunners {
		if rest, ok := strings.CutPrefix(name, r); ok && strings.Trim(rest, "0123456789.-") == "" {
			return r, true
		}
	}
	return "", false
}

// refusalOf returns why name is never a glance, if the table names it so.
func refusalOf(name string) (string, bool) {
	for _, r := range refusals {
		if slices.Contains(r.names, name) {
			return r.why, true
		}
	}
	return "", false
}

// add puts one spelling of Extra.Options on the allowlist: -x, -x VALUE,
// --name, --name=VALUE, --name VALUE or --name[=VALUE], where x is a letter
// or digit, name letters, digits and inner dashes, and VALUE a placeholder
// of letters, digits, _ and -.
func (o *options) add(spec string) error {
	if !o.addSpec(spec) {
		return fmt.Errorf("option %q: spell it -x, -x VALUE, --name, --name=VALUE or --name[=VALUE]", spec)
	}
	return nil
}

// addSpec is add, reporting whether spec was well spelled.
func (o *options) addSpec(spec string) bool {
	name, value, sep := spec, "", ""
	if i := strings.IndexAny(spec, " =["); i >= 0 {
		name, sep, value = spec[:i], spec[i:i+1], spec[i+1:]
	}
	if sep == "[" {
		var ok bool
		if value, ok = strings.CutPrefix(value, "="); !ok || !strings.HasSuffix(value, "]") {
			return false
		}
		value = strings.TrimSuffix(value, "]")
	}
	if sep != "" && (value == "" || !allBytes(value, "_-")) {
		return false
	}
	long, isLong := strings.CutPrefix(name, "--")
	switch {
	case isLong && (long == "" || long[0] == '-' || !allBytes(long, "-")):
		return false
	case isLong && sep == "[":
		o.longOpt = append(o.longOpt, long)
	case isLong && sep != "":
		o.longArg = append(o.longArg, long)
	case isLong:
		o.long = append(o.long, long)
	case len(name) != 2 || name[0] != '-' || !isWordByte(name[1], "") || sep == "=" || sep == "[":
		return false
	case sep == " ":
		o.shortArg += name[1:]
	default:
		o.short += name[1:]
	}
	return true
}

// Classify decides whether cmd, a bash command line, is a glance (see the
// package function Classify), with g's extra entries on the table; the
// verdict also says whether the main thread may run it (MainThread).
func (g *Glances) Classify(cmd string) Verdict {
	if why := unvouched(cmd); why != "" {
		return Verdict{Reason: why}
	}
	f, err := parse(cmd)
	if err != nil {
		return Verdict{Reason: "cannot vouch for it: parse error: " + oneLine(err.Error())}
	}
	if why := commentsWhy(f, cmd); why != "" {
		return Verdict{Reason: why}
	}
	c := classifier{r: resolver{src: cmd}, g: g}
	for _, s := range f.Stmts {
		c.stmt(s)
	}
	return c.verdict()
}

// IsEphemeral reports whether cmd is a glance with g's extra entries on the
// table: g.Classify(cmd).Glance, answered without the parser when the first
// word already rules a glance out.
func (g *Glances) IsEphemeral(cmd string) bool { return g.mayBeGlance(cmd) && g.Classify(cmd).Glance }

// MainThread reports whether the main thread may run cmd: every command of
// it a glance or a hands-on command of an extra entry. It is
// g.Classify(cmd).MainThread, answered without the parser when the first
// word already rules both out (a plain word neither on the table nor named
// by an entry), as IsEphemeral is.
func (g *Glances) MainThread(cmd string) bool {
	return g.mayBeGlance(cmd) && g.Classify(cmd).MainThread
}

// named returns the extra entries for a command name.
func (g *Glances) named(name string) []*entry {
	if g == nil {
		return nil
	}
	return g.extras[name]
}

// extraCall checks a simple command named by extra entries: the first one
// whose words lead the arguments and whose options and operands they
// pass decides. It returns the segment's reason and whether it is a
// hands-on command, or why not: why no entry admits it when an entry's
// words lead, else "".
func (c *classifier) extraCall(name string, es []*entry, args []arg) (label, why string, mainThread bool) {
	if c.cdSeen {
		return "", name + " after cd may run in another folder, with that folder's configuration", false
	}
	for _, a := range args {
		switch {
		case a.brace:
			return "", name + ": " + a.src + " may brace-expand into words the classifier never sees", false
		case a.mayBeOption():
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
	return "", why, false
}

// admits reports whether args (the words after the name) pass e; when they
// lead with e's words but fail its rules, it also says why.
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
	if e.Operands >= 0 {
		for _, a := range operands {
			if a.glob {
				return e.Command + ": glob " + a.src + " may expand to more operands than its entry allows", false
			}
		}
	}
	return "", true
}

func entryNames(es []*entry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Command
	}
	return strings.Join(names, ", ")
}

// Table returns the glance table as Table does, followed by g's extra
// entries in the order given.
func (g *Glances) Table() []Entry {
	out := Table()
	if g == nil {
		return out
	}
	for _, e := range g.all {
		about := "extra glance (" + e.Source + ")"
		if e.MainThread {
			about = "hands-on, the main thread may run it (" + e.Source + "); not a glance"
		}
		rules := rulesOf(nil, e.allow, 0, "")
		switch {
		case e.Operands == 0:
			rules = append(rules, "no operands")
		case e.Operands > 0:
			rules = append(rules, "at most "+strconv.Itoa(e.Operands)+" operand(s)")
		}
		out = append(out, Entry{Command: e.Command, Glance: !e.MainThread, MainThread: e.MainThread, Extra: true, About: about, Rules: rules})
	}
	return out
}
