// Package spillguard is spill-guard, the PostToolUse hook of layer three.
// Every string field of a tool's result over --threshold characters (reached
// through objects, never arrays, or the result itself when it is a string)
// is written whole to a new file of the workbench's spill folder (package
// spill) and replaced by a pointer to that file and its first --head
// characters; every other byte stays as it came. A Bash output Claude Code
// cut is spilled from Claude Code's copy of the whole; reads of spill files,
// images and the edit tools' results pass; a result the capture layer kept
// (package capture) is shown as its view. docs/REFERENCE.md, "Layer three",
// is the reference.
package spillguard
