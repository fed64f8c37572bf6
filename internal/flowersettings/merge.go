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

	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Change is one edit of a settings file: a hook entry added, removed, or
// moved to the binaries of --bin.
type Change struct {
	Kind    Kind
	Entry   Entry
	Command string // the command as the file holds it (removed, moved) or will (added)
	To      string // Move: the command it becomes
	Why     string // Remove of an entry that is not one of --bin's: why it goes
}

// Kind is what a Change does.
type Kind int

const (
	Add Kind = iota
	Remove
	Move
)

// String is the change as printed, one line: "+", "-" or "~", the event,
// the command, and the layer (with the timeout for an addition) or why.
func (c Change) String() string {
	e := c.Entry
	if e.Event == envEvent {
		return c.envString()
	}
	switch c.Kind {
	case Add:
		event := e.Event
		if e.Matcher != "" {
			event += " [" + e.Matcher + "]"
		}
		return fmt.Sprintf("+ %s %s (layer %s, timeout %ds)", event, c.Command, e.Layer, e.Timeout)
	case Move:
		return fmt.Sprintf("~ %s %s -> %s (layer %s)", e.Event, c.Command, c.To, e.Layer)
	}
	if c.Why != "" {
		return fmt.Sprintf("- %s %s (%s)", e.Event, c.Command, c.Why)
	}
	return fmt.Sprintf("- %s %s (layer %s)", e.Event, c.Command, e.Layer)
}

// Install returns doc with the entries of layers wired to the binaries in
// dir, and what changed. An entry already there for dir is left as it is,
// whatever its matcher, timeout or arguments: those may be the user's edits.
// An entry running the same binary from elsewhere (an install with another
// prefix, a binary called by name) is moved to dir, arguments kept, so that
// no hook is wired twice. Entries of the other layers and retired entries
// are removed, wherever their binary is.
func Install(doc []byte, dir string, layers []string) ([]byte, []Change, error) {
	var want []Entry
	for _, e := range Catalog {
		if slices.Contains(layers, e.Layer) {
			want = append(want, e)
		}
	}
	out, changes, err := apply(doc, dir, want, false)
	if err != nil {
		return nil, nil, err
	}
	var env []Change
	if slices.Contains(layers, LayerCapture) {
		if dir == "" {
			return nil, nil, errors.New("the capture layer needs --bin: BASH_ENV must name the capture script by its absolute path")
		}
		if out, env, err = wireEnv(out, dir); err != nil {
			return nil, nil, err
		}
	} else {
		out, env = unwireEnv(out, "")
	}
	if len(env) == 0 {
		return out, changes, nil
	}
	return out, append(changes, env...), nil
}

// Uninstall returns doc without flower's entries for the binaries in dir and
// without retired entries, and what it removed. Entries of binaries elsewhere
// belong to another install and stay.
func Uninstall(doc []byte, dir string) ([]byte, []Change, error) {
	out, changes, err := apply(doc, dir, nil, true)
	if err != nil || dir == "" {
		return out, changes, err
	}
	out, env := unwireEnv(out, dir)
	if len(env) == 0 {
		return out, changes, nil
	}
	return out, append(changes, env...), nil
}

