package prunesession

import (
	"strconv"
	"strings"
)

// The notes that replace bodies the model reads on resume: short, and
// saying what to do, in the manner of Claude Code's own notices. The
// exported names are the rules as context-audit --what-if applies them to a
// session it estimates.

// InterruptedNote replaces a result an interruption left behind.
const InterruptedNote = "[The previous turn was interrupted here; this tool result was never produced.]"

// Removed reports whether a call whose result carries toolDenialKind kind is
// one the denial rule removes (call and result), and Interrupted whether its
// result is replaced by InterruptedNote.
func Removed(kind string) bool     { return isDenial(kind) }
func Interrupted(kind string) bool { return isInterruption(kind) }

// ExpiredNote is the text that replaces the result of the glance cmd made
// turnsAgo turns before the end of the session when it expires.
func ExpiredNote(cmd string, turnsAgo int) string { return expiredNote(noteCommand(cmd), turnsAgo) }

// maxNoteCommand bounds the command quoted in an expiry note. The note only
// has to tell the model which call it replaces (the whole command is still
// in the tool_use beside it), and a glance is short: 60 characters hold
// "git status -s && git log --oneline -10" with room to spare.
const maxNoteCommand = 60

// expiredNote replaces the body of an expired glance result. Expiry is about
// staleness, not size: a stale `git status` misleads as if it were current,
// so even a result shorter than the note expires. The note is therefore as
// short as it can be while naming the command, how many turns ago it ran,
// that the state may have changed and that rerunning is the remedy: one
// line, and ASCII apart from the command itself. quoted is the command as
// noteCommand gives it.
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

// noteCommand is cmd as an expiry note quotes it: on one line, cut to
// maxNoteCommand characters.
func noteCommand(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if r := []rune(cmd); len(r) > maxNoteCommand {
		cmd = string(r[:maxNoteCommand]) + "..."
	}
	return cmd
}
