package ephemeral

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// arg is an argument word with the value bash passes, known before the
// command runs (a word with an expansion never becomes an arg).
type arg struct {
	value, src     string // after quote removal; as written, for reasons
	glob, globLead bool   // an unquoted *, ? or [; one before any fixed character, so it may expand to "-…"
	brace          bool   // it may brace-expand ({a,b}, {1..3}) into several words
}

// mayBeOption reports whether the word may expand into an option.
func (a arg) mayBeOption() bool { return a.globLead || a.glob && strings.HasPrefix(a.value, "-") }

// isOption reports whether the word is an option: not "-" (stdin) nor "--".
func (a arg) isOption() bool { return len(a.value) > 1 && a.value[0] == '-' && a.value != "--" }

// plain reports whether the word can only be itself, as an option's value
// or a script must: a glob or a brace may make other words of it.
func (a arg) plain() bool { return !a.isOption() && a.value != "--" && !a.glob && !a.brace }

// Word returns the value bash passes for w, and whether it holds an
// unquoted wildcard; ok is false when the value is only known when the
// command runs (an expansion, $'…', ~user).
func Word(w *syntax.Word) (value string, glob, ok bool) {
	a, why := new(resolver).resolve(w)
	return a.value, a.glob, why == ""
}

// resolver turns words into args; src is the line, for reasons.
type resolver struct {
	src string
	buf strings.Builder
}

// text is the source text of a node.
func (r *resolver) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(r.src) || start > end {
		return ""
	}
	return r.src[start:end]
}

// resolve returns the value of w, or why it has none before it runs.
func (r *resolver) resolve(w *syntax.Word) (arg, string) {
	a := arg{src: r.text(w)}
	if len(w.Parts) == 1 { // the usual word: one literal without escapes, no copy
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, `\*?[{~`) {
			a.value = lit.Value
			return a, ""
		}
	}
	r.buf.Reset()
	open, close := -1, -1 // an unquoted { and the last unquoted } after it
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if why := tildeWhy(v, i == 0 && (len(w.Parts) == 1 || v != "~")); why != "" {
				return a, why + " in " + a.src
			}
			for i := 0; i < len(v); i++ {
				switch c := v[i]; {
				case c == '\\' && i+1 < len(v):
					i++
				case c == '*' || c == '?' || c == '[':
					a.glob, a.globLead = true, a.globLead || r.buf.Len() == 0
				case c == '{' && open < 0:
					open = r.buf.Len()
				case c == '}' && open >= 0:
					close = r.buf.Len()
				}
				r.buf.WriteByte(v[i])
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return a, "ANSI-C quoting $'…' in " + a.src + " is not read as a plain word"
			}
			r.buf.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return a, "locale quoting $\"…\" in " + a.src + " is not read as a plain word"
			}
			for _, in := range p.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return a, nodeWhy(in) + " in " + a.src + ": its value is only known when it runs"
				}
				// Inside double quotes a backslash escapes only $ ` " \ and newline.
				v := lit.Value
				for i := 0; i < len(v); i++ {
					if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
						if i++; v[i] == '\n' {
							continue
						}
					}
					r.buf.WriteByte(v[i])
				}
			}
		default:
			return a, nodeWhy(part) + " in " + a.src + ": its value is only known when it runs"
		}
	}
	a.value = r.buf.String()
	if open >= 0 && close > open {
		inner := a.value[open:close]
		a.brace = strings.Contains(inner, ",") || strings.Contains(inner, "..")
	}
	return a, ""
}

// tildeWhy returns why a literal holds a tilde whose folder is only known
// when it runs, or "": at the start of a word only ~ and ~/… pass, and
// none after = or :, where bash expands one too (a=~root/x).
func tildeWhy(v string, start bool) string {
	if start && strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/") {
		return "tilde expansion " + quoteShort(v) + ": its folder is only known when it runs"
	}
	if strings.Contains(v, "=~") || strings.Contains(v, ":~") {
		return "tilde expansion after = or : (bash expands it in a word that looks like an assignment)"
	}
	return ""
}

// The words brace expansions may make, checked one by one: bash builds
// them all before the command runs (echo {1..100000000}).
const (
	maxBraceWords     = 256
	maxLineBraceWords = 4 * maxBraceWords
)

// braceArgs returns the words w, written src, brace-expands into, each
// checked as a word written out, or why not.
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
