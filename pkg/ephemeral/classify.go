package ephemeral

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Verdict is the answer for one command line.
type Verdict struct {
	Glance bool // every segment is a glance
	// MainThread: every segment is a glance or a hands-on command of an
	// extra entry, so the main thread may run the line.
	MainThread bool
	Reason     string    // one line: the first segment refused and why, or why the line is not vouched for
	Segments   []Segment // the simple commands in source order; none when the line did not parse
}

// Segment is one simple command of a line; MainThread without Glance marks
// a hands-on command of an extra entry.
type Segment struct {
	Command            string // its source text
	Glance, MainThread bool
	Reason             string
}

// Classify decides whether cmd, a bash command line, is a glance: every
// simple command of every &&, ||, ;, | and newline segment must be on the
// table with arguments that pass its rules, and nothing around them may
// write, run other code or keep running. It is the built-in table's
// Glances.Classify.
func Classify(cmd string) Verdict { return builtin.Classify(cmd) }

// IsEphemeral reports whether cmd is a glance: Classify(cmd).Glance.
func IsEphemeral(cmd string) bool { return builtin.IsEphemeral(cmd) }

// Classify is the package's Classify with g's extra entries on the table.
func (g *Glances) Classify(cmd string) Verdict {
	if why := unvouched(cmd); why != "" {
		return Verdict{Reason: "cannot vouch for it: " + why}
	}
	f, err := parse(cmd)
	if err != nil {
		return Verdict{Reason: "cannot vouch for it: parse error: " + strings.ReplaceAll(err.Error(), "\n", " ")}
	}
	if commentHidesLine(f, cmd) {
		return Verdict{Reason: "cannot vouch for it: a comment ending in a backslash, which bash ends at the newline and the parser does not"}
	}
	c := classifier{r: resolver{src: cmd}, g: g}
	for _, s := range f.Stmts {
		c.stmt(s)
	}
	return c.verdict()
}

// IsEphemeral reports whether cmd is a glance with g's entries on the
// table, answered without the parser when the first word rules it out.
func (g *Glances) IsEphemeral(cmd string) bool { return g.mayBeGlance(cmd) && g.Classify(cmd).Glance }

// MainThread reports whether the main thread may run cmd, as IsEphemeral.
func (g *Glances) MainThread(cmd string) bool {
	return g.mayBeGlance(cmd) && g.Classify(cmd).MainThread
}

// mayBeGlance is false for a line whose first word alone rules it out, so
// that a hook's first parse, which costs most, is spared for the most
// common answer. A first word that is not plain is left to the parser.
// FuzzClassify holds it to Classify.
func (g *Glances) mayBeGlance(cmd string) bool {
	// Control characters are refused before parsing: only these blanks end the word.
	s := strings.TrimLeft(cmd, " \t\n")
	end := strings.IndexAny(s, " \t\n|&;()<>\"'\\$`")
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	switch {
	case word == "" || strings.ContainsAny(word, "*?[{~=#!"),
		end < len(s) && strings.IndexByte("\"'\\$`", s[end]) >= 0,                                  // the word goes on, quoted or expanded
		end < len(s) && (s[end] == '<' || s[end] == '>') && strings.Trim(word, "0123456789") == "": // 2>/dev/null ls
		return true
	}
	return find(table, word) != nil || g.named(word) != nil
}

// parsers reuses bash parsers: making one costs more than parsing a line.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

func parse(cmd string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(cmd), "")
}

// The parser's cost grows faster than the text past these, where a glance
// never goes: the longest Bash command of the sample transcripts is 4.7 KB.
// The parser tries "((" as arithmetic and backtracks: 126 KB of "(" took
// 1.9 s and 491 MB, 320 KB overflowed the stack (exit 2, "block"); at 32
// deep, 16 KB of any mix parses in under 4 ms.
const (
	maxCommandBytes = 16 << 10
	maxParenDepth   = 32
)

// TooBigToParse returns why cmd is past the limits within which
// mvdan.cc/sh parses in bounded time, memory and stack, or "". Whatever
// hands a command to that parser checks it first.
func TooBigToParse(cmd string) string {
	if len(cmd) > maxCommandBytes {
		return fmt.Sprintf("%d bytes, past the %d a glance may have", len(cmd), maxCommandBytes)
	}
	depth := 0
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case '(':
			if depth++; depth > maxParenDepth {
				return fmt.Sprintf("parentheses nested more than %d deep", maxParenDepth)
			}
		case ')':
			depth = max(depth-1, 0)
		}
	}
	return ""
}

