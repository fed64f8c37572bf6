package flowersettings

import (
	"bytes"
	"encoding/json"
)

// indentUnits are the indentations recognised as a file's style: JSON.stringify
// with 2 spaces is how Claude Code writes settings.json itself; tabs and 4
// spaces are the usual editor choices.
var indentUnits = []string{"  ", "\t", "    "}

// defaultIndent is used for a file flower creates.
const defaultIndent = "  "

// reformat gives merged the layout of orig. When orig is laid out exactly as
// json.Indent would lay it out with one of indentUnits (one value per line,
// `"key": value`; JSON.stringify(v, null, 2) produces the same), merged is
// re-indented the same way, so flower's entries look hand-written and an
// uninstall gives back the original bytes. Any other layout is kept as sjson
// left it: untouched parts byte for byte, flower's entries compact.
// Whitespace around the top-level value is carried over either way.
func reformat(orig, merged []byte) ([]byte, error) {
	value := bytes.TrimSpace(merged)
	if unit, ok := indentOf(orig); ok {
		var compact, out bytes.Buffer
		if err := json.Compact(&compact, value); err != nil {
			return nil, err
		}
		if err := json.Indent(&out, compact.Bytes(), "", unit); err != nil {
			return nil, err
		}
		value = out.Bytes()
	}
	// sjson drops the whitespace after the top-level value when it deletes
	// its last key; the file's own is put back.
	lead, trail := surrounding(orig)
	return append(append([]byte(lead), value...), trail...), nil
}

// indentOf reports the indent unit orig is laid out with, if it is one of
// indentUnits. An empty object fits any; it gets the default.
func indentOf(orig []byte) (string, bool) {
	value := bytes.TrimSpace(orig)
	var compact bytes.Buffer
	if err := json.Compact(&compact, value); err != nil {
		return "", false
	}
	if bytes.Equal(compact.Bytes(), []byte("{}")) {
		return defaultIndent, true
	}
	for _, unit := range indentUnits {
		var b bytes.Buffer
		if err := json.Indent(&b, compact.Bytes(), "", unit); err == nil && bytes.Equal(b.Bytes(), value) {
			return unit, true
		}
	}
	return "", false
}

// surrounding returns the whitespace before and after the top-level value.
func surrounding(doc []byte) (lead, trail string) {
	value := bytes.TrimSpace(doc)
	if len(value) == 0 {
		return "", ""
	}
	start := bytes.Index(doc, value)
	return string(doc[:start]), string(doc[start+len(value):])
}
