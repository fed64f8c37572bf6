package ephemeral

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// command is an entry of the glance table: a command the main thread may
// run itself, and the rules its arguments must pass.
type command struct {
	name, about string               // about: what it shows, the reason of a glance
	deny        []flagRule           // options that write, run a program, reach the network or never end
	allow       options              // when set, the only options it takes
	limit       int                  // the most operands: 0 any number, noOperands none
	check       func(w words) string // a rule of its own: why the words are refused, or ""
	note        string               // check's rule, or limit's reason, for --list
	globsPass   bool                 // a glob may stand where an option could: deny only stops a long read
	deep        []string             // the options that make it walk folders ("*": always)
	lists       bool                 // it lists what it walks (find, du), not reads it
	subs        []*command           // git's subcommands
}

const noOperands = -1

// hasRules reports whether an argument can make the command not a glance:
// then a glob that may expand to an option is refused (sort * with a file
// named -ofoo writes foo).
func (c *command) hasRules() bool {
	return len(c.deny) > 0 && !c.globsPass || c.allow != nil || c.check != nil || c.limit != 0
}

func find(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.name == name {
			return c
		}
	}
	return nil
}

var (
	followRules = []flagRule{{[]string{"-f", "--follow", "-F"}, "follows the file and never ends"}, {[]string{"--retry"}, "keeps reopening the file"}}
	grepRules   = []flagRule{{[]string{"-D", "--devices"}, "chooses to read devices, which may never end"}}
)

var (
	grepDeep = []string{"-r", "-R", "-d", "--recursive", "--dereference-recursive", "--directories"}
	always   = []string{"*"}
)

const testNote = "no -v or -R, no operand holding a [ (bash evaluates subscripts)"

