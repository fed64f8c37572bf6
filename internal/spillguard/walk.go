package spillguard

import (
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

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
// valid JSON (the payload was validated); in is where it lies in the
// payload, whose long strings the walk steps over.
func members(obj string, in span) []member {
	var out []member
	seen := map[string]bool{}
	in.ends.EachMember(obj, in.at, func(key, value string, at int) bool {
		k := decodeString(key[1 : len(key)-1])
		if !seen[k] {
			seen[k] = true
			out = append(out, member{key: k, raw: value, off: at})
		}
		return true
	})
	return out
}

// span is where a value walked lies in the payload: its index, and where
// the payload's long strings are (hook.Payload.Ends).
type span struct {
	at   int
	ends jsonscan.Ends
}

// inner is the span of a value at offset off of the one s describes.
func (s span) inner(off int) span { return span{s.at + off, s.ends} }

// stringFields returns the string fields of the JSON value v: v itself when
// it is a string, the strings reached through its objects when it is an
// object, in document order.
func stringFields(v string, in span) []field {
	if i := jsonscan.SkipSpace(v, 0); i < len(v) && v[i] == '"' {
		return []field{{raw: v[i:in.ends.StringEnd(v, in.at, i)], off: i}}
	}
	return objectFields(members(v, in), in)
}

// objectFields is stringFields of an object whose members are ms: a caller
// that has them already need not scan a large value a second time.
func objectFields(ms []member, in span) []field {
	var out []field
	walkMembers(ms, in, 0, nil, &out)
	return out
}

func walkMembers(ms []member, in span, base int, keys []string, out *[]field) {
	for _, m := range ms {
		path := append(keys[:len(keys):len(keys)], m.key)
		switch m.raw[0] {
		case '"':
			*out = append(*out, field{keys: path, raw: m.raw, off: base + m.off})
		case '{':
			walkMembers(members(m.raw, in.inner(m.off)), in.inner(m.off), base+m.off, path, out)
		}
	}
}

// decodeString decodes the body of a JSON string token as encoding/json
// does: a lone or mismatched surrogate escape becomes U+FFFD.
func decodeString(body string) string {
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	out, _ := decodeSome(decodeBuffer(body), body, len(body))
	return string(out)
}

// decodeChunk is how much decoded text writeDecoded hands on at a time.
const decodeChunk = 256 << 10

// decodeSlack is how far decodeSome may run past its limit: the eight
// bytes of its last step, then a \u escape (up to 4 bytes) or the rest of a
// character.
const decodeSlack = 8 + 2*utf8.UTFMax

// decodeBuffer is a buffer decodeSome never has to grow for body: decoded
// text is never longer than its escaped form. A short body gets a short
// buffer; growing one (slices.Grow clears its new tail) would touch every
// page of it, which costs a fresh page fault each.
func decodeBuffer(body string) []byte {
	return make([]byte, 0, min(len(body), decodeChunk)+decodeSlack)
}

// writeDecoded writes the decoded body of a JSON string token to w in
// chunks, never holding the whole decoded text in memory.
func writeDecoded(w io.Writer, body string) error {
	buf := decodeBuffer(body)
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

// decodeSome appends to dst the decoding of body's prefix, stopping once it
// has appended limit bytes or a little more (an escape, or the rest of a
// character: a chunk never splits one), and returns how many bytes of body
// it used.
//
// It copies eight bytes a step into dst's spare room, up to the next
// backslash, rather than appending runs found with IndexByte: text like a
// log has an escaped newline every few bytes, and a call per run cost a
// quarter more on the 50 MB benchmark. Eight-byte steps decode that case's
// 50 MB of seq output in 21 ms, against 30 ms byte by byte (in memory,
// medians of 7).
func decodeSome(dst []byte, body string, limit int) ([]byte, int) {
	start := len(dst)
	limit = min(limit, len(body))
	dst = slices.Grow(dst, limit+decodeSlack)
	d := dst[start : start+limit+decodeSlack]
	i, j := 0, 0
	for i < len(body) && j < limit {
		if i+8 <= len(body) {
			x := jsonscan.Word(body, i)
			eq := jsonscan.EqualBytes(x, '\\')
			if eq == 0 {
				binary.LittleEndian.PutUint64(d[j:], x)
				i, j = i+8, j+8
				continue
			}
			k := bits.TrailingZeros64(eq) / 8
			if eq&(eq-1) == 0 {
				// One backslash, making a two-byte escape (log text's
				// escaped newlines): the next step starts past the word,
				// or past the escape when it ends the word, wherever the
				// backslash was, so no step waits on where the last escape
				// was found.
				before := x & (1<<(8*k) - 1)
				if k < 7 {
					if c := uint64(jsonscan.ShortEscape(byte(x >> (8*k + 8)))); c != 0 {
						binary.LittleEndian.PutUint64(d[j:], before|c<<(8*k)|x>>(8*k+16)<<(8*k+8))
						i, j = i+8, j+7
						continue
					}
				} else if i+8 < len(body) {
					if c := uint64(jsonscan.ShortEscape(body[i+8])); c != 0 {
						binary.LittleEndian.PutUint64(d[j:], before|c<<56)
						i, j = i+9, j+8
						continue
					}
				}
			}
			// Up to the backslash; the escape is decoded below, and the
			// bytes after it are written over.
			binary.LittleEndian.PutUint64(d[j:], x)
			i, j = i+k, j+k
		} else if c := body[i]; c != '\\' {
			d[j] = c
			i++
			j++
			continue
		}
		// body[i] is a backslash.
		if i+1 >= len(body) {
			return dst[:start+j], len(body)
		}
		c := body[i+1]
		i += 2
		switch short := jsonscan.ShortEscape(c); {
		case short != 0:
			d[j] = short
		case c == 'u':
			r := jsonscan.Hex4(body, i)
			if r < 0 {
				r = utf8.RuneError
			} else {
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
						r2 = jsonscan.Hex4(body, i+2)
					}
					if dr := utf16.DecodeRune(r, r2); dr != utf8.RuneError {
						r = dr
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
			}
			j += utf8.EncodeRune(d[j:], r)
			continue
		default: // no escape (a body not yet checked): taken as it stands
			d[j] = c
		}
		j++
	}
	// The limit can fall inside a character: take the rest of it.
	for i < len(body) && j < len(d) && !utf8.RuneStart(body[i]) {
		d[j] = body[i]
		i++
		j++
	}
	return dst[:start+j], i
}
