package config

// kind is the JSON type of a key's value.
type kind uint8

const (
	boolKind    kind = iota
	intKind          // a whole number from the key's min up
	pathKind         // a string naming a folder or file
	listKind         // an array of names
	entriesKind      // an array of glance-table entries (extra.Entry)
)

// rule is what a project file the user does not trust may do with a key:
// a project file comes with the repository, so it is someone else's text.
// A trusted project file sets every key but trusted-projects.
type rule uint8

const (
	free        rule = iota // a size or a switch no value of which widens anything
	onlyOff                 // turned off, never on where the user turned it off
	addOnly                 // names added to the user's, never taken away
	trustedOnly             // only from a trusted project file; why says what it would widen
	userOnly                // only from the user file
)

// Key is one key of the configuration. Each of a hook's flags has one,
// named after the flag under the command's name ("spill-guard":
// {"threshold": 8000}), and fills the flag when the command line does
// not give it.
type Key struct {
	Name    string // the dotted path: "spill-guard.threshold"
	Default string // as flower-config prints it; the flag's default
	// Flags are the flags the key fills, "command --flag".
	Flags  []string
	kind   kind
	min    int  // for intKind, and the fewest names of a listKind
	invert bool // the flag is the key's negation (--no-glance)
	rule   rule
	why    string // for trustedOnly: what the key would widen
}

const (
	lets  = "lets the main thread run more"
	where = "where tool output is written is the user's choice"
	log   = "the decision log is the user's"
)

// keys is every key, in the order flower-config prints them; the README's
// Configure section says what each does.
var keys = []*Key{
	{Name: "delegate-guard.enabled", kind: boolKind, Default: "true", rule: onlyOff},
	{Name: "delegate-guard.tools", kind: listKind, Default: "Bash,Write,Edit,NotebookEdit", min: 1, Flags: []string{"delegate-guard --tools"}, rule: addOnly},
	{Name: "delegate-guard.glance", kind: boolKind, Default: "true", Flags: []string{"delegate-guard --no-glance"}, invert: true, rule: onlyOff},
	{Name: "delegate-guard.main-thread", kind: entriesKind, rule: trustedOnly, why: lets},
	{Name: "glances", kind: entriesKind, rule: trustedOnly, why: "widens the glance table"},
	{Name: "index-guard.enabled", kind: boolKind, Default: "true", rule: onlyOff},
	{Name: "index-guard.max-entries", kind: intKind, Default: "40", Flags: []string{"index-guard --max-entries"}},
	{Name: "spill-guard.enabled", kind: boolKind, Default: "true", rule: onlyOff},
	{Name: "spill-guard.threshold", kind: intKind, Default: "4000", min: 1, Flags: []string{"spill-guard --threshold"}},
	{Name: "spill-guard.head", kind: intKind, Default: "400", Flags: []string{"spill-guard --head"}},
	{Name: "spill-guard.main-only", kind: boolKind, Default: "false", Flags: []string{"spill-guard --main-only"}},
	{Name: "workbench", kind: pathKind, Flags: []string{"delegate-guard --workbench", "index-guard --workbench", "spill-guard --workbench"}, rule: trustedOnly, why: where},
	{Name: "prune-session.keep-recent", kind: intKind, Default: "6", Flags: []string{"prune-session --keep-recent"}},
	{Name: "prune-session.keep-denials", kind: intKind, Default: "1", Flags: []string{"prune-session --keep-denials"}},
	{Name: "prune-session.trim", kind: boolKind, Default: "false", Flags: []string{"prune-session --trim"}, rule: onlyOff},
	{Name: "prune-session.trim-min", kind: intKind, Default: "2000", Flags: []string{"prune-session --trim-min"}},
	{Name: "prune-session.trim-keep", kind: intKind, Default: "20", Flags: []string{"prune-session --trim-keep"}},
	{Name: "prune-session.spill-dir", kind: pathKind, Flags: []string{"prune-session --spill-dir"}, rule: trustedOnly, why: where},
	{Name: "prune-session.sync", kind: boolKind, Default: "false", Flags: []string{"prune-session --sync"}},
	{Name: "log.enabled", kind: boolKind, Default: "false", rule: trustedOnly, why: log},
	{Name: "log.file", kind: pathKind, rule: trustedOnly, why: log},
	// About 16,000 decisions of 250 bytes: a long day's work.
	{Name: "log.max-bytes", kind: intKind, Default: "4194304", min: 4096, rule: trustedOnly, why: log},
	{Name: "trusted-projects", kind: listKind, rule: userOnly},
}

// sections are the objects a file may hold; every other key is a leaf.
var sections = []string{"delegate-guard", "index-guard", "spill-guard", "prune-session", "log"}

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
