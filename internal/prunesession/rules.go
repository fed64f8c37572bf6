package prunesession

// The rules as context-audit --what-if applies them to a session it
// estimates: what a resume through prune-session would carry, in the words
// prune-session writes.

// ExpiredNote is the text that replaces the result of the glance cmd made
// turnsAgo turns before the end of the session when it expires.
func ExpiredNote(cmd string, turnsAgo int) string { return expiredNote(noteCommand(cmd), turnsAgo) }

// InterruptedNote replaces a result an interruption left behind.
const InterruptedNote = interruptedNote

// Removed reports whether a call whose result carries toolDenialKind kind is
// one the denial rule removes (call and result), and Interrupted whether its
// result is replaced by InterruptedNote.
func Removed(kind string) bool     { return denialOf(kind) == deniedByRule }
func Interrupted(kind string) bool { return denialOf(kind) == neverRan }
