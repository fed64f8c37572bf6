package ephemeral

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// command is one entry of the glance table: a command the main thread may
// run itself, and the rules its arguments must pass.
type command struct {
	name  string
	about string     // what it shows; the reason of a glance segment
	deny  []flagRule // options that make it write, execute or never end
	allow *options   // when set, the only options it accepts
	// check is a rule of its own on the arguments: it returns why they make
	// the command not a glance, or "". note says the same for --list.
	check func(args []arg) string
	note  string
	// limit caps the operands left once allow's options are taken out:
	// 0 for any number, noOperands for none ("hostname NAME" sets the host
	// name), n for at most n ("uniq IN OUT" writes OUT).
	limit int
	// globsPass says that a glob may stand where an option could: the deny
	// rules only keep a read from running long (grep -D read), which a
	// file name spelling that option is not worth refusing every glob for.
	globsPass bool
	// recurses, when set, says whether these arguments make the command
	// read folders recursively; its operands may then not be / or lie in
	// /dev, /proc or /sys (walksDevices).
	recurses func(args []arg) bool
	// walks, when set, says whether these arguments make the command walk
	// folders, listing what it finds (find, du, ls -R); its operands may
	// then not be / (walksRoot).
	walks func(args []arg) bool
}

// noOperands is the limit of a command that must have no operands.
const noOperands = -1

// hasRules reports whether any argument can make the command not a glance.
// For such a command a glob that may expand to an option is refused: the
// classifier never sees what the shell puts there (sort * with a file
// named "-ofoo" writes foo).
func (c *command) hasRules() bool {
	return len(c.deny) > 0 && !c.globsPass || c.allow != nil || c.check != nil || c.limit != 0
}

// refusal is a command that is never a glance, named so that the reason
// says why instead of only "not on the glance table".
type refusal struct {
	names []string
	why   string
}

// Rules shared by the table below.
var (
	followRules = []flagRule{
		{short: 'f', long: "follow", why: "follows the file and never ends"},
		{short: 'F', why: "follows the file and never ends"},
		{long: "retry", why: "keeps reopening the file"},
	}
	// grepRules: with -D read, grep -r reads the devices it meets (by
	// default it skips them when recursing).
	grepRules = []flagRule{{short: 'D', long: "devices", why: "chooses to read devices, which may never end"}}
	noRules   []flagRule
)

