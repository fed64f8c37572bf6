// Package extra is an entry a configuration adds to the glance table, read by
// package config and judged by package ephemeral (NewGlances): a package of
// its own so that reading a configuration does not link the shell parser.
package extra

// Entry is one entry; ephemeral.Extra says what each field allows.
type Entry struct {
	Command    string   // the name and the words that must follow it: "docker ps"
	Options    []string // the only options allowed after them: "-a", "-n X", "--format=X", "--color[=X]"
	Operands   int      // the most operands allowed; -1 for any number
	MainThread bool     // a hands-on command the main thread may run, not a glance
	Source     string   // where it comes from, for reasons: "user file"
	File       string   // where it is written, for errors ("" when not from a file)
	Line       int
}
