// Package jsoncheck is the one check flower makes of JSON text before gjson
// reads it: valid JSON and UTF-8, nested no deeper than a bound, and no
// object holding a key twice (gjson reads the first of two, Claude Code's
// JSON.parse and every other reader the last, so a check made on one value
// would pass the other), in a single pass over the text.
package jsoncheck

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Error says why a text was refused and where.
type Error struct {
	Offset int    // byte offset of the fault in the text
	Msg    string // what is wrong
	// Repeated marks a key given twice; Path and Key then say which: the
	// object's path from the top ("" for the top object itself, "a.b",
	// "a.2" for an array's element) and the key, unescaped.
	Repeated  bool
	Path, Key string
}

func (e *Error) Error() string { return e.Msg }

// Line is the 1-based line of the fault in s, the text that was checked.
func (e *Error) Line(s string) int { return strings.Count(s[:min(e.Offset, len(s))], "\n") + 1 }

// frame is an open array or object.
type frame struct {
	object bool
	key    string // the member or element being read, for a path
	index  int    // the element count of an array
	keys   int    // where the object's keys start in checker.keys, while few
	set    map[string]bool
}

// manyKeys is the count past which an object's keys go into a map.
const manyKeys = 16

// Check returns nil when s is one JSON value, valid as RFC 8259 (and
// gjson.Valid) says, in valid UTF-8, nested at most maxDepth arrays and
// objects deep, whose objects hold no key twice; otherwise an *Error.
func Check(s string, maxDepth int) error {
	c := checker{s: s}
	return c.check(maxDepth)
}

// Members checks s as Check does and, when s is an object, returns its
// members in the same pass: each key unescaped, each value as written (nil
// for any other value). A reader of a few top-level keys of a large text,
// a hook payload with a megabyte of tool output, then finds them without
// reading the text again.
func Members(s string, maxDepth int) (map[string]string, error) {
	c := checker{s: s, members: map[string]string{}}
	if err := c.check(maxDepth); err != nil {
		return nil, err
	}
	if c.object {
		return c.members, nil
	}
	return nil, nil
}

type checker struct {
	s     string
	i     int
	stack []frame
	// keys holds the keys of the open objects that have few, each
	// object's after its parent's: one slice for the whole text, so that
	// an object costs no allocation of its own.
	keys []string
	// members collects the top-level object's members for Members; start
	// is where the value being read there begins.
	members map[string]string
	start   int
	object  bool
}

func (c *checker) check(maxDepth int) error {
	if !utf8.ValidString(c.s) {
		return &Error{Offset: invalidUTF8(c.s), Msg: "not valid UTF-8"}
	}
	c.space()
	c.object = c.i < len(c.s) && c.s[c.i] == '{'
	if err := c.value(maxDepth); err != nil {
		return err
	}
	if c.space(); c.i < len(c.s) {
		return c.fail("text after the JSON value")
	}
	return nil
}

func (c *checker) fail(msg string) *Error { return &Error{Offset: c.i, Msg: msg} }