// table is the glance table: the one list both sides of the design read
// (letting a command through on the main thread, and expiring its result).
// Only commands whose every form not refused here reads and prints are on it.
var table = []*command{
	{name: "ls", about: "lists directory contents", walks: recursesLs},
	{name: "cat", about: "prints files"},
	{name: "head", about: "prints the start of files"},
	{name: "tail", about: "prints the end of files", deny: followRules,
		check: checkTailPlus, note: "obsolete +Nf (follow) refused"},
	{name: "wc", about: "counts lines, words and bytes"},
	{name: "pwd", about: "prints the working directory"},
	{name: "cd", about: "changes the shell's directory, no file changes", limit: 1, allow: cdOptions},
	{name: "echo", about: "prints its arguments"},
	{name: "printf", about: "prints formatted text",
		deny: []flagRule{{short: 'v', why: "assigns a shell variable"}}},
	{name: "grep", about: "searches text", deny: grepRules, globsPass: true, recurses: recursesGrep},
	{name: "egrep", about: "searches text", deny: grepRules, globsPass: true, recurses: recursesGrep},
	{name: "fgrep", about: "searches text", deny: grepRules, globsPass: true, recurses: recursesGrep},
	{name: "rg", about: "searches text", recurses: always, deny: []flagRule{
		{long: "pre", why: "runs a preprocessor command on every file"},
		{long: "pre-glob", why: "runs a preprocessor command on every file"},
		{long: "hostname-bin", why: "runs a command to learn the host name"},
		{short: 'z', long: "search-zip", why: "runs decompression programs"},
	}},
	{name: "find", about: "lists files by name and type", walks: always, deny: []flagRule{
		{word: "-exec", why: "runs a command"},
		{word: "-execdir", why: "runs a command"},
		{word: "-ok", why: "runs a command"},
		{word: "-okdir", why: "runs a command"},
		{word: "-delete", why: "deletes files"},
		{word: "-fprint", why: "writes a file"},
		{word: "-fprint0", why: "writes a file"},
		{word: "-fprintf", why: "writes a file"},
		{word: "-fls", why: "writes a file"},
	}},
	{name: "sed", about: "prints selected lines", allow: sedOptions,
		check: checkSed, note: "needs -n; the script may only hold p, =, q, Q and s///[gpiImM0-9] with line or /regex/ addresses"},
	{name: "sort", about: "prints lines sorted", deny: []flagRule{
		{short: 'o', long: "output", why: "writes the output to a file"},
		{short: 'T', long: "temporary-directory", why: "writes temporary files into the folder it names"},
		{long: "compress-program", why: "runs a compression program"},
	}},
	{name: "uniq", about: "prints lines without repeats", limit: 1,
		allow: &options{short: "cdDiuz", shortArg: "fsw",
			long:    []string{"count", "repeated", "ignore-case", "unique", "zero-terminated"},
			longArg: []string{"skip-fields", "skip-chars", "check-chars"},
			longOpt: []string{"all-repeated", "group"}},
		note: "a second operand is an output file"},
	{name: "cut", about: "prints selected fields"},
	{name: "tr", about: "translates characters from stdin"},
	{name: "nl", about: "prints files with line numbers"},
	{name: "paste", about: "prints files side by side"},
	{name: "column", about: "prints text in columns"},
	{name: "diff", about: "compares files", recurses: recursesDiff,
		deny: []flagRule{{short: 'l', long: "paginate", why: "runs pr on the output"}}},
	{name: "cmp", about: "compares files"},
	{name: "comm", about: "compares sorted files"},
	{name: "stat", about: "prints file metadata"},
	{name: "file", about: "prints file types", deny: []flagRule{
		{short: 'C', long: "compile", why: "writes a compiled magic file"},
		{short: 'z', long: "uncompress", why: "runs decompression programs"},
		{short: 'Z', long: "uncompress-noreport", why: "runs decompression programs"},
		{short: 'p', long: "preserve-date", why: "sets the times of the files it reads"},
	}},
	{name: "du", about: "prints disk usage", walks: always},
	{name: "df", about: "prints free disk space"},
	{name: "tree", about: "lists a directory tree", walks: always, deny: []flagRule{
		{short: 'o', long: "output", why: "writes the output to a file"},
		{short: 'R', why: "writes 00Tree.html files into every directory"},
	}},
	{name: "basename", about: "prints a path's last element"},
	{name: "dirname", about: "prints a path's directory"},
	{name: "realpath", about: "prints resolved paths"},
	{name: "readlink", about: "prints symlink targets"},
	{name: "which", about: "prints where commands are"},
	{name: "type", about: "prints what a command name is"},
	{name: "command", about: "prints what a command name is",
		check: checkCommandV, note: "only -v or -V before the name (otherwise it runs the command)"},
	{name: "jq", about: "prints JSON; it cannot write files or run commands",
		deny:  []flagRule{{short: 'f', long: "from-file", why: "reads its filter from a file the classifier cannot see"}},
		check: checkJq, note: "the filter may not use repeat, range, until, while, recurse, combinations, def, import or include (they can loop without end)"},
	{name: "md5sum", about: "prints or checks checksums"},
	{name: "sha1sum", about: "prints or checks checksums"},
	{name: "sha256sum", about: "prints or checks checksums"},
	{name: "sha512sum", about: "prints or checks checksums"},
	{name: "b2sum", about: "prints or checks checksums"},
	{name: "cksum", about: "prints checksums"},
	{name: "date", about: "prints the date",
		deny:  []flagRule{{short: 's', long: "set", why: "sets the system clock"}},
		check: checkDate, note: "an operand not starting with + sets the clock"},
	{name: "whoami", about: "prints the user name"},
	{name: "id", about: "prints user and group ids"},
	{name: "uname", about: "prints system information"},
	{name: "hostname", about: "prints the host name", limit: noOperands,
		allow: &options{short: "s", long: []string{"short"}},
		deny: []flagRule{
			{short: 'a', long: "alias", why: "looks the host name up in DNS"},
			{short: 'A', long: "all-fqdns", why: "looks the host's addresses up in DNS"},
			{short: 'd', long: "domain", why: "looks the host name up in DNS"},
			{short: 'f', long: "fqdn", why: "looks the host name up in DNS"},
			{long: "long", why: "looks the host name up in DNS"},
			{short: 'i', long: "ip-address", why: "looks the host name up in DNS"},
		},
		note: "an operand sets the host name"},
	{name: "printenv", about: "prints environment variables"},
	{name: "ps", about: "lists processes"},
	{name: "free", about: "prints memory usage",
		deny: []flagRule{{short: 's', long: "seconds", why: "repeats every N seconds and never ends"}}},
	{name: "uptime", about: "prints the uptime"},
	{name: "true", about: "does nothing"},
	{name: "false", about: "does nothing"},
	{name: "test", about: "tests files and strings",
		check: checkTest, note: "no -v or -R, no operand holding a [ (bash evaluates subscripts)"},
	{name: "[", about: "tests files and strings",
		check: checkTest, note: "no -v or -R, no operand holding a [ (bash evaluates subscripts)"},
	{name: "seq", about: "prints a sequence of numbers", allow: seqOptions, limit: 3,
		check: checkSeq, note: "operands are whole numbers of at most 6 digits"},
	{name: "od", about: "dumps files in octal and other formats"},
	{name: "hexdump", about: "dumps files in hex"},
	{name: "base64", about: "prints files base64-encoded or decoded"},
	{name: "strings", about: "prints the printable strings in files"},
	{name: "fold", about: "wraps lines"},
	{name: "nproc", about: "prints the number of processors"},
	{name: "arch", about: "prints the machine architecture", allow: &options{}, limit: noOperands,
		note: "no arguments: on macOS arch -arm64 CMD runs CMD"},
	{name: "groups", about: "prints the user's groups"},
	{name: "git", about: "reads a git repository", deny: gitDeny,
		check: checkGit, note: "only the subcommands listed as git …"},
}

