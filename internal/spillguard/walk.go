package spillguard

import (
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// member is one key and value of a JSON object.
type member struct {
	key string // decoded
	raw string // the value as written
	off int    // where raw starts in the object
}

// members returns the members of the JSON object obj in order, the first
// of each repeated key only: the one a gjson path names. It scans obj itself
// rather than with gjson's ForEach, which decodes every string value it
// passes: for a 50 MB stdout that is 100 MB of needless copies. obj must be
// valid JSON (the payload was validated).
func members(obj string) []member {
	var out []member
	seen := map[string]bool{}
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return out
		}
		if obj[i] == ',' {
			i++
			continue
		}
		end := stringEnd(obj, i)
		key := decodeString(obj[i+1 : end-1])
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return out
		}
		i = skipSpace(obj, i+1)
		vend := valueEnd(obj, i)
		if !seen[key] && vend > i {
			seen[key] = true
			out = append(out, member{key: key, raw: obj[i:vend], off: i})
		}
		i = vend
	}
}

// stringFields returns the string fields of the JSON value v: v itself when
// it is a string, the strings reached through its objects when it is an
// object, in document order.
func stringFields(v string) []field {
	i := skipSpace(v, 0)
	if i >= len(v) {
		return nil
	}
	var out []field
	switch v[i] {
	case '"':
		out = append(out, field{raw: v[i:stringEnd(v, i)], off: i})
	case '{':
		walkObject(v, 0, nil, &out)
	}
	return out
}

func walkObject(obj string, base int, keys []string, out *[]field) {
	for _, m := range members(obj) {
		path := append(keys[:len(keys):len(keys)], m.key)
		switch m.raw[0] {
		case '"':
			*out = append(*out, field{keys: path, raw: m.raw, off: base + m.off})
		case '{':
			walkObject(m.raw, base+m.off, path, out)
		}
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string token starting at s[i].
// It jumps from quote to quote with IndexByte and keeps the first one not
// escaped by an odd run of backslashes.
func stringEnd(s string, i int) int {
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s)
		}
		q := j + k
		n := 0
		for q-1-n > i && s[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index just past the JSON value starting at s[i].
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); {
			switch s[j] {
			case '"':
				j = stringEnd(s, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[j])) {
		j++
	}
	return j
}

// decodeString decodes the body of a JSON string token as encoding/json
// does: a lone or mismatched surrogate escape becomes U+FFFD.
func decodeString(body string) string {
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	out, _ := decodeSome(make([]byte, 0, len(body)), body, len(body))
	return string(out)
}

// decodeChunk is how much decoded text writeDecoded hands on at a time.
const decodeChunk = 256 << 10

// writeDecoded writes the decoded body of a JSON string token to w in
// chunks, never holding the whole decoded text in memory.
func writeDecoded(w io.Writer, body string) error {
	buf := make([]byte, 0, decodeChunk+utf8.UTFMax)
	for len(body) > 0 {
		var n int
		buf, n = decodeSome(buf[:0], body, decodeChunk)
		body = body[n:]
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// decodedChars counts the characters of the decoded body.
func decodedChars(body string) int {
	n := 0
	buf := make([]byte, 0, decodeChunk+utf8.UTFMax)
	for len(body) > 0 {
		var used int
		buf, used = decodeSome(buf[:0], body, decodeChunk)
		body = body[used:]
		n += utf8.RuneCount(buf)
	}
	return n
}

// decodeSome appends to dst the decoding of body's prefix, stopping once it
// has appended about limit bytes, at an escape boundary, and returns how
// many bytes of body it used. Runs without a backslash are copied whole.
func decodeSome(dst []byte, body string, limit int) ([]byte, int) {
	start := len(dst)
	i := 0
	for i < len(body) && len(dst)-start < limit {
		k := strings.IndexByte(body[i:], '\\')
		if k != 0 {
			if k < 0 {
				k = len(body) - i
			}
			if room := limit - (len(dst) - start); k > room {
				k = runeCut(body[i:], room)
			}
			dst = append(dst, body[i:i+k]...)
			i += k
			continue
		}
		if i+1 >= len(body) {
			return dst, len(body)
		}
		c := body[i+1]
		i += 2
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(body, i)
			if r < 0 {
				r = utf8.RuneError
				break
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2 = hex4(body, i+2)
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
	return dst, i
}

// runeCut returns the length of the longest prefix of s no longer than n
// that ends on a character boundary, or of the first character when even
// that is longer than n: a chunk never splits a character.
func runeCut(s string, n int) int {
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	if k > 0 {
		return k
	}
	k = max(n, 1)
	for k < len(s) && !utf8.RuneStart(s[k]) {
		k++
	}
	return k
}

// hex4 reads the four hex digits at s[i:], or returns -1.
func hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
