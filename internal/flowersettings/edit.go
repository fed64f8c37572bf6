package flowersettings

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// The edits below change a settings file the way a person would by hand:
// a new value is written in the layout of the values around it (indented one
// per line in a file laid out so, compact in a compact one), and a removal
// takes out exactly the value and the separator before it, so that removing
// what was added gives back the file byte for byte. Everything else keeps its
// bytes.

// defaultIndent is the indent unit when the file shows none: JSON.stringify's
// two spaces, as Claude Code writes settings.json.
const defaultIndent = "  "

// container is an object or array of the document with the spans of its
// children (for an object, from the key to the end of the value).
type container struct {
	open, close int // offsets of the brackets
	children    []span
	colon       string // an object's text between a key and its value
}

type span struct{ start, end int }

// locate returns the object or array at path ("" is the document itself),
// or ok false when there is none.
func locate(doc []byte, path string) (c container, ok bool) {
	var r gjson.Result
	if path == "" {
		// Parse keeps the whitespace around the value in Raw.
		value := bytes.TrimSpace(doc)
		r = gjson.ParseBytes(value)
		r.Raw, r.Index = string(value), bytes.Index(doc, value)
	} else {
		r = gjson.GetBytes(doc, path)
	}
	if !(r.IsObject() || r.IsArray()) || r.Index <= 0 && path != "" {
		return c, false
	}
	c.open, c.close = r.Index, r.Index+len(r.Raw)-1
	r.ForEach(func(k, v gjson.Result) bool {
		start := v.Index
		if r.IsObject() {
			start = k.Index
			if c.colon == "" {
				c.colon = string(doc[k.Index+len(k.Raw) : v.Index])
			}
		}
		c.children = append(c.children, span{start, v.Index + len(v.Raw)})
		return true
	})
	return c, true
}

// deleteChild removes child i of c: with the separator before it when it is
// the last, else with the separator after it; an only child leaves the
// brackets empty.
func deleteChild(doc []byte, c container, i int) []byte {
	var from, to int
	switch n := len(c.children); {
	case n == 1:
		from, to = c.open+1, c.close
	case i == n-1:
		from, to = c.children[i-1].end, c.children[i].end
	default:
		from, to = c.children[i].start, c.children[i+1].start
	}
	return splice(doc, from, to, "")
}

// appendChild adds text (a JSON value, or `"key": value` in an object) as
// the last child of c. compact is the value without whitespace; it is laid
// out like its siblings.
func appendChild(doc []byte, c container, key string, compact []byte) []byte {
	if n := len(c.children); n > 0 {
		// The separator before the last child, or for an only child the
		// whitespace after the opening bracket.
		var sep string
		if n > 1 {
			sep = string(doc[c.children[n-2].end:c.children[n-1].start])
		} else {
			sep = "," + string(doc[c.open+1:c.children[0].start])
		}
		indent, multiline := afterNewline(sep)
		return splice(doc, c.children[n-1].end, c.children[n-1].end,
			sep+member(key, c.colon, compact, indent, unitOf(doc), multiline))
	}
	// An empty container: one child on its own line in a file laid out one
	// value per line (an empty object, a file flower creates, is laid out as
	// Claude Code lays out settings), else inline.
	value := bytes.TrimSpace(doc)
	if !bytes.Contains(value, []byte("\n")) && !bytes.Equal(value, []byte("{}")) {
		return splice(doc, c.open+1, c.close, member(key, ":", compact, "", "", false))
	}
	outer := lineIndent(doc, c.open)
	unit := unitOf(doc)
	inner := outer + unit
	return splice(doc, c.open+1, c.close,
		"\n"+inner+member(key, ": ", compact, inner, unit, true)+"\n"+outer)
}

// member is the text of a new child: the value laid out with indent (the
// child's own indentation) and unit, behind its key in an object.
func member(key, colon string, compact []byte, indent, unit string, multiline bool) string {
	value := compact
	if multiline {
		var b bytes.Buffer
		if err := json.Indent(&b, compact, indent, unit); err == nil {
			value = b.Bytes()
		}
	}
	if key == "" {
		return string(value)
	}
	if colon == "" {
		colon = ": "
		if !multiline {
			colon = ":"
		}
	}
	return string(marshal(key)) + colon + string(value)
}

// replaceValue replaces the value at path with compact.
func replaceValue(doc []byte, path string, compact []byte) []byte {
	r := gjson.GetBytes(doc, path)
	return splice(doc, r.Index, r.Index+len(r.Raw), string(compact))
}

func splice(doc []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(text))
	out = append(out, doc[:from]...)
	out = append(out, text...)
	return append(out, doc[to:]...)
}

// afterNewline returns the indentation after the last newline of sep, and
// whether sep holds a newline at all. In a file that puts its commas first
// (",  \"key\""), the comma counts as a space.
func afterNewline(sep string) (string, bool) {
	i := strings.LastIndexByte(sep, '\n')
	if i < 0 {
		return "", false
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return r
		}
		return ' '
	}, sep[i+1:]), true
}

// lineIndent is the whitespace that begins the line holding offset at.
func lineIndent(doc []byte, at int) string {
	start := bytes.LastIndexByte(doc[:at], '\n') + 1
	end := start
	for end < at && (doc[end] == ' ' || doc[end] == '\t') {
		end++
	}
	return string(doc[start:end])
}

// unitOf is the file's indent unit: the indentation of the top-level
// object's first child when it begins a line, else defaultIndent.
func unitOf(doc []byte) string {
	c, ok := locate(doc, "")
	if !ok || len(c.children) == 0 {
		return defaultIndent
	}
	ws := string(doc[c.open+1 : c.children[0].start])
	if i := strings.LastIndexByte(ws, '\n'); i >= 0 && ws[i+1:] != "" && strings.Trim(ws[i+1:], " \t") == "" {
		return ws[i+1:]
	}
	return defaultIndent
}

// marshal is json.Marshal without HTML escaping: a command such as
// `a && b` stays readable in the file.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings and the structs of this package are marshalled
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
