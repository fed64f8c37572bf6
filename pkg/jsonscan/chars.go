package jsonscan

import (
	"strings"
	"unicode/utf8"
)

// Chars is how many characters (runes) the body of a JSON string holds once
// unescaped, counted without unescaping: every escape stands for one
// character, and so does a \u escape of a high surrogate followed by one of
// a low surrogate (any other \u escape of a surrogate becomes U+FFFD, one
// character too), as both gjson and encoding/json unescape. A body that is
// not valid (a lone backslash at its end, a short \u) is counted without
// panicking, the answer then meaning nothing.
func Chars(body string) int {
	n := utf8.RuneCountInString(body)
	for i := strings.IndexByte(body, '\\'); i >= 0 && i+1 < len(body); {
		switch {
		case body[i+1] != 'u':
			n, i = n-1, i+2 // \n and the like: two bytes for one character
		case isSurrogatePair(body[i:]):
			n, i = n-11, i+12
		default:
			n, i = n-5, min(i+6, len(body))
		}
		j := strings.IndexByte(body[i:], '\\')
		if j < 0 {
			break
		}
		i += j
	}
	return n
}

// isSurrogatePair reports whether s starts with a \u escape of a high
// surrogate followed by a \u escape of a low one, which decode together
// into one character.
func isSurrogatePair(s string) bool {
	if len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
		return false
	}
	hi, lo := Hex4(s, 2), Hex4(s, 8)
	return 0xD800 <= hi && hi < 0xDC00 && 0xDC00 <= lo && lo < 0xE000
}
