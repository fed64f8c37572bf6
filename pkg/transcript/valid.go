package transcript

import (
	"math/bits"
	"unicode/utf8"
)

// validJSON reports whether s is one JSON value (RFC 8259) in valid UTF-8,
// with only whitespace around it: what gjson.Valid(s) && utf8.ValidString(s)
// accept, in one pass. Profiles of prune-session put 40% of parsing in
// gjson.Valid, and most of a line is string bodies (tool output), which gjson
// checks a byte at a time with three tests per byte; validString checks
// eight bytes per step instead, and checks their UTF-8 as it goes, so a line
// is read once where gjson.Valid and utf8.Valid read it twice. FuzzValidJSON
// holds it to gjson.Valid && utf8.ValidString and to encoding/json.Valid.
//
// Like gjson.Valid it sets no limit on nesting (encoding/json stops at
// 10,000 levels); the recursion depth is bounded by the line's length.
func validJSON(s string) bool {
	i, ok := validValue(s, skipSpace(s, 0))
	return ok && skipSpace(s, i) == len(s)
}

// validValue returns the index just past the value that starts at s[i],
// and whether there is a valid one there.
func validValue(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; {
	case c == '"':
		return validString(s, i+1)
	case c == '{':
		return validObject(s, i+1)
	case c == '[':
		return validArray(s, i+1)
	case c == '-' || '0' <= c && c <= '9':
		return validNumber(s, i)
	case c == 't':
		return validLiteral(s, i, "true")
	case c == 'f':
		return validLiteral(s, i, "false")
	case c == 'n':
		return validLiteral(s, i, "null")
	}
	return i, false
}

// validObject checks the members and closing brace of an object whose
// opening brace is just before s[i].
func validObject(s string, i int) (int, bool) {
	i = skipSpace(s, i)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	var ok bool
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		if i, ok = validString(s, i+1); !ok {
			return i, false
		}
		if i = skipSpace(s, i); i >= len(s) || s[i] != ':' {
			return i, false
		}
		if i, ok = validValue(s, skipSpace(s, i+1)); !ok {
			return i, false
		}
		if i = skipSpace(s, i); i >= len(s) {
			return i, false
		}
		switch s[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipSpace(s, i+1)
		default:
			return i, false
		}
	}
}

// validArray checks the elements and closing bracket of an array whose
// opening bracket is just before s[i].
func validArray(s string, i int) (int, bool) {
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ']' {
		return i + 1, true
	}
	var ok bool
	for {
		if i, ok = validValue(s, i); !ok {
			return i, false
		}
		if i = skipSpace(s, i); i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ']':
			return i + 1, true
		case ',':
			i = skipSpace(s, i+1)
		default:
			return i, false
		}
	}
}

// validLiteral checks that s[i:] starts with lit (true, false or null).
func validLiteral(s string, i int, lit string) (int, bool) {
	if len(s)-i >= len(lit) && s[i:i+len(lit)] == lit {
		return i + len(lit), true
	}
	return i, false
}

// validNumber checks the number that starts at s[i]: an optional minus,
// an integer part without leading zeros, then an optional fraction and
// exponent, each with at least one digit.
func validNumber(s string, i int) (int, bool) {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = skipDigits(s, i+1)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		if j := skipDigits(s, i+1); j > i+1 {
			i = j
		} else {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := skipDigits(s, i); j > i {
			i = j
		} else {
			return i, false
		}
	}
	return i, true
}

// skipDigits returns the index of the first byte at or after i that is
// not a decimal digit.
func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// Byte masks for validString's eight-bytes-at-a-time test: every byte
// 0x01, 0x20, '"', '\\' or 0x80.
const (
	ones       = 0x0101010101010101
	spaces     = 0x2020202020202020
	quotes     = 0x2222222222222222
	backslashs = 0x5c5c5c5c5c5c5c5c
	highBits   = 0x8080808080808080
)

// plainWord is a mask whose lowest set bit is the high bit of the first of
// the eight bytes in x (first in the string: x is read little-endian) that
// needs a closer look in a string: a quote, a backslash, a control
// character or a non-ASCII byte. It is zero when none does. The tests are
// the "has a zero byte" trick of Hacker's Delight (6-1) and Bit Twiddling
// Hacks: a borrow can set bits above a byte that matched, never below, so
// the lowest set bit is exact.
func plainWord(x uint64) uint64 {
	q := x ^ quotes
	b := x ^ backslashs
	return ((x-spaces) & ^x | (q-ones)&^q | (b-ones)&^b | x) & highBits
}

// validString checks the string whose opening quote is just before s[i]:
// no control characters, only the escapes RFC 8259 allows, valid UTF-8, and
// a closing quote. It returns the index just past that quote.
func validString(s string, i int) (int, bool) {
	for {
		for len(s)-i >= 8 {
			m := plainWord(word(s[i : i+8]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
			break
		}
		if i >= len(s) {
			return i, false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(s) {
				return i, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(s)-i < 6 || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < ' ':
			return i, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return i, false
			}
			i += n
		default:
			i++ // an ASCII byte in a tail shorter than a word
		}
	}
}

// word is the first eight bytes of s, little-endian; the compiler makes
// it one load.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
