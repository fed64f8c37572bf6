package ephemeral

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// parsers reuses bash parsers: building one costs more than parsing a
// typical line. A Parser is not safe for concurrent use.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

func parse(cmd string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(cmd), "")
}

// Classify decides whether cmd, a bash command line, is a glance, with a
// reason for the line and for each simple command in it: every simple
// command of every &&, ||, ;, | and newline segment must be on the table
// with arguments that pass its rules, and nothing around them may write,
// run other code or keep running. It is the built-in table's
// Glances.Classify.
func Classify(cmd string) Verdict { return builtin.Classify(cmd) }

// Classify is the package's Classify with g's extra entries on the table;
// the verdict also says whether the main thread may run the line.
func (g *Glances) Classify(cmd string) Verdict {
	if why := unvouched(cmd); why != "" {
		return Verdict{Reason: why}
	}
	f, err := parse(cmd)
	if err != nil {
		return Verdict{Reason: "cannot vouch for it: parse error: " + strings.ReplaceAll(err.Error(), "\n", " ")}
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

// IsEphemeral reports whether cmd is a glance with g's entries on the
// table, answered without the parser when the first word rules it out.
func (g *Glances) IsEphemeral(cmd string) bool { return g.mayBeGlance(cmd) && g.Classify(cmd).Glance }

// MainThread reports whether the main thread may run cmd: each command a
// glance or a hands-on command of an extra entry, as IsEphemeral answers.
func (g *Glances) MainThread(cmd string) bool {
	return g.mayBeGlance(cmd) && g.Classify(cmd).MainThread
}

// classifier collects the segments of one line.
type classifier struct {
	r    resolver
	g    *Glances
	segs []Segment
	// dirs are the folders the line's relative words may be read from: the
	// one it starts in, not known, and where its cds may have moved to; nil
	// before a cd.
	dirs []Dir
	// cdSeen: git, or an extra entry, after a cd may read another
	// repository's or folder's configuration.
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

// add records the segment s: why it is not a glance, or its reason as a
// glance or, with mainThread, as a hands-on command.
func (c *classifier) add(s *syntax.Stmt, why, reason string, mainThread bool) {
	seg := Segment{Command: strings.TrimRight(c.r.text(s), "; \t\n"), Reason: why}
	if why == "" {
		seg.Glance, seg.MainThread, seg.Reason = !mainThread, mainThread, reason
	}
	c.segs = append(c.segs, seg)
}

// stmt classifies a statement: a simple command, or a list or pipeline
// split into its simple commands.
func (c *classifier) stmt(s *syntax.Stmt) {
	list, isList := s.Cmd.(*syntax.BinaryCmd)
	call, isCall := s.Cmd.(*syntax.CallExpr)
	switch {
	case s.Background || s.Coprocess || s.Disown || isList && len(s.Redirs) > 0 || !isList && !isCall:
		c.add(s, stmtWhy(s), "", false)
	case isList:
		c.stmt(list.X)
		c.stmt(list.Y)
	default:
		reason, why, mainThread := c.call(call)
		if why == "" {
			why = c.redirects(s.Redirs)
		}
		c.add(s, why, reason, mainThread)
	}
}

// stmtWhy says why a statement that is neither a simple command nor a
// list of them is not a glance.
func stmtWhy(s *syntax.Stmt) string {
	switch {
	case s.Background:
		return "background & keeps running after the command returns"
	case s.Coprocess || s.Disown:
		return "a coprocess keeps running after the command returns"
	case s.Cmd == nil:
		return "a redirection without a command creates or empties a file"
	}
	switch s.Cmd.(type) {
	case *syntax.BinaryCmd:
		return "a redirection of a whole list is not on the table"
	case *syntax.Subshell:
		return "a subshell ( … ) is not on the table"
	case *syntax.Block:
		return "a group { … } is not on the table"
	case *syntax.FuncDecl:
		return "a function definition changes the shell"
	case *syntax.IfClause, *syntax.CaseClause:
		return "a conditional is not on the table"
	case *syntax.WhileClause, *syntax.ForClause:
		return "a loop is not on the table"
	case *syntax.TimeClause:
		return "time runs another command"
	case *syntax.CoprocClause:
		return "a coprocess keeps running after the command returns"
	case *syntax.DeclClause:
		return "a declaration changes the shell"
	case *syntax.LetClause, *syntax.ArithmCmd:
		return "arithmetic commands can assign variables"
	case *syntax.TestClause:
		return "a [[ … ]] test is not on the table"
	}
	return "a compound command is not on the table"
}

// call classifies one simple command: its reason as a glance, or why it
// is not one; mainThread marks a hands-on command of an extra entry.
func (c *classifier) call(x *syntax.CallExpr) (reason, why string, mainThread bool) {
	if len(x.Assigns) > 0 {
		a := c.r.text(x.Assigns[0])
		if len(x.Args) == 0 {
			return "", "assignment " + a + " changes the shell", false
		}
		return "", "environment assignment " + a + " changes how the command runs", false
	}
	name := x.Args[0].Lit()
	if name == "" {
		return "", "command name " + c.r.text(x.Args[0]) + " is not a plain word", false
	}
	cmd, extras := find(table, name), c.g.named(name)
	if cmd == nil && extras == nil {
		if w, known := refusedWhy(name); known {
			return "", name + ": " + w, false
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
			// The words a brace makes are read as bash passes them: each
			// may still name a device or / (cat {/dev/zero,x}, ls {-R,/}).
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
	label, extraWhy, mainThread := c.extraCall(name, extras, args)
	switch {
	case label != "":
		return label, "", mainThread
	case extraWhy != "":
		return "", extraWhy, false
	case cmd != nil:
		return "", why, false // no entry's words lead: the table's reason stands
	}
	if w, known := refusedWhy(name); known {
		return "", name + ": " + w, false
	}
	return "", name + ": no extra entry takes these words (" + entryNames(extras) + ")", false
}

// onTable applies the rules of cmd, an entry of the built-in table, to
// its arguments.
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
			case !cmd.lists && walksDevices(a, c.dirs):
				return "", cmd.name + ": " + a.src + " is read recursively, and /, /dev, /proc and /sys hold files that never end"
			case cmd.lists && walksRoot(a, c.dirs):
				return "", cmd.name + ": " + a.src + " walks the whole file system, which may not end within the call's timeout"
			}
		}
	}
	switch cmd.name {
	case "git":
		if c.cdSeen {
			return "", "git after cd may run in another repository, whose own configuration (core.fsmonitor, a committed bare repository's config) can run programs"
		}
		return label + ": read-only git subcommand", ""
	case "cd":
		if why := c.chdir(w.operands); why != "" {
			return "", why
		}
	}
	return cmd.name + ": " + cmd.about, ""
}

// deep reports whether an option of args is one of names, the options
// that make a command descend into folders.
func deep(names []string, args []arg) bool {
	for _, a := range args {
		if !a.isOption() {
			continue
		}
		if _, s := denied([]flagRule{{names: names}}, a.value); s != "" {
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
		if f, _ := denied(cmd.deny, a.value); a.isOption() && f.why != "" {
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
			why := cmd.note
			if why == "" {
				why = "more operands than allowed"
			}
			return w, label + " " + w.operands[limit].src + ": " + why
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

// opens returns why a word names what no glance may open, or "": a
// network socket anywhere, a device where the word may be read (read).
func (c *classifier) opens(a arg, read bool) string {
	switch {
	case network(a.value):
		return a.src + " names a network connection (bash opens /dev/tcp and /dev/udp as sockets)"
	case read && readsDevice(a, c.dirs):
		return a.src + " is a device or kernel stream that may never end"
	}
	return ""
}

// maxBraceWords caps the words one brace expansion may make in a glance
// (echo {1..100000000} has bash build them all before echo runs), and
// maxLineBraceWords those of a line, which are checked one by one.
const (
	maxBraceWords     = 256
	maxLineBraceWords = 4 * maxBraceWords
)

// braceArgs returns the words w, written src, brace-expands into, each
// checked as a word written out would be, or why not.
func (c *classifier) braceArgs(w *syntax.Word, src string) ([]arg, string) {
	words, why := Braces(w, maxBraceWords)
	if why != "" {
		return nil, src + why
	}
	if c.braceMade += len(words); c.braceMade > maxLineBraceWords {
		return nil, src + fmt.Sprintf(": the line's braces expand into more than %d words", maxLineBraceWords)
	}
	args := make([]arg, 0, len(words))
	for _, ew := range words {
		a, why := c.r.resolve(ew) // ew's parts lie in the line, not its text
		a.src, a.brace = a.value, false
		if why == "" {
			why = c.opens(a, true)
		}
		if why != "" {
			return nil, src + ": " + why
		}
		a.src = src
		args = append(args, a)
	}
	return args, ""
}

// Braces returns the words bash makes of w by brace expansion (w alone
// when it has none), or why not: past max words, or a letter sequence
// from upper to lower case ({Z..a} makes [ \ ] ^ _ and `). It leaves w as
// it is: syntax.Walk panics on the nodes SplitBraces puts in a word.
func Braces(w *syntax.Word, max int) ([]*syntax.Word, string) {
	split := *w
	if !syntax.SplitBraces(&split) {
		return []*syntax.Word{w}, ""
	}
	if oddSequence(split.Parts) {
		return nil, " may brace-expand into words the classifier never sees"
	}
	var words []*syntax.Word
	for x, err := range expand.BracesSeq(nil, &split) {
		if err != nil || len(words) == max {
			return nil, fmt.Sprintf(" brace-expands into more than %d words", max)
		}
		words = append(words, x)
	}
	return words, ""
}

// oddSequence reports whether parts hold a letter sequence from upper to
// lower case or back, among the brace expansions SplitBraces made.
func oddSequence(parts []syntax.WordPart) bool {
	for _, p := range parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		// SplitBraces makes a sequence of two numbers or two letters.
		if from, to := b.Elems[0].Lit(), b.Elems[1].Lit(); b.Sequence && len(from) == 1 && !isDigit(from[0]) && (from[0] < 'a') != (to[0] < 'a') {
			return true
		}
		for _, e := range b.Elems {
			if oddSequence(e.Parts) {
				return true
			}
		}
	}
	return false
}

// redirects checks the redirections of a simple command: only reading a
// file, duplicating or closing one of 0, 1 and 2, and writing to
// /dev/null pass.
func (c *classifier) redirects(rs []*syntax.Redirect) string {
	for _, r := range rs {
		if why := c.redirect(r); why != "" {
			return why
		}
	}
	return ""
}

func (c *classifier) redirect(r *syntax.Redirect) string {
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
	switch {
	case why != "":
		return "redirection " + text + ": " + why
	case a.glob || a.brace:
		return "redirection " + text + " may expand to another file"
	case r.Op == syntax.RdrIn,
		a.value == "/dev/null" && r.Op != syntax.DplIn,
		(r.Op == syntax.DplIn || r.Op == syntax.DplOut) && (a.value == "-" || allDigits(a.value) && !aboveStderr(a.value)):
		return ""
	case (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && allDigits(a.value):
		return "redirection " + text + " duplicates descriptor " + a.value + ": only 0, 1 and 2 are on the table"
	}
	return "redirection " + text + " writes a file"
}

// aboveStderr reports whether a descriptor, all digits, is above 2: such a
// one may be a socket or a file opened for writing elsewhere in the line
// (3</dev/udp/h/p >&3).
func aboveStderr(fd string) bool {
	n, err := strconv.Atoi(fd)
	return err != nil || n > 2
}

func allDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// quoteShort quotes s for a reason, cut to 40 bytes: enough to recognise
// it, short enough to keep the reason one line.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
