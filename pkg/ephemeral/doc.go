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
// tree, never the text; but a glance must be read-only in bash as Claude Code
// runs it, not only in the parser's reading, so a line the two could read
// differently is refused before the tree is trusted (vouch.go): a control
// character (a carriage return is a blank to the parser, part of a word to
// bash), text that is not UTF-8, a comment ending in a backslash (the parser
// continues it past the newline, bash runs the next line), more than
// maxCommandBytes, parentheses nested deeper than maxParenDepth (the parser's
// time grows faster than the text there). Every simple command of every &&,
// ||, ;, | and newline segment must be on the table. The choices made where
// the issues left room:
//
//   - Arguments must have a value known before the command runs: plain,
//     single-quoted or double-quoted text. Any parameter expansion,
//     substitution, $'…' quoting or tilde form other than ~ and ~/ refuses
//     the segment, for every command (ls $HOME too): a value known only at
//     run time can be an option.
//   - A glob or a brace expansion is refused for commands that have any
//     argument rule when it may produce an option or extra operands
//     (sort *.txt with a file named "-ofoo" writes foo); ./*.txt is fine.
//     For commands without rules (ls, cat, grep, …) every expansion is fine,
//     up to 256 words a brace and 1024 a line, and the words a brace makes
//     pass the checks a word written out does (cat {/dev/zero,x} reads a
//     device, ls {-R,/} walks /).
//   - The command word must be a plain unquoted literal on the table: 'ls',
//     \ls and /bin/ls are refused; so are env assignments before it.
//   - Input redirection from a file (< f) is a read and passes; here-
//     documents and here-strings do not. Output may go to /dev/null or to
//     another of the descriptors 0, 1 and 2 only; no descriptor above 2
//     on either side (3</dev/udp/h/p >&3).
//   - No word names /dev/tcp or /dev/udp, and none reads a device or a
//     kernel stream (devices.go): /dev/* but /dev/null, /proc/kmsg, a
//     process's descriptors, trace_pipe; after cleaning the path, from the
//     folders an earlier cd of the line moved to, through a redirection or
//     an option's value, or as a glob that may match one.
//   - cd passes: it changes the shell's directory, no file; but not into
//     /dev, /proc or /sys, whose relative reads the next call would make.
//   - printf -v (assigns a variable), command without -v/-V, hostname with an
//     operand or an option but -s (the others look names up in DNS), arch
//     with any argument (on macOS it runs its operands), sort -T, tree -o,
//     file -p (each writes), date with a non-+ operand, uniq with an output operand, tail
//     that follows, test and [ with -v, -R or an operand holding a [ (bash
//     evaluates the subscript: a[$(cmd)] runs cmd), seq past six digits,
//     file -z, diff -l (runs pr), grep -D, and awk and go altogether are
//     refused.
//   - git: only the subcommands on the table, list forms of branch and tag,
//     remote [-v] and get-url, stash list and show. Before the subcommand
//     only --namespace, -P, --no-pager and pathspec options pass. -c,
//     --config-env, --exec-path, --output, --ext-diff, --textconv,
//     --show-signature, --help (runs man) and the %G… placeholders (gpg)
//     are refused anywhere.
//     The configuration of the repository git finds from the working folder
//     is trusted, as it is for every git command the user runs there;
//     another repository's is not: -C, --git-dir, --work-tree, --bare, and
//     git after a cd in the same line are refused (a committed bare
//     repository's config can set core.fsmonitor).
//   - sed: only with -n, and a script of p, =, q, Q and s///flags without
//     w or e, parsed conservatively.
//   - Long options are refused when what is written is a prefix of a
//     refused name, as getopt_long and git accept abbreviations.
//
// What the text cannot tell is left to Claude Code's permission checks and
// timeout: the folder the line starts in (a cd of an earlier call carries
// over), and a symlink or FIFO in the repository that leads to a device.
//
// Extra entries. A configuration may add entries (NewGlances): a command
// name with the words that must follow it and the options and operands
// allowed after them (docker ps, kubectl get), as glances, or as hands-on
// commands the main thread may run without their results being glances
// (make test). A line naming one passes every check above; the entry only
// replaces "not on the table" for its words. No entry may name a shell
// builtin or keyword, a shell, an interpreter, a command that runs another,
// an interactive or endless one, or one that changes the shell; as a glance,
// none may name a command that writes or one on the built-in table, whose
// rules stay as they are. After a cd in the same line an entry does not
// apply (its program may read the other folder's configuration). The
// package functions Classify and IsEphemeral are the built-in table's (a nil
// *Glances).
//
// Table returns the table as people read it; glance-check --list prints it.
package ephemeral
