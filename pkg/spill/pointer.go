package spill

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// File describes one spilled text.
type File struct {
	Path  string // absolute path of the spill file
	Chars int64  // characters (code points) in the file
	Lines int64  // lines in the file
	Head  string // the first characters of the text, cut on a character boundary
	// Note, when set, is one more sentence for the pointer, for example
	// that the file holds less than the whole output.
	Note string
}

// The fixed parts of the line Pointer writes, which ParsePointers reads back
// (context-audit counts spills in transcripts by them).
const (
	pointerStart = "[Spilled to a file to keep it out of context: "
	pointerChars = " characters, "
	pointerLines = " lines, in full at "
	pointerRead  = ". Use Read on that file with offset/limit to see the rest."
	// A count of one is written in the singular.
	pointerChar = " character, "
	pointerLine = " line, in full at "
)

// Pointer is the line that stands for the spilled text in context.
func (f File) Pointer() string {
	s := pointerStart + count(f.Chars, pointerChars, pointerChar) + count(f.Lines, pointerLines, pointerLine) + f.Path + pointerRead
	if f.Note != "" {
		s += " " + strings.TrimSpace(f.Note)
	}
	switch n := utf8.RuneCountInString(f.Head); n {
	case 0:
	case 1:
		s += " The first character follows."
	default:
		s += " The first " + strconv.Itoa(n) + " characters follow."
	}
	return s + "]"
}

// count is n followed by the plural, or for one the singular.
func count(n int64, plural, singular string) string {
	if n == 1 {
		return "1" + singular
	}
	return strconv.FormatInt(n, 10) + plural
}

// Text is what replaces the spilled text: the pointer line, then the head.
func (f File) Text() string {
	if f.Head == "" {
		return f.Pointer()
	}
	return f.Pointer() + "\n" + f.Head
}

// ParsePointers finds the spill pointers in text (what a model was shown in
// place of a spilled output, maybe with the line numbers of a Read) and
// returns the Path, Chars and Lines each one names. Text that only looks
// like a pointer (a number that does not parse, no path) is skipped.
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

// parsePointer reads "<chars> characters, <lines> lines, in full at <path>.
// Use Read …" from the start of s, all on one line.
func parsePointer(s string) (File, bool) {
	s, _, _ = strings.Cut(s, "\n")
	chars, s, ok := number(s, pointerChars, pointerChar)
	if !ok {
		return File{}, false
	}
	lines, s, ok := number(s, pointerLines, pointerLine)
	if !ok {
		return File{}, false
	}
	path, _, ok := strings.Cut(s, pointerRead)
	if !ok || path == "" {
		return File{}, false
	}
	return File{Path: path, Chars: chars, Lines: lines}, true
}

// number reads the count before the first of plural or singular in s and
// returns it with what follows.
func number(s, plural, singular string) (int64, string, bool) {
	i, sep := strings.Index(s, plural), plural
	if j := strings.Index(s, singular); j >= 0 && (i < 0 || j < i) {
		i, sep = j, singular
	}
	if i < 0 {
		return 0, "", false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	return n, s[i+len(sep):], err == nil && n >= 0
}
