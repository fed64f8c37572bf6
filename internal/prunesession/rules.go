package prunesession

import (
	"strconv"
	"strings"
)

// The notes that replace bodies the model reads on resume, and the rules as
// context-audit --what-if applies them.

// InterruptedNote replaces a result an interruption left behind.
const InterruptedNote = "[The previous turn was interrupted here; this tool result was never produced.]"

// Removed reports whether the denial rule removes a call whose result
// carries toolDenialKind kind: "permission-rule", a hook's or a settings
// rule's denial. Interrupted reports whether its result gets
// InterruptedNote: the call was interrupted, or a sibling's failure
// cancelled it.
func Removed(kind string) bool     { return kind == "permission-rule" }
func Interrupted(kind string) bool { return kind == "interrupted" || kind == "cancelled" }

// ExpiredNote is the text that replaces the result of the glance cmd made
// turnsAgo turns before the end of the session when it expires.
func ExpiredNote(cmd string, turnsAgo int) string { return expiredNote(noteCommand(cmd), turnsAgo) }

// maxNoteCommand bounds the command quoted in an expiry note: it only names
// the call (the whole command is in the tool_use beside it).
const maxNoteCommand = 60

// expiredNote replaces the body of an expired glance result, however short:
// a stale `git status` misleads as if current. It names the command (as
// noteCommand quotes it) and when it ran, and says to rerun it.
func expiredNote(quoted string, turnsAgo int) string {
	when := strconv.Itoa(turnsAgo) + " turns ago"
	switch turnsAgo {
	case 0:
		when = "the latest turn"
	case 1:
		when = "1 turn ago"
	}
	return "[`" + quoted + "` from " + when + " expired; state may have changed, rerun if needed]"
}

// noteCommand is cmd on one line, cut to maxNoteCommand characters.
func noteCommand(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if r := []rune(cmd); len(r) > maxNoteCommand {
		cmd = string(r[:maxNoteCommand]) + "..."
	}
	return cmd
}
