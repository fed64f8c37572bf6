package jsonscan

import (
	"bytes"
	"math/bits"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// LongString is the body length from which Valid checks a string apart from
// the rest of the document.
const LongString = 1024

// Valid reports whether s is valid JSON, as gjson.Valid does, but faster on
// documents whose bulk is long strings: a hook payload carrying a 50 MB
// tool result, a transcript line holding a long file read.
//
// gjson checks a string byte by byte. Valid cuts the bodies of the
// strings of s that are LongString bytes or longer out of s: they are
// checked eight bytes at a step (ValidStringBody), and gjson.Valid checks the rest, the document with
// those bodies cut out. The two checks together accept exactly what
// gjson.Valid accepts; FuzzValid compares them. The one exception: a
// document nested deeper than MaxNesting is not valid.
func Valid(s string) bool {
	if len(s) < LongString+2 {
		return gjson.Valid(s) // no string in it is long: skip the scan
	}
	buf := skeletons.Get().(*[]byte)
	defer skeletons.Put(buf)
	skel, ok := cutLong(s, LongString, (*buf)[:0], func(q, end int) bool { return ValidStringBody(s[q+1 : end-1]) })
	if skel == nil {
		return ok && shallow(s) && gjson.Valid(s)
	}
	*buf = skel
	return ok && shallow(skel) && gjson.ValidBytes(skel)
}

// MaxNesting bounds how deep arrays and objects nest in a document Valid
// accepts. gjson.Valid recurses once a level, about a hundred bytes of
// stack each: a 16 MB hook payload of 8 million brackets ran Go's stack
// past its 1 GB limit, a fatal error that exits 2 (Claude Code's "block").
// No hook payload nests so deep: Claude Code serializes it with
// JSON.stringify, which node 22 gives up at 5,000 levels (measured).
const MaxNesting = 100_000

// shallow reports whether arrays and objects in s nest at most MaxNesting
// deep. Each level takes a bracket, so s of at most MaxNesting brackets
// is not walked: counting them (a vectorized pass) costs a 1 MB payload of
// short strings a few percent of its validation, a walk a fifth.
func shallow[T string | []byte](s T) bool {
	if len(s) <= MaxNesting {
		return true
	}
	var brackets int
	switch v := any(s).(type) {
	case string:
		brackets = strings.Count(v, "[") + strings.Count(v, "{")
	case []byte:
		brackets = bytes.Count(v, []byte{'['}) + bytes.Count(v, []byte{'{'})
	}
	if brackets <= MaxNesting {
		return true
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > MaxNesting {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}

// skeletons are Valid's buffers, reused: prune-session validates every
// line of a transcript, and a new skeleton for each line holding a long
// string was most of what it allocated (measured by the prune-session
// work: 0.83 s to 0.75 s on the bench's 200 MB transcript).
var skeletons = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// cutLong calls each with every string of s whose body is long bytes or
// longer (q its opening quote, end just past its closing one), and returns
// the skeleton of s, appended to dst: s with those bodies cut out. The
// skeleton is nil when no string is long. It stops, with ok false, when
// each returns false.
func cutLong(s string, long int, dst []byte, each func(q, end int) bool) (skeleton []byte, ok bool) {
	cut := false
	last := 0 // s[last:] is not yet in dst
	for i := 0; i < len(s); {
		q := indexQuote(s, i)
		if q < 0 {
			break
		}
		end := StringEnd(s, q)
		if end-q-2 >= long && s[end-1] == '"' {
			if !each(q, end) {
				return nil, false
			}
			dst = append(dst, s[last:q+1]...)
			last, cut = end-1, true
		}
		i = end
	}
	if !cut {
		return nil, true
	}
	return append(dst, s[last:]...), true
}

// indexQuote is strings.IndexByte(s[i:], '"') + i, or -1: the text between
// strings is short (keys' colons, commas, numbers), so a loop beats a call.
func indexQuote(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] == '"' {
			return i
		}
	}
	return -1
}

// Eight copies of a byte in a word, and the high bit of each.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Word reads s[i:i+8] as a little-endian word, for code that tests eight
// bytes of a string at once (the compiler merges the
// byte loads into one).
func Word(s string, i int) uint64 {
	b := s[i : i+8] // one bounds check for the eight reads
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// controlFlags returns a word with a high bit set where x has a byte below
// 0x20, which a JSON string may not hold raw: the lowest set one marks a
// true one, later ones may be false alarms (a borrow), so it is exact as a
// test for none.
func controlFlags(x uint64) uint64 { return (x - ones*0x20) &^ x & highs }

// ValidStringBody reports whether body, the text between the quotes of a
// string token whose end StringEnd found, is valid: no raw control
// character, and every backslash starts one of JSON's escapes. (StringEnd
// already stopped at the first unescaped quote.) UTF-8 is not checked.
//
// It reads eight bytes a step and never jumps to an escape: text like a log
// has an escaped newline every few bytes, and a loop whose next read waits
// on where the last escape was runs at the latency of that chain. Instead
// each word yields the mask of its backslashes, escapedBytes turns it into
// the mask of the bytes they escape, and each of those is looked up.
func ValidStringBody(body string) bool {
	var carry uint // 1 when the word's first byte is escaped
	i := 0
	for ; i+8 <= len(body); i += 8 {
		x := Word(body, i)
		if controlFlags(x) != 0 {
			return false
		}
		eq := EqualBytes(x, '\\')
		if eq|uint64(carry) == 0 {
			continue
		}
		// The common case of text with escaped newlines: one backslash,
		// not the last byte, escaping a one-byte escape within the word.
		if carry == 0 && eq&(eq-1) == 0 {
			if k := bits.TrailingZeros64(eq) / 8; k < 7 && shortEscapes[byte(x>>(8*k+8))] != 0 {
				continue
			}
		}
		bs := movemask(eq)
		var esc uint
		esc, carry = escapedBytes(bs, carry)
		for esc != 0 { // validEscapes, inlined: this is the hot path of log text
			k := i + bits.TrailingZeros(esc)
			esc &= esc - 1
			if c := body[k]; !escapes[c] || c == 'u' && Hex4(body, k+1) < 0 {
				return false
			}
		}
	}
	if i == len(body) {
		return carry == 0
	}
	// The last few bytes, padded with spaces: a space is neither a control
	// byte nor a backslash, nor a valid escape if the body ends in one.
	var x uint64
	for k := 7; k >= 0; k-- {
		c := byte(' ')
		if i+k < len(body) {
			c = body[i+k]
		}
		x = x<<8 | uint64(c)
	}
	if controlFlags(x) != 0 {
		return false
	}
	esc, carry := escapedBytes(movemask(EqualBytes(x, '\\')), carry)
	return carry == 0 && validEscapes(body, i, esc)
}

// EqualBytes returns a word with the high bit set in exactly the bytes of x
// that equal c.
func EqualBytes(x uint64, c byte) uint64 {
	y := x ^ ones*uint64(c)
	return ^((y&^highs + ^uint64(highs)) | y) & highs
}

// movemask gathers the high bit of each byte of m into an 8-bit mask, byte
// k into bit k.
func movemask(m uint64) uint { return uint((m >> 7) * 0x0102040810204080 >> 56) }

// escapedBytes takes the backslashes of a word (bit k: byte k) and whether
// the word's first byte is escaped by the word before, and returns the bytes
// escaped (the character after each escaping backslash) and whether the
// next word's first byte is.
//
// A run of backslashes escapes every second one of itself and, when its
// length is odd, the byte after it. Adding a run's first bit to the mask
// carries through the run to the byte after it; that byte follows an odd
// run when its position's parity differs from the run's start. (The
// method of simdjson's find_escaped, on eight lanes.)
func escapedBytes(bs, carry uint) (esc, next uint) {
	bs &^= carry // an escaped backslash starts no escape
	starts := bs &^ (bs << 1)
	const even, odd = 0x155, 0x0aa // positions 0 to 8
	evenEnds := (bs + starts&even) &^ bs
	oddEnds := (bs + starts&odd) &^ bs
	esc = evenEnds&odd | oddEnds&even
	return esc&0xff | carry, esc >> 8 & 1
}

// validEscapes reports whether every byte of the word at body[i:] that esc
// marks is a valid escape character, and every \u has four hex digits.
func validEscapes(body string, i int, esc uint) bool {
	for esc != 0 {
		k := i + bits.TrailingZeros(esc)
		esc &= esc - 1
		if k >= len(body) {
			return false
		}
		if c := body[k]; !escapes[c] || c == 'u' && Hex4(body, k+1) < 0 {
			return false
		}
	}
	return true
}

// Hex4 returns the value of the four hex digits at s[i:], as a \u escape
// holds them, or -1 when they are not four hex digits.
func Hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// shortEscapes maps the byte after a backslash to the byte the escape
// stands for, for the escapes of two bytes (\n and the like).
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escapes marks the bytes that may follow an escaping backslash.
var escapes = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true, 'u': true}
