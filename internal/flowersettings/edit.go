package flowersettings

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A settings file is edited as a person would by hand: a new member is laid
// out like the members before it, and removing it takes out exactly what
// adding it put in, so that an uninstall gives the file back byte for byte.
// sjson appends after the whitespace before a closing bracket ("1\n  ,2]")
// and its delete leaves the whitespace around a first or only member, so
// insert and remove splice the text at the offsets gjson reports.

// member is a member of an object (key) or an element of an array (its
// index), from the start of its key to the end of its value.
type member struct {
	key        string
	start, end int
}

// members returns the offsets of the brackets of the object or array at path
// ("" for the document) and its members.
func members(doc []byte, path string) (open, close int, ms []member) {
	r := gjson.ParseBytes(doc)
	if path != "" {
		r = gjson.GetBytes(doc, path)
	}
	r.ForEach(func(k, v gjson.Result) bool {
		m := member{strconv.Itoa(len(ms)), v.Index, v.Index + len(v.Raw)}
		if r.IsObject() {
			m.key, m.start = k.String(), k.Index
		}
		ms = append(ms, m)
		return true
	})
	// The document's Raw runs to the end of the file.
	return r.Index, r.Index + len(strings.TrimRight(r.Raw, " \t\r\n")) - 1, ms
}

// insert adds value as the last member of the object (under key) or array
// (key "") at path, after the separator before the last member: on a line of
// its own at that member's indentation, or inline. In an empty object or
// array it goes on its own line, unless the whole file is on one line other
// than a bare {}.
func insert(doc []byte, path, key string, value any) []byte {
	open, close, ms := members(doc, path)
	if n := len(ms); n > 0 {
		sep := "," + string(doc[open+1:ms[0].start])
		if n > 1 {
			sep = string(doc[ms[n-2].end:ms[n-1].start])
		}
		text := layout(key, value, lineIndent(doc, ms[n-1].start), unit(doc), strings.Contains(sep, "\n"))
		return splice(doc, ms[n-1].end, ms[n-1].end, sep+text)
	}
	if trimmed := bytes.TrimSpace(doc); !bytes.Contains(trimmed, []byte("\n")) && string(trimmed) != "{}" {
		return splice(doc, open+1, close, layout(key, value, "", "", false))
	}
	outer := lineIndent(doc, open)
	inner := outer + unit(doc)
	return splice(doc, open+1, close, "\n"+inner+layout(key, value, inner, unit(doc), true)+"\n"+outer)
}

// remove takes the member key out of the object or array at path: with the
// separator before it when it is the last, else the one after it, and an
// only member with the whitespace around it. It reports whether the object
// or array is left empty.
func remove(doc []byte, path, key string) ([]byte, bool) {
	open, close, ms := members(doc, path)
	switch i := slices.IndexFunc(ms, func(m member) bool { return m.key == key }); {
	case i < 0:
		return doc, false
	case len(ms) == 1:
		return splice(doc, open+1, close, ""), true
	case i == len(ms)-1:
		return splice(doc, ms[i-1].end, ms[i].end, ""), false
	default:
		return splice(doc, ms[i].start, ms[i+1].start, ""), false
	}
}

// layout is the text of a new member: its value indented one unit deeper a
// level from indent, or compact, behind its key in an object.
func layout(key string, value any, indent, unit string, multiline bool) string {
	text, colon := marshal(value), ":"
	var b bytes.Buffer
	if multiline && json.Indent(&b, text, indent, unit) == nil {
		text, colon = b.Bytes(), ": "
	}
	if key == "" {
		return string(text)
	}
	return string(marshal(key)) + colon + string(text)
}

func splice(doc []byte, from, to int, text string) []byte {
	return slices.Concat(doc[:from], []byte(text), doc[to:])
}

// lineIndent is the whitespace that begins the line holding offset at.
func lineIndent(doc []byte, at int) string {
	line := doc[bytes.LastIndexByte(doc[:at], '\n')+1 : at]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// unit is the file's indent unit: the indentation of the top-level object's
// first member when it begins a line, else JSON.stringify's two spaces, as
// Claude Code writes settings.json.
func unit(doc []byte) string {
	if _, _, ms := members(doc, ""); len(ms) > 0 {
		line := doc[bytes.LastIndexByte(doc[:ms[0].start], '\n')+1 : ms[0].start]
		if u := lineIndent(doc, ms[0].start); u != "" && len(u) == len(line) {
			return u
		}
	}
	return "  "
}

// marshal is json.Marshal without HTML escaping, so that a command such as
// `a && b` stays readable, and a user's value moved as raw JSON keeps its bytes.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings, raw JSON and this package's structs come here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
