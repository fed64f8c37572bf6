package transcript

import (
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Parse reads a line in one pass, jsonscan.Tape's Scan: it checks the
// line's syntax and UTF-8 and notes where each value down to
// jsonscan.MaxDepth starts and ends, and how many characters each string
// holds. The walks below then go from value to value on the tape, and a
// value becomes a gjson.Result only when Parse asks for it. gjson alone
// (Valid, then ForEach at each level) reads a line's bodies five or six
// times: measured on real transcripts and ones grown to 4 and 50 MB,
// prune-session and context-audit took 1.4 to 2.2 times as long with it
// (docs/BENCHMARKS.md, "prune-session and context-audit").
//
// A line whose tape would be too large (jsonscan.MaxVals) is checked with
// gjson.Valid and walked with gjson's ForEach. FuzzMembers holds the walks
// on a tape to gjson's ForEach.

// line is a scanned line: the tape and the text its indexes point into.
type line struct {
	jsonscan.Tape
	s string
}

// value is one member or element of a line: its JSON text, and where that
// starts in the line. When the line has a tape, t and at say where on it
// the value is, and depth how deep in the line (the line itself is 0).
type value struct {
	raw   string
	index int
	t     *line
	at    int32
	depth int
}

// result is the value as gjson reads it (Str unescaped), with its index.
// The zero value is a missing one.
func (v value) result() gjson.Result {
	if v.raw == "" {
		return gjson.Result{}
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

// onTape reports whether v's members or elements are on its tape: the
// tape keeps values down to jsonscan.MaxDepth only.
func (v value) onTape() bool { return v.t != nil && v.depth < jsonscan.MaxDepth }

// child is the value at index i of v's tape, one level below v.
func (v value) child(i int32) value {
	c := v.t.Vals[i]
	return value{raw: v.t.s[c.Start:c.End], index: int(c.Start), t: v.t, at: i, depth: v.depth + 1}
}

// eachMember calls fn with the key (unescaped) and value of every member of
// the object obj, in order, until fn returns false.
func eachMember(obj value, fn func(key string, v value) bool) {
	if !obj.onTape() {
		gjson.Parse(obj.raw).ForEach(func(k, v gjson.Result) bool {
			return fn(k.Str, value{raw: v.Raw, index: obj.index + v.Index})
		})
		return
	}
	vals := obj.t.Vals
	for i := obj.at + 1; i < vals[obj.at].Next; {
		k := vals[i]
		if !fn(gjson.Parse(obj.t.s[k.Start:k.End]).Str, obj.child(i+1)) {
			return
		}
		i = vals[i+1].Next
	}
}

// eachElement calls fn with every element of the array arr, in order,
// until fn returns false.
func eachElement(arr value, fn func(v value) bool) {
	if !arr.onTape() {
		gjson.Parse(arr.raw).ForEach(func(_, v gjson.Result) bool {
			return fn(value{raw: v.Raw, index: arr.index + v.Index})
		})
		return
	}
	vals := arr.t.Vals
	for i := arr.at + 1; i < vals[arr.at].Next; i = vals[i].Next {
		if !fn(arr.child(i)) {
			return
		}
	}
}

// chars is how many characters (runes) the JSON string v holds once
// unescaped, from the tape when v is on one.
func (v value) chars() int {
	if v.t != nil {
		return int(v.t.Vals[v.at].Chars)
	}
	return utf8.RuneCountInString(v.result().Str)
}
