// Package prunesession is prune-session, layer four: it writes a pruned fork
// of a Claude Code session for `claude --resume`, and never touches the
// original.
//
// Usage: prune-session [flags] SESSION. SESSION is the path of a session
// transcript (.jsonl) or a session id, looked up under
// $CLAUDE_CONFIG_DIR (default ~/.claude) /projects/*/. Stdin is not read.
//
// The fork gets a fresh session id and lands beside the original as
// <new-id>.jsonl, with every sessionId rewritten and the session folder
// (subagent transcripts) copied to <new-id>/, where a flower-fork.json
// names the original (transcript.ForkMarker; Claude Code ignores it,
// context-audit reports it). Both are written atomically: whole or absent
// for every reader (a temporary file or folder renamed into place), as
// spill-guard writes its files and Claude Code its transcripts, without an
// fsync (Claude Code 2.1.328 syncs none of its transcripts; see
// spill.WriteUnsynced). A crash of the whole system soon after may lose the
// fork, never the original, which is only read. --sync fsyncs the fork, its
// folder and --trim's spill files, and the folders that hold their names,
// before the id is printed. The transcript is read twice (a plan, then the
// fork): lines a live session appends in between are left out of the fork,
// and a transcript whose lines change in between (a checksum of what the
// first read) is refused. SIGINT, SIGTERM and SIGHUP stop a run and it
// removes what it wrote; what a SIGKILL leaves is removed by a later run
// (leftovers.go).
// On the main thread:
//  1. glance results (Bash commands package ephemeral calls glances) but the
//     most recent --keep-recent expire: their body becomes a note naming the
//     command and how many turns ago it ran;
//  2. denied calls (toolDenialKind "permission-rule") but the most recent
//     --keep-denials are removed, tool_use and tool_result together;
//  3. synthetic API-error entries are dropped, and results an interruption
//     left (toolDenialKind "interrupted" or "cancelled") say the result was
//     never produced;
//  4. with --trim, tool_result bodies of at least --trim-min characters but
//     the most recent --trim-keep move to <session cwd>/.flower/spill/ and
//     a pointer stands in their place.
//
// Entries removed are re-linked: whatever pointed at them (parentUuid,
// logicalParentUuid, leafUuid) points at their nearest kept ancestor. Lines
// of unknown types are copied untouched but for the session id.
//
// Stdout: the new session id and a newline, nothing with --dry-run. Stderr: a
// short report of what was expired, removed, replaced and trimmed and the
// body characters before and after.
//
// Flags: --keep-recent N (6), --keep-denials N (1), --trim, --trim-min N
// (2000), --trim-keep N (20), --spill-dir DIR, --session-id UUID (the fork's
// id instead of a random one), --sync, --dry-run. A flag not given takes its
// key from the configuration of the folder the session started in (package
// config), whose glance entries are on the table that decides what
// expires: the one delegate-guard used in that session's project.
//
// Exit codes: 0 when the fork is written (or, with --dry-run, when it could
// be); 1 with one stderr line when it cannot be (a transcript that does not
// fully parse is refused) or when a signal stopped it: nothing is written.
// Never 2.
package prunesession