// table is the one list that both lets a command run on the main thread
// and expires its result: every form of a command it does not refuse reads
// and prints.
var table = []*command{
	{name: "ls", about: "lists directory contents", deep: []string{"-R", "--recursive"}, lists: true},
	{name: "cat", about: "prints files"},
	{name: "head", about: "prints the start of files"},
	{name: "tail", about: "prints the end of files", deny: followRules, check: checkTailPlus, note: "obsolete +Nf (follow) refused"},
	{name: "wc", about: "counts lines, words and bytes"},
	{name: "pwd", about: "prints the working directory"},
	{name: "cd", about: "changes the shell's directory, no file changes", limit: 1, allow: options{"-L", "-P", "-e", "-@"}},
	{name: "echo", about: "prints its arguments"},
	{name: "printf", about: "prints formatted text", deny: []flagRule{{[]string{"-v"}, "assigns a shell variable"}}},
	{name: "grep", about: "searches text", deny: grepRules, globsPass: true, deep: grepDeep},
	{name: "egrep", about: "searches text", deny: grepRules, globsPass: true, deep: grepDeep},
	{name: "fgrep", about: "searches text", deny: grepRules, globsPass: true, deep: grepDeep},
	{name: "rg", about: "searches text", deep: always, deny: []flagRule{
		{[]string{"--pre", "--pre-glob"}, "runs a preprocessor command on every file"},
		{[]string{"--hostname-bin"}, "runs a command to learn the host name"},
		{[]string{"-z", "--search-zip"}, "runs decompression programs"},
	}},
	{name: "find", about: "lists files by name and type", deep: always, lists: true, deny: []flagRule{
		{[]string{"-exec", "-execdir", "-ok", "-okdir"}, "runs a command"},
		{[]string{"-delete"}, "deletes files"},
		{[]string{"-fprint", "-fprint0", "-fprintf", "-fls"}, "writes a file"},
	}},
	{name: "sed", about: "prints selected lines", check: checkSed,
		allow: options{"-n", "-E", "-r", "-s", "-u", "-z", "-e X", "--quiet", "--silent", "--regexp-extended", "--separate",
			"--unbuffered", "--null-data", "--posix", "--sandbox", "--debug", "--expression=X"},
		note: "needs -n; the script may only hold p, =, q, Q and s///[gpiImM0-9] with line or /regex/ addresses"},
	{name: "sort", about: "prints lines sorted", deny: []flagRule{
		{[]string{"-o", "--output"}, "writes the output to a file"},
		{[]string{"-T", "--temporary-directory"}, "writes temporary files into the folder it names"},
		{[]string{"--compress-program"}, "runs a compression program"},
	}},
	{name: "uniq", about: "prints lines without repeats", limit: 1, note: "a second operand is an output file",
		allow: options{"-c", "-d", "-D", "-i", "-u", "-z", "-f X", "-s X", "-w X", "--count", "--repeated", "--ignore-case",
			"--unique", "--zero-terminated", "--skip-fields=X", "--skip-chars=X", "--check-chars=X", "--all-repeated[=X]", "--group[=X]"}},
	{name: "cut", about: "prints selected fields"},
	{name: "tr", about: "translates characters from stdin"},
	{name: "nl", about: "prints files with line numbers"},
	{name: "paste", about: "prints files side by side"},
	{name: "column", about: "prints text in columns"},
	{name: "diff", about: "compares files", deep: []string{"-r", "--recursive"}, deny: []flagRule{{[]string{"-l", "--paginate"}, "runs pr on the output"}}},
	{name: "cmp", about: "compares files"},
	{name: "comm", about: "compares sorted files"},
	{name: "stat", about: "prints file metadata"},
	{name: "file", about: "prints file types", deny: []flagRule{
		{[]string{"-C", "--compile"}, "writes a compiled magic file"},
		{[]string{"-z", "--uncompress", "-Z", "--uncompress-noreport"}, "runs decompression programs"},
		{[]string{"-p", "--preserve-date"}, "sets the times of the files it reads"},
	}},
	{name: "du", about: "prints disk usage", deep: always, lists: true},
	{name: "df", about: "prints free disk space"},
	{name: "tree", about: "lists a directory tree", deep: always, lists: true, deny: []flagRule{
		{[]string{"-o", "--output"}, "writes the output to a file"},
		{[]string{"-R"}, "writes 00Tree.html files into every directory"},
	}},
	{name: "basename", about: "prints a path's last element"},
	{name: "dirname", about: "prints a path's directory"},
	{name: "realpath", about: "prints resolved paths"},
	{name: "readlink", about: "prints symlink targets"},
	{name: "which", about: "prints where commands are"},
	{name: "type", about: "prints what a command name is"},
	{name: "command", about: "prints what a command name is", check: checkCommandV,
		note: "only -v or -V before the name (otherwise it runs the command)"},
	{name: "jq", about: "prints JSON; it cannot write files or run commands", check: checkJq,
		deny: []flagRule{{[]string{"-f", "--from-file"}, "reads its filter from a file the classifier cannot see"}},
		note: "the filter may not use repeat, range, until, while, recurse, combinations, def, import or include (they can loop without end)"},
	{name: "md5sum", about: "prints or checks checksums"},
	{name: "sha1sum", about: "prints or checks checksums"},
	{name: "sha256sum", about: "prints or checks checksums"},
	{name: "sha512sum", about: "prints or checks checksums"},
	{name: "b2sum", about: "prints or checks checksums"},
	{name: "cksum", about: "prints checksums"},
	{name: "date", about: "prints the date", deny: []flagRule{{[]string{"-s", "--set"}, "sets the system clock"}}, check: checkDate,
		allow: options{"-u", "-R", "-I", "-d X", "-f X", "-r X", "--utc", "--universal", "--rfc-email", "--debug", "--resolution",
			"--help", "--version", "--date=X", "--file=X", "--reference=X", "--rfc-3339=X", "--iso-8601[=X]"},
		note: "an operand not starting with + sets the clock"},
	{name: "whoami", about: "prints the user name"},
	{name: "id", about: "prints user and group ids"},
	{name: "uname", about: "prints system information"},
	{name: "hostname", about: "prints the host name", limit: noOperands, allow: options{"-s", "--short"},
		deny: []flagRule{
			{[]string{"-a", "--alias", "-d", "--domain", "-f", "--fqdn", "--long", "-i", "--ip-address"}, "looks the host name up in DNS"},
			{[]string{"-A", "--all-fqdns"}, "looks the host's addresses up in DNS"},
		},
		note: "an operand sets the host name"},
	{name: "printenv", about: "prints environment variables"},
	{name: "ps", about: "lists processes"},
	{name: "free", about: "prints memory usage", deny: []flagRule{{[]string{"-s", "--seconds"}, "repeats every N seconds and never ends"}}},
	{name: "uptime", about: "prints the uptime"},
	{name: "true", about: "does nothing"},
	{name: "false", about: "does nothing"},
	{name: "test", about: "tests files and strings", check: checkTest, note: testNote},
	{name: "[", about: "tests files and strings", check: checkTest, note: testNote},
	{name: "seq", about: "prints a sequence of numbers", allow: options{"-w", "-s X", "--equal-width", "--separator=X"}, limit: 3,
		check: checkSeq, note: "operands are whole numbers of at most 6 digits"},
	{name: "od", about: "dumps files in octal and other formats"},
	{name: "hexdump", about: "dumps files in hex"},
	{name: "base64", about: "prints files base64-encoded or decoded"},
	{name: "strings", about: "prints the printable strings in files"},
	{name: "fold", about: "wraps lines"},
	{name: "nproc", about: "prints the number of processors"},
	{name: "arch", about: "prints the machine architecture", allow: options{}, limit: noOperands,
		note: "no arguments: on macOS arch -arm64 CMD runs CMD"},
	{name: "groups", about: "prints the user's groups"},
	{name: "git", about: "reads a git repository", check: checkGit, note: "only the subcommands listed as git …", deny: []flagRule{
		{[]string{"--output"}, "writes the output to a file"},
		{[]string{"--ext-diff"}, "runs an external diff program"},
		{[]string{"--textconv"}, "runs text conversion filters"},
		{[]string{"--exec-path"}, "runs git programs from another folder"},
		{[]string{"--config-env"}, "sets configuration, which can run programs"},
		{[]string{"--show-signature"}, "runs gpg to check signatures"},
		{[]string{"--help"}, "runs man, which may page the manual and write its cache"},
	}, subs: []*command{
		{name: "status"}, {name: "log"}, {name: "show"}, {name: "diff"}, {name: "shortlog"}, {name: "describe"},
		{name: "rev-parse"}, {name: "rev-list"}, {name: "ls-files"}, {name: "ls-tree"}, {name: "show-ref"},
		{name: "merge-base"}, {name: "blame"},
		{name: "cat-file", deny: []flagRule{{[]string{"--filters"}, "runs conversion filters"}}},
		{name: "grep", deny: []flagRule{{[]string{"-O", "--open-files-in-pager"}, "opens the matches in a program"}}},
		{name: "branch", check: checkListForm, note: "list forms only: a name without -l/--list creates a branch",
			allow: options{"-a", "-l", "-r", "-v", "-i", "--list", "--ignore-case", "--no-color", "--no-column", "--no-abbrev",
				"--omit-empty", "--all", "--remotes", "--verbose", "--show-current", "--sort=X", "--format=X", "--points-at=X",
				"--contains=X", "--no-contains=X", "--merged=X", "--no-merged=X", "--color[=X]", "--column[=X]", "--abbrev[=X]"}},
		{name: "tag", check: checkListForm, note: "list forms only: a name without -l/--list creates a tag",
			allow: options{"-l", "-i", "-n[N]", "--list", "--ignore-case", "--no-color", "--no-column", "--no-abbrev",
				"--omit-empty", "--sort=X", "--format=X", "--points-at=X", "--contains=X", "--no-contains=X", "--merged=X",
				"--no-merged=X", "--color[=X]", "--column[=X]", "--abbrev[=X]"}},
		{name: "remote", check: checkRemote, allow: options{"-v", "--verbose", "--push", "--all"},
			note: "only git remote [-v] and git remote get-url"},
		{name: "stash", check: checkStash, note: "only git stash list and git stash show"},
		{name: "version"},
	}},
}

