// Package indexguard is index-guard, the hook of layer two: it keeps the
// workbench's INDEX.md current and puts the workbench, its rules and its
// index in front of the model (package workbench).
//
// index-guard never creates the workbench: it appears with the first file
// saved in it (a spill, a script, an artifact). Until then the blocks name
// where it will be and show an empty index, and nothing is written.
//
// Stdin is a Claude Code hook payload; what happens depends on its
// hook_event_name:
//
//   - SessionStart (any source: startup, resume, clear, compact, fork):
//     rescan the workbench in full, refresh INDEX.md, and print the
//     coordinator's whole block as additionalContext. What the block showed
//     is recorded for the session (<workbench>/.state/<session>.shown). A
//     new session (source startup) removes records idle for 30 days.
//   - SubagentStart: print the worker's whole block; Claude Code puts it in
//     the subagent's first message.
//   - UserPromptSubmit: print what changed in the index since the session's
//     record (entries added +, changed ~, no longer listed -, and the count
//     line), or the whole block when that is shorter, or nothing when
//     nothing changed. A session without a record was shown an empty index.
//   - PostToolUse of Write, Edit, MultiEdit or NotebookEdit whose file_path
//     (notebook_path) lies under scripts/ or artifacts/ of the workbench,
//     after resolving symlinks: regenerate INDEX.md; print nothing.
//   - Anything else: print nothing.
//
// SubagentStart and UserPromptSubmit do not walk the workbench when a stat
// of its folders and of the listed files shows nothing changed since the
// last scan (workbench.Current).
//
// Stdout is one JSON object with hookSpecificOutput.additionalContext, or
// nothing. The block is always under workbench.PromptCap characters.
//
// Flags: --workbench DIR (default $FLOWER_WORKBENCH, else
// $CLAUDE_PROJECT_DIR/.flower, else <payload cwd>/.flower); --max-entries N,
// the most files INDEX.md lists (default 40). A flag not given takes its
// key from the configuration (package config), which may also switch the
// layer off (index-guard.enabled); a configuration file that cannot be
// used is named in one stderr line and the hook works with the defaults.
// With the decision log on, each block shown and index refreshed is
// recorded.
//
// Exit codes: 0 with the output above; 1 with one stderr line when the
// payload or flags are bad, or the workbench cannot be read or written: among
// others when it, or its scripts/, artifacts/ or .state/ folder, is a
// symlink (unless the user named the workbench), or INDEX.md is not a
// regular file. Never 2.
package indexguard
