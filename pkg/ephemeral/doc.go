// Package ephemeral decides whether a bash command line is a glance: a
// read-only command whose output is a snapshot that goes stale (git status,
// ls, cat and compounds of them), read as bash reads it when Claude Code
// runs it. One table (table.go) answers for every layer: delegate-guard
// lets a glance run on the main thread, prune-session and context-audit
// expire its result, spill-guard leaves whole a glance that reads a spill
// file. When in doubt the answer is "not a glance": a wrong yes lets the
// main thread change things, a wrong no only costs a subagent.
// docs/REFERENCE.md ("What is a glance") holds the rules.
package ephemeral
