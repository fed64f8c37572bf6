package spillguard

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// field is one string value of tool_response that is reached through
// objects only: arrays are never entered, since they may hold image blocks
// and Claude Code checks the replaced output against the tool's schema.
type field struct {
	keys []string // from tool_response down; empty for a string tool_response
	raw  string   // the JSON string token, quotes included, as in the payload
	off  int      // where raw starts in tool_response
}

// body is the token without its quotes, still escaped.
func (f field) body() string { return f.raw[1 : len(f.raw)-1] }

// longFields returns the string fields of resp, valid JSON, whose escaped
// body is over min bytes (one of min bytes or fewer cannot hold more than
// min characters), in document order: resp itself when it is a string,
// the strings reached through its objects when it is an object. An object
// on the way that holds a key twice is an error (see hook.Members).
//
// It reads resp once, keeping the keys down to where it is: a walk that
// found each value's end and then went into it would read a value once
// for every level above it, and 10,000 nested objects (60 KB) would take
// seconds.
func longFields(resp string, min int) ([]field, error) {
	i := jsonscan.SkipSpace(resp, 0)
	if i < len(resp) && resp[i] == '"' {
		if end := jsonscan.StringEnd(resp, i); end-i-2 > min {
			return []field{{raw: resp[i:end], off: i}}, nil
		}
		return nil, nil
	}
	if i >= len(resp) || resp[i] != '{' {
		return nil, nil
	}
	var out []field
	var keys []string // the key of each open object but the outermost
	var open []int    // where each open object starts
	type member struct {
		obj int // where its object starts
		key string
	}
	seen := map[member]bool{}
	for i < len(resp) {
		switch resp[i] {
		case '{':
			open = append(open, i)
			i++
		case '}':
			if open = open[:len(open)-1]; len(open) == 0 {
				return out, nil
			}
			keys = keys[:len(keys)-1]
			i++
		case '"': // a key: its value follows
			end := jsonscan.StringEnd(resp, i)
			key := jsonscan.Key(resp[i:end])
			m := member{open[len(open)-1], key}
			if seen[m] {
				return nil, hook.DuplicateKey(strings.Join(append([]string{"tool_response"}, keys...), "."), key)
			}
			seen[m] = true
			i = jsonscan.SkipSpace(resp, jsonscan.SkipSpace(resp, end)+1) // past the colon
			switch resp[i] {
			case '{':
				keys = append(keys, key)
			case '"':
				end := jsonscan.StringEnd(resp, i)
				if end-i-2 > min {
					out = append(out, field{keys: append(slices.Clone(keys), key), raw: resp[i:end], off: i})
				}
				i = end
			default: // an array, which is never entered, a number, true, false, null
				i = jsonscan.ValueEnd(resp, i)
			}
		default: // a comma or white space
			i++
		}
	}
	return out, nil
}

// writeText writes the text of body, the body of a valid JSON string
// token, unescaped as gjson and encoding/json unescape it (a \u escape of
// a lone surrogate becomes U+FFFD), without holding the text whole in
// memory: a tool result of 50 MB would otherwise cost 50 MB more.
func writeText(w io.Writer, body string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		i := strings.IndexByte(body, '\\')
		if i < 0 {
			bw.WriteString(body)
			return bw.Flush()
		}
		bw.WriteString(body[:i])
		c := body[i+1]
		body = body[i+2:]
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
			r := hex4(body)
			body = body[4:]
			if utf16.IsSurrogate(r) && strings.HasPrefix(body, `\u`) {
				if pair := utf16.DecodeRune(r, hex4(body[2:])); pair != utf8.RuneError {
					r, body = pair, body[6:]
				}
			}
			bw.WriteRune(r) // a lone surrogate is written as U+FFFD
		default: // '"', '\\' and '/' stand for themselves
			bw.WriteByte(c)
		}
	}
}

// hex4 is the value of the four hex digits s starts with (a valid \u
// escape's).
func hex4(s string) rune {
	n, _ := strconv.ParseUint(s[:4], 16, 32)
	return rune(n)
}
