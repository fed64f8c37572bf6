// Package transcript reads Claude Code's session transcripts, the .jsonl
// files under $CLAUDE_CONFIG_DIR/projects/<project>/, one JSON object a
// line: Parse checks a line (package jsoncheck) and reads the fields flower
// needs with gjson, Scan streams a file through it in memory bounded by its
// longest line, and the rest finds a session's files in the layouts of
// every CLI version and reads what prune-session leaves beside a fork.
// docs/REFERENCE.md ("Transcripts as flower reads them") says what a
// transcript holds.
package transcript
