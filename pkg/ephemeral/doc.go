// Package ephemeral decides whether a shell command is a glance: a read-only
// command whose output is a snapshot that goes stale (git status, ls, cat and
// compounds of them).
//
// One function answers for every layer: the main thread may run a glance
// itself (layer one), and a resumed transcript may expire a glance's result
// (layer four). Either side deciding alone is harmful, so both call Classify.
// When in doubt the answer is "not a glance": a wrong yes lets the main thread
// change things, a wrong no only costs a subagent.
package ephemeral
