package ephemeral

import (
	"slices"
	"strings"
)

// checkTailPlus refuses the obsolete form tail +Nf, which follows like -f,
// and a glob that may become it (tail +5* with files +5f and +5f.txt).
func checkTailPlus(w words) string {
	for _, a := range w.args {
		if strings.HasPrefix(a.value, "+") && (strings.ContainsAny(a.value, "fF") || a.glob) {
			return "tail " + a.src + " follows the file and never ends"
		}
	}
	return ""
}

// checkCommandV lets command through only as a question (command -v
// NAME): without -v or -V it runs NAME. bash reads options up to the name.
func checkCommandV(w words) string {
	asks := false
	for _, a := range w.args {
		if !a.isOption() {
			break
		}
		if strings.Trim(a.value[1:], "vVp") != "" {
			return "command " + a.src + " is not a -v or -V question"
		}
		asks = asks || strings.ContainsAny(a.value, "vV")
	}
	if !asks {
		return "command without -v or -V runs another command"
	}
	return ""
}

// checkDate refuses an operand that is not a +FORMAT: date MMDDhhmm sets
// the clock.
func checkDate(w words) string {
	for _, a := range w.operands {
		if !strings.HasPrefix(a.value, "+") || a.glob {
			return "date " + a.src + " sets the clock"
		}
	}
	return ""
}

// checkTest refuses the operands through which bash evaluates code in a
// quoted word: -v and -R take a variable name, whose subscript bash
// evaluates (test -v 'a[$(touch p)]' runs touch); a "[" in any operand too.
func checkTest(w words) string {
	for _, a := range w.args {
		switch {
		case a.value == "-v" || a.value == "-R":
			return "test " + a.src + " names a variable, and bash evaluates a subscript in the name (a[$(cmd)] runs cmd)"
		case strings.Contains(a.value, "["):
			return "test operand " + a.src + " holds a [, which bash may evaluate as an array subscript"
		}
	}
	return ""
}

// checkSeq lets seq through with whole numbers of at most six digits, a
// million lines at most: seq 1 inf, or 1e18, prints until the timeout.
func checkSeq(w words) string {
	for _, a := range w.operands {
		if !allDigits(a.value) || len(a.value) > 6 {
			return "seq " + a.src + ": only whole numbers of at most 6 digits (seq 1 inf never ends)"
		}
	}
	return ""
}

// jqLoops are the jq builtins and keywords through which a filter can run
// without end (repeat(.), range(1e18), a recursive def, [0,1] |
// combinations(40) makes 2^40 arrays) or pull in code the classifier
// cannot see. A glance's filter picks paths out of its input.
var jqLoops = []string{"repeat", "range", "until", "while", "recurse", "combinations", "def", "import", "include"}

