// Package spillguard is spill-guard, the PostToolUse hook of layer three:
// every string field of a tool's result over --threshold characters goes
// whole to a spill file and is replaced by a pointer and its first --head
// characters; every other byte stays. docs/REFERENCE.md, "Layer three", is
// the reference.
package spillguard