// refusals are the commands that are never a glance, and why.
var refusals = []struct {
	names []string
	why   string
}{
	{[]string{"env", "xargs", "sudo", "doas", "su", "time", "nohup", "timeout", "nice", "ionice",
		"stdbuf", "chroot", "setsid", "builtin", "exec", "eval", "source", ".", "parallel", "busybox",
		"bash", "sh", "zsh", "dash", "ksh", "fish"}, "runs another command"},
	{[]string{"awk", "gawk", "mawk", "nawk", "perl", "python", "python3", "node", "ruby", "php", "lua"},
		"a programming language: its script can write files and run commands"},
	{[]string{"go"}, "builds and runs code; even go version may download and run the toolchain a go.mod names"},
	{[]string{"less", "more", "most", "vi", "vim", "nvim", "nano", "emacs", "man", "top", "htop", "watch", "yes"},
		"interactive or never ends"},
	{[]string{"rm", "rmdir", "mv", "cp", "ln", "touch", "mkdir", "chmod", "chown", "chgrp", "tee", "dd",
		"truncate", "install", "shred", "patch", "tar", "unzip", "gzip", "gunzip", "sdiff", "xxd"},
		writersWhy},
	{[]string{"export", "unset", "set", "alias", "unalias", "shopt", "declare", "local", "readonly",
		"typeset", "trap", "ulimit", "umask", "kill", "pkill", "killall", "read", "mapfile", "readarray",
		"let", "hash", "pushd", "popd", "history", "fc", "enable", "complete"},
		"changes the shell or other processes"},
}

