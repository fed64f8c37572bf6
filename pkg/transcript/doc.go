// Package transcript reads Claude Code's session transcripts, the .jsonl
// files under $CLAUDE_CONFIG_DIR/projects/<project>/: Parse checks a line
// and reads the fields flower needs, Scan streams a file through it, and
// the rest finds a session's files in every CLI version's layout.
package transcript