// unvouched returns why cmd may mean to bash (bash -c "… eval '<cmd>' …" in
// Claude Code) other than what it means to the parser, or "".
func unvouched(cmd string) string {
	if why := TooBigToParse(cmd); why != "" {
		return why
	}
	if !utf8.ValidString(cmd) {
		return "not valid UTF-8"
	}
	for i := 0; i < len(cmd); i++ {
		// The parser reads a carriage return as a blank and drops NUL; bash
		// keeps a carriage return in the word ("ls\r# ; touch x" runs touch).
		if c := cmd[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return fmt.Sprintf("control character %q, which the parser and bash may read differently", c)
		}
	}
	return ""
}

// commentHidesLine reports whether a comment of f goes on past a
// backslash-newline, as the parser reads it; bash ends it at the newline
// and runs the next line.
func commentHidesLine(f *syntax.File, src string) bool {
	if strings.IndexByte(src, '#') < 0 {
		return false
	}
	hides := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && (strings.HasSuffix(strings.TrimSuffix(c.Text, "\n"), `\`) || strings.Contains(c.Text, "\\\n")) {
			hides = true
		}
		return !hides
	})
	return hides
}

// classifier collects the segments of one line.
type classifier struct {
	r    resolver
	g    *Glances
	segs []Segment
	// dirs are the folders relative words may be read from: the one the
	// line starts in (not known) and those its cds may reach; nil before a cd.
	dirs []Dir
	// cdSeen: git or an extra entry after a cd may read another folder's configuration.
	cdSeen    bool
	braceMade int // the words the line's brace expansions made
}

func (c *classifier) verdict() Verdict {
	if len(c.segs) == 0 {
		return Verdict{Reason: "no command"}
	}
	v := Verdict{Glance: true, MainThread: true, Segments: c.segs, Reason: c.segs[0].Reason}
	for _, s := range c.segs {
		if !s.Glance && !s.MainThread {
			return Verdict{Reason: s.Reason, Segments: c.segs}
		}
		v.Glance = v.Glance && s.Glance
	}
	if len(c.segs) > 1 {
		names := make([]string, len(c.segs))
		for i, s := range c.segs {
			names[i], _, _ = strings.Cut(s.Reason, ":")
		}
		v.Reason = "the main thread may run every command, not all are glances: "
		if v.Glance {
			v.Reason = "every command is a glance: "
		}
		v.Reason += strings.Join(names, ", ")
	}
	return v
}

// stmt adds the simple commands of s, each with its reason, or why not.
func (c *classifier) stmt(s *syntax.Stmt) {
	list, isList := s.Cmd.(*syntax.BinaryCmd)
	call, isCall := s.Cmd.(*syntax.CallExpr)
	if isList && len(s.Redirs) == 0 && !s.Background && !s.Coprocess && !s.Disown {
		c.stmt(list.X)
		c.stmt(list.Y)
		return
	}
	seg := Segment{Command: strings.TrimRight(c.r.text(s), "; \t\n")}
	switch {
	case s.Background:
		seg.Reason = "background & keeps running after the command returns"
	case s.Coprocess || s.Disown:
		seg.Reason = coprocWhy
	case s.Cmd == nil:
		seg.Reason = "a redirection without a command creates or empties a file"
	case !isCall:
		seg.Reason = nodeWhy(s.Cmd)
	default:
		reason, why, mainThread := c.call(call)
		if why == "" {
			why = c.redirects(s.Redirs)
		}
		seg.Reason = why
		if why == "" {
			seg.Glance, seg.MainThread, seg.Reason = !mainThread, mainThread, reason
		}
	}
	c.segs = append(c.segs, seg)
}

const coprocWhy = "a coprocess keeps running after the command returns"

// nodeKinds are the syntax nodes no glance holds, by type, and why.
var nodeKinds = [][2]string{
	{"*syntax.BinaryCmd", "a redirection of a whole list is not on the table"},
	{"*syntax.Subshell", "a subshell ( … ) is not on the table"},
	{"*syntax.Block", "a group { … } is not on the table"},
	{"*syntax.FuncDecl", "a function definition changes the shell"},
	{"*syntax.IfClause", "a conditional is not on the table"},
	{"*syntax.CaseClause", "a conditional is not on the table"},
	{"*syntax.WhileClause", "a loop is not on the table"},
	{"*syntax.ForClause", "a loop is not on the table"},
	{"*syntax.TimeClause", "time runs another command"},
	{"*syntax.CoprocClause", coprocWhy},
	{"*syntax.DeclClause", "a declaration changes the shell"},
	{"*syntax.LetClause", "arithmetic commands can assign variables"},
	{"*syntax.ArithmCmd", "arithmetic commands can assign variables"},
	{"*syntax.TestClause", "a [[ … ]] test is not on the table"},
	{"*syntax.ParamExp", "parameter expansion"},
	{"*syntax.CmdSubst", "command substitution"},
	{"*syntax.ArithmExp", "arithmetic expansion"},
	{"*syntax.ProcSubst", "process substitution"},
	{"*syntax.ExtGlob", "extended glob"},
}

// nodeWhy says what n is, a compound command or a word part, that no glance holds.
func nodeWhy(n syntax.Node) string {
	kind := fmt.Sprintf("%T", n)
	for _, k := range nodeKinds {
		if k[0] == kind {
			return k[1]
		}
	}
	if _, isPart := n.(syntax.WordPart); isPart {
		return "an expansion"
	}
	return "a compound command is not on the table"
}

// call classifies one simple command: its reason as a glance, or why it is
// not one; mainThread marks a hands-on command of an extra entry.
func (c *classifier) call(x *syntax.CallExpr) (reason, why string, mainThread bool) {
	if len(x.Assigns) > 0 {
		if len(x.Args) == 0 {
			return "", "assignment " + c.r.text(x.Assigns[0]) + " changes the shell", false
		}
		return "", "environment assignment " + c.r.text(x.Assigns[0]) + " changes how the command runs", false
	}
	name := x.Args[0].Lit()
	if name == "" {
		return "", "command name " + c.r.text(x.Args[0]) + " is not a plain word", false
	}
	cmd, extras := find(table, name), c.g.named(name)
	if cmd == nil && extras == nil {
		if why, refused := refusedWhy(name); refused {
			return "", name + ": " + why, false
		}
		if strings.ContainsAny(name, `\*?[{~`) {
			return "", "command name " + name + " is escaped or a pattern, not a plain word", false
		}
		return "", name + ": not on the glance table", false
	}
	// An extra entry is a rule on the arguments too.
	rules := cmd == nil || cmd.hasRules()
	args := make([]arg, 0, len(x.Args)-1)
	for _, w := range x.Args[1:] {
		a, why := c.r.resolve(w)
		if why == "" {
			why = c.opens(a, true)
		}
		switch {
		case why != "":
		case a.brace && rules:
			why = a.src + " may brace-expand into words the classifier never sees"
		case a.brace:
			// Each word a brace makes is read as bash passes it (cat {/dev/zero,x}).
			var words []arg
			if words, why = c.braceArgs(w, a.src); why == "" {
				args = append(args, words...)
				continue
			}
		case rules && a.mayBeOption():
			why = "glob " + a.src + " may expand to an option"
		}
		if why != "" {
			return "", name + ": " + why, false
		}
		args = append(args, a)
	}
	if cmd != nil {
		if reason, why = c.onTable(cmd, args); why == "" || extras == nil {
			return reason, why, false
		}
	}
	return c.extraCall(name, extras, args, why)
}

// onTable applies the rules of cmd, an entry of the built-in table.
func (c *classifier) onTable(cmd *command, args []arg) (reason, why string) {
	label := cmd.name
	if cmd.name == "git" {
		label = gitName(args)
	}
	w, why := cmd.checkArgs(label, args)
	if why != "" {
		return "", why
	}
	if cmd.deep != nil && (cmd.deep[0] == always[0] || deep(cmd.deep, args)) {
		// With no folder named, "." is read: taken as named in any case.
		for _, a := range append(w.operands, arg{value: ".", src: "."}) {
			switch {
			case !cmd.lists && walks(a, c.dirs, false):
				return "", cmd.name + ": " + a.src + " is read recursively, and /, /dev, /proc and /sys hold files that never end"
			case cmd.lists && walks(a, c.dirs, true):
				return "", cmd.name + ": " + a.src + " walks the whole file system, which may not end within the call's timeout"
			}
		}
	}
	switch {
	case cmd.name == "git" && c.cdSeen:
		return "", "git after cd may run in another repository, whose own configuration (core.fsmonitor, a committed bare repository's config) can run programs"
	case cmd.name == "git":
		return label + ": read-only git subcommand", ""
	case cmd.name == "cd":
		if why := c.chdir(w.operands); why != "" {
			return "", why
		}
	}
	return cmd.name + ": " + cmd.about, ""
}

// deep reports whether an option of args is one of names, the options
// that make a command descend into folders, or a glob may become one (ls *
// / with a file named -R walks the whole file system).
func deep(names []string, args []arg) bool {
	for _, a := range args {
		if _, s := denied([]flagRule{{names: names}}, a.value); s != "" && a.isOption() || a.mayBeOption() {
			return true
		}
	}
	return false
}

// words are a command's arguments as its rules read them.
type words struct {
	cmd      *command
	label    string // "tail", "git branch"
	args     []arg
	operands []arg  // the arguments that are not options, nor their values with allow
	flags    []flag // with allow, the options and their values
}

// checkArgs applies the rules of cmd, called label, to its arguments.
func (cmd *command) checkArgs(label string, args []arg) (words, string) {
	w := words{cmd: cmd, label: label, args: args}
	for _, a := range args {
		if f, _ := denied(cmd.deny, a.value); f.why != "" && a.isOption() {
			return w, label + " " + a.src + " " + f.why
		}
	}
	var bad string
	if cmd.allow != nil {
		if w.operands, w.flags, bad = cmd.allow.scan(args); bad != "" {
			return w, label + " option " + bad + " is not on the table"
		}
	} else if cmd.limit != 0 || cmd.deep != nil {
		w.operands = operandsOf(args)
	}
	if limit := max(cmd.limit, 0); cmd.limit != 0 {
		if len(w.operands) > limit {
			return w, label + " " + w.operands[limit].src + ": " + cmp.Or(cmd.note, "more operands than allowed")
		}
		for _, a := range w.operands {
			if a.glob {
				return w, label + ": glob " + a.src + " may expand to more operands than allowed"
			}
		}
	}
	if cmd.check != nil {
		return w, cmd.check(w)
	}
	return w, ""
}

// operandsOf returns the words of args that are not options.
func operandsOf(args []arg) []arg {
	var out []arg
	for i, a := range args {
		if a.value == "--" {
			return append(out, args[i+1:]...)
		}
		if !a.isOption() {
			out = append(out, a)
		}
	}
	return out
}

// opens returns why a word names what no glance may open, or "": a network
// socket anywhere, a device where the word may be read (read).
func (c *classifier) opens(a arg, read bool) string {
	switch {
	case strings.Contains(a.value, "/dev/tcp") || strings.Contains(a.value, "/dev/udp"):
		return a.src + " names a network connection (bash opens /dev/tcp and /dev/udp as sockets)"
	case read && readsDevice(a, c.dirs):
		return a.src + " is a device or kernel stream that may never end"
	}
	return ""
}

// redirects checks the redirections of a simple command: only reading a
// file, duplicating or closing 0, 1 or 2, and writing to /dev/null pass.
func (c *classifier) redirects(rs []*syntax.Redirect) string {
	for _, r := range rs {
		text := c.r.text(r)
		switch {
		case r.N != nil && !allDigits(r.N.Value):
			return "redirection " + text + " assigns a variable"
		case r.N != nil && aboveStderr(r.N.Value):
			return "redirection " + text + " uses descriptor " + r.N.Value + ": only 0, 1 and 2 are on the table"
		case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc:
			return "here-document " + r.Op.String() + " is not on the table"
		case r.Op == syntax.WordHdoc:
			return "here-string <<< is not on the table"
		case r.Op == syntax.RdrInOut:
			return "redirection " + text + " opens a file for writing"
		}
		a, why := c.r.resolve(r.Word)
		if why == "" {
			why = c.opens(a, r.Op == syntax.RdrIn)
		}
		dup := r.Op == syntax.DplIn || r.Op == syntax.DplOut
		switch {
		case why != "":
			return "redirection " + text + ": " + why
		case a.glob || a.brace:
			return "redirection " + text + " may expand to another file"
		case r.Op == syntax.RdrIn, a.value == "/dev/null" && r.Op != syntax.DplIn,
			dup && (a.value == "-" || allDigits(a.value) && !aboveStderr(a.value)):
		case dup && allDigits(a.value):
			return "redirection " + text + " duplicates descriptor " + a.value + ": only 0, 1 and 2 are on the table"
		default:
			return "redirection " + text + " writes a file"
		}
	}
	return ""
}

// aboveStderr reports whether a descriptor, all digits, is above 2: such a
// one may be a socket or a file opened for writing elsewhere in the line
// (3</dev/udp/h/p >&3).
func aboveStderr(fd string) bool {
	n, err := strconv.Atoi(fd)
	return err != nil || n > 2
}

func allDigits(s string) bool { return s != "" && strings.Trim(s, digits) == "" }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

const digits = "0123456789"

// quoteShort quotes s for a reason, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
