package ephemeral

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A glance must be read-only in the shell that runs it: bash 5, as Claude
// Code runs it (bash -c "… eval '<cmd>' …"). The classifier reads
// mvdan.cc/sh's tree of the command, so wherever that parser and bash could
// read the same text differently the command is refused before its tree is
// trusted. The checks below are the places found where they differ, or where
// the parser's cost grows faster than the text.

// Limits past which a command is not a glance without being parsed.
const (
	// maxCommandBytes is the longest command Classify reads. The longest
	// Bash command in the sample transcripts (../shared/transcripts) is 4.7
	// KB and the median 100 bytes; a 16 KB line is generated, not glanced
	// with. It also bounds the work spill-guard does on a glance's words.
	maxCommandBytes = 16 << 10
	// maxParenDepth caps how deep parentheses nest, counted over the raw
	// text, quotes or not. mvdan.cc/sh tries "((" as arithmetic first and
	// backtracks: 16 KB of unclosed "(" took 150 ms to parse and 126 KB took
	// 1.9 s and 491 MB; with the depth capped at 32, 16 KB of any mix
	// parsed in under 4 ms. A glance uses none (subshells, substitutions
	// and arithmetic are refused), only quoted ones in a pattern.
	maxParenDepth = 32
)

// TooBigToParse returns why cmd is past the limits within which
// mvdan.cc/sh parses a command in bounded time, memory and stack
// (maxCommandBytes, maxParenDepth), or "". Whatever hands a command from a
// transcript or a payload to that parser checks it first: 320 KB of nested
// parentheses overflows the stack, which exits 2, "block" to Claude Code.
func TooBigToParse(cmd string) string {
	if len(cmd) > maxCommandBytes {
		return fmt.Sprintf("%d bytes, past the %d a glance may have", len(cmd), maxCommandBytes)
	}
	depth := 0
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case '(':
			if depth++; depth > maxParenDepth {
				return fmt.Sprintf("parentheses nested more than %d deep", maxParenDepth)
			}
		case ')':
			depth = max(depth-1, 0)
		}
	}
	return ""
}

// unvouched returns why the text of cmd cannot be handed to the parser and
// trusted to mean what it means to bash, or "".
func unvouched(cmd string) string {
	if why := TooBigToParse(cmd); why != "" {
		return "cannot vouch for it: " + why
	}
	if !utf8.ValidString(cmd) {
		return "cannot vouch for it: not valid UTF-8"
	}
	for i := 0; i < len(cmd); i++ {
		if c := cmd[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			// The parser takes a carriage return for a blank and drops NUL
			// bytes; bash keeps a carriage return inside the word ("ls\r# ;
			// touch x" runs touch) and cannot hold a NUL at all. Other
			// control characters are kept as they are by both, but no
			// glance needs one.
			return fmt.Sprintf("cannot vouch for it: control character %q, which the parser and bash may read differently", c)
		}
	}
	return ""
}

// commentsWhy returns why a comment in f, parsed from src, makes the
// parser's reading differ from bash's, or "". The parser continues a
// comment past a backslash-newline ("git status # note \" then a newline
// and "rm -f x" is one git command to it); bash ends every comment at the
// newline and runs the next line.
func commentsWhy(f *syntax.File, src string) string {
	if strings.IndexByte(src, '#') < 0 {
		return "" // the usual command: no comment to walk the tree for
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && why == "" {
			if strings.HasSuffix(strings.TrimSuffix(c.Text, "\n"), `\`) || strings.Contains(c.Text, "\\\n") {
				why = "cannot vouch for it: a comment ending in a backslash, which bash ends at the newline and the parser does not"
			}
		}
		return why == ""
	})
	return why
}
