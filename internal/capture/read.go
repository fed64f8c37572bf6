package capture

import (
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/flowerhooks/flower/pkg/spill"
)

// countCap bounds how much of a capture file is counted: well under a
// second, within spill-guard's 30 s timeout.
const countCap = 64 << 20

// headScan is read at least for the head, past blank lines Claude Code drops.
const headScan = 64 << 10

// output is what a capture file holds, as far as the views need it.
type output struct {
	file    spill.File // its characters and lines, and its head
	size    int64
	counted bool   // the counts are of the whole file, not of its first countCap bytes
	whole   string // the output, trimmed as Claude Code trims it,
	isWhole bool   // when it has at most the characters asked for
	tail    string
}

// readOutput reads and counts f in one pass: whole when, trimmed as Claude
// Code trims a Bash result, it has at most wholeMax characters, else its
// first head and last tail characters.
func readOutput(f *os.File, size int64, wholeMax, head, tail int) (output, error) {
	first := make([]byte, max(headScan, utf8.UTFMax*wholeMax))
	n, err := io.ReadFull(f, first)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return output{}, err
	}
	first = first[:n]
	c := spill.NewCounter(io.Discard, 0)
	c.Write(first)
	rest, err := io.Copy(c, io.LimitReader(f, countCap-int64(n)))
	if err != nil {
		return output{}, err
	}
	// The file may grow while it is read: a background job writes on.
	out := output{file: c.File(""), size: int64(n) + rest, counted: true}
	if out.size >= countCap {
		if fi, err := f.Stat(); err == nil {
			out.size = fi.Size()
		}
		out.counted = out.size <= countCap
	}
	if out.size <= int64(utf8.UTFMax*wholeMax) {
		if trimmed := trimOutput(string(first)); utf8.RuneCountInString(trimmed) <= wholeMax {
			out.whole, out.isWhole = trimmed, true
			return out, nil
		}
	}
	out.file.Head = firstChars(trimLeading(validPrefix(first)), head)
	from := max(out.size-int64(utf8.UTFMax*tail), 0)
	end := make([]byte, out.size-from)
	m, err := f.ReadAt(end, from)
	if err != nil && err != io.EOF {
		return out, err
	}
	out.tail = lastLines(trimTrailing(validSuffix(end[:m])), tail)
	return out, nil
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

// lastLines is at most the last n characters of s, from a line's start when
// they hold one: a line cut in the middle reads as garbage ("67" of "19867").
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

// trimOutput trims as Claude Code 2.1.328 trims a Bash result,
// o.replace(/^(\s*\n)+/, "").trimEnd(), so a captured output reads alike.
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

// Claude Code 2.1.328 shows a Bash result that is an image's data: URL, up
// to 20 MiB, as the image; so is a captured one. Compiled on a marker's call.
var imageURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^data:image/[a-z0-9.+_-]+;base64,`)
})

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
	if !imageURL().MatchString(strings.TrimLeftFunc(string(start[:n]), jsSpace)) {
		return "", false, nil
	}
	b := make([]byte, size)
	n, err = f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return "", false, err
	}
	return strings.TrimFunc(string(b[:n]), jsSpace), true, nil
}
