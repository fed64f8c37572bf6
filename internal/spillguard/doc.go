// Package spillguard is spill-guard, the PostToolUse hook of layer three: it
// keeps long tool results out of the model's context.
//
// Stdin is a Claude Code hook payload. On PostToolUse, every string field of
// tool_response longer than --threshold characters (reached through objects,
// never through arrays, which may hold image blocks; or tool_response itself
// when it is a string, as MCP tools give) is written whole to a new file in
// <workbench>/spill/ (package spill) and replaced by a pointer line naming
// that file, its size in characters and lines, and how to Read it, followed
// by the field's first --head characters.
//
// Bash output over 30,000 characters reaches the hook cut, with
// persistedOutputPath naming Claude Code's copy of the whole output: the
// spill file is then made from that copy, so it holds the whole output, and
// persistedOutputPath and persistedOutputSize are dropped from the
// replacement: with them Claude Code shows the model its own "Output too
// large … Full output saved to" header around our pointer, a second path to
// the same output (see dropPersisted). If the copy cannot be read, the cut
// stdout is spilled, the pointer says so, and both fields stay.
//
// Passed untouched: other events; subagent calls with --main-only; a Read
// whose file_path lies in the spill folder and a Bash glance (package
// ephemeral) whose words may name a file there (taken relative to the cwd,
// the workbench root and the folders its cds move to; a glob or brace word
// by the paths it may expand to), so that the pointer's "use Read" never
// loops; a Read of anything but text (images, PDFs, notebooks);
// Bash output flagged isImage; the edit tools (Write, Edit, MultiEdit,
// NotebookEdit), whose results echo file contents the model is not shown.
//
// Stdout: {"hookSpecificOutput":{"hookEventName":"PostToolUse",
// "updatedToolOutput":<tool_response with only the spilled fields
// replaced>}}, every other byte of tool_response kept as it came (Claude
// Code drops a replacement that does not match the tool's output schema),
// but for the two persisted-output fields above.
// Nothing is printed when no field is over the threshold.
//
// With the capture layer (package capture, capture.go), a Bash result whose
// first line is the capture script's marker is shown from the capture file
// it names instead: up to --threshold characters whole, else the pointer and
// --head characters, whatever --main-only says. spill-guard is then wired on
// PostToolUseFailure of Bash too, where it prints an additionalContext: what
// failed, --head characters, the pointer and a tail twice as long.
//
// A spill file is whole before the pointer to it is printed (a temporary
// file linked into place) but not fsynced: see spill.WriteUnsynced.
//
// Flags: --threshold N (4000) characters a field may have before it is
// spilled; --head N (400) characters kept after the pointer; --main-only to
// spill main-thread results only; --workbench DIR. A flag not given takes
// its key from the configuration (package config), which may also switch
// the layer off (spill-guard.enabled) and add glance entries (a glance of
// theirs that names a spill file is left whole too); a configuration file
// that cannot be used is named in one stderr line and the hook spills with
// the defaults. With the decision log on, each result's verdict is recorded.
//
// Exit codes: 0 with the replacement or nothing on stdout; 1 with one
// stderr line when the payload or the flags are bad (including a
// tool_response that is not an object, or is missing, for Bash, Read, Grep,
// Glob, WebFetch and WebSearch, whose results are always objects; an MCP
// tool's may be anything) or a spill file cannot be written (a read-only or full disk, a spill/ that is a symlink): then
// nothing is printed and the model gets the original output. Never 2.
package spillguard
