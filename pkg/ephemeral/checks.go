package ephemeral

import (
	"slices"
	"strings"
)

// checkTailPlus refuses the obsolete form tail +Nf, which follows like -f.
func checkTailPlus(args []arg) string {
	for _, a := range args {
		if strings.HasPrefix(a.value, "+") && strings.ContainsAny(a.value, "fF") {
			return "tail " + a.src + " follows the file and never ends"
		}
	}
	return ""
}

// checkCommandV lets command through only as a question (command -v NAME):
// without -v or -V it runs NAME. Options come before the name, as bash
// stops reading them at the first operand.
func checkCommandV(args []arg) string {
	asks := false
	for _, a := range args {
		if !a.isOption() {
			break
		}
		for _, c := range a.value[1:] {
			switch c {
			case 'v', 'V':
				asks = true
			case 'p':
			default:
				return "command " + a.src + " is not a -v or -V question"
			}
		}
	}
	if !asks {
		return "command without -v or -V runs another command"
	}
	return ""
}

// dateOptions are date's options that take a value, so that the value is
// not taken for an operand. -s/--set is refused before this runs.
var dateOptions = &options{
	short:    "uRI",
	shortArg: "dfr",
	long:     []string{"utc", "universal", "rfc-email", "debug", "resolution", "help", "version"},
	longArg:  []string{"date", "file", "reference", "rfc-3339"},
	longOpt:  []string{"iso-8601"},
}

// checkDate refuses an operand that is not a +FORMAT: date MMDDhhmm sets the clock.
func checkDate(args []arg) string {
	operands, _, bad := dateOptions.scan(args)
	if bad != "" {
		return "date option " + bad + " is not on the table"
	}
	for _, a := range operands {
		if !strings.HasPrefix(a.value, "+") || a.glob {
			return "date " + a.src + " sets the clock"
		}
	}
	return ""
}

// checkTest refuses the operands of test and [ that make bash evaluate code
// held in a quoted word: -v and -R take a variable name, and bash expands
// and evaluates a subscript in it (test -v 'a[$(touch p)]' runs touch). A
// "[" in any operand is refused too, whatever operator it follows.
func checkTest(args []arg) string {
	for _, a := range args {
		switch {
		case a.value == "-v" || a.value == "-R":
			return "test " + a.src + " names a variable, and bash evaluates a subscript in the name (a[$(cmd)] runs cmd)"
		case strings.Contains(a.value, "["):
			return "test operand " + a.src + " holds a [, which bash may evaluate as an array subscript"
		}
	}
	return ""
}

// seqOptions are the options of seq a glance may use; -f (a printf format)
// is not among them.
var seqOptions = &options{short: "w", shortArg: "s", long: []string{"equal-width"}, longArg: []string{"separator"}}

// maxSeqDigits bounds seq's operands, and so its output: at most a million
// lines. seq 1 inf, or 1e18, prints until Claude Code's timeout.
const maxSeqDigits = 6

// checkSeq lets seq through with plain numbers of at most maxSeqDigits
// digits as its operands.
func checkSeq(args []arg) string {
	operands, _, _ := seqOptions.scan(args)
	for _, a := range operands {
		if !allDigits(a.value) || len(a.value) > maxSeqDigits {
			return "seq " + a.src + ": only whole numbers of at most 6 digits (seq 1 inf never ends)"
		}
	}
	return ""
}

// jqLoops are the jq builtins and keywords through which a filter can run
// without end (repeat(.), range(1e18), until, while, recurse(f), a
// recursive def, combinations: [0,1]|combinations(40) makes 2^40 arrays)
// or pull in code the classifier cannot see (import, include). A glance's
// filter picks paths out of its input and needs none.
var jqLoops = []string{"repeat", "range", "until", "while", "recurse", "combinations", "def", "import", "include"}

// checkJq refuses a jq word that names one of jqLoops as a function or
// keyword; the same name as a field (.range) or variable ($range) passes.
func checkJq(args []arg) string {
	for _, a := range args {
		v := a.value
		for i := 0; i < len(v); {
			if !isIdent(v[i]) || isDigit(v[i]) {
				i++
				continue
			}
			j := i
			for j < len(v) && isIdent(v[j]) {
				j++
			}
			if word := v[i:j]; (i == 0 || !strings.ContainsRune(".$@", rune(v[i-1]))) && slices.Contains(jqLoops, word) {
				return "jq " + quoteShort(a.value) + " uses " + word + ", which can loop without end"
			}
			i = j
		}
	}
	return ""
}

func isIdent(c byte) bool { return c == '_' || isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' }