// writersWhy: never a glance, but a hands-on entry may name one (git commit).
const writersWhy = "writes or removes files"

func refusedWhy(name string) (string, bool) {
	for _, r := range refusals {
		if slices.Contains(r.names, name) {
			return r.why, true
		}
	}
	return "", false
}

// Entry is one line of the glance table as glance-check --list prints it.
type Entry struct {
	Command           string   // "ls", "git status"
	Glance            bool     // false for the commands that are never a glance
	MainThread, Extra bool     // a hands-on extra entry; any entry of a configuration
	About             string   // what it does, or why it is never a glance
	Rules             []string // the argument rules, one per line
}

// Table returns the glance table (git's subcommands after git), then the
// commands that are never a glance.
func Table() []Entry {
	var out []Entry
	for _, c := range table {
		e := Entry{Command: c.name, Glance: true, About: c.about, Rules: c.rules()}
		if c.name == "git" {
			e.Rules = append([]string{"before the subcommand only: " + gitGlobal.describe(),
				"refused: -C, --git-dir, --work-tree, --bare (another repository's configuration can run programs), and git after cd",
				"refused: format placeholders starting " + strings.Join(gitSignature, " or ") + " (they run gpg)"}, e.Rules...)
		}
		out = append(out, e)
		for _, s := range c.subs {
			out = append(out, Entry{Command: "git " + s.name, Glance: true, About: "read-only git subcommand", Rules: s.rules()})
		}
	}
	for _, r := range refusals {
		out = append(out, Entry{Command: strings.Join(slices.Sorted(slices.Values(r.names)), " "), About: r.why})
	}
	return out
}

func (c *command) rules() []string {
	var rules []string
	if c.allow != nil {
		rules = append(rules, "options allowed: "+cmp.Or(c.allow.describe(), "none"))
	}
	for _, f := range c.deny {
		rules = append(rules, "refused: "+strings.Join(f.names, ", ")+" ("+f.why+")")
	}
	switch {
	case c.limit == noOperands:
		rules = append(rules, "no operands")
	case c.limit > 0:
		rules = append(rules, "at most "+strconv.Itoa(c.limit)+" operand(s)")
	}
	if c.note != "" {
		rules = append(rules, c.note)
	}
	return rules
}
