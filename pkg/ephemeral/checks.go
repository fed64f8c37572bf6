package ephemeral

import "strings"

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