func (c *checker) space() {
	for c.i < len(c.s) {
		switch c.s[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// value reads one value and, for an array or object, everything in it, with
// an explicit stack: a text of a million brackets costs memory, never the
// goroutine's stack.
func (c *checker) value(maxDepth int) error {
	for {
		if c.i >= len(c.s) {
			return c.fail("unexpected end of JSON")
		}
		switch ch := c.s[c.i]; ch {
		case '{', '[':
			if len(c.stack) == maxDepth {
				return c.fail(fmt.Sprintf("nested deeper than %d levels", maxDepth))
			}
			c.i++
			c.stack = append(c.stack, frame{object: ch == '{', keys: len(c.keys)})
			c.space()
			if c.i < len(c.s) && c.s[c.i] == ch+2 { // '}' or ']': empty
				c.i++
				c.pop()
				break
			}
			if ch == '{' {
				if err := c.key(); err != nil {
					return err
				}
			}
			continue
		case '"':
			if _, err := c.str(); err != nil {
				return err
			}
		case 't':
			if err := c.word("true"); err != nil {
				return err
			}
		case 'f':
			if err := c.word("false"); err != nil {
				return err
			}
		case 'n':
			if err := c.word("null"); err != nil {
				return err
			}
		default:
			if err := c.number(); err != nil {
				return err
			}
		}
		// A value ended: close what it ends, or go on to the next one.
		for {
			if len(c.stack) == 0 {
				return nil
			}
			top := &c.stack[len(c.stack)-1]
			if len(c.stack) == 1 && top.object && c.members != nil {
				c.members[top.key] = c.s[c.start:c.i]
			}
			c.space()
			if c.i >= len(c.s) {
				return c.fail("unexpected end of JSON")
			}
			ch := c.s[c.i]
			if ch == ',' {
				c.i++
				c.space()
				if top.object {
					if err := c.key(); err != nil {
						return err
					}
				} else {
					top.index++
				}
				break
			}
			if top.object && ch != '}' || !top.object && ch != ']' {
				return c.fail("expected ',' or the end of an array or object")
			}
			c.i++
			c.pop()
		}
	}
}

// pop closes the innermost array or object.
func (c *checker) pop() {
	c.keys = c.keys[:c.stack[len(c.stack)-1].keys]
	c.stack = c.stack[:len(c.stack)-1]
}

// key reads an object's key and the colon after it, and refuses a key the
// object already has.
func (c *checker) key() error {
	if c.i >= len(c.s) || c.s[c.i] != '"' {
		return c.fail("expected a string key")
	}
	at := c.i
	raw, err := c.str()
	if err != nil {
		return err
	}
	key := raw[1 : len(raw)-1]
	if strings.IndexByte(key, '\\') >= 0 {
		key = gjson.Parse(raw).Str
	}
	top := &c.stack[len(c.stack)-1]
	seen := top.set[key]
	if top.set == nil {
		for _, k := range c.keys[top.keys:] {
			seen = seen || k == key
		}
	}
	if seen {
		return &Error{Offset: at, Repeated: true, Path: c.path(), Key: key, Msg: fmt.Sprintf("the key %q is given twice", key)}
	}
	switch {
	case top.set != nil:
		top.set[key] = true
	case len(c.keys)-top.keys < manyKeys:
		c.keys = append(c.keys, key)
	default:
		top.set = make(map[string]bool, 2*manyKeys)
		for _, k := range c.keys[top.keys:] {
			top.set[k] = true
		}
		top.set[key] = true
		c.keys = c.keys[:top.keys]
	}
	top.key = key
	c.space()
	if c.i >= len(c.s) || c.s[c.i] != ':' {
		return c.fail("expected ':' after a key")
	}
	c.i++
	c.space()
	if len(c.stack) == 1 {
		c.start = c.i
	}
	return nil
}

// path names the innermost open object by the keys and indexes above it.
func (c *checker) path() string {
	var parts []string
	for _, f := range c.stack[:len(c.stack)-1] {
		if f.object {
			parts = append(parts, f.key)
		} else {
			parts = append(parts, fmt.Sprint(f.index))
		}
	}
	return strings.Join(parts, ".")
}

// str reads a string token and returns it, quotes included.
func (c *checker) str() (string, error) {
	s, start := c.s, c.i
	for i := c.i + 1; i < len(s); {
		i = plain(s, i)
		c.i = i
		switch {
		case i == len(s):
		case s[i] == '"':
			c.i = i + 1
			return s[start:c.i], nil
		case s[i] < 0x20:
			return "", c.fail("control character in a string")
		case i+1 == len(s):
		case strings.IndexByte(`"\\/bfnrt`, s[i+1]) >= 0:
			i += 2
			continue
		case s[i+1] != 'u':
			return "", c.fail("bad escape in a string")
		case i+6 > len(s) || !hex4(s[i+2:i+6]):
			return "", c.fail(`bad \u escape in a string`)
		default:
			i += 6
			continue
		}
		break
	}
	return "", c.fail("unexpected end of JSON")
}

// plain returns the index of the first byte from i on that is a quote, a
// backslash or a control character, eight bytes a step while none is: a
// payload's tool output may be a megabyte of text.
func plain(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		q, bs := x^ones*'"', x^ones*'\\'
		// The high bit of each byte below 0x20, or equal to a quote or a
		// backslash (zero once xored); the lowest one set is exact.
		if m := ((x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' {
		i++
	}
	return i
}

func hex4(s string) bool {
	for i := 0; i < 4; i++ {
		ch := s[i]
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F') {
			return false
		}
	}
	return true
}

func (c *checker) word(w string) error {
	if !strings.HasPrefix(c.s[c.i:], w) {
		return c.fail("invalid character in JSON")
	}
	c.i += len(w)
	return nil
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (c *checker) number() error {
	start := c.i
	if c.i < len(c.s) && c.s[c.i] == '-' {
		c.i++
	}
	switch {
	case c.i < len(c.s) && c.s[c.i] == '0':
		c.i++
	case c.digits() == 0:
		c.i = start
		return c.fail("invalid character in JSON")
	}
	if c.i < len(c.s) && c.s[c.i] == '.' {
		c.i++
		if c.digits() == 0 {
			return c.fail("bad number")
		}
	}
	if c.i < len(c.s) && (c.s[c.i] == 'e' || c.s[c.i] == 'E') {
		c.i++
		if c.i < len(c.s) && (c.s[c.i] == '+' || c.s[c.i] == '-') {
			c.i++
		}
		if c.digits() == 0 {
			return c.fail("bad number")
		}
	}
	return nil
}

func (c *checker) digits() int {
	start := c.i
	for c.i < len(c.s) && '0' <= c.s[c.i] && c.s[c.i] <= '9' {
		c.i++
	}
	return c.i - start
}

// invalidUTF8 is the offset of the first byte of s that is not valid UTF-8.
func invalidUTF8(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i
			}
		}
	}
	return len(s)
}
