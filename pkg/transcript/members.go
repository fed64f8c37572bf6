package transcript

import (
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/arena"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Parse reads a line in one pass, jsonscan.Tape's Scan: it checks the
// line's syntax and UTF-8 and notes where each value down to
// jsonscan.MaxDepth starts and ends, and how many characters each string
// holds. The walks below then go from value to value on the tape, and a
// value becomes a gjson.Result only when Parse asks for it. Before the
// tape, the walks found each member's end by scanning the line again, and
// a body's characters were counted in a third pass: together over half of
// prune-session's first pass.
//
// A line whose tape would be too large (jsonscan.MaxVals) is checked with
// jsonscan.Valid and walked with jsonscan's walks, which find ends by
// scanning (strings.IndexByte, vectorised) and need JSON that gjson.Valid
// has accepted: they check no syntax. FuzzMembers holds both walks to
// gjson's ForEach.

// line is a scanned line: the tape and the text its indexes point into.
type line struct {
	jsonscan.Tape
	s string
	// seen holds, per field slot of shared, the value last copied.
	seen [4]string
	// strings is where own copies the strings of the lines parsed here.
	strings arena.Strings
}

// copy returns s's constant if it has one, else a copy of s in ln.strings.
func (ln *line) copy(s string) string {
	if k, ok := constant(s); ok {
		return k
	}
	return ln.strings.Copy(s)
}

// lines are Parse's tapes, reused: one is in use per parsing goroutine.
var lines = sync.Pool{New: func() any { return new(line) }}

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

// detached is the value without its tape, for keeping past Parse, which
// hands the tape on to the next line.
func (v value) detached() value { return value{raw: v.raw, index: v.index} }

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

// onTape reports whether v's members or elements are on its tape: the
// tape keeps values down to jsonscan.MaxDepth only.
func (v value) onTape() bool { return v.t != nil && v.depth < jsonscan.MaxDepth }

// child is the value at index i of v's tape, one level below v.
func (v value) child(i int32) value {
	c := v.t.Vals[i]
	return value{raw: v.t.s[c.Start:c.End], index: int(c.Start), t: v.t, at: i, depth: v.depth + 1}
}

// eachMember calls fn with the key (unescaped) and value of every member of
// the object obj.raw, in order, until fn returns false.
func eachMember(obj value, fn func(key string, v value) bool) {
	if !obj.onTape() {
		jsonscan.EachMember(obj.raw, func(key, raw string, at int) bool {
			return fn(jsonscan.Key(key), value{raw: raw, index: obj.index + at})
		})
		return
	}
	vals := obj.t.Vals
	for i := obj.at + 1; i < vals[obj.at].Next; {
		k := vals[i]
		v := obj.child(i + 1)
		if !fn(jsonscan.Key(obj.t.s[k.Start:k.End]), v) {
			return
		}
		i = vals[i+1].Next
	}
}

// eachElement calls fn with every element of the array arr.raw, in order,
// until fn returns false.
func eachElement(arr value, fn func(v value) bool) {
	if arr.onTape() {
		vals := arr.t.Vals
		for i := arr.at + 1; i < vals[arr.at].Next; i = vals[i].Next {
			if !fn(arr.child(i)) {
				return
			}
		}
		return
	}
	jsonscan.EachElement(arr.raw, func(raw string, at int) bool {
		return fn(value{raw: raw, index: arr.index + at})
	})
}

// chars is how many characters (runes) the JSON string v holds once
// unescaped (jsonscan.Chars of its body), from the tape when v is on one.
func (v value) chars() int {
	if v.t != nil {
		return int(v.t.Vals[v.at].Chars)
	}
	return jsonscan.Chars(v.raw[1 : len(v.raw)-1])
}

// shared returns s, a view of the line, as a string that outlives it: the
// copy made for an earlier line when that held the same value in field
// slot, else a new copy. The fields it serves hold one value a session
// (sessionId, cwd, the model), so most lines copy nothing.
func (ln *line) shared(slot int, s string) string {
	if s == "" || s == ln.seen[slot] {
		return ln.seen[slot][:len(s)]
	}
	ln.seen[slot] = strings.Clone(s)
	return ln.seen[slot]
}

// smallInt is v's value when v is a number of at most 18 digits, without a
// sign, fraction or exponent, as token counts are: exactly what gjson's Int
// gives for it, without parsing it as a float first.
func (v value) smallInt() (int64, bool) {
	if len(v.raw) == 0 || len(v.raw) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v.raw); i++ {
		c := v.raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
