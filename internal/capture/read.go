package capture

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// countCap bounds how much of a capture file is read to count its
// characters and lines: 64 MiB takes well under a second, and spill-guard
// runs under a 30 s timeout. A larger file is pointed to with the counts of
// its first 64 MiB and its size.
const countCap = 64 << 20

// headScan bounds how far into a file the head is looked for, past blank
// lines Claude Code would drop.
const headScan = 64 << 10

// output is what a capture file holds, as far as the views need it.
type output struct {
	size         int64
	chars, lines int64 // of the whole file, or of its first countCap bytes
	counted      bool  // false when the file is larger than countCap
	whole        string
	isWhole      bool // whole holds the output, trimmed as Claude Code trims it
	head, tail   string
}

// readOutput reads f, a capture file of size bytes. When its output,
// trimmed as Claude Code trims a Bash result, has at most wholeMax
// characters, it is kept whole; else the first head and the last tail
// characters of it are kept, and the whole file is counted.
func readOutput(f *os.File, size int64, wholeMax, head, tail int) (output, error) {
	out := output{size: size}
	if size <= int64(utf8.UTFMax*wholeMax) {
		b, err := io.ReadAll(io.LimitReader(f, int64(utf8.UTFMax*wholeMax)+1))
		if err != nil {
			return out, err
		}
		out.size = int64(len(b)) // a background job may have written on
		out.chars, out.lines, out.counted = countChars(b), countLines(b), true
		if trimmed := trimOutput(string(b)); utf8.RuneCountInString(trimmed) <= wholeMax {
			out.whole, out.isWhole = trimmed, true
			return out, nil
		}
		out.head = firstChars(trimLeading(string(b)), head)
		out.tail = lastLines(trimTrailing(string(b)), tail)
		return out, nil
	}

	// Counted in one pass; the head is taken from the first block, the
	// tail read from the end.
	buf := make([]byte, 64<<10)
	var first []byte
	var n int64
	var last byte
	for n < countCap {
		m, err := f.Read(buf[:min(int64(len(buf)), countCap-n)])
		if m > 0 {
			p := buf[:m]
			if len(first) < headScan {
				first = append(first, p[:min(m, headScan-len(first))]...)
			}
			out.chars += countChars(p)
			out.lines += int64(bytes.Count(p, []byte{'\n'}))
			last = p[m-1]
			n += int64(m)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
	}
	if n > 0 && last != '\n' {
		out.lines++
	}
	if fi, err := f.Stat(); err == nil {
		out.size = fi.Size()
	}
	out.counted = out.size <= countCap
	out.head = firstChars(trimLeading(validPrefix(first)), head)
	from := max(out.size-int64(utf8.UTFMax*tail), 0)
	end := make([]byte, out.size-from)
	m, err := f.ReadAt(end, from)
	if err != nil && err != io.EOF {
		return out, err
	}
	out.tail = lastLines(trimTrailing(validSuffix(end[:m])), tail)
	return out, nil
}

// countChars counts the characters of p as package spill counts them: the
// bytes that do not continue a UTF-8 sequence.
func countChars(p []byte) int64 {
	n := int64(len(p))
	for _, b := range p {
		if b&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

// countLines counts lines as package spill does: the newlines, and one
// more for text after the last.
func countLines(p []byte) int64 {
	n := int64(bytes.Count(p, []byte{'\n'}))
	if len(p) > 0 && p[len(p)-1] != '\n' {
		n++
	}
	return n
}

// validPrefix is p without a character cut off at its end.
func validPrefix(p []byte) string {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return string(p[:i])
			}
			break
		}
	}
	return string(p)
}

// validSuffix is p without the continuation bytes of a character cut off at
// its start.
func validSuffix(p []byte) string {
	i := 0
	for i < len(p) && i < utf8.UTFMax && !utf8.RuneStart(p[i]) {
		i++
	}
	return string(p[i:])
}

// firstChars is the first n characters of s.
func firstChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// lastLines is at most the last n characters of s, from the start of a
// line when they hold one: a tail read from a line cut in the middle reads
// as garbage (the "67" of "19867").
func lastLines(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	if i > 0 && s[i-1] != '\n' {
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 && j+1 < len(s)-i {
			i += j + 1
		}
	}
	return s[i:]
}

// Claude Code 2.1.328 trims a Bash result before the model sees it, as
// o.replace(/^(\s*\n)+/, "").trimEnd(): blank lines at the start go, and
// whitespace at the end. The views trim what they show the same way, so a
// captured output reads as the uncaptured one would.
func trimOutput(s string) string { return trimTrailing(trimLeading(s)) }

// trimLeading drops the lines at the start of s that hold only whitespace.
func trimLeading(s string) string {
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimLeftFunc(line, jsSpace) != "" {
			return s
		}
		s = rest
	}
}

// trimTrailing is JavaScript's trimEnd.
func trimTrailing(s string) string { return strings.TrimRightFunc(s, jsSpace) }

// jsSpace is JavaScript's \s: white space and line terminators.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029',
		'\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// Claude Code 2.1.328 shows the model an image when a Bash result is a
// data: URL of one (isImage: /^data:image\/[a-z0-9.+_-]+;base64,/i on the
// output), up to 20 MiB. A captured one is shown the same way.
var imageURL = regexp.MustCompile(`(?i)^data:image/[a-z0-9.+_-]+;base64,`)

const imageMax = 20 << 20

// readImage returns the output in f, of size bytes, when it is an image's
// data: URL Claude Code would show as the image.
func readImage(f *os.File, size int64) (string, bool, error) {
	if size > imageMax {
		return "", false, nil
	}
	start := make([]byte, 256)
	n, err := f.ReadAt(start, 0)
	if err != nil && err != io.EOF {
		return "", false, err
	}
	if !imageURL.MatchString(strings.TrimLeftFunc(string(start[:n]), jsSpace)) {
		return "", false, nil
	}
	b := make([]byte, size)
	n, err = f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return "", false, err
	}
	return strings.TrimFunc(string(b[:n]), jsSpace), true, nil
}
