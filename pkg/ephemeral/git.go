package ephemeral

import (
	"slices"
	"strings"
	"sync"
)

// gitDeny applies to every word of a git command: options that write a
// file or run a program, wherever they stand.
var gitDeny = []flagRule{
	{long: "output", why: "writes the output to a file"},
	{long: "ext-diff", why: "runs an external diff program"},
	{long: "textconv", why: "runs text conversion filters"},
	{long: "exec-path", why: "runs git programs from another folder"},
	{long: "config-env", why: "sets configuration, which can run programs"},
	{long: "show-signature", why: "runs gpg to check signatures"},
	{long: "help", why: "runs man, which may page the manual and write its cache"},
}

// gitGlobal are the options git accepts before the subcommand that a glance
// may use; git matches them exactly, without abbreviations. -c and
// --config-env set configuration (core.pager, core.fsmonitor, alias.* can
// run programs), -p/--paginate starts a pager: none of them is here, nor
// any option that points git at another repository (gitElsewhere).
var gitGlobal = &options{
	short: "P",
	long: []string{"no-pager", "no-replace-objects", "literal-pathspecs", "glob-pathspecs",
		"noglob-pathspecs", "icase-pathspecs", "no-optional-locks", "no-advice"},
	longArg: []string{"namespace"},
}

// gitElsewhere are git's options that make it read another repository
// than the one it finds from the working folder, with that repository's
// configuration: a repository can commit a bare repository (HEAD, objects/,
// refs/, config) whose config sets core.fsmonitor, and git status or diff
// there runs that program. The table trusts the configuration of the
// repository the session works in, as the user does, and no other.
var gitElsewhere = []string{"-C", "--git-dir", "--work-tree", "--bare"}

// gitSignature are format placeholders that make git run gpg to check a
// signature: %G? %GS %GK … in --format and --pretty, %(signature…) in the
// ref formats of branch and tag.
var gitSignature = []string{"%G", "%(signature"}

// gitSubcommand is one git subcommand on the glance table.
type gitSubcommand struct {
	name  string
	deny  []flagRule // beyond gitDeny
	allow *options   // when set, the only options it accepts
	// listOnly, with allow, refuses operands unless the list form is asked
	// for with -l or --list: "git branch NAME" creates a branch.
	listOnly bool
	// forms, when set, are the only first operands allowed: "git stash"
	// alone stashes, "git stash list" only lists.
	forms []string
	note  string
}

// refReadLong, refReadArg and refReadOpt are the long options git branch
// and git tag accept in their list forms; --contains and the like take the
// next word as their commit. The two entries below spell them out, so that
// the table is data the linker lays out, with no code to run at start.
var (
	refReadArg = []string{"sort", "format", "points-at", "contains", "no-contains", "merged", "no-merged"}
	refReadOpt = []string{"color", "column", "abbrev"}
)

// gitSubcommands are the git subcommands that only read.
var gitSubcommands = []*gitSubcommand{
	{name: "status"},
	{name: "log"},
	{name: "show"},
	{name: "diff"},
	{name: "shortlog"},
	{name: "describe"},
	{name: "rev-parse"},
	{name: "rev-list"},
	{name: "ls-files"},
	{name: "ls-tree"},
	{name: "show-ref"},
	{name: "merge-base"},
	{name: "blame"},
	{name: "cat-file", deny: []flagRule{{long: "filters", why: "runs conversion filters"}}},
	{name: "grep", deny: []flagRule{{short: 'O', long: "open-files-in-pager", why: "opens the matches in a program"}}},
	{name: "branch", listOnly: true, allow: &options{short: "alrvi",
		long:    []string{"list", "ignore-case", "no-color", "no-column", "no-abbrev", "omit-empty", "all", "remotes", "verbose", "show-current"},
		longArg: refReadArg, longOpt: refReadOpt},
		note: "list forms only: a name without -l/--list creates a branch"},
	{name: "tag", listOnly: true, allow: &options{short: "li", shortNum: "n",
		long:    []string{"list", "ignore-case", "no-color", "no-column", "no-abbrev", "omit-empty"},
		longArg: refReadArg, longOpt: refReadOpt},
		note: "list forms only: a name without -l/--list creates a tag"},
	{name: "remote", forms: []string{"", "get-url"}, allow: &options{short: "v", long: []string{"verbose", "push", "all"}},
		note: "only git remote [-v] and git remote get-url"},
	{name: "stash", forms: []string{"list", "show"}, note: "only git stash list and git stash show"},
	{name: "version"},
}

// gitLookup maps a subcommand name to its entry.
var gitLookup = sync.OnceValue(func() map[string]*gitSubcommand {
	m := make(map[string]*gitSubcommand, len(gitSubcommands))
	for _, s := range gitSubcommands {
		m[s.name] = s
	}
	return m
})

