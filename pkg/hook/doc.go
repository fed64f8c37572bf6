// Package hook is the I/O discipline every flower command shares: reading a
// Claude Code hook payload from stdin, writing at most one JSON object to
// stdout, the exit-code rules, flag parsing that never exits 2, and the
// resolution of the workbench root.
//
// Exit codes are chosen on purpose. Claude Code reads exit 2 as "block" (it
// denies a PreToolUse call and shows stderr to the model on PostToolUse), so a
// flower hook never exits 2: success is 0, "could not do it" is 1 with one
// line on stderr, and the action proceeds as if the hook were absent.
package hook
