package ephemeral

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// parsers reuses bash parsers across calls: building one costs more than
// parsing a typical command. A Parser is not safe for concurrent use, so
// each call takes its own from the pool.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

// Classify decides whether cmd, a bash command line, is a glance, with a
// reason for the whole line and for each simple command in it. It reads the
// syntax tree: every simple command of every &&, ||, ;, | and newline
// segment must be on the glance table with arguments that pass its rules,
// and nothing around them may write, run other code or keep running.
//
// It is the built-in table's Glances.Classify: a configuration's extra
// entries are on the table a Glances holds (NewGlances).
func Classify(cmd string) Verdict { return builtin.Classify(cmd) }

// parse parses cmd as bash with a parser from the pool.
func parse(cmd string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(cmd), "")
}

// classifier collects the segments of one command line.
type classifier struct {
	r    resolver
	g    *Glances // the table's extra entries
	segs []Segment
	// dirs are the folders, known from the text, that a cd earlier in the
	// line may have moved to; a relative word is also read from each of
	// them ("cd /dev && cat zero"). The folder the line starts in is not
	// known to the classifier.
	dirs []string
	// tops are the folders a cd that climbed out of the unknown folder the
	// line starts in (or the home folder) with ".." may have reached, from
	// near / ("cd ../.. && cat dev/zero"): read for devices only, since
	// the climb reaches / only from a folder just below it (readsDevice).
	tops []string
	// cdSeen is set once a cd has been read: git after it may run in
	// another repository, with that repository's configuration.
	cdSeen bool
	// braceMade counts the words the line's brace expansions make.
	braceMade int
}

func (c *classifier) verdict() Verdict {
	if len(c.segs) == 0 {
		return Verdict{Reason: "no command"}
	}
	glance := true
	for _, s := range c.segs {
		if !s.Glance && !s.MainThread {
			return Verdict{Reason: s.Reason, Segments: c.segs}
		}
		glance = glance && s.Glance
	}
	v := Verdict{Glance: glance, MainThread: true, Segments: c.segs}
	if len(c.segs) == 1 {
		v.Reason = c.segs[0].Reason
		return v
	}
	names := make([]string, len(c.segs))
	for i, s := range c.segs {
		names[i], _, _ = strings.Cut(s.Reason, ":")
	}
	v.Reason = "every command is a glance: " + strings.Join(names, ", ")
	if !glance {
		v.Reason = "the main thread may run every command, not all are glances: " + strings.Join(names, ", ")
	}
	return v
}

// add records the segment s with its verdict: why it is not a glance, or
// its reason as a glance or, with mainThread, as a hands-on command the
// main thread may run.
func (c *classifier) add(s *syntax.Stmt, why, glance string, mainThread bool) {
	text := strings.TrimRight(c.r.text(s), "; \t\n")
	if why != "" {
		c.segs = append(c.segs, Segment{Command: text, Reason: why})
		return
	}
	c.segs = append(c.segs, Segment{Command: text, Glance: !mainThread, MainThread: mainThread, Reason: glance})
}

// stmt classifies one statement: a simple command, or a list or pipeline
// of statements, which are split into their simple commands.
func (c *classifier) stmt(s *syntax.Stmt) {
	switch {
	case s.Background:
		c.add(s, "background & keeps running after the command returns", "", false)
		return
	case s.Coprocess || s.Disown:
		c.add(s, "a coprocess keeps running after the command returns", "", false)
		return
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if len(s.Redirs) > 0 {
			c.add(s, "a redirection of a whole list is not on the table", "", false)
			return
		}
		c.stmt(x.X)
		c.stmt(x.Y)
	case *syntax.CallExpr:
		glance, why, mainThread := c.call(x)
		if why == "" {
			why = c.redirects(s.Redirs)
		}
		c.add(s, why, glance, mainThread)
	case nil:
		c.add(s, "a redirection without a command creates or empties a file", "", false)
	default:
		c.add(s, compoundKind(x), "", false)
	}
}