// checkJq refuses a jq word that names one of jqLoops as a function or
// keyword (the same name as a field, .range, or variable, $range, passes),
// and a glob up to the filter, which may expand into one (jq -n r* with a
// file named repeat(1)).
func checkJq(w words) string {
	values := 0 // the words the option before takes
	for _, a := range w.args {
		if a.glob {
			return "jq " + a.src + " may expand into the filter, which is checked as written"
		}
		if values > 0 {
			values--
			continue
		}
		if !a.isOption() && a.value != "--" {
			break // the filter
		}
		switch { // the options that take values, -L DIR also in a cluster
		case slices.Contains([]string{"--arg", "--argjson", "--slurpfile", "--rawfile", "--argfile"}, a.value):
			values = 2
		case a.value == "--indent" || a.value == "--library-path" || a.value[1] != '-' && strings.Contains(a.value, "L"):
			values = 1
		}
	}
	for _, a := range w.args {
		v := a.value
		for i := 0; i < len(v); {
			if !isWordByte(v[i], "_") || isDigit(v[i]) {
				i++
				continue
			}
			j := i
			for j < len(v) && isWordByte(v[j], "_") {
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

// checkSed lets sed through as a printer only: -n, and scripts made of
// print commands. What sedScript does not read is refused, so an unusual
// but harmless script costs a subagent, never a write.
func checkSed(w words) string {
	quiet := false
	var scripts []string
	for _, f := range w.flags {
		switch f.name {
		case "-n", "--quiet", "--silent":
			quiet = true
		case "-e", "--expression":
			scripts = append(scripts, f.value)
		}
	}
	switch {
	case !quiet:
		return "sed without -n prints every line; only sed -n with print commands is a glance"
	case len(scripts) == 0 && len(w.operands) == 0:
		return "sed has no script"
	case len(scripts) == 0 && !w.operands[0].plain():
		return "sed script " + w.operands[0].src + " may expand into another script"
	case len(scripts) == 0:
		scripts = append(scripts, w.operands[0].value) // the first operand is the script
	}
	for _, s := range scripts {
		if why := sedScript(s); why != "" {
			return "sed script " + quoteShort(s) + ": " + why
		}
	}
	return ""
}

// sedScript returns why a sed script is refused, or "": commands split by
// ; or newlines, each an optional address or range, an optional !, and
// p, =, q, Q or an s command whose flags only print (w writes a file, e
// runs the pattern space).
func sedScript(s string) string {
	i := 0
	skip := func(set string) {
		for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
			i++
		}
	}
	number := func() bool { start := i; skip(digits); return i > start }
	// delimited moves past the delimiter that closes the part starting at
	// i, skipping backslash escapes as GNU sed does; a raw newline fails.
	delimited := func(delim byte) bool {
		for ; i < len(s) && delim != '\n' && delim != '\\'; i++ {
			switch s[i] {
			case '\\':
				i++
			case '\n':
				return false
			case delim:
				i++
				return true
			}
		}
		return false
	}
	// address reads an optional address: N, N~S, $, /re/ or \cREc with I or
	// M flags; the second of a range must be there, and may be +N or ~N.
	address := func(second bool) bool {
		switch {
		case i == len(s):
		case isDigit(s[i]):
			if skip(digits); !second && i < len(s) && s[i] == '~' {
				i++
				return number()
			}
			return true
		case s[i] == '$':
			i++
			return true
		case second && (s[i] == '+' || s[i] == '~'):
			i++
			return number()
		case s[i] == '/' || s[i] == '\\' && i+1 < len(s):
			delim := byte('/')
			if s[i] == '\\' {
				i++
				delim = s[i]
			}
			i++
			ok := delimited(delim)
			skip("IM")
			return ok
		}
		return !second
	}
	for skip(" \t;\n"); i < len(s); skip(" \t;\n") {
		if !address(false) {
			return "address not understood"
		}
		if skip(" \t"); i < len(s) && s[i] == ',' {
			i++
			if skip(" \t"); !address(true) {
				return "address not understood"
			}
		}
		if skip(" \t"); i < len(s) && s[i] == '!' {
			i++
			skip(" \t")
		}
		if i == len(s) {
			return "missing command"
		}
		switch i++; s[i-1] {
		case 'p', '=':
		case 'q', 'Q':
			skip(digits)
		case 's':
			if i == len(s) {
				return "unterminated s command"
			}
			delim := s[i]
			if i++; !delimited(delim) || !delimited(delim) {
				return "s command not understood"
			}
			for ; i < len(s) && strings.IndexByte(" \t;\n", s[i]) < 0; i++ {
				switch c := s[i]; {
				case c == 'w' || c == 'W':
					return "s flag w writes a file"
				case c == 'e':
					return "s flag e runs a command"
				case strings.IndexByte("gpiImM", c) < 0 && !isDigit(c):
					return "s flag " + string(c) + " is not on the table"
				}
			}
		default:
			return "command " + string(s[i-1]) + " is not a print command"
		}
		if skip(" \t"); i < len(s) && s[i] != ';' && s[i] != '\n' {
			return "unexpected " + string(s[i])
		}
	}
	return ""
}

// git trusts the configuration of the repository it finds from the working
// folder, as the user does who runs git there, and no other: a repository
// can commit a bare one whose config sets core.fsmonitor, which git status
// there runs. Before the subcommand only gitGlobal's options pass;
// gitGlobalDeny names the others worth a reason.
var (
	gitGlobal = options{"-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
		"--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice", "--namespace=X"}
	gitGlobalDeny = []flagRule{
		{[]string{"-C", "--git-dir", "--work-tree", "--bare"}, "points git at another repository, whose own configuration can run programs"},
		{[]string{"-c"}, "sets configuration, which can run programs"},
		{[]string{"-p", "--paginate"}, "starts a pager"},
	}
	// gitSignature are format placeholders that run gpg: %G? %GS … in
	// --format, %(signature…) in branch and tag's.
	gitSignature = []string{"%G", "%(signature"}
)

// gitSub returns the index in args of git's subcommand, past the options
// before it, or why those are refused.
func gitSub(args []arg) (int, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.glob || a.brace:
			return i, "git " + a.src + " before the subcommand may expand to anything"
		case !a.isOption():
			return i, ""
		}
		if f, s := denied(gitGlobalDeny, a.value); s != "" {
			return i, "git " + s + " " + f.why
		}
		_, next, ok := gitGlobal.read(nil, a.value)
		if !ok {
			return i, "git option " + a.src + " before the subcommand is not on the table"
		}
		if next {
			if i++; i == len(args) || !args[i].plain() {
				return i, "git " + a.src + " without a plain value"
			}
		}
	}
	return len(args), "git without a subcommand is not on the table"
}

// gitName is "git SUBCOMMAND", or "git" when there is none to name.
func gitName(args []arg) string {
	if len(args) == 1 && args[0].value == "--version" {
		return "git --version"
	}
	if i, why := gitSub(args); why == "" {
		return "git " + args[i].value
	}
	return "git"
}

// checkGit checks git's options before the subcommand, then the
// subcommand's rules on the words after it.
func checkGit(w words) string {
	if w.label == "git --version" {
		return ""
	}
	for _, a := range w.args {
		for _, f := range gitSignature {
			if strings.Contains(a.value, f) {
				return "git " + a.src + ": the placeholder " + f + " runs gpg to check signatures"
			}
		}
	}
	i, why := gitSub(w.args)
	if why != "" {
		return why
	}
	sub := find(w.cmd.subs, w.args[i].value)
	if sub == nil {
		return "git " + w.args[i].src + ": not a read-only git subcommand on the table"
	}
	_, why = sub.checkArgs(w.label, w.args[i+1:])
	return why
}

// checkListForm lets git branch and git tag take names only in their list
// forms: git branch NAME creates a branch.
func checkListForm(w words) string {
	for _, f := range w.flags {
		if f.name == "-l" || f.name == "--list" {
			return ""
		}
	}
	if len(w.operands) > 0 {
		return w.label + " " + w.operands[0].src + " creates a " + strings.TrimPrefix(w.label, "git ") + " (only -l/--list takes names)"
	}
	return ""
}

// checkRemote lets git remote through alone (-v) or as remote get-url.
func checkRemote(w words) string {
	if len(w.operands) > 0 && w.args[0].value != "get-url" {
		return w.label + " " + w.operands[0].src + ": not a read-only form"
	}
	return ""
}

// checkStash lets git stash through as stash list and stash show only.
func checkStash(w words) string {
	switch {
	case len(w.args) == 0 || w.args[0].isOption():
		return w.label + " without list or show changes the repository"
	case w.args[0].value != "list" && w.args[0].value != "show":
		return w.label + " " + w.args[0].value + ": not a read-only form"
	}
	return ""
}