// gitSplit reads git's options before the subcommand and returns the
// subcommand's index in args, or why the options are refused.
func gitSplit(args []arg) (int, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.glob || a.brace {
			return i, "git " + a.src + " before the subcommand may expand to anything"
		}
		if !a.isOption() {
			return i, ""
		}
		takesValue := false
		name, _, _ := strings.Cut(a.value, "=")
		switch v := a.value; {
		case slices.Contains(gitElsewhere, name):
			return i, "git " + name + " points git at another repository, whose own configuration can run programs"
		case strings.HasPrefix(v, "-c"):
			return i, "git -c sets configuration, which can run programs"
		case v == "-p" || v == "--paginate":
			return i, "git " + v + " starts a pager"
		default:
			var ok bool
			if takesValue, ok = gitGlobalOption(v); !ok {
				return i, "git option " + a.src + " before the subcommand is not on the table"
			}
		}
		if takesValue {
			i++
			if i >= len(args) || args[i].isOption() || args[i].glob || args[i].brace {
				return i, "git " + a.src + " without a plain value"
			}
		}
	}
	return len(args), "git without a subcommand is not on the table"
}

// gitGlobalOption reports whether v is one of gitGlobal, and whether it
// takes the next word as its value.
func gitGlobalOption(v string) (takesValue, ok bool) {
	if len(v) == 2 && strings.IndexByte(gitGlobal.short, v[1]) >= 0 {
		return false, true
	}
	long, isLong := strings.CutPrefix(v, "--")
	if !isLong {
		return false, false
	}
	name, _, hasValue := strings.Cut(long, "=")
	switch {
	case slices.Contains(gitGlobal.long, name) && !hasValue:
		return false, true
	case slices.Contains(gitGlobal.longArg, name):
		return !hasValue, true
	}
	return false, false
}

// checkGit checks git's options before the subcommand, then the subcommand
// and its arguments. gitDeny was checked on every word before this runs.
func checkGit(args []arg) string {
	if len(args) == 1 && args[0].value == "--version" {
		return ""
	}
	for _, a := range args {
		for _, f := range gitSignature {
			if strings.Contains(a.value, f) {
				return "git " + a.src + ": the placeholder " + f + " runs gpg to check signatures"
			}
		}
	}
	i, why := gitSplit(args)
	if why != "" {
		return why
	}
	name := args[i].value
	sub, ok := gitLookup()[name]
	if !ok {
		return "git " + args[i].src + ": not a read-only git subcommand on the table"
	}
	label := "git " + name
	rest := args[i+1:]
	form := ""
	if sub.forms != nil {
		if len(rest) > 0 && !rest[0].isOption() {
			form, rest = rest[0].value, rest[1:]
		}
		if !slices.Contains(sub.forms, form) {
			if form == "" {
				return label + " without " + strings.Join(sub.forms, " or ") + " changes the repository"
			}
			return label + " " + form + ": not a read-only form"
		}
	}
	for _, a := range rest {
		if !a.isOption() {
			continue
		}
		if f, hit := denied(sub.deny, a); hit {
			return label + " " + a.src + " " + f.why
		}
	}
	if sub.allow == nil {
		return ""
	}
	operands, opts, bad := sub.allow.scan(rest)
	switch {
	case bad != "":
		return label + " " + bad + " is not on the table"
	case len(operands) == 0:
		return ""
	case sub.listOnly && !gitListAsked(opts):
		return label + " " + operands[0].src + " creates a " + name + " (only -l/--list takes names)"
	case sub.forms != nil && form == "":
		return label + " " + operands[0].src + ": not a read-only form"
	}
	return ""
}

// gitListAsked reports whether -l or --list is among the option words.
func gitListAsked(opts []arg) bool {
	for _, a := range opts {
		if a.value == "--list" || !strings.HasPrefix(a.value, "--") && strings.IndexByte(a.value, 'l') > 0 {
			return true
		}
	}
	return false
}

// gitLabel is the reason of a git glance.
func gitLabel(args []arg) string { return gitName(args) + ": read-only git subcommand" }

// gitName is "git SUBCOMMAND", or "git" when there is none to name.
func gitName(args []arg) string {
	if len(args) == 1 && args[0].value == "--version" {
		return "git --version"
	}
	if i, why := gitSplit(args); why == "" {
		return "git " + args[i].value
	}
	return "git"
}

// gitEntries describes the git subcommands for Table.
func gitEntries() []Entry {
	var out []Entry
	for _, s := range gitSubcommands {
		rules := rulesOf(s.deny, s.allow, 0, s.note)
		out = append(out, Entry{Command: "git " + s.name, Glance: true, About: "read-only git subcommand", Rules: rules})
	}
	return out
}