// call classifies one simple command. It returns the glance reason, or why
// it is not a glance; mainThread is set for a hands-on command the main
// thread may run (an extra entry), whose reason is then glance's.
func (c *classifier) call(x *syntax.CallExpr) (glance, why string, mainThread bool) {
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
	cmd, onTable := lookup()[name]
	extras := c.g.named(name)
	if !onTable && extras == nil {
		if w, known := refusedWhy()[name]; known {
			return "", name + ": " + w, false
		}
		if strings.ContainsAny(name, `\*?[{~`) {
			return "", "command name " + name + " is escaped or a pattern, not a plain word", false
		}
		return "", name + ": not on the glance table", false
	}
	// An extra entry is a rule on the arguments: treated as such here.
	rules := !onTable || cmd.hasRules()
	args := make([]arg, 0, len(x.Args)-1)
	for _, w := range x.Args[1:] {
		a, why := c.r.resolve(w)
		if why == "" {
			why = c.opens(a, true)
		}
		if why != "" {
			return "", name + ": " + why, false
		}
		if a.brace {
			if rules {
				return "", name + ": " + a.src + " may brace-expand into words the classifier never sees", false
			}
			// For a command whose every option is harmless, the words a
			// brace expands to are read as bash passes them: each may still
			// name a device or / (cat {/dev/zero,x}, ls {-R,/}).
			words, why := c.braceArgs(w, a.src)
			if why != "" {
				return "", name + ": " + why, false
			}
			args = append(args, words...)
			continue
		}
		if rules && a.mayBeOption() {
			return "", name + ": glob " + a.src + " may expand to an option", false
		}
		args = append(args, a)
	}
	if onTable {
		if glance, why = c.onTable(cmd, args); why == "" || extras == nil {
			return glance, why, false
		}
	}
	label, extraWhy, mainThread := c.extraCall(name, extras, args)
	switch {
	case label != "":
		return label, "", mainThread
	case extraWhy != "":
		return "", extraWhy, false
	case onTable:
		return "", why, false // no entry's words lead: the table's reason stands
	}
	if w, known := refusedWhy()[name]; known {
		return "", name + ": " + w, false
	}
	return "", name + ": no extra entry takes these words (" + entryNames(extras) + ")", false
}

// onTable applies the rules of cmd, an entry of the built-in table, to its
// arguments, which have passed the checks every command's words pass.
func (c *classifier) onTable(cmd *command, args []arg) (glance, why string) {
	name := cmd.name
	if why := cmd.checkArgs(args); why != "" {
		return "", why
	}
	if cmd.recurses != nil && cmd.recurses(args) {
		// With no folder named, "." is read: taken as named in any case.
		for _, a := range append(operandsOf(args), arg{value: ".", src: "."}) {
			if walksDevices(a, c.dirs) {
				return "", name + ": " + a.src + " is read recursively, and /, /dev, /proc and /sys hold files that never end"
			}
		}
	}
	if cmd.walks != nil && cmd.walks(args) {
		for _, a := range append(operandsOf(args), arg{value: ".", src: "."}) {
			if walksRoot(a, c.dirs) {
				return "", name + ": " + a.src + " walks the whole file system, which may not end within the call's timeout"
			}
		}
	}
	switch cmd.name {
	case "git":
		if c.cdSeen {
			return "", "git after cd may run in another repository, whose own configuration (core.fsmonitor, a committed bare repository's config) can run programs"
		}
		return gitLabel(args), ""
	case "cd":
		if why := c.chdir(args); why != "" {
			return "", "cd " + why
		}
	}
	return name + ": " + cmd.about, ""
}

// opens returns why a word names something no glance may open, or "": a
// network socket anywhere, and a device where the word may be read (an
// argument, an input redirection), as it is or from a folder an earlier cd
// moved to.
func (c *classifier) opens(a arg, read bool) string {
	switch {
	case network(a.value):
		return a.src + " names a network connection (bash opens /dev/tcp and /dev/udp as sockets)"
	case read && readsDevice(a, c.dirs, c.tops):
		return a.src + " is a device or kernel stream that may never end"
	}
	return ""
}

// maxBraceWords caps the words one brace expansion may make in a glance:
// echo {1..100000000} has bash build every one of them before echo runs.
// maxLineBraceWords caps those of a whole line, which the classifier makes
// and checks one by one: 16 KB of words of 256 each made 58 MB.
const (
	maxBraceWords     = 256
	maxLineBraceWords = 4 * maxBraceWords
)

