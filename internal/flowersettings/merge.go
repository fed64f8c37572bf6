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

	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// maxDepth bounds a settings file's nesting, as the hooks bound a payload's.
const maxDepth = 100_000

// The capture layer's BASH_ENV names the capture script; the user's own moves
// to FLOWER_BASH_ENV, which the script reads after itself, and back.
const (
	bashEnv    = "BASH_ENV"
	chainedEnv = "FLOWER_BASH_ENV"
)

// envEntry is the Entry of the Changes to "env".
var envEntry = Entry{Layer: LayerCapture, Event: "env"}

// Change is one edit: a hook entry or the capture layer's "env" value added,
// removed, or moved to the install in --bin.
type Change struct {
	Kind    Kind
	Entry   Entry
	Command string // as the file holds it (removed, moved) or will (added)
	To      string // Move: what it becomes
	Why     string // why it goes or moves, when its layer does not say
}

// Kind is what a Change does.
type Kind int

const (
	Add Kind = iota
	Remove
	Move
)

// String is the change as printed, one line.
func (c Change) String() string {
	e := c.Entry
	s := []string{"+ ", "- ", "~ "}[c.Kind] + e.Event
	if c.Kind == Add && e.Matcher != "" {
		s += " [" + e.Matcher + "]"
	}
	s += " " + c.Command
	if c.Kind == Move {
		s += " -> " + c.To
	}
	detail := "layer " + e.Layer
	switch {
	case c.Kind == Add && e != envEntry:
		detail += fmt.Sprintf(", timeout %ds", e.Timeout)
	case c.Why != "" && e == envEntry:
		detail += "; " + c.Why
	case c.Why != "":
		detail = c.Why
	}
	return s + " (" + detail + ")"
}

// Install returns doc with the entries of layers wired to the binaries in
// dir, and what changed. An entry there for dir stays as the user left it;
// the first running the binary from elsewhere moves to dir, others go (no
// hook fires twice), as do other layers' entries and retired ones.
func Install(doc []byte, dir string, layers []string) ([]byte, []Change, error) {
	return edit(doc, dir, layers, false)
}

// Uninstall returns doc without the entries for dir and retired ones; another
// install's stay.
func Uninstall(doc []byte, dir string) ([]byte, []Change, error) {
	return edit(doc, dir, nil, true)
}

func edit(doc []byte, dir string, layers []string, uninstall bool) ([]byte, []Change, error) {
	if err := Validate(doc); err != nil {
		return nil, nil, err
	}
	out, changes := wire(doc, dir, layers, uninstall)
	var env []Change
	var err error
	switch {
	case uninstall && dir == "":
	case uninstall:
		out, env = unwireEnv(out, dir)
	case slices.Contains(layers, LayerCapture):
		out, env, err = wireEnv(out, dir)
	default:
		out, env = unwireEnv(out, "")
	}
	return out, append(changes, env...), err
}

// WiredLayers lists the layers doc holds an entry of, from any folder.
func WiredLayers(doc []byte, dir string) ([]string, error) {
	if err := Validate(doc); err != nil {
		return nil, err
	}
	var layers []string
	for _, f := range scan(doc, dir) {
		layers = append(layers, f.Layer)
	}
	if captureWired(doc) {
		layers = append(layers, LayerCapture)
	}
	return sortLayers(layers), nil
}

// Validate checks that doc is a JSON object flower can merge into: the parts
// it edits of their shape, no key twice (flower would edit the one Claude Code
// does not read).
func Validate(doc []byte) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		return errors.New("the file is empty, which is not valid JSON (write {} into it, or delete it)")
	}
	var e *jsoncheck.Error
	switch err := jsoncheck.Check(string(doc), maxDepth); {
	case errors.As(err, &e) && e.Repeated:
		where := "the top level"
		if e.Path != "" {
			where = strconv.Quote(e.Path)
		}
		return fmt.Errorf("%s holds the key %q twice (Claude Code reads the last, flower the first); keep one, nothing was changed", where, e.Key)
	case e != nil:
		column := e.Offset - bytes.LastIndexByte(doc[:e.Offset], '\n')
		return fmt.Errorf("not valid JSON (line %d, column %d: %s); fix it or move it away, nothing was changed", e.Line(string(doc)), column, e.Msg)
	case err != nil:
		return err
	case !gjson.ParseBytes(doc).IsObject():
		return errors.New("not a JSON object; nothing was changed")
	}
	shapes := [][2]string{{"hooks", "an object"}, {"env", "an object"}, {"env." + bashEnv, "a string"}, {"env." + chainedEnv, "a string"}}
	for _, e := range Catalog {
		shapes = append(shapes, [2]string{"hooks." + e.Event, "an array"})
	}
	for _, r := range retired {
		shapes = append(shapes, [2]string{"hooks." + r.Event, "an array"})
	}
	for _, s := range shapes {
		if v := gjson.GetBytes(doc, s[0]); v.Exists() && jsonkind.Of(v) != s[1] {
			return fmt.Errorf(`"%s" is %s, want %s; nothing was changed`, s[0], jsonkind.Of(v), s[1])
		}
	}
	return nil
}

