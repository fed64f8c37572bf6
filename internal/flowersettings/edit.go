package flowersettings

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A new member is laid out like those before it, and removing it takes out
// exactly what adding put in, so an uninstall gives the file back byte for
// byte. sjson appends after the whitespace before a bracket ("1\n  ,2]") and
// its delete leaves whitespace behind, so these splice at gjson's offsets.

// member is an object's member or an array's element (key: its index), from key to value end.
type member struct {
	key        string
	start, end int
}

// members returns the brackets' offsets and the members of the object or array at path.
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

// insert adds value last to the object (under key) or array at path, after
// the separator the last member follows; into an empty one on a line of its
// own, unless the file is one line other than a bare {}.
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

// remove takes the member key out of the object or array at path, with one
// separator (an only member with its whitespace); true when left empty.
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

// layout is the text of a new member: indented from indent, or compact.
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

// unit is the indentation of the first top-level member on a line of its
// own, else the two spaces Claude Code writes.
func unit(doc []byte) string {
	if _, _, ms := members(doc, ""); len(ms) > 0 {
		line := doc[bytes.LastIndexByte(doc[:ms[0].start], '\n')+1 : ms[0].start]
		if u := lineIndent(doc, ms[0].start); u != "" && len(u) == len(line) {
			return u
		}
	}
	return "  "
}

// marshal is json.Marshal without HTML escaping: `a && b` stays readable.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings, raw JSON and this package's structs come here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