// refusals are commands that are never a glance, each with why.
var refusals = []refusal{
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
		"writes or removes files"},
	{[]string{"export", "unset", "set", "alias", "unalias", "shopt", "declare", "local", "readonly",
		"typeset", "trap", "ulimit", "umask", "kill", "pkill", "killall", "read", "mapfile", "readarray",
		"let", "hash", "pushd", "popd", "history", "fc", "enable", "complete"},
		"changes the shell or other processes"},
}

// lookup maps a command name to its entry, built from table when first
// asked for, as are refusedWhy and gitLookup: every hook links this
// package, and many of their runs classify nothing (a subagent's call, a
// tool result under spill-guard's threshold).
var lookup = sync.OnceValue(func() map[string]*command {
	m := make(map[string]*command, len(table))
	for _, c := range table {
		m[c.name] = c
	}
	return m
})

// refusedWhy maps a refused command name to why it is refused.
var refusedWhy = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, r := range refusals {
		for _, n := range r.names {
			m[n] = r.why
		}
	}
	return m
})

// Entry describes one line of the glance table for people; glance-check
// --list prints them. They are made from the very data Classify reads.
type Entry struct {
	Command string // "ls", "git status"
	Glance  bool   // false for the commands named as never a glance
	// MainThread marks an extra entry for a hands-on command the main
	// thread may run (Glance is false); Extra, any entry of a
	// configuration (Glances.Table).
	MainThread, Extra bool
	About             string   // what it does, or why it is never a glance
	Rules             []string // the argument rules, one per line
}

// Table returns the glance table (Glance true, in table order, git's
// subcommands after git) followed by the commands named as never a glance.
func Table() []Entry {
	var out []Entry
	for _, c := range table {
		e := Entry{Command: c.name, Glance: true, About: c.about, Rules: rulesOf(c.deny, c.allow, c.limit, c.note)}
		if c.name == "git" {
			e.Rules = append([]string{"before the subcommand only: " + gitGlobal.describe(),
				"refused: " + strings.Join(gitElsewhere, ", ") + " (another repository's configuration can run programs), and git after cd",
				"refused: format placeholders starting " + strings.Join(gitSignature, " or ") + " (they run gpg)"}, e.Rules...)
		}
		out = append(out, e)
		if c.name == "git" {
			out = append(out, gitEntries()...)
		}
	}
	for _, r := range refusals {
		names := append([]string(nil), r.names...)
		sort.Strings(names)
		out = append(out, Entry{Command: strings.Join(names, " "), About: r.why})
	}
	return out
}

func rulesOf(deny []flagRule, allow *options, limit int, note string) []string {
	var rules []string
	if allow != nil {
		s := allow.describe()
		if s == "" {
			s = "none"
		}
		rules = append(rules, "options allowed: "+s)
	}
	for _, f := range deny {
		rules = append(rules, "refused: "+f.spelling()+" ("+f.why+")")
	}
	switch {
	case limit == noOperands:
		rules = append(rules, "no operands")
	case limit > 0:
		rules = append(rules, "at most "+strconv.Itoa(limit)+" operand(s)")
	}
	if note != "" {
		rules = append(rules, note)
	}
	return rules
}
