// Package contextaudit is context-audit: it measures the context economics
// of Claude Code sessions from their transcripts (how the work split between
// the main thread and its subagents, denials, glances, spills, scripts,
// briefs, the main thread's growth against its window, the cache and, with
// --what-if, what flower's layers would have kept out), so that a user can
// take the design's figures on their own sessions. Usage: context-audit
// [--json] [--workbench DIR] [--window N] [--what-if] SESSION... or
// --project DIR; stdin is not read; stdout is a table per session, or a JSON
// line each, then their totals; exit 0 when a session was reported, else 1
// with one stderr line, never 2. docs/REFERENCE.md ("context-audit") defines
// every figure.
package contextaudit
