package jsonscan

import (
	"math"
	"math/bits"
	"unicode/utf8"
)

// Tape is a JSON document checked in one pass, with where each of its
// values is. Scan reads every byte once: it checks the syntax as
// gjson.Valid does and the UTF-8 as utf8.Valid does, eight bytes a step
// inside strings, and counts each string's characters as it goes. A walk
// over the tape then finds a member, a value's end or a string's length
// without reading the document again.
//
// It is for documents read whole and walked a few levels down, a
// transcript line above all: gjson's Valid and then ForEach at each level
// read a line's bodies five or six times, and without the tape
// prune-session and context-audit took 1.4 to 2.2 times as long on real
// transcripts (docs/BENCHMARKS.md, "prune-session and context-audit").
type Tape struct {
	// Vals holds the document's values down to MaxDepth, in document
	// order: an object is followed by its members, each a key (a string)
	// then its value, an array by its elements. Values nested deeper are
	// checked but not kept, so a container at MaxDepth is followed by its
	// next sibling.
	Vals []Val
	// open holds the containers being read: one bit a level, set for an
	// object, so that the depth of a document costs a bit a level (gjson's
	// recursion costs a stack frame).
	open []uint64
	// kept holds the indexes in Vals of the open containers that are kept.
	kept []int32
}

// Val is one value of a Tape.
type Val struct {
	Start, End int32 // the value's text is s[Start:End]
	// Next is the index in Tape.Vals of the value that follows this one
	// and everything it holds.
	Next int32
	// Chars is a string's number of characters once unescaped, as Chars
	// counts them; 0 for other values.
	Chars int32
}

// MaxDepth is the deepest level Tape keeps: the root is level 0, its
// members level 1. A transcript line's deepest read is the text of a
// tool_result's content block: line, message, content, block, block
// content, text block, text (level 6).
const MaxDepth = 6

// MaxVals is how many values a Tape keeps before Scan gives up with
// TooBig: it bounds a tape's memory (16 bytes a value) whatever the
// document, and the caller falls back on Valid and the walks. A
// transcript line holds a few dozen values down to MaxDepth; one with a
// structured tool result of thousands of entries may hold more.
const MaxVals = 1 << 16

// ScanResult is what Scan found.
type ScanResult uint8

const (
	// ScanOK: the document is valid JSON and valid UTF-8; Vals holds it.
	ScanOK ScanResult = iota
	// ScanNotJSON: valid UTF-8, but gjson.Valid would refuse it.
	ScanNotJSON
	// ScanNotUTF8: not valid UTF-8, whatever else it is.
	ScanNotUTF8
	// ScanTooBig: more than MaxVals values to keep, or over 2 GiB, which
	// the tape's indexes cannot hold. Nothing is known about the document:
	// check it with Valid and utf8.Valid, and walk it with EachMember.
	ScanTooBig
)

// Scan checks s and fills t with its values. The Vals it gave for an
// earlier document are reused.
func (t *Tape) Scan(s string) ScanResult {
	t.Vals, t.open, t.kept = t.Vals[:0], t.open[:0], t.kept[:0]
	if len(s) > math.MaxInt32 {
		return ScanTooBig
	}
	r := t.scan(s)
	if r == ScanNotJSON && !utf8.ValidString(s) {
		return ScanNotUTF8
	}
	return r
}

// Root is the document's value: s[Root.Start:Root.End] is s without the
// whitespace around it. Only after ScanOK.
func (t *Tape) Root() Val { return t.Vals[0] }

// The states of scan: what the next token must be.
const (
	wantValue = iota // a value: the document, a member's value, an element
	wantKey          // a member's key (after { or a comma in an object)
	wantMore         // a comma or the container's close (after a value)
)

func (t *Tape) scan(s string) ScanResult {
	state, depth := wantValue, 0 // depth: the level of the next value
	i := SkipSpace(s, 0)
	for {
		switch state {
		case wantValue, wantKey:
			if i >= len(s) {
				return ScanNotJSON
			}
			c := s[i]
			if state == wantKey && c != '"' {
				return ScanNotJSON
			}
			idx := int32(-1)
			if depth <= MaxDepth {
				if len(t.Vals) >= MaxVals {
					return ScanTooBig
				}
				idx = int32(len(t.Vals))
				t.Vals = append(t.Vals, Val{Start: int32(i), Next: idx + 1})
			}
			switch {
			case c == '"':
				end, chars, r := scanString(s, i)
				if r != ScanOK {
					return r
				}
				if idx >= 0 {
					t.Vals[idx].End, t.Vals[idx].Chars = int32(end), int32(chars)
				}
				i = SkipSpace(s, end)
				if state == wantKey {
					if i >= len(s) || s[i] != ':' {
						return ScanNotJSON
					}
					i, state = SkipSpace(s, i+1), wantValue
					continue
				}
				state = wantMore
				continue
			case c == '{' || c == '[':
				t.push(c == '{', depth, idx)
				depth++
				i = SkipSpace(s, i+1)
				if i < len(s) && s[i] == c+2 { // } is { + 2, and ] is [ + 2
					state = wantMore
					continue // the close is read as after a last value
				}
				if c == '{' {
					state = wantKey
				}
				continue
			case c == '-' || '0' <= c && c <= '9':
				i = scanNumber(s, i)
			case c == 't' && i+4 <= len(s) && s[i:i+4] == "true",
				c == 'n' && i+4 <= len(s) && s[i:i+4] == "null":
				i += 4
			case c == 'f' && i+5 <= len(s) && s[i:i+5] == "false":
				i += 5
			default:
				return ScanNotJSON
			}
			if i < 0 {
				return ScanNotJSON
			}
			if idx >= 0 {
				t.Vals[idx].End = int32(i)
			}
			i, state = SkipSpace(s, i), wantMore
		case wantMore:
			if depth == 0 {
				if i != len(s) {
					return ScanNotJSON
				}
				return ScanOK
			}
			if i >= len(s) {
				return ScanNotJSON
			}
			object := t.open[(depth-1)/64]>>((depth-1)%64)&1 == 1
			switch c := s[i]; {
			case c == ',':
				i, state = SkipSpace(s, i+1), wantValue
				if object {
					state = wantKey
				}
			case object && c == '}', !object && c == ']':
				depth--
				if depth <= MaxDepth {
					idx := t.kept[len(t.kept)-1]
					t.kept = t.kept[:len(t.kept)-1]
					t.Vals[idx].End, t.Vals[idx].Next = int32(i+1), int32(len(t.Vals))
				}
				i = SkipSpace(s, i+1)
			default:
				return ScanNotJSON
			}
		}
	}
}

