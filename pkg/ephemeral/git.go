package ephemeral

import "strings"

// git trusts the configuration of the repository it finds from the
// working folder, as the user does who runs git there, and no other: a
// repository can commit a bare one whose config sets core.fsmonitor, which
// git status there runs. Before the subcommand only the options below
// pass; gitGlobalDeny names the others worth a reason.
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
			if i++; i == len(args) || args[i].isOption() || args[i].glob || args[i].brace {
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
		name := strings.TrimPrefix(w.label, "git ")
		return w.label + " " + w.operands[0].src + " creates a " + name + " (only -l/--list takes names)"
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
