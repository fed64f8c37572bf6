package spillguard

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// field is a string value of tool_response reached through objects only:
// arrays may hold image blocks, and Claude Code checks the tool's schema.
type field struct {
	keys []string // from tool_response down; none for a string tool_response
	raw  string   // the JSON string token, quotes included, as written
	at   int      // where raw starts in tool_response
}

// longFields returns the fields of resp, valid JSON, whose token is over
// min bytes besides its quotes, in document order: resp itself when it is a
// string. It reads resp once and decodes nothing: gjson's ForEach unescapes
// every string it passes, on a 100 KB Read result as costly as the start.
func longFields(resp string, min int) []field {
	if strings.HasPrefix(resp, `"`) {
		if len(resp)-2 > min {
			return []field{{raw: resp}}
		}
		return nil
	}
	var out []field
	var keys []string // the key of each open object but the outermost
	var key string    // the last key read
	depth := 0
	for i := 0; i < len(resp); i++ {
		switch resp[i] {
		case '{':
			if depth > 0 {
				keys = append(keys, key)
			}
			depth++
		case '}':
			if depth--; depth > 0 {
				keys = keys[:len(keys)-1]
			}
		case '[':
			i = arrayEnd(resp, i)
		case '"':
			end := stringEnd(resp, i)
			if j := strings.IndexFunc(resp[end:], notSpace); j >= 0 && resp[end+j] == ':' {
				key, i = gjson.Parse(resp[i:end]).Str, end+j
				continue
			}
			if end-i-2 > min {
				out = append(out, field{keys: append(slices.Clone(keys), key), raw: resp[i:end], at: i})
			}
			i = end - 1
		}
	}
	return out
}

func notSpace(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' }

// stringEnd is the index past the closing quote of the string at s[i].
func stringEnd(s string, i int) int {
	for j := i + 1; ; j++ {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s)
		}
		j += k
		n := 0
		for s[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
	}
}

// arrayEnd is the index of the bracket closing the array at s[i].
func arrayEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = stringEnd(s, i) - 1
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return i
}

// writeText writes the text of the string token raw, unescaped as
// encoding/json does (a lone surrogate becomes U+FFFD). The runs between
// escapes go whole: gjson's byte-by-byte unescape costs several times the
// rest of the hook on a 1 MB result.
func writeText(w io.Writer, raw string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	s := raw[1 : len(raw)-1]
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 || i+1 == len(s) {
			bw.WriteString(s)
			return bw.Flush()
		}
		bw.WriteString(s[:i])
		c := s[i+1]
		s = s[i+2:]
		switch c {
		case 'b':
			bw.WriteByte('\b')
		case 'f':
			bw.WriteByte('\f')
		case 'n':
			bw.WriteByte('\n')
		case 'r':
			bw.WriteByte('\r')
		case 't':
			bw.WriteByte('\t')
		case 'u':
			r := hex4(s)
			s = s[min(4, len(s)):]
			if utf16.IsSurrogate(r) && len(s) >= 6 && strings.HasPrefix(s, `\u`) {
				if pair := utf16.DecodeRune(r, hex4(s[2:])); pair != utf8.RuneError {
					r, s = pair, s[6:]
				}
			}
			bw.WriteRune(r) // a lone surrogate as U+FFFD
		default: // '"', '\\' and '/' stand for themselves
			bw.WriteByte(c)
		}
	}
}

// hex4 is the value of the four hex digits s starts with.
func hex4(s string) rune {
	n, err := strconv.ParseUint(s[:min(4, len(s))], 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return rune(n)
}
