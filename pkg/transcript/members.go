package transcript

import (
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
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
// or brace is always there to be found). The value ends come from package
// jsonscan, which spill-guard's walk uses too. FuzzMembers holds them to
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
	return jsonscan.Result(v.raw, v.index)
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
	jsonscan.EachMember(obj.raw, func(key, raw string, at int) bool {
		return fn(jsonscan.Key(key), value{raw, obj.index + at})
	})
}

// eachElement calls fn with every element of the array arr.raw, in order,
// until fn returns false.
func eachElement(arr value, fn func(v value) bool) {
	s := arr.raw
	i := jsonscan.SkipSpace(s, 1)
	for s[i] != ']' {
		end := jsonscan.ValueEnd(s, i)
		if !fn(value{s[i:end], arr.index + i}) {
			return
		}
		if i = jsonscan.SkipSpace(s, end); s[i] == ',' {
			i = jsonscan.SkipSpace(s, i+1)
		}
	}
}

// stringChars is how many characters (runes) the JSON string literal raw
// holds once unescaped (jsonscan.Chars of its body).
func stringChars(raw string) int { return jsonscan.Chars(raw[1 : len(raw)-1]) }
