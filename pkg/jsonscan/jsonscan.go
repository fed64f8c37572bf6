// Package jsonscan reads JSON that may carry strings of many megabytes (a
// hook payload with a 50 MB tool result, a transcript line holding a long
// file read) without decoding it: gjson's ForEach unescapes every string it
// passes, and gjson.Valid checks a string byte by byte.
//
// The walks (StringEnd, ValueEnd, EachMember, EachElement, and Ends, which
// lets them step over strings already found) check no syntax: on invalid
// input they stop at the end of the text instead of panicking, but what
// they return means nothing. The checks (Valid, and
// ValidStringBody) accept exactly what gjson.Valid accepts, eight bytes a
// step inside long strings.
package jsonscan

import "strings"

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace, or len(s).
func SkipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// shortString is how far StringEnd looks byte by byte before it hands over
// to IndexByte: measured on transcripts (pkg/transcript's BenchmarkParse),
// past the length of a uuid and a timestamp.
const shortString = 48

// StringEnd returns the index just past the closing quote of the string
// whose opening quote is s[i]. A quote closes the string unless an odd
// number of backslashes come right before it.
func StringEnd(s string, i int) int {
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
	for j < len(s) {
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
	return len(s)
}

// ValueEnd returns the index just past the JSON value starting at s[i].
func ValueEnd(s string, i int) int { return Ends(nil).ValueEnd(s, 0, i) }

// Ends maps the index of the opening quote of each long string of a
// document to the index just past its closing quote: found once,
// kept so that later walks over the document step over those strings
// instead of scanning them again (for a 50 MB tool result, each scan is a
// pass over 50 MB). The nil Ends knows no string.
type Ends map[int]int

// StringEnd is StringEnd for s, the part of the document that starts at
// its index base.
func (e Ends) StringEnd(s string, base, i int) int {
	if e != nil {
		if end, ok := e[base+i]; ok && end-base <= len(s) {
			return end - base
		}
	}
	return StringEnd(s, i)
}

// ValueEnd is ValueEnd for s, the part of the document that starts at its
// index base.
func (e Ends) ValueEnd(s string, base, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return e.StringEnd(s, base, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); {
			switch s[j] {
			case '"':
				j = e.StringEnd(s, base, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(s)
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
