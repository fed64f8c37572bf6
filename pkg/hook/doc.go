// Package hook is what every flower command shares at its edges: a
// command line whose flags never exit 2 (Claude Code reads 2 as "block"),
// one stderr line and exit 1 for anything wrong, a panic turned into that
// line, the hook payload read and checked from stdin, the one JSON object a
// hook prints, and where the workbench is.
package hook
