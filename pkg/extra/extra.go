// Package extra is the shape of an entry a configuration adds to the glance
// table: a command with the words it starts with, the options and operands
// allowed after them, and where the entry was written. Package config reads
// entries from the configuration files; package ephemeral judges them and
// puts those it may on its table (ephemeral.NewGlances). It is a package of
// its own so that reading a configuration does not link the shell parser,
// whose start-up every hook would pay (index-guard needs no glance table).
package extra

// Entry is one entry. See ephemeral.Extra for what each field allows.
type Entry struct {
	// Command is the command's name and the words that must follow it, as
	// written, separated by spaces: "docker ps", "make -n", "gh pr view".
	Command string
	// Options are the only options allowed after those words: "-a", "-n X"
	// (a value, attached or the next word), "--all", "--format=X" (a value
	// after = or as the next word), "--color[=X]" (an optional attached
	// value).
	Options []string
	// Operands is the most operands allowed after Command's words; -1 for
	// any number.
	Operands int
	// MainThread makes the entry a hands-on command: the main thread may run
	// it, and its result is not a glance.
	MainThread bool
	// Source says where the entry comes from, for reasons ("user file").
	Source string
	// File and Line are where it is written, for errors; "" and 0 when it
	// was not read from a file.
	File string
	Line int
}
