// Package prunesession is prune-session, layer four: it writes a pruned
// fork of a Claude Code session for `claude --resume`, never touching the
// original. Pass one (plan.go) checks every line and decides every change;
// pass two (rewrite.go) writes the fork; fork.go copies the session folder,
// and leftovers.go clears what a killed run left.
package prunesession
