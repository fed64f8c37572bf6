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
	Note  string // one more sentence for the pointer, when set
}

// The fixed parts of the pointer line, which ParsePointers reads back
// (context-audit counts spills in transcripts by them).
const (
	pointerStart = "[Spilled to a file to keep it out of context: "
	pointerAt    = " in full at "
	pointerRead  = ". Use Read on that file with offset/limit to see the rest."
)

// Pointer is the line that stands for the spilled text in context.
func (f File) Pointer() string {
	s := pointerStart + count(f.Chars, "character") + ", " + count(f.Lines, "line") + "," + pointerAt + f.Path + pointerRead
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

// count is n and what it counts, in the singular for one.
func count(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.FormatInt(n, 10) + " " + what + "s"
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
		_, after, ok := strings.Cut(text, pointerStart)
		if !ok {
			return out
		}
		text = after
		// "<chars> characters, <lines> lines, in full at <path>. Use Read …", on one line.
		line, _, _ := strings.Cut(after, "\n")
		counts, rest, _ := strings.Cut(line, pointerAt)
		path, _, found := strings.Cut(rest, pointerRead)
		c, l, _ := strings.Cut(counts, ", ")
		l, ok = strings.CutSuffix(l, ",")
		chars, okc := number(c, "character")
		lines, okl := number(l, "line")
		if found && path != "" && ok && okc && okl {
			out = append(out, File{Path: path, Chars: chars, Lines: lines})
		}
	}
}

// number reads "<n> <what>", what in the singular or the plural.
func number(s, what string) (int64, bool) {
	digits, unit, _ := strings.Cut(s, " ")
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n >= 0 && strings.TrimSuffix(unit, "s") == what
}
