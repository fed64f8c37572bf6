// Package prunesession is prune-session, layer four: it writes a pruned
// fork of a Claude Code session for `claude --resume`, and never touches the
// original. Pass one (plan.go) reads the transcript, checking every line,
// and decides every change; pass two (rewrite.go) reads it again and writes
// the fork beside it; fork.go copies the session folder, and leftovers.go
// clears what a killed run left. docs/REFERENCE.md ("Layer four:
// prune-session") says what it does.
package prunesession