// push opens a container at level depth, kept at Vals[idx] (idx < 0: not
// kept).
func (t *Tape) push(object bool, depth int, idx int32) {
	if depth/64 == len(t.open) {
		t.open = append(t.open, 0)
	}
	bit := uint64(1) << (depth % 64)
	if object {
		t.open[depth/64] |= bit
	} else {
		t.open[depth/64] &^= bit
	}
	if idx >= 0 {
		t.kept = append(t.kept, idx)
	}
}

// scanNumber returns the index just past the number starting at s[i], as
// gjson.Valid reads numbers, or -1 when none starts there.
func scanNumber(s string, i int) int {
	if s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s) || s[i] < '0' || s[i] > '9':
		return -1
	case s[i] == '0':
		i++
	default:
		i = digits(s, i)
	}
	if i < len(s) && s[i] == '.' {
		if i++; i >= len(s) || s[i] < '0' || s[i] > '9' {
			return -1
		}
		i = digits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if i++; i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return -1
		}
		i = digits(s, i)
	}
	return i
}

func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// scanString checks the string whose opening quote is s[q] and returns the
// index just past its closing quote and its characters once unescaped.
//
// It reads sixteen bytes a step while they are plain ASCII text: a word
// test finds the first byte that is a quote, a backslash, a control byte
// or not ASCII, and that byte is dealt with alone. The characters are the
// bytes less those that are not one (an escape's second byte, a UTF-8
// sequence's continuation bytes), counted only at those.
func scanString(s string, q int) (end, chars int, r ScanResult) {
	i, extra := q+1, 0
	for {
		for {
			if i+16 <= len(s) {
				mx, my := special(Word(s, i)), special(Word(s, i+8))
				if mx|my == 0 {
					i += 16
					continue
				}
				if mx != 0 {
					i += bits.TrailingZeros64(mx) / 8
				} else {
					i += 8 + bits.TrailingZeros64(my)/8
				}
			} else if i+8 <= len(s) {
				m := special(Word(s, i))
				if m == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(m) / 8
			}
			break
		}
		if i >= len(s) {
			return 0, 0, ScanNotJSON
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, i - q - 1 - extra, ScanOK
		case c == '\\':
			if i+1 >= len(s) {
				return 0, 0, ScanNotJSON
			}
			switch e := s[i+1]; {
			case shortEscapes[e] != 0:
				i, extra = i+2, extra+1
			case e != 'u':
				return 0, 0, ScanNotJSON
			default:
				hi := Hex4(s, i+2)
				if hi < 0 {
					return 0, 0, ScanNotJSON
				}
				i, extra = i+6, extra+5
				// A high surrogate and a low one make one character, as
				// Chars counts them; the low one's digits are checked here
				// since it is skipped.
				if 0xD800 <= hi && hi < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if lo := Hex4(s, i+2); 0xDC00 <= lo && lo < 0xE000 {
						i, extra = i+6, extra+6
					}
				}
			}
		case c < 0x20:
			return 0, 0, ScanNotJSON
		case c < utf8.RuneSelf:
			i++ // the tail of the string, under a word
		default:
			rn, size := utf8.DecodeRuneInString(s[i:])
			if rn == utf8.RuneError && size == 1 {
				return 0, 0, ScanNotUTF8
			}
			i, extra = i+size, extra+size-1
		}
	}
}

// special flags the bytes of x that end a run of plain text in a string:
// a quote, a backslash, a control byte or a byte of a multi-byte
// character. The lowest flag of each test is exact (a borrow only flags
// bytes above a true one), so the lowest of all is.
func special(x uint64) uint64 {
	return zeroBytes(x^ones*'"') | zeroBytes(x^ones*'\\') | ((x-ones*0x20)|x)&highs
}

// zeroBytes flags the bytes of x that are zero: the lowest flag is exact,
// and those above it may be false (a borrow), which is all scanString
// needs. EqualBytes is the exact test, at twice the cost.
func zeroBytes(x uint64) uint64 { return (x - ones) &^ x & highs }
