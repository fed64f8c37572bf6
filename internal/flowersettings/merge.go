package flowersettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// Change is one hook entry added to or removed from a settings file.
type Change struct {
	Add     bool
	Entry   Entry
	Command string // the command as the file holds it (removed) or will (added)
}

// String is the change as printed: "+" or "-", the event and matcher, the
// command, the layer and (for an addition) the timeout.
func (c Change) String() string {
	e := c.Entry
	event := e.Event
	if e.Matcher != "" {
		event += " [" + e.Matcher + "]"
	}
	if c.Add {
		return fmt.Sprintf("+ %s %s (layer %s, timeout %ds)", event, c.Command, e.Layer, e.Timeout)
	}
	return fmt.Sprintf("- %s %s (layer %s)", e.Event, c.Command, e.Layer)
}

// Install returns doc with the entries of layers wired to the binaries in dir
// and flower's entries of every other layer removed, and what changed. An
// entry already present (same event, same binary in dir) is left as it is,
// whatever its matcher, timeout or arguments: those may be the user's edits.
func Install(doc []byte, dir string, layers []string) ([]byte, []Change, error) {
	var want, drop []Entry
	for _, e := range Catalog {
		if slices.Contains(layers, e.Layer) {
			want = append(want, e)
		} else {
			drop = append(drop, e)
		}
	}
	return apply(doc, dir, want, drop)
}

// Uninstall returns doc without any of flower's entries for the binaries in
// dir, and what it removed. Everything else stays byte for byte where the
// file's formatting allows (see reformat).
func Uninstall(doc []byte, dir string) ([]byte, []Change, error) {
	return apply(doc, dir, nil, Catalog)
}

// WiredLayers lists the layers of which doc holds at least one entry for the
// binaries in dir.
func WiredLayers(doc []byte, dir string) ([]string, error) {
	if err := Validate(doc); err != nil {
		return nil, err
	}
	var layers []string
	for _, f := range scan(doc, dir) {
		if !slices.Contains(layers, f.entry.Layer) {
			layers = append(layers, f.entry.Layer)
		}
	}
	return sortLayers(layers), nil
}

// Validate checks that doc is a settings file flower can merge into: one JSON
// object whose "hooks", if present, is an object whose events flower uses are
// arrays. The error says what is wrong in one line.
func Validate(doc []byte) error {
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) == 0 {
		return errors.New("the file is empty, which is not valid JSON (write {} into it, or delete it)")
	}
	if !gjson.ValidBytes(doc) {
		return fmt.Errorf("not valid JSON (%s); fix it or move it away, nothing was changed", syntaxError(doc))
	}
	if trimmed[0] != '{' {
		return errors.New("not a JSON object; nothing was changed")
	}
	hooks := gjson.GetBytes(doc, "hooks")
	if hooks.Exists() && !hooks.IsObject() {
		return fmt.Errorf(`"hooks" is %s, want an object; nothing was changed`, jsonkind.Of(hooks))
	}
	for _, event := range events() {
		if v := hooks.Get(event); v.Exists() && !v.IsArray() {
			return fmt.Errorf(`"hooks.%s" is %s, want an array; nothing was changed`, event, jsonkind.Of(v))
		}
	}
	return nil
}

// syntaxError locates a JSON syntax error for the message, as line:column.
func syntaxError(doc []byte) string {
	var v any
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if err != nil {
			return err.Error()
		}
		return "rejected by the parser"
	}
	line, col := 1, 1
	for _, b := range doc[:min(int(se.Offset), len(doc))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, se)
}

// found is one of flower's handlers located in a document.
type found struct {
	entry   Entry
	command string
	group   int // index in hooks.<event>
	handler int // index in the group's hooks
}

// scan finds flower's handlers for the binaries in dir. Groups and handlers
// of unexpected shape are someone else's and are skipped, never touched.
func scan(doc []byte, dir string) []found {
	var out []found
	for _, event := range events() {
		groups := gjson.GetBytes(doc, "hooks."+gjson.Escape(event))
		for gi, g := range groups.Array() {
			for hi, h := range g.Get("hooks").Array() {
				cmd := h.Get("command")
				if h.Get("type").String() != "command" || cmd.Type != gjson.String {
					continue
				}
				for _, e := range Catalog {
					if e.Event == event && e.IsCommandOf(cmd.String(), dir) {
						out = append(out, found{entry: e, command: cmd.String(), group: gi, handler: hi})
					}
				}
			}
		}
	}
	return out
}

