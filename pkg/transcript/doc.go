// Package transcript reads Claude Code session transcripts: the .jsonl files
// under $CLAUDE_CONFIG_DIR/projects/<project>/, one JSON object per line.
//
// It streams: Reader hands out one line at a time (bufio, a line at most
// MaxLineBytes) and Parse reads the fields flower needs from a line
// (checked and walked in one pass: see members.go) without decoding it into
// structs, so a transcript of any size is read in memory bounded by its
// longest line. Scan does both, handing the entries over in order, each with
// the error its line gave (a reader that counts bad lines goes on; one that
// refuses them stops). The line itself stays the source of truth; an Entry
// only points into a copy of it. Verify checks the red line a rewritten
// transcript must hold.
//
// What a transcript looks like (checked against Claude Code 2.1.328):
//   - Conversation entries (user, assistant, system, attachment, progress)
//     carry uuid and parentUuid; the entries form a tree and --resume walks
//     parentUuid back from the newest leaf.
//   - Each content block of one API response is its own assistant entry; the
//     entries of one response share message.id. A turn is one assistant
//     response, so turns are counted by distinct message.id.
//   - Each tool_result is its own user entry whose parentUuid is the entry
//     holding its tool_use, with toolUseResult (the tool's structured output,
//     for Claude Code's own display) beside message.content (what the model
//     reads).
//   - Many other entry types carry no uuid (queue-operation, last-prompt,
//     api-request, cost-state, tools-used, …) and change between releases:
//     callers copy the lines they do not understand untouched.
//   - Subagents' entries are marked isSidechain. CLI 2.1 writes them to
//     <session-id>/subagents/agent-<agentId>.jsonl (or a folder below
//     subagents/), 2.0 to agent-<agentId>.jsonl beside the session's
//     transcript, 1.0 inline in the main transcript (Subagents).
//   - Where the CLI compacted the conversation it writes a compact_boundary
//     entry, and a resume loads from the last one on (compact.go).
package transcript
