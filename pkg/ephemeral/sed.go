package ephemeral

import (
	"strconv"
	"strings"
)

// sedOptions are the sed options a glance may use. -i (edit in place) and
// -f (a script file the classifier cannot read) are not among them.
var sedOptions = &options{
	short:    "nErsuz",
	shortArg: "e",
	long:     []string{"quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data", "posix", "sandbox", "debug"},
	longArg:  []string{"expression"},
}

// checkSed lets sed through only as a printer: -n, and scripts made of print
// commands alone. Anything the small parser below does not recognise is
// refused, so an unusual but harmless script costs a subagent, never a write.
func checkSed(args []arg) string {
	quiet := false
	var scripts []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.value == "--" {
			break
		}
		if !a.isOption() {
			continue
		}
		if long, ok := strings.CutPrefix(a.value, "--"); ok {
			name, value, hasValue := strings.Cut(long, "=")
			switch name {
			case "quiet", "silent":
				quiet = true
			case "expression":
				if !hasValue {
					if i+1 >= len(args) {
						return "sed --expression has no script"
					}
					i++
					value = args[i].value
				}
				scripts = append(scripts, value)
			}
			continue
		}
		cluster := a.value[1:]
		for j := 0; j < len(cluster); j++ {
			switch cluster[j] {
			case 'n':
				quiet = true
			case 'e':
				script := cluster[j+1:]
				if script == "" {
					if i+1 >= len(args) {
						return "sed -e has no script"
					}
					i++
					script = args[i].value
				}
				scripts = append(scripts, script)
				j = len(cluster)
			}
		}
	}
	if !quiet {
		return "sed without -n prints every line; only sed -n with print commands is a glance"
	}
	if len(scripts) == 0 {
		// The first operand is the script.
		operands, _, bad := sedOptions.scan(args)
		if bad != "" {
			return "sed option " + bad + " is not on the table"
		}
		if len(operands) == 0 {
			return "sed has no script"
		}
		scripts = append(scripts, operands[0].value)
	}
	for _, s := range scripts {
		if why := sedScript(s); why != "" {
			return "sed script " + quoteShort(s) + ": " + why
		}
	}
	return ""
}

// sedScript checks a sed script: commands separated by ; or newlines, each
// an optional address or range, an optional !, and one of p = q Q or an s
// command whose flags only print. It returns why the script is refused.
func sedScript(s string) string {
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '\n') {
			i++
		}
		if i >= len(s) {
			return ""
		}
		var ok bool
		if i, ok = sedAddress(s, i, false); !ok {
			return "address not understood"
		}
		i = sedSpaces(s, i)
		if i < len(s) && s[i] == ',' {
			if i, ok = sedAddress(s, sedSpaces(s, i+1), true); !ok {
				return "address not understood"
			}
		}
		i = sedSpaces(s, i)
		if i < len(s) && s[i] == '!' {
			i = sedSpaces(s, i+1)
		}
		if i >= len(s) {
			return "missing command"
		}
		switch c := s[i]; c {
		case 'p', '=':
			i++
		case 'q', 'Q':
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		case 's':
			var why string
			if i, why = sedSubstitute(s, i+1); why != "" {
				return why
			}
		default:
			return "command " + string(c) + " is not a print command"
		}
		i = sedSpaces(s, i)
		if i < len(s) && s[i] != ';' && s[i] != '\n' {
			return "unexpected " + string(s[i])
		}
	}
}

func sedSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// sedAddress reads an optional address at s[i:]: N, N~S, $, /re/ or \cREc
// with I or M flags; a second address may also be +N or ~N.
func sedAddress(s string, i int, second bool) (int, bool) {
	if i >= len(s) {
		return i, !second
	}
	switch c := s[i]; {
	case isDigit(c):
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if !second && i < len(s) && s[i] == '~' {
			return sedDigits(s, i+1)
		}
		return i, true
	case c == '$':
		return i + 1, true
	case second && (c == '+' || c == '~'):
		return sedDigits(s, i+1)
	case c == '/' || c == '\\':
		delim := byte('/')
		if c == '\\' {
			if i+1 >= len(s) {
				return i, false
			}
			i++
			delim = s[i]
		}
		end, ok := sedDelimited(s, i+1, delim)
		if !ok {
			return i, false
		}
		for end < len(s) && (s[end] == 'I' || s[end] == 'M') {
			end++
		}
		return end, true
	}
	return i, !second
}

func sedDigits(s string, i int) (int, bool) {
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i, i > start
}

// sedDelimited returns the index just past the delimiter that closes the
// part starting at s[i], skipping backslash escapes as GNU sed does. A raw
// newline inside is refused.
func sedDelimited(s string, i int, delim byte) (int, bool) {
	if delim == '\n' || delim == '\\' {
		return i, false
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\n':
			return i, false
		case delim:
			return i + 1, true
		}
	}
	return i, false
}

// sedSubstitute reads s/re/replacement/flags starting after the s. Only
// flags that change what is printed are allowed: w writes a file, e runs
// the pattern space as a command.
func sedSubstitute(s string, i int) (int, string) {
	if i >= len(s) {
		return i, "unterminated s command"
	}
	delim := s[i]
	end, ok := sedDelimited(s, i+1, delim)
	if !ok {
		return i, "s command not understood"
	}
	if end, ok = sedDelimited(s, end, delim); !ok {
		return i, "s command not understood"
	}
	for ; end < len(s); end++ {
		c := s[end]
		switch {
		case strings.IndexByte("gpiImM", c) >= 0 || isDigit(c):
		case c == ' ' || c == '\t' || c == ';' || c == '\n':
			return end, ""
		case c == 'w' || c == 'W':
			return end, "s flag w writes a file"
		case c == 'e':
			return end, "s flag e runs a command"
		default:
			return end, "s flag " + string(c) + " is not on the table"
		}
	}
	return end, ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// maxQuoted is how much of a long script or word a reason quotes: enough to
// recognise it, short enough to keep the reason one line.
const maxQuoted = 40

// quoteShort quotes s for a reason, cut to maxQuoted bytes.
func quoteShort(s string) string {
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "…"
	}
	return strconv.Quote(s)
}
