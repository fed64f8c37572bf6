// Package ephemeral decides whether a shell command is a glance: a read-only
// command whose output is a snapshot that goes stale (git status, ls, cat and
// compounds of them).
//
// One function answers for every layer: the main thread may run a glance
// itself (layer one), and a resumed transcript may expire a glance's result
// (layer four). Either side deciding alone is harmful, so both call Classify,
// and tests read the module's source to keep a second table from appearing.
// When in doubt the answer is "not a glance": a wrong yes lets the main thread
// change things, a wrong no only costs a subagent.
//
// Classify parses the line as bash (mvdan.cc/sh/v3/syntax) and reads the
// tree, never the text. Every simple command of every &&, ||, ;, | and
// newline segment must be on the table. The choices made where the issue
// left room:
//
//   - Arguments must have a value known before the command runs: plain,
//     single-quoted or double-quoted text. Any parameter expansion,
//     substitution or $'…' quoting refuses the segment, for every command
//     (ls $HOME too): a value known only at run time can be an option.
//   - A glob or a brace expansion is refused for commands that have any
//     argument rule when it may produce an option or extra operands
//     (sort *.txt with a file named "-ofoo" writes foo); ./*.txt is fine.
//     For commands without rules (ls, cat, grep, …) every expansion is fine.
//   - The command word must be a plain unquoted literal on the table: 'ls',
//     \ls and /bin/ls are refused; so are env assignments before it.
//   - Input redirection from a file (< f) is a read and passes; here-
//     documents and here-strings do not. Output may go to /dev/null or to
//     another descriptor (2>&1) only.
//   - cd passes: it changes the shell's directory, no file.
//   - printf -v (assigns a variable), command without -v/-V, hostname with an
//     operand, date with a non-+ operand, uniq with an output operand, tail
//     that follows, and awk altogether are refused.
//   - git: only the subcommands on the table, list forms of branch and tag,
//     remote [-v] and get-url, stash list and show. Before the subcommand
//     only -C, --git-dir, --work-tree, --namespace, -P, --no-pager and
//     pathspec options pass. -c, --config-env, --exec-path, --output,
//     --ext-diff and --textconv are refused anywhere. The repository's own
//     configuration is trusted, as it is for every git command the user runs.
//   - sed: only with -n, and a script of p, =, q, Q and s///flags without
//     w or e, parsed conservatively.
//   - Long options are refused when what is written is a prefix of a
//     refused name, as getopt_long and git accept abbreviations.
//
// Table returns the table as people read it; glance-check --list prints it.
package ephemeral