// Strays lists the commands in doc that run a binary named like one of
// flower's from somewhere other than dir (another --prefix, a bare name
// copied from settings.example.json): left alone, but worth a note, since
// that hook then fires twice.
func Strays(doc []byte, dir string) []string {
	var out []string
	for _, event := range events() {
		for _, g := range gjson.GetBytes(doc, "hooks."+gjson.Escape(event)).Array() {
			for _, h := range g.Get("hooks").Array() {
				cmd := h.Get("command")
				if h.Get("type").String() != "command" || cmd.Type != gjson.String {
					continue
				}
				base := filepath.Base(firstWord(cmd.String()))
				ours := slices.ContainsFunc(Catalog, func(e Entry) bool { return e.Event == event && e.IsCommandOf(cmd.String(), dir) })
				if !ours && slices.Contains(Binaries(AllLayers), base) {
					out = append(out, event+" "+cmd.String())
				}
			}
		}
	}
	return out
}

// firstWord is the program a command line runs, for the common shapes: a
// plain word, or one in single or double quotes. It is only used for a note.
func firstWord(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if cmd != "" && (cmd[0] == '\'' || cmd[0] == '"') {
		if end := strings.IndexByte(cmd[1:], cmd[0]); end >= 0 {
			return cmd[1 : end+1]
		}
	}
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

// group is a settings hook group as flower writes it; the field order is the
// order Claude Code's own documentation shows.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

func apply(doc []byte, dir string, want, drop []Entry) ([]byte, []Change, error) {
	if err := Validate(doc); err != nil {
		return nil, nil, err
	}
	present := scan(doc, dir)
	var changes []Change
	out := doc
	var err error

	// Remove from the back so the indexes of what remains stay valid.
	var doomed []found
	for _, f := range present {
		if slices.ContainsFunc(drop, f.entry.same) {
			doomed = append(doomed, f)
			changes = append(changes, Change{Entry: f.entry, Command: f.command})
		}
	}
	slices.SortFunc(doomed, func(a, b found) int {
		if a.entry.Event != b.entry.Event {
			return strings.Compare(a.entry.Event, b.entry.Event)
		}
		if a.group != b.group {
			return b.group - a.group
		}
		return b.handler - a.handler
	})
	emptied := map[string]bool{}
	for _, f := range doomed {
		gpath := "hooks." + gjson.Escape(f.entry.Event) + "." + strconv.Itoa(f.group)
		if out, err = sjson.DeleteBytes(out, gpath+".hooks."+strconv.Itoa(f.handler)); err != nil {
			return nil, nil, err
		}
		if len(gjson.GetBytes(out, gpath+".hooks").Array()) == 0 {
			if out, err = sjson.DeleteBytes(out, gpath); err != nil {
				return nil, nil, err
			}
		}
		emptied[f.entry.Event] = true
	}
	for _, event := range events() {
		path := "hooks." + gjson.Escape(event)
		if emptied[event] && len(gjson.GetBytes(out, path).Array()) == 0 {
			if out, err = sjson.DeleteBytes(out, path); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(emptied) > 0 && len(gjson.GetBytes(out, "hooks").Map()) == 0 {
		if out, err = sjson.DeleteBytes(out, "hooks"); err != nil {
			return nil, nil, err
		}
	}

	for _, e := range want {
		if slices.ContainsFunc(present, func(f found) bool { return f.entry.same(e) }) {
			continue
		}
		g := group{Matcher: e.Matcher, Hooks: []handler{{Type: "command", Command: e.Command(dir), Timeout: e.Timeout}}}
		raw, err := json.Marshal(g)
		if err != nil {
			return nil, nil, err
		}
		path := "hooks." + gjson.Escape(e.Event)
		if gjson.GetBytes(out, path).Exists() {
			out, err = sjson.SetRawBytes(out, path+".-1", raw)
		} else {
			out, err = sjson.SetRawBytes(out, path, append(append([]byte{'['}, raw...), ']'))
		}
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, Change{Add: true, Entry: e, Command: g.Hooks[0].Command})
	}
	if len(changes) == 0 {
		return doc, nil, nil
	}
	out, err = reformat(doc, out)
	if err != nil {
		return nil, nil, err
	}
	if !gjson.ValidBytes(out) {
		return nil, nil, errors.New("internal error: the merged settings are not valid JSON; nothing was changed")
	}
	return out, changes, nil
}

// events are the hook events of the catalog, in catalog order.
func events() []string {
	var out []string
	for _, e := range Catalog {
		if !slices.Contains(out, e.Event) {
			out = append(out, e.Event)
		}
	}
	return out
}
