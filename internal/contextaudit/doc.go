// Package contextaudit is context-audit: it measures the context economics
// of Claude Code sessions from their transcripts, the figures the design
// argues from (how much of the work landed in subagents, the hands-on
// ratio, spills, script reuse, the main thread's growth, the cache), so a
// user can take them on their own sessions before and after adopting a
// layer.
//
// Usage: context-audit [flags] SESSION... or context-audit [flags]
// --project DIR. SESSION is a transcript path (.jsonl) or a session id,
// looked up under $CLAUDE_CONFIG_DIR (default ~/.claude)/projects/*/ as
// prune-session does (package transcript). --project DIR takes every
// session of one project: DIR is the project's working directory, mapped to
// projects/<DIR with every character but letters and digits replaced by
// "-">, or that folder itself; a working directory that no longer exists
// (a deleted temporary folder or worktree) is mapped all the same. Each
// session is its main transcript plus its subagents' work, in the layout
// of the CLI that wrote it (transcript.Subagents): 1.0's isSidechain
// entries inline in the main transcript, 2.0's agent-*.jsonl beside it,
// 2.1's <session-id>/subagents/ and the folders below; all streamed line
// by line: any size is read in memory bounded by the longest line. A
// subagent's transcript given as SESSION is reported as one (subagent_of
// names its session). Stdin is not read.
//
// A fork is reported as a session of its own (it is one: claude --resume
// takes it), with forked_from naming its original: prune-session's forks
// say so in their session folder (transcript.ForkMarker), Claude Code's own
// (/branch) on their copied entries (forkedFrom.sessionId).
//
// Definitions:
//   - entries: lines of type user or assistant (conversation entries with a
//     message); attachments, api-request copies and bookkeeping lines are
//     not entries.
//   - turn: one assistant response, i.e. the entries sharing a message.id
//     (Claude Code writes them one after another); synthetic API-error
//     entries are not turns.
//   - chars: characters (code points) of the message bodies of entries:
//     text blocks, tool_use input JSON, tool_result content text (a string,
//     or the text blocks of an array); thinking and images count 0.
//   - tool_calls: tool_use blocks; hands_on: those calling Bash, Write,
//     Edit, MultiEdit or NotebookEdit, whether or not they were let
//     through (an attempt costs context either way).
//   - subagent work: the entries marked isSidechain, in every figure below,
//     but a compaction's summarising run (2.1's agent-acompact-*.jsonl) and
//     Claude Code's cache warmups (a run whose prompt is "Warmup", 2.0 to
//     2.1.4), which the model did not dispatch: they count in cache,
//     compactions and warmups alone. subagent_transcripts counts the
//     subagents read: files, and 1.0's inline runs (each starts at a root).
//   - subagent_share: subagent turns (chars) over all turns (chars).
//   - hands_on_ratio: subagent hands-on calls per main-thread hands-on call
//     (the design's 1,893:32 = 59:1); null when the main thread made none.
//   - denials: tool_result entries with toolDenialKind "permission-rule":
//     hook when permissionDecision.source is "hook", rule otherwise
//     (settings rules, source "config"). Counted on every thread.
//   - glances_main: main-thread Bash calls whose command is a glance
//     (package ephemeral, the same test layers one and four use).
//   - spills: spill pointers (package spill's format) in tool_result
//     content that name a file in a folder named spill/, each file once;
//     chars_moved is the sum of the characters the pointers say the files
//     hold.
//   - scripts: files under scripts/ of the workbench (--workbench, else
//     <the session's first cwd>/.flower, the root the hooks use). A write
//     is a Write, Edit, MultiEdit or NotebookEdit of such a file, or a Bash
//     output redirection into one; a run is a Bash simple command whose
//     command word is such a file (a path with a slash, as the shell
//     needs), or an interpreter (sh, bash, python3, node, …) given one;
//     cd within the command line is followed; a command past the parser's
//     limits (pkg/ephemeral's: 16 KB, parentheses 32 deep) names none. Only
//     calls that were let through count: a call
//     whose result carries a toolDenialKind (denied, interrupted) did
//     nothing. written counts the files written, run_more_than_once the
//     files run twice or more, written_not_run the files written and
//     never run.
//   - briefs: the Agent (or Task) calls of the main thread and the
//     characters of their prompts: the brief stays in the main context.
//     restating counts those with a sentence that says what the subagent
//     is told anyway, restating_chars the characters of such sentences
//     (the rule: restate.go).
//   - denials.chars, main_chars: the denied calls and their results, in
//     characters, on every thread and on the main thread.
//   - scripts.reused_by_scripts: the scripts whose file name (a Python
//     module's name in an import) the text another script was written
//     with names; most_reused the one most of them name.
//   - window: context.last against --window (share), the compaction
//     threshold (window − 33,000, the design's), and at growth_per_turn
//     the turns_left until it and the compact_turn it falls on.
//   - what_if (with --what-if only): what the main thread would have held
//     with every layer, by the hooks' rules (whatif.go).
//   - context: the main thread's context size (input_tokens +
//     cache_read_input_tokens + cache_creation_input_tokens) at its first
//     and last turn with a usage, and growth_per_turn = (last - first) /
//     (turns - 1), null with fewer than two such turns.
//   - cache: input_tokens, cache_read_input_tokens and
//     cache_creation_input_tokens summed over every turn of every thread,
//     compaction runs and warmups included; hit_rate = read / (read +
//     creation + input), null when all are 0.
//   - compactions: the main thread's compact_boundary entries: count,
//     after_turns (the main turns before each), pre_tokens (the sum of
//     their compactMetadata.preTokens, the context summarized), and runs,
//     run_input_tokens (context tokens) and run_output_tokens of the
//     summarising runs' transcripts, where the CLI kept them.
//   - warmups: cache warmup runs.
//
// Stdout: a table per session, or with --json one JSON object per session
// (JSON Lines) with the keys session, path, forked_from (null for no
// fork), subagent_of (null but for a subagent's transcript),
// subagent_transcripts, main, subagents, subagent_share, hands_on_ratio,
// denials, glances_main, spills, scripts, briefs, context, cache,
// compactions, warmups, window, what_if (with --what-if) and bad_lines.
// The table writes the hands-on ratio with a 1 on the smaller side (59.2:1,
// 1:69). With more than one session, their totals follow: a table, or a
// last line {"totals":{"sessions":N,"forks":M,…}} with the keys that add
// up, every entry counted once (a fork's copies of its original's entries
// are not counted again: totals.go).
//
// Flags: --json; --project DIR; --workbench DIR; --window N (200000);
// --what-if, with --chars-per-token N (4) and --delegation-chars N.
//
// Bad input: a line that is not a transcript entry (not JSON, not UTF-8,
// wrong-typed fields, over the reader's line limit) is counted in
// bad_lines and named in a warning on stderr; it never stops the report. A
// session whose main transcript has no readable line (empty, binary) is not
// reported.
//
// Exit codes: 0 when at least one session was reported (a stderr line
// "context-audit: warning: …" for each session or transcript that could not
// be read, or had bad lines); 1 with one stderr line when nothing could be
// reported (no such session, no readable line, bad flags). Never 2.
package contextaudit
