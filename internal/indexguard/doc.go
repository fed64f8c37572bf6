// Package indexguard is index-guard, the hook of layer two: it keeps the
// workbench's INDEX.md current and puts the workbench, its rules and its
// index in front of the model (package workbench).
//
// Stdin is a Claude Code hook payload; what happens depends on its
// hook_event_name:
//
//   - SessionStart (any source: startup, resume, clear, compact, fork):
//     create the workbench if need be, refresh INDEX.md, and print the
//     coordinator's prompt block as additionalContext. A digest of the index
//     is recorded for the session, so the first prompt does not repeat it.
//     A new session (source startup) removes digests idle for 30 days.
//   - SubagentStart: refresh, and print the worker's block as
//     additionalContext; Claude Code puts it in the subagent's first message.
//   - UserPromptSubmit: refresh; print the coordinator's block again only if
//     the index changed since it was last shown in this session (the digest
//     is kept in <workbench>/.state/<session>.digest), else nothing.
//   - PostToolUse of Write, Edit, MultiEdit or NotebookEdit whose file_path
//     (notebook_path) lies under scripts/ or artifacts/ of the workbench,
//     after resolving symlinks: regenerate INDEX.md; print nothing.
//   - Anything else: print nothing.
//
// Stdout is one JSON object with hookSpecificOutput.additionalContext, or
// nothing. The block is always under workbench.PromptCap characters.
//
// Flags: --workbench DIR (default $FLOWER_WORKBENCH, else
// $CLAUDE_PROJECT_DIR/.flower, else <payload cwd>/.flower); --max-entries N,
// the most files INDEX.md lists (default 40).
//
// Exit codes: 0 with the output above; 1 with one stderr line when the
// payload or flags are bad or the workbench cannot be created or read.
// Never 2.
package indexguard