// Wiring is one handler of a settings document that runs a flower binary:
// for dir (ours), from elsewhere, or retired.
type Wiring struct {
	Entry
	Command, Program string // as written; the program it runs, unquoted
	Retired          bool   // an entry flower no longer wires, which goes (why)
	why              string
	ours             bool
	group, handler   int // indexes in hooks.<event> and in the group's hooks
}

// Wirings lists the handlers of doc that run flower's binaries, from any folder.
func Wirings(doc []byte) []Wiring { return scan(doc, "") }

// scan finds the handlers of doc that run flower's binaries, in file order;
// groups and handlers of another shape are someone else's.
func scan(doc []byte, dir string) []Wiring {
	var out []Wiring
	gjson.GetBytes(doc, "hooks").ForEach(func(event, groups gjson.Result) bool {
		for gi, g := range groups.Array() {
			if !g.Get("hooks").IsArray() {
				continue
			}
			for hi, h := range g.Get("hooks").Array() {
				cmd := h.Get("command")
				if h.Get("type").String() != "command" || cmd.Type != gjson.String {
					continue
				}
				f := Wiring{Command: cmd.Str, group: gi, handler: hi}
				prog, rest := splitProgram(f.Command)
				f.Program = prog
				for _, e := range Catalog {
					if e.Event == event.Str && e.Binary == filepath.Base(prog) {
						f.Entry, f.ours = e, e.IsCommandOf(f.Command, dir)
					}
				}
				for _, r := range retired {
					if r.Event == event.Str && r.Binary == filepath.Base(prog) && slices.Contains(strings.Fields(rest), r.Arg) {
						f.Entry, f.ours, f.Retired, f.why = Entry{Event: r.Event, Binary: r.Binary}, false, true, r.Why
					}
				}
				if f.Binary != "" {
					out = append(out, f)
				}
			}
		}
		return true
	})
	return out
}

// splitProgram splits a command into its program (unquoted: a word, or quoted
// without escapes) and the rest, from the space after it.
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

// group is a hook group as flower writes it, fields in Claude Code's documented order.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// wire wires the hooks of layers for dir, or removes dir's when uninstalling.
func wire(doc []byte, dir string, layers []string, uninstall bool) ([]byte, []Change) {
	present := scan(doc, dir)
	var changes []Change
	var doomed []Wiring
	drop := func(f Wiring, why string) {
		doomed = append(doomed, f)
		changes = append(changes, Change{Kind: Remove, Entry: f.Entry, Command: f.Command, Why: why})
	}
	settled := map[Entry]bool{} // wired for dir already, or moved here
	for _, f := range present {
		settled[f.Entry] = settled[f.Entry] || f.ours
	}
	out := doc
	for _, f := range present {
		wanted := !uninstall && slices.Contains(layers, f.Layer)
		switch {
		case f.Retired:
			drop(f, f.why)
		case uninstall && !f.ours, wanted && f.ours:
		case wanted && !settled[f.Entry]:
			settled[f.Entry] = true
			_, rest := splitProgram(f.Command)
			to := f.Entry.Command(dir) + rest
			out = setValue(out, fmt.Sprintf("hooks.%s.%d.hooks.%d.command", gjson.Escape(f.Event), f.group, f.handler), to)
			changes = append(changes, Change{Kind: Move, Entry: f.Entry, Command: f.Command, To: to})
		case wanted:
			drop(f, "a second copy of layer "+f.Layer+"'s entry, which would fire twice")
		default:
			drop(f, "")
		}
	}
	// From the back, so that indexes hold; an emptied group, event or "hooks" goes too.
	for _, f := range slices.Backward(doomed) {
		event := "hooks." + gjson.Escape(f.Event)
		for _, at := range [][2]string{{event + "." + strconv.Itoa(f.group) + ".hooks", strconv.Itoa(f.handler)},
			{event, strconv.Itoa(f.group)}, {"hooks", f.Event}, {"", "hooks"}} {
			var empty bool
			if out, empty = remove(out, at[0], at[1]); !empty {
				break
			}
		}
	}
	for _, e := range Catalog {
		if !slices.Contains(layers, e.Layer) || slices.ContainsFunc(present, func(f Wiring) bool { return f.Entry == e }) {
			continue
		}
		g := group{Matcher: e.Matcher, Hooks: []handler{{"command", e.Command(dir), e.Timeout}}}
		switch event := "hooks." + gjson.Escape(e.Event); {
		case gjson.GetBytes(out, event).Exists():
			out = insert(out, event, "", g)
		case gjson.GetBytes(out, "hooks").Exists():
			out = insert(out, "hooks", e.Event, []group{g})
		default:
			out = insert(out, "", "hooks", map[string][]group{e.Event: {g}})
		}
		changes = append(changes, Change{Kind: Add, Entry: e, Command: e.Command(dir)})
	}
	return out, changes
}

