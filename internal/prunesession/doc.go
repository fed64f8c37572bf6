// Package prunesession is prune-session, layer four: it writes a pruned fork
// of a Claude Code session for `claude --resume`, and never touches the
// original.
//
// Usage: prune-session [flags] SESSION. SESSION is the path of a session
// transcript (.jsonl) or a session id, looked up under
// $CLAUDE_CONFIG_DIR (default ~/.claude) /projects/*/; a subagent's
// transcript (named agent-*.jsonl, or holding subagent entries alone) is
// refused. Stdin is not read.
//
// The fork gets a fresh session id and lands beside the original as
// <new-id>.jsonl, with every field that holds the session's id rewritten
// (sessionId, session_id, deeper ones; not what the model read) and the
// session folder (subagent transcripts) copied to <new-id>/, with CLI 2.0's
// subagent transcripts beside the session's in its subagents/, and a
// flower-fork.json naming the original (transcript.ForkMarker; Claude Code
// ignores it, context-audit reports it). A plan that changes nothing
// writes no fork: the report says there was nothing to prune and the
// original's id is printed. Both are written atomically: whole or absent
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
//
// A resume loads the conversation from the last compaction on, and the
// messages that compaction kept (transcript.Compaction): the rules act on
// that part of the main thread alone, and the part before is copied as it
// is. On that part of the main thread:
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
// of unknown types are copied untouched but for the session id, the last
// newline as in the original. Breakage the input holds (a result without
// its call, a parent that is gone) is carried over, and none added: a call
// whose id does not tie it to one result stays.
//
// Stdout: the new session id and a newline (the original's when nothing
// changed), nothing with --dry-run. Stderr: a short report of what was
// expired, removed, replaced and trimmed, the body characters a resume of
// the original and of the fork sends (user and assistant entries after the
// last compaction and those it kept, API errors left out: the first
// request of a resume in the real CLI holds them), and how many turns lie
// before the last compaction.
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
