package ephemeral

import (
	"slices"
	"strings"
)

// flagRule names an option that turns a reader into a writer, an executor
// or a command that never ends.
type flagRule struct {
	short byte   // -x, also inside a cluster such as -rx; 0 for none
	long  string // --name without dashes, matched as getopt_long matches it (see denied)
	word  string // an exact word, for find's primaries such as -delete
	why   string
}

// spelling is how the rule reads in --list and in reasons.
func (f flagRule) spelling() string {
	var s []string
	if f.short != 0 {
		s = append(s, "-"+string(f.short))
	}
	if f.long != "" {
		s = append(s, "--"+f.long)
	}
	if f.word != "" {
		s = append(s, f.word)
	}
	return strings.Join(s, ", ")
}

// denied returns the first rule that the option word a trips, if any.
//
// GNU getopt_long and git's parse-options accept any unambiguous prefix of a
// long option (sort --outp=x is --output=x), so a long option is denied when
// what was written is a prefix of a denied name. A short rule is denied
// anywhere in a cluster (-ro, -rofile): the classifier does not know which
// letters take a value, so it reads every letter as an option.
func denied(rules []flagRule, a arg) (flagRule, bool) {
	v := a.value
	for _, f := range rules {
		switch {
		case f.word != "" && v == f.word:
			return f, true
		case f.long != "" && strings.HasPrefix(v, "--"):
			name, _, _ := strings.Cut(v[2:], "=")
			if name != "" && strings.HasPrefix(f.long, name) {
				return f, true
			}
		case f.short != 0 && !strings.HasPrefix(v, "--") && strings.IndexByte(v[1:], f.short) >= 0:
			return f, true
		}
	}
	return flagRule{}, false
}

// options is an allowlist: the only options a command form accepts.
type options struct {
	short    string   // letters without a value, in any cluster
	shortArg string   // letters that take a value: attached (-kVAL) or the next word
	shortNum string   // letters that may carry an attached number (-n5)
	long     []string // long options without a value
	longArg  []string // long options with a value: --name=VAL or --name VAL
	longOpt  []string // long options with an optional attached value: --name or --name=VAL
}

// describe is the allowlist as --list prints it.
func (o *options) describe() string {
	var s []string
	for _, c := range o.short {
		s = append(s, "-"+string(c))
	}
	for _, c := range o.shortArg {
		s = append(s, "-"+string(c)+" X")
	}
	for _, c := range o.shortNum {
		s = append(s, "-"+string(c)+"[N]")
	}
	for _, l := range o.long {
		s = append(s, "--"+l)
	}
	for _, l := range o.longArg {
		s = append(s, "--"+l+"=X")
	}
	for _, l := range o.longOpt {
		s = append(s, "--"+l+"[=X]")
	}
	return strings.Join(s, " ")
}

// scan walks args with the allowlist o. It returns the operands, the option
// words (values left out) and, for an option not on the list, the offending
// word. A value taken from the next word must not start with "-": whether
// the program reads such a word as a value or as an option is exactly the
// kind of guess that lets a write through, so it is refused.
func (o *options) scan(args []arg) (operands, opts []arg, bad string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.value == "--" {
			return append(operands, args[i+1:]...), opts, ""
		}
		if !a.isOption() {
			operands = append(operands, a)
			continue
		}
		opts = append(opts, a)
		takesNext := false
		if long, ok := strings.CutPrefix(a.value, "--"); ok {
			name, _, hasValue := strings.Cut(long, "=")
			switch {
			case slices.Contains(o.long, name) && !hasValue:
			case slices.Contains(o.longOpt, name):
			case slices.Contains(o.longArg, name):
				takesNext = !hasValue
			default:
				return nil, nil, a.src
			}
		} else if !o.cluster(a.value[1:], &takesNext) {
			return nil, nil, a.src
		}
		if takesNext {
			if i+1 >= len(args) || args[i+1].isOption() || args[i+1].value == "--" {
				return nil, nil, a.src + " without a plain value"
			}
			i++
		}
	}
	return operands, opts, ""
}

// cluster checks the letters of a short option word. takesNext is set when
// the last letter takes its value from the next word.
func (o *options) cluster(letters string, takesNext *bool) bool {
	for j := 0; j < len(letters); j++ {
		c := letters[j]
		switch {
		case strings.IndexByte(o.shortArg, c) >= 0:
			*takesNext = j == len(letters)-1
			return true
		case strings.IndexByte(o.shortNum, c) >= 0:
			for j+1 < len(letters) && isDigit(letters[j+1]) {
				j++
			}
		case strings.IndexByte(o.short, c) < 0:
			return false
		}
	}
	return true
}