// setValue replaces the value at path, which exists, with value.
func setValue(doc []byte, path string, value any) []byte {
	out, err := sjson.SetRawBytes(doc, path, marshal(value))
	if err != nil {
		panic(err) // the paths are built here, and valid
	}
	return out
}

// captureWired reports whether doc's BASH_ENV names any install's capture script.
func captureWired(doc []byte) bool {
	return capture.IsScriptPath(gjson.GetBytes(doc, "env."+bashEnv).String())
}

// wireEnv points BASH_ENV at the capture script in dir, moving another install's.
func wireEnv(doc []byte, dir string) ([]byte, []Change, error) {
	if dir == "" {
		return nil, nil, errors.New("the capture layer needs --bin: BASH_ENV must name the capture script by its absolute path")
	}
	script := capture.ScriptPath(dir)
	cur, chained := gjson.GetBytes(doc, "env."+bashEnv), gjson.GetBytes(doc, "env."+chainedEnv)
	move := Change{Kind: Move, Entry: envEntry, Command: bashEnv + "=" + cur.Str, To: script}
	add := []Change{{Kind: Add, Entry: envEntry, Command: bashEnv + "=" + script}}
	switch {
	case cur.Str == script:
		return doc, nil, nil
	case capture.IsScriptPath(cur.Str):
		return setValue(doc, "env."+bashEnv, script), []Change{move}, nil
	case cur.Exists() && chained.Exists():
		return nil, nil, fmt.Errorf(`"env" holds %s=%s and %s=%s: the first is not flower's capture script and would be lost; `+
			`remove %s, or move %s's value there yourself; nothing was changed`, bashEnv, cur.Raw, chainedEnv, chained.Raw, chainedEnv, bashEnv)
	case cur.Exists():
		// Moved as written, escapes and all, so that taking the layer out gives back its bytes.
		move.Why = "your " + bashEnv + " moves to " + chainedEnv + ", which the capture script reads after itself"
		return insert(setValue(doc, "env."+bashEnv, script), "env", chainedEnv, json.RawMessage(cur.Raw)), []Change{move}, nil
	case gjson.GetBytes(doc, "env").Exists():
		return insert(doc, "env", bashEnv, script), add, nil
	}
	return insert(doc, "", "env", map[string]string{bashEnv: script}), add, nil
}

// unwireEnv takes the capture script out of BASH_ENV (only dir's, if set),
// bringing back the user's from FLOWER_BASH_ENV; an emptied "env" goes.
func unwireEnv(doc []byte, dir string) ([]byte, []Change) {
	cur := gjson.GetBytes(doc, "env."+bashEnv).Str
	if !capture.IsScriptPath(cur) || dir != "" && cur != capture.ScriptPath(dir) {
		return doc, nil
	}
	change := Change{Kind: Remove, Entry: envEntry, Command: bashEnv + "=" + cur}
	if chained := gjson.GetBytes(doc, "env."+chainedEnv); chained.Exists() {
		change.Why = "your " + bashEnv + " comes back from " + chainedEnv + ": " + chained.Str
		out, _ := remove(doc, "env", chainedEnv)
		return setValue(out, "env."+bashEnv, json.RawMessage(chained.Raw)), []Change{change}
	}
	out, empty := remove(doc, "env", bashEnv)
	if empty {
		out, _ = remove(out, "", "env")
	}
	return out, []Change{change}
}
