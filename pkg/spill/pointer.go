package spill

import (
	"strconv"
	"strings"
)

// The fixed parts of the line File.Pointer writes, for ParsePointers. The
// round-trip test in this package fails if Pointer's wording drifts from
// them, so the format has one owner.
const (
	pointerStart = "[Spilled to a file to keep it out of context: "
	pointerChars = " characters, "
	pointerLines = " lines, in full at "
	pointerRead  = ". Use Read on that file with offset/limit to see the rest."
	// A count of one is written in the singular.
	pointerChar = " character, "
	pointerLine = " line, in full at "
)

// ParsePointers finds the spill pointers in text (what a model was shown
// in place of a spilled output: the pointer line then the head, maybe
// rendered with line numbers by the tool) and returns the spill each one
// names: Path, Chars and Lines. Text that only looks like a pointer (a
// number that does not parse, no path) is skipped.
func ParsePointers(text string) []File {
	var out []File
	for {
		i := strings.Index(text, pointerStart)
		if i < 0 {
			return out
		}
		text = text[i+len(pointerStart):]
		if f, ok := parsePointer(text); ok {
			out = append(out, f)
		}
	}
}

// parsePointer reads "<chars> characters, <lines> lines, in full at
// <path>. Use Read …" from the start of s. The path ends at the first
// pointerRead on the same line.
func parsePointer(s string) (File, bool) {
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	num, rest, ok := cutEither(s, pointerChars, pointerChar)
	if !ok {
		return File{}, false
	}
	chars, err := strconv.ParseInt(num, 10, 64)
	if err != nil || chars < 0 {
		return File{}, false
	}
	num, rest, ok = cutEither(rest, pointerLines, pointerLine)
	if !ok {
		return File{}, false
	}
	lines, err := strconv.ParseInt(num, 10, 64)
	if err != nil || lines < 0 {
		return File{}, false
	}
	path, _, ok := strings.Cut(rest, pointerRead)
	if !ok || path == "" {
		return File{}, false
	}
	return File{Path: path, Chars: chars, Lines: lines}, true
}

// cutEither cuts s around the first of plural or singular that occurs.
func cutEither(s, plural, singular string) (before, after string, found bool) {
	i, sep := strings.Index(s, plural), plural
	if j := strings.Index(s, singular); j >= 0 && (i < 0 || j < i) {
		i, sep = j, singular
	}
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