// braceArgs returns the words w, written src, brace-expands into, each
// resolved and checked as a word written out would be, or why not. It
// counts them before making them (making them cost 0.26 s and 112 MB for
// 16 KB of "{a,b}{a,b}…"), on a copy of w: the brace nodes SplitBraces puts
// in a word are ones syntax.Walk panics on.
func (c *classifier) braceArgs(w *syntax.Word, src string) ([]arg, string) {
	split := *w
	syntax.SplitBraces(&split)
	n := braceWords(&split)
	if n > maxBraceWords {
		return nil, src + fmt.Sprintf(" brace-expands into more than %d words", maxBraceWords)
	}
	if c.braceMade += n; c.braceMade > maxLineBraceWords {
		return nil, src + fmt.Sprintf(": the line's braces expand into more than %d words", maxLineBraceWords)
	}
	words, ok := expandBraces(split.Parts)
	if !ok {
		return nil, src + " may brace-expand into words the classifier never sees"
	}
	args := make([]arg, 0, len(words))
	for _, ew := range words {
		// What SplitBraces left whole, bash passes as it is
		// ({1..99999999999999999999}).
		a, why := c.r.resolve(ew)
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

// expandBraces makes the words of parts, split by SplitBraces, as bash
// brace-expands them; braceWords has bounded how many. ok is false for a
// sequence it does not make: one of characters that are not letters or
// digits ({Z..a} holds [ and \), or one it cannot read.
func expandBraces(parts []syntax.WordPart) (words []*syntax.Word, ok bool) {
	for i, p := range parts {
		b, isBrace := p.(*syntax.BraceExp)
		if !isBrace {
			continue
		}
		var elems [][]syntax.WordPart
		if b.Sequence {
			if elems, ok = sequenceLits(b.Elems); !ok {
				return nil, false
			}
		} else {
			for _, e := range b.Elems {
				elems = append(elems, e.Parts)
			}
		}
		rest, ok := expandBraces(parts[i+1:])
		if !ok {
			return nil, false
		}
		for _, e := range elems {
			heads, ok := expandBraces(e)
			if !ok {
				return nil, false
			}
			for _, h := range heads {
				for _, r := range rest {
					words = append(words, &syntax.Word{Parts: slices.Concat(parts[:i:i], h.Parts, r.Parts)})
				}
			}
		}
		return words, true
	}
	return []*syntax.Word{{Parts: parts}}, true
}

// sequenceLits makes the words of {x..y} or {x..y..step} as bash does
// (zero-padded when a bound has a leading zero), each a literal.
func sequenceLits(elems []*syntax.Word) ([][]syntax.WordPart, bool) {
	from, to := elems[0].Lit(), elems[1].Lit()
	step := 1
	if len(elems) > 2 {
		n, err := strconv.Atoi(elems[2].Lit())
		if err != nil {
			return nil, false
		}
		step = max(n, -n, 1)
	}
	lo, err1 := strconv.Atoi(from)
	hi, err2 := strconv.Atoi(to)
	chars := err1 != nil || err2 != nil
	width := 0
	switch {
	case chars && len(from) == 1 && len(to) == 1:
		lo, hi = int(from[0]), int(to[0])
		for c := min(lo, hi); c <= max(lo, hi); c++ {
			if !isWordByte(byte(c), "") {
				return nil, false
			}
		}
	case chars:
		return nil, false
	case leadingZero(from) || leadingZero(to):
		width = max(len(from), len(to))
	}
	if lo > hi {
		step = -step
	}
	var out [][]syntax.WordPart
	for n := lo; step > 0 && n <= hi || step < 0 && n >= hi; n += step {
		v := fmt.Sprintf("%0*d", width, n)
		if chars {
			v = string(rune(n))
		}
		out = append(out, []syntax.WordPart{&syntax.Lit{Value: v}})
	}
	return out, true
}

// leadingZero reports whether a sequence bound is written with a leading
// zero (01, -01), which pads every word to the wider bound.
func leadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// braceWords counts the words w expands into, up to maxBraceWords+1.
func braceWords(w *syntax.Word) int {
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence {
			k = sequenceWords(b.Elems)
		} else {
			for _, e := range b.Elems {
				k = min(k+braceWords(e), maxBraceWords+1)
			}
		}
		n = min(n*k, maxBraceWords+1)
	}
	return n
}

// sequenceWords counts the words of {x..y} or {x..y..step}, up to
// maxBraceWords+1; a sequence it cannot read counts as too many.
func sequenceWords(elems []*syntax.Word) int {
	bound := func(w *syntax.Word) (int, bool) {
		v := w.Lit()
		if n, err := strconv.Atoi(v); err == nil {
			return n, true
		}
		if len(v) == 1 {
			return int(v[0]), true
		}
		return 0, false
	}
	from, ok1 := bound(elems[0])
	to, ok2 := bound(elems[1])
	step := 1
	if len(elems) > 2 {
		n, err := strconv.Atoi(elems[2].Lit())
		if err != nil {
			return maxBraceWords + 1
		}
		step = max(n, -n, 1)
	}
	if !ok1 || !ok2 {
		return maxBraceWords + 1
	}
	span := max(to-from, from-to)
	if span < 0 { // overflow
		return maxBraceWords + 1
	}
	return min(span/step+1, maxBraceWords+1)
}

// checkArgs applies the command's rules to its arguments.
func (cmd *command) checkArgs(args []arg) string {
	for _, a := range args {
		if !a.isOption() {
			continue
		}
		if f, hit := denied(cmd.deny, a); hit {
			who := cmd.name
			if who == "git" {
				who = gitName(args)
			}
			return who + " " + a.src + " " + f.why
		}
	}
	if cmd.allow != nil || cmd.limit != 0 {
		var operands []arg
		if cmd.allow != nil {
			var bad string
			if operands, _, bad = cmd.allow.scan(args); bad != "" {
				return cmd.name + " option " + bad + " is not on the table"
			}
		} else {
			operands = operandsOf(args)
		}
		limit := cmd.limit
		if limit == noOperands {
			limit = 0
		}
		if cmd.limit != 0 && len(operands) > limit {
			why := "more operands than allowed"
			if cmd.note != "" {
				why = cmd.note
			}
			return cmd.name + " " + operands[limit].src + ": " + why
		}
		if cmd.limit != 0 {
			for _, a := range operands {
				if a.glob {
					return cmd.name + ": glob " + a.src + " may expand to more operands than allowed"
				}
			}
		}
	}
	if cmd.check != nil {
		return cmd.check(args)
	}
	return ""
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

// redirects checks the redirections of a simple command. Only reading a
// file, duplicating or closing one of the descriptors 0, 1 and 2, and
// writing to /dev/null pass.
func (c *classifier) redirects(rs []*syntax.Redirect) string {
	for _, r := range rs {
		if why := c.redirect(r); why != "" {
			return why
		}
	}
	return ""
}

// devNull is the one file a glance may redirect output to.
const devNull = "/dev/null"

func (c *classifier) redirect(r *syntax.Redirect) string {
	text := c.r.text(r)
	if r.N != nil {
		if !allDigits(r.N.Value) {
			return "redirection " + text + " assigns a variable"
		}
		if aboveStderr(r.N.Value) {
			return "redirection " + text + " uses descriptor " + r.N.Value + ": only 0, 1 and 2 are on the table"
		}
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return "here-document " + r.Op.String() + " is not on the table"
	case syntax.WordHdoc:
		return "here-string <<< is not on the table"
	case syntax.RdrInOut:
		return "redirection " + text + " opens a file for writing"
	}
	a, why := c.r.resolve(r.Word)
	if why == "" {
		why = c.opens(a, r.Op == syntax.RdrIn)
	}
	if why != "" {
		return "redirection " + text + ": " + why
	}
	if a.glob || a.brace {
		return "redirection " + text + " may expand to another file"
	}
	switch r.Op {
	case syntax.RdrIn:
		return ""
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		if a.value == devNull {
			return ""
		}
		return "redirection " + text + " writes a file"
	case syntax.DplIn, syntax.DplOut:
		switch {
		case a.value == "-", r.Op == syntax.DplOut && a.value == devNull:
			return ""
		case allDigits(a.value) && aboveStderr(a.value):
			return "redirection " + text + " duplicates descriptor " + a.value + ": only 0, 1 and 2 are on the table"
		case allDigits(a.value):
			return ""
		}
		return "redirection " + text + " writes a file"
	}
	return "redirection " + text + " is not on the table"
}

// aboveStderr reports whether a descriptor number, all digits, is above 2:
// such a descriptor may be a socket or a file opened for writing elsewhere
// in the line (3</dev/udp/h/p >&3).
func aboveStderr(fd string) bool {
	n, err := strconv.Atoi(fd)
	return err != nil || n > 2
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// compoundKind says why a compound command is not a glance.
func compoundKind(x syntax.Command) string {
	switch x.(type) {
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

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
