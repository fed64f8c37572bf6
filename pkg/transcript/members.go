package transcript

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Parse reads a line once through gjson.Valid and then walks it with the
// functions below instead of gjson's ForEach. ForEach finds the end of each
// member by scanning it byte by byte, and unescapes every string member it
// passes, wanted or not; walking root, message, content and block that way
// read a tool result's body four times and copied it once before its
// characters were counted. Here a string's end is found with
// strings.IndexByte (vectorised), a value becomes a gjson.Result only when
// Parse asks for it, and a body's characters are counted on the escaped text.
//
// Every function here requires JSON that gjson.Valid has accepted: they
// check no syntax, and their indexing relies on it (a closing quote, bracket
// or brace is always there to be found). FuzzMembers holds them to
// ForEach's answers.

// value is one member or element of a line: its JSON text, and where that
// starts in the line.
type value struct {
	raw   string
	index int
}

// result is the value as gjson reads it (Str unescaped), with its index.
// The zero value is a missing one.
func (v value) result() gjson.Result {
	if v.raw == "" {
		return gjson.Result{}
	}
	if v.isString() && strings.IndexByte(v.raw, '\\') < 0 {
		// Most strings have no escape: their text is the literal's
		// inside, as gjson.Parse would find after scanning for escapes.
		return gjson.Result{Type: gjson.String, Raw: v.raw, Str: v.raw[1 : len(v.raw)-1], Index: v.index}
	}
	r := gjson.Parse(v.raw)
	r.Index = v.index
	return r
}

// The kinds of a value, by its first byte.
func (v value) exists() bool   { return v.raw != "" }
func (v value) isString() bool { return v.raw != "" && v.raw[0] == '"' }
func (v value) isObject() bool { return v.raw != "" && v.raw[0] == '{' }
func (v value) isArray() bool  { return v.raw != "" && v.raw[0] == '[' }
func (v value) isNull() bool   { return v.raw == "" || v.raw[0] == 'n' }

// eachMember calls fn with the key (unescaped) and value of every member of
// the object obj.raw, in order, until fn returns false.
func eachMember(obj value, fn func(key string, v value) bool) {
	s := obj.raw
	i := skipSpace(s, 1)
	for s[i] != '}' {
		end := stringEnd(s, i)
		key := s[i+1 : end-1]
		if strings.IndexByte(key, '\\') >= 0 {
			key = gjson.Parse(s[i:end]).Str
		}
		i = skipSpace(s, skipSpace(s, end)+1) // past the colon
		vend := valueEnd(s, i)
		if !fn(key, value{s[i:vend], obj.index + i}) {
			return
		}
		if i = skipSpace(s, vend); s[i] == ',' {
			i = skipSpace(s, i+1)
		}
	}
}

// eachElement calls fn with every element of the array arr.raw, in order,
// until fn returns false.
func eachElement(arr value, fn func(v value) bool) {
	s := arr.raw
	i := skipSpace(s, 1)
	for s[i] != ']' {
		end := valueEnd(s, i)
		if !fn(value{s[i:end], arr.index + i}) {
			return
		}
		if i = skipSpace(s, end); s[i] == ',' {
			i = skipSpace(s, i+1)
		}
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the value starting at s[i].
func valueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch s[j] {
			case '"':
				j = stringEnd(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	// A number, true, false or null: it ends where the next delimiter is.
	for j := i; j < len(s); j++ {
		switch s[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(s)
}

// shortString is how far stringEnd looks byte by byte before it hands over
// to IndexByte: measured on transcripts (BenchmarkParse), past the length of
// a uuid and a timestamp.
const shortString = 48

// stringEnd returns the index just past the closing quote of the string
// whose opening quote is s[i]. A quote closes the string unless an odd
// number of backslashes come right before it.
func stringEnd(s string, i int) int {
	// Keys and most values are short: a plain loop finds their end sooner
	// than a call to IndexByte, which pays off on long strings only.
	j := i + 1
	for ; j < len(s) && j < i+shortString; j++ {
		switch c := s[j]; {
		case c > '\\': // lowercase letters and above: most bytes, one test
		case c == '"':
			return j + 1
		case c == '\\':
			j++ // the escaped byte
		}
	}
	for {
		j += strings.IndexByte(s[j:], '"')
		n := 0
		for s[j-1-n] == '\\' { // stops at the opening quote at the latest
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// stringChars is how many characters (runes) the JSON string literal raw
// holds once unescaped as gjson unescapes it, counted without unescaping:
// every escape stands for one character, and so does a \u escape of a high
// surrogate followed by one of a low surrogate (any other \u escape of a
// surrogate becomes U+FFFD, one character too).
func stringChars(raw string) int {
	s := raw[1 : len(raw)-1]
	n := utf8.RuneCountInString(s)
	for i := strings.IndexByte(s, '\\'); i >= 0; {
		switch {
		case s[i+1] != 'u':
			n, i = n-1, i+2 // \n and the like: two bytes for one character
		case isSurrogatePair(s[i:]):
			n, i = n-11, i+12
		default:
			n, i = n-5, i+6
		}
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		i += j
	}
	return n
}

// isSurrogatePair reports whether s starts with a \u escape of a high
// surrogate followed by a \u escape of a low one, which gjson decodes
// together into one character.
func isSurrogatePair(s string) bool {
	if len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
		return false
	}
	hi, err1 := strconv.ParseUint(s[2:6], 16, 32)
	lo, err2 := strconv.ParseUint(s[8:12], 16, 32)
	return err1 == nil && err2 == nil && 0xD800 <= hi && hi < 0xDC00 && 0xDC00 <= lo && lo < 0xE000
}
