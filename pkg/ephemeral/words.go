package ephemeral

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one argument word with the value the shell would pass, known
// before the command runs. Words whose value is only known at run time
// (parameter expansion, command substitution, …) never become an arg.
type arg struct {
	value string // after quote removal
	src   string // as written, for reasons
	// glob is set when the word holds an unquoted *, ? or [: the shell may
	// replace it with any file names, including ones that look like options.
	glob bool
	// globLead is set when the glob comes before any fixed character, so
	// the expansion may start with "-".
	globLead bool
	// brace is set when the word may brace-expand ({a,b} or {1..3}) into
	// several words the classifier never sees.
	brace bool
}

// mayBeOption reports whether the word may expand into an option the
// classifier cannot see: a glob at its start, or a glob in a word that
// already starts with "-".
func (a arg) mayBeOption() bool {
	return a.globLead || a.glob && strings.HasPrefix(a.value, "-")
}

// isOption reports whether the word is an option word: "-x…" or "--x…", not
// "-" (stdin) and not "--" (end of options).
func (a arg) isOption() bool {
	return len(a.value) > 1 && a.value[0] == '-' && a.value != "--"
}

// resolver turns syntax words into args. It keeps the command's source for
// quoting words in reasons.
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

// resolve returns the static value of w, or why there is none.
func (r *resolver) resolve(w *syntax.Word) (arg, string) {
	a := arg{src: r.text(w)}
	// The usual word is one plain literal without escapes: no copy needed.
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, `\*?[{~`) {
			a.value = lit.Value
			return a, ""
		}
	}
	r.buf.Reset()
	open, close := -1, -1 // unquoted { and the last unquoted } after it
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if why := tildeWhy(v, i == 0 && (len(w.Parts) == 1 || v != "~")); why != "" {
				return a, why + " in " + a.src
			}
			for i := 0; i < len(v); i++ {
				c := v[i]
				switch {
				case c == '\\' && i+1 < len(v):
					i++
					r.buf.WriteByte(v[i])
					continue
				case c == '*' || c == '?' || c == '[':
					a.glob = true
					if r.buf.Len() == 0 {
						a.globLead = true
					}
				case c == '{' && open < 0:
					open = r.buf.Len()
				case c == '}' && open >= 0:
					close = r.buf.Len()
				}
				r.buf.WriteByte(c)
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
					return a, expansionKind(in) + " in " + a.src + ": its value is only known when it runs"
				}
				writeDoubleQuoted(&r.buf, lit.Value)
			}
		default:
			return a, expansionKind(part) + " in " + a.src + ": its value is only known when it runs"
		}
	}
	a.value = r.buf.String()
	if open >= 0 && close > open {
		inner := a.value[open:close]
		a.brace = strings.Contains(inner, ",") || strings.Contains(inner, "..")
	}
	return a, ""
}

// tildeWhy returns why an unquoted literal holds a tilde whose expansion
// the classifier cannot know, or "". At the start of a word only ~ and ~/…
// (the home folder) pass: ~user, ~+ ($PWD) and ~- ($OLDPWD) are known
// when the command runs. After = or : bash expands a tilde too (a=~root/x
// becomes a=/root/x), so there it never passes. start says the literal
// opens a word whose tilde prefix is unquoted.
func tildeWhy(v string, start bool) string {
	if start && strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/") {
		return "tilde expansion " + quoteShort(v) + ": its folder is only known when it runs"
	}
	if strings.Contains(v, "=~") || strings.Contains(v, ":~") {
		return "tilde expansion after = or : (bash expands it in a word that looks like an assignment)"
	}
	return ""
}

// writeDoubleQuoted writes the value of a literal inside double quotes,
// where a backslash escapes only $ ` " \ and newline.
func writeDoubleQuoted(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
}

// expansionKind names a word part that is not a literal.
func expansionKind(p syntax.WordPart) string {
	switch p.(type) {
	case *syntax.ParamExp:
		return "parameter expansion"
	case *syntax.CmdSubst:
		return "command substitution"
	case *syntax.ArithmExp:
		return "arithmetic expansion"
	case *syntax.ProcSubst:
		return "process substitution"
	case *syntax.ExtGlob:
		return "extended glob"
	case *syntax.BraceExp:
		return "brace expansion"
	}
	return "an expansion"
}