// WiredLayers lists the layers of which doc holds at least one entry, for
// the binaries in dir or elsewhere.
func WiredLayers(doc []byte, dir string) ([]string, error) {
	if err := Validate(doc); err != nil {
		return nil, err
	}
	var layers []string
	for _, f := range scan(doc, dir) {
		if f.retired == "" && !slices.Contains(layers, f.entry.Layer) {
			layers = append(layers, f.entry.Layer)
		}
	}
	if captureWired(doc) && !slices.Contains(layers, LayerCapture) {
		layers = append(layers, LayerCapture)
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
	// jsonscan.Valid bounds the nesting gjson's check recurses through: 8
	// million brackets ran it past Go's stack (a fatal error, exit 2).
	if !jsonscan.Valid(string(doc)) {
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
		if v := hooks.Get(gjson.Escape(event)); v.Exists() && !v.IsArray() {
			return fmt.Errorf(`"hooks.%s" is %s, want an array; nothing was changed`, event, jsonkind.Of(v))
		}
	}
	if err := duplicateKeys(doc); err != nil {
		return err
	}
	return validateEnv(doc)
}

// duplicateKeys says which object that flower reads or edits holds a key
// twice: the top level, "hooks", its entries and their hooks, "env".
// gjson reads the first of two, Claude Code's JSON.parse the last: flower
// would wire its hooks, or remove them, in an object Claude Code never
// reads, and say it had.
func duplicateKeys(doc []byte) error {
	check := func(obj gjson.Result, path string) error {
		seen := map[string]bool{}
		var err error
		jsonscan.EachMember(obj.Raw, func(key, _ string, _ int) bool {
			k := jsonscan.Key(key)
			if seen[k] {
				where := "the top level"
				if path != "" {
					where = strconv.Quote(path)
				}
				err = fmt.Errorf("%s holds the key %q twice (Claude Code reads the last, flower would edit the first); keep one, nothing was changed", where, k)
			}
			seen[k] = true
			return err == nil
		})
		return err
	}
	if err := check(gjson.ParseBytes(doc), ""); err != nil {
		return err
	}
	for _, path := range []string{"hooks", envKey} {
		if err := check(gjson.GetBytes(doc, path), path); err != nil {
			return err
		}
	}
	for _, event := range events() {
		for gi, g := range gjson.GetBytes(doc, "hooks."+gjson.Escape(event)).Array() {
			group := fmt.Sprintf("hooks.%s.%d", event, gi)
			if err := check(g, group); err != nil {
				return err
			}
			for hi, h := range g.Get("hooks").Array() {
				if err := check(h, fmt.Sprintf("%s.hooks.%d", group, hi)); err != nil {
					return err
				}
			}
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

// found is a handler of doc that runs one of flower's binaries under its
// event: flower's for dir (ours), the same binary from elsewhere, or a
// retired entry (retired holds why it goes).
type found struct {
	entry   Entry
	command string
	ours    bool
	retired string
	group   int // index in hooks.<event>
	handler int // index in the group's hooks
}

func (f found) path() string {
	return "hooks." + gjson.Escape(f.entry.Event) + "." + strconv.Itoa(f.group) + ".hooks." + strconv.Itoa(f.handler)
}

// scan finds the handlers of doc that run flower's binaries. Groups and
// handlers of unexpected shape are someone else's and are skipped, never
// touched.
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
				f := found{command: cmd.String(), group: gi, handler: hi}
				prog, rest := splitProgram(f.command)
				for _, r := range Retired {
					if r.Event == event && filepath.Base(prog) == r.Binary && slices.Contains(strings.Fields(rest), r.Arg) {
						f.entry, f.retired = Entry{Event: event, Binary: r.Binary}, r.Why
					}
				}
				for _, e := range Catalog {
					if f.retired == "" && e.Event == event && filepath.Base(prog) == e.Binary {
						f.entry, f.ours = e, e.IsCommandOf(f.command, dir)
					}
				}
				if f.entry.Binary != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// splitProgram splits a command line into the program it runs (unquoted, for
// the common shapes: a plain word or one in single or double quotes without
// escapes) and the rest, which begins with the space after it.
func splitProgram(cmd string) (prog, rest string) {
	if cmd != "" && (cmd[0] == '\'' || cmd[0] == '"') {
		if end := strings.IndexByte(cmd[1:], cmd[0]); end >= 0 {
			return cmd[1 : end+1], cmd[end+2:]
		}
	}
	if i := strings.IndexAny(cmd, " \t"); i >= 0 {
		return cmd[:i], cmd[i:]
	}
	return cmd, ""
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

// apply wires want (none when uninstalling) for dir: see Install and
// Uninstall.
func apply(doc []byte, dir string, want []Entry, uninstall bool) ([]byte, []Change, error) {
	if err := Validate(doc); err != nil {
		return nil, nil, err
	}
	present := scan(doc, dir)
	var changes []Change
	var doomed []found
	drop := func(f found, why string) {
		doomed = append(doomed, f)
		changes = append(changes, Change{Kind: Remove, Entry: f.entry, Command: f.command, Why: why})
	}
	for _, f := range present {
		switch {
		case f.retired != "":
			drop(f, f.retired)
		case uninstall && f.ours:
			drop(f, "")
		case !uninstall && !slices.ContainsFunc(want, f.entry.same):
			drop(f, "")
		}
	}
	out := doc
	var add []Entry
	for _, e := range want {
		var same []found
		for _, f := range present {
			if f.retired == "" && f.entry.same(e) {
				same = append(same, f)
			}
		}
		// The first of dir's entries stays; without one, the first from
		// elsewhere is moved here. Any other copy from elsewhere goes: it
		// would fire besides.
		keep := slices.IndexFunc(same, func(f found) bool { return f.ours })
		switch {
		case len(same) == 0:
			add = append(add, e)
			continue
		case keep < 0:
			keep = 0
			f := same[0]
			_, rest := splitProgram(f.command)
			to := e.Command(dir) + rest
			out = replaceValue(out, f.path()+".command", marshal(to))
			changes = append(changes, Change{Kind: Move, Entry: e, Command: f.command, To: to})
		}
		for i, f := range same {
			if i != keep && !f.ours {
				drop(f, "a second copy of layer "+e.Layer+"'s entry, which would fire twice")
			}
		}
	}

	// Remove from the back so the indexes of what remains stay valid; an
	// emptied group, event or hooks object goes with its last entry.
	slices.SortFunc(doomed, func(a, b found) int {
		if a.entry.Event != b.entry.Event {
			return strings.Compare(a.entry.Event, b.entry.Event)
		}
		if a.group != b.group {
			return b.group - a.group
		}
		return b.handler - a.handler
	})
	for _, f := range doomed {
		event := "hooks." + gjson.Escape(f.entry.Event)
		gpath := event + "." + strconv.Itoa(f.group)
		out = removeChild(out, gpath+".hooks", f.handler)
		if len(gjson.GetBytes(out, gpath+".hooks").Array()) == 0 {
			out = removeChild(out, event, f.group)
		}
		if len(gjson.GetBytes(out, event).Array()) == 0 {
			out = removeMember(out, "hooks", f.entry.Event)
			if len(gjson.GetBytes(out, "hooks").Map()) == 0 {
				out = removeMember(out, "", "hooks")
			}
		}
	}

	for _, e := range add {
		g := group{Matcher: e.Matcher, Hooks: []handler{{Type: "command", Command: e.Command(dir), Timeout: e.Timeout}}}
		raw := marshal(g)
		event := "hooks." + gjson.Escape(e.Event)
		switch {
		case gjson.GetBytes(out, event).Exists():
			c, _ := locate(out, event)
			out = appendChild(out, c, "", raw)
		case gjson.GetBytes(out, "hooks").Exists():
			c, _ := locate(out, "hooks")
			out = appendChild(out, c, e.Event, append(append([]byte{'['}, raw...), ']'))
		default:
			c, _ := locate(out, "")
			hooks := append(append([]byte(`{`+string(marshal(e.Event))+`:[`), raw...), "]}"...)
			out = appendChild(out, c, "hooks", hooks)
		}
		changes = append(changes, Change{Kind: Add, Entry: e, Command: g.Hooks[0].Command})
	}
	if len(changes) == 0 {
		return doc, nil, nil
	}
	if !gjson.ValidBytes(out) {
		return nil, nil, errors.New("internal error: the merged settings are not valid JSON; nothing was changed")
	}
	return out, changes, nil
}

// removeChild removes element i of the array at path.
func removeChild(doc []byte, path string, i int) []byte {
	c, ok := locate(doc, path)
	if !ok || i >= len(c.children) {
		return doc
	}
	return deleteChild(doc, c, i)
}

// removeMember removes key from the object at path ("" for the document).
func removeMember(doc []byte, path, key string) []byte {
	c, ok := locate(doc, path)
	if !ok {
		return doc
	}
	r := gjson.ParseBytes(doc)
	if path != "" {
		r = gjson.GetBytes(doc, path)
	}
	i := 0
	at := -1
	r.ForEach(func(k, _ gjson.Result) bool {
		if k.String() == key && at < 0 {
			at = i
		}
		i++
		return true
	})
	if at < 0 {
		return doc
	}
	return deleteChild(doc, c, at)
}

// events are the hook events of the catalog and of retired entries, in
// catalog order.
func events() []string {
	var out []string
	for _, e := range Catalog {
		if !slices.Contains(out, e.Event) {
			out = append(out, e.Event)
		}
	}
	for _, r := range Retired {
		if !slices.Contains(out, r.Event) {
			out = append(out, r.Event)
		}
	}
	return out
}
