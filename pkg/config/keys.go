package config

// The keys of a configuration file. Each of a hook's flags has one, named
// after the flag under the command's name ("spill-guard": {"threshold":
// 8000}), and fills the flag when the command line does not give it.

// kind is the JSON type of a key's value.
type kind uint8

const (
	boolKind    kind = iota
	intKind          // a whole number from the key's min up
	pathKind         // a string naming a folder or file
	listKind         // an array of names
	entriesKind      // an array of glance-table entries (extra.Entry)
)

// Rule is what a project file that the user does not trust may do with a
// key: a project file comes with the repository, so it is someone else's
// text. A trusted project file sets every key but trusted-projects.
type Rule uint8

const (
	// Free: a project file sets it (a threshold, a size): no value lets
	// more run on the main thread or reach outside the project.
	Free Rule = iota
	// OnlyOff: a project file may turn it off, not on where the user
	// turned it off.
	OnlyOff
	// AddOnly: a project file's names are added to the user's (more
	// tools guarded), never taken away.
	AddOnly
	// TrustedOnly: only from a trusted project file (glance entries,
	// hands-on commands, where output is written, the decision log).
	TrustedOnly
	// UserOnly: only from the user file.
	UserOnly
)

// Key is one key of the configuration.
type Key struct {
	Name    string // the dotted path: "spill-guard.threshold"
	kind    kind
	Default string // as flower-config prints it
	min     int    // for intKind
	// Flags are the flags the key fills, "command --flag", when the
	// command line does not give them.
	Flags []string
	// invert says the flag is the key's negation (--no-glance for
	// delegate-guard.glance).
	invert bool
	Rule   Rule
	Doc    string
}

// Defaults that are not a flag's default (those are the commands' own).
const (
	// DefaultLogMaxBytes bounds the decision log before it is rotated: at
	// about 250 bytes a decision, some 16,000 decisions, a long day's work.
	DefaultLogMaxBytes = 4 << 20
)

// keys is every key, in the order flower-config prints them. The defaults
// are the commands' flag defaults; a test holds them to the flags.
var keys = []*Key{
	{Name: "delegate-guard.enabled", kind: boolKind, Default: "true", Rule: OnlyOff,
		Doc: "layer one: false makes delegate-guard let every call through"},
	{Name: "delegate-guard.tools", kind: listKind, Default: "Bash,Write,Edit,NotebookEdit", min: 1,
		Flags: []string{"delegate-guard --tools"}, Rule: AddOnly,
		Doc: "the tools denied on the main thread; leave one out to let the main thread use it"},
	{Name: "delegate-guard.glance", kind: boolKind, Default: "true",
		Flags: []string{"delegate-guard --no-glance"}, invert: true, Rule: OnlyOff,
		Doc: "false denies glances too"},
	{Name: "delegate-guard.main-thread", kind: entriesKind, Rule: TrustedOnly,
		Doc: "hands-on Bash commands the main thread may run itself; not glances, never expired"},
	{Name: "glances", kind: entriesKind, Rule: TrustedOnly,
		Doc: "read-only commands added to the glance table: the main thread runs them, prune-session expires them"},
	{Name: "index-guard.enabled", kind: boolKind, Default: "true", Rule: OnlyOff,
		Doc: "layer two: false makes index-guard do nothing"},
	{Name: "index-guard.max-entries", kind: intKind, Default: "40", min: 0,
		Flags: []string{"index-guard --max-entries"}, Rule: Free,
		Doc: "the most files INDEX.md lists"},
	{Name: "spill-guard.enabled", kind: boolKind, Default: "true", Rule: OnlyOff,
		Doc: "layer three: false makes spill-guard leave every result as it is"},
	{Name: "spill-guard.threshold", kind: intKind, Default: "4000", min: 1,
		Flags: []string{"spill-guard --threshold"}, Rule: Free,
		Doc: "characters a field may have before it is spilled"},
	{Name: "spill-guard.head", kind: intKind, Default: "400", min: 0,
		Flags: []string{"spill-guard --head"}, Rule: Free,
		Doc: "characters kept after the pointer, below the threshold (default 400, or a tenth of a threshold set at 400 or less)"},
	{Name: "spill-guard.main-only", kind: boolKind, Default: "false",
		Flags: []string{"spill-guard --main-only"}, Rule: Free,
		Doc: "spill main-thread results only"},
	{Name: "workbench", kind: pathKind,
		Flags: []string{"delegate-guard --workbench", "index-guard --workbench", "spill-guard --workbench"}, Rule: TrustedOnly,
		Doc: "the workbench root (relative: to the project folder); FLOWER_WORKBENCH and --workbench win"},
	{Name: "prune-session.keep-recent", kind: intKind, Default: "6", min: 0,
		Flags: []string{"prune-session --keep-recent"}, Rule: Free,
		Doc: "glance results kept verbatim (the most recent)"},
	{Name: "prune-session.keep-denials", kind: intKind, Default: "1", min: 0,
		Flags: []string{"prune-session --keep-denials"}, Rule: Free,
		Doc: "denied calls kept (the most recent)"},
	{Name: "prune-session.trim", kind: boolKind, Default: "false",
		Flags: []string{"prune-session --trim"}, Rule: OnlyOff,
		Doc: "move large tool results to the spill folder"},
	{Name: "prune-session.trim-min", kind: intKind, Default: "2000", min: 0,
		Flags: []string{"prune-session --trim-min"}, Rule: Free,
		Doc: "with trim: the smallest result moved, in characters"},
	{Name: "prune-session.trim-keep", kind: intKind, Default: "20", min: 0,
		Flags: []string{"prune-session --trim-keep"}, Rule: Free,
		Doc: "with trim: large results kept verbatim (the most recent)"},
	{Name: "prune-session.spill-dir", kind: pathKind,
		Flags: []string{"prune-session --spill-dir"}, Rule: TrustedOnly,
		Doc: "with trim: where moved results go (relative: to the session's folder)"},
	{Name: "prune-session.sync", kind: boolKind, Default: "false",
		Flags: []string{"prune-session --sync"}, Rule: Free,
		Doc: "fsync the fork before printing its id"},
	{Name: "log.enabled", kind: boolKind, Default: "false", Rule: TrustedOnly,
		Doc: "record one JSON line per hook decision"},
	{Name: "log.file", kind: pathKind, Rule: TrustedOnly,
		Doc: "the decision log (default $XDG_STATE_HOME/flower/decisions.jsonl, else ~/.local/state/flower/decisions.jsonl)"},
	{Name: "log.max-bytes", kind: intKind, Default: "4194304", min: 4096, Rule: TrustedOnly,
		Doc: "the log's size before it is rotated to <file>.1 (one old file is kept)"},
	{Name: "trusted-projects", kind: listKind, Rule: UserOnly,
		Doc: "project folders whose project file is trusted like the user file"},
}

// Keys returns every key, in the order flower-config prints them.
func Keys() []*Key { return keys }

// keyNamed returns the key called name, or nil.
func keyNamed(name string) *Key {
	for _, k := range keys {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// sections are the objects a file may hold; every other key is a leaf.
var sections = []string{"delegate-guard", "index-guard", "spill-guard", "prune-session", "log"}

// Project-file rule names, as flower-config and the README say them.
func (r Rule) String() string {
	switch r {
	case Free:
		return "yes"
	case OnlyOff:
		return "only off"
	case AddOnly:
		return "add only"
	case TrustedOnly:
		return "if trusted"
	}
	return "never"
}
