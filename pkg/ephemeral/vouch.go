package ephemeral

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A glance must be read-only in bash as Claude Code runs it (bash -c
// "… eval '<cmd>' …"), not only in mvdan.cc/sh's reading, so where the two
// could read a line differently, or where the parser's cost grows faster
// than the text, the line is refused before its tree is trusted.
const (
	// maxCommandBytes is the longest line read: the longest Bash command of
	// the sample transcripts is 4.7 KB, the median 100 bytes.
	maxCommandBytes = 16 << 10
	// maxParenDepth caps how deep parentheses nest, quoted or not: the
	// parser tries "((" as arithmetic and backtracks, and 126 KB of "("
	// took 1.9 s and 491 MB; capped at 32, 16 KB of any mix parses in
	// under 4 ms. A glance uses none but quoted ones in a pattern.
	maxParenDepth = 32
)

// TooBigToParse returns why cmd is past the limits within which
// mvdan.cc/sh parses in bounded time, memory and stack, or "". Whatever
// hands a command to that parser checks it first: 320 KB of nested
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

// unvouched returns why cmd cannot be trusted to mean to bash what it
// means to the parser, or "".
func unvouched(cmd string) string {
	if why := TooBigToParse(cmd); why != "" {
		return "cannot vouch for it: " + why
	}
	if !utf8.ValidString(cmd) {
		return "cannot vouch for it: not valid UTF-8"
	}
	for i := 0; i < len(cmd); i++ {
		// The parser takes a carriage return for a blank and drops NUL;
		// bash keeps a carriage return in the word ("ls\r# ; touch x" runs
		// touch) and cannot hold a NUL. No glance needs another one.
		if c := cmd[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return fmt.Sprintf("cannot vouch for it: control character %q, which the parser and bash may read differently", c)
		}
	}
	return ""
}

// commentsWhy returns why a comment of f makes the parser's reading differ
// from bash's, or "": the parser continues a comment past a
// backslash-newline, bash ends it at the newline and runs the next line.
func commentsWhy(f *syntax.File, src string) string {
	if strings.IndexByte(src, '#') < 0 {
		return ""
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && (strings.HasSuffix(strings.TrimSuffix(c.Text, "\n"), `\`) || strings.Contains(c.Text, "\\\n")) {
			why = "cannot vouch for it: a comment ending in a backslash, which bash ends at the newline and the parser does not"
		}
		return why == ""
	})
	return why
}
