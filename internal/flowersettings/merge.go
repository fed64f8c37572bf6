package flowersettings

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// maxDepth bounds the nesting of a settings file, as deep as the hooks
// accept a payload (docs/REFERENCE.md).
const maxDepth = 100_000

// Change is one edit of a settings file: a hook entry, or the capture
// layer's value in "env", added, removed, or moved to the install in --bin.
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

// String is the change as printed, one line: "+", "-" or "~", the event,
// the command, and the layer (with the timeout of a hook added) or why.
func (c Change) String() string {
	e := c.Entry
	s := map[Kind]string{Add: "+ ", Remove: "- ", Move: "~ "}[c.Kind] + e.Event
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
// dir, and what changed. An entry already there for dir is left as it is,
// whatever its matcher, timeout or arguments: those may be the user's edits.
// The first entry running the same binary from elsewhere (another prefix, a
// binary called by name) is moved to dir, arguments kept, and other copies
// removed, so that no hook fires twice. Entries of the other layers and
// retired entries are removed, wherever their binary is.
func Install(doc []byte, dir string, layers []string) ([]byte, []Change, error) {
	return edit(doc, dir, layers, false)
}

// Uninstall returns doc without flower's entries for the binaries in dir and
// without retired entries, and what it removed. Entries of binaries elsewhere
// belong to another install and stay.
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
	if err != nil {
		return nil, nil, err
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
		layers = append(layers, f.Layer)
	}
	if captureWired(doc) {
		layers = append(layers, LayerCapture)
	}
	return sortLayers(layers), nil
}

// Validate checks that doc is a settings file flower can merge into: one JSON
// object, with no key given twice, whose parts that flower edits have the
// shape it edits. The error says what is wrong in one line.
func Validate(doc []byte) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		return errors.New("the file is empty, which is not valid JSON (write {} into it, or delete it)")
	}
	if err := jsoncheck.Check(string(doc), maxDepth); err != nil {
		return checkError(string(doc), err)
	}
	if !gjson.ParseBytes(doc).IsObject() {
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

// checkError words a jsoncheck error. A key given twice is refused because
// flower reads the first of two, Claude Code's JSON.parse the last: flower
// would edit an object Claude Code never reads, and say it had.
func checkError(doc string, err error) error {
	var e *jsoncheck.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Repeated {
		where := "the top level"
		if e.Path != "" {
			where = strconv.Quote(e.Path)
		}
		return fmt.Errorf("%s holds the key %q twice (Claude Code reads the last, flower the first); keep one, nothing was changed", where, e.Key)
	}
	column := e.Offset - strings.LastIndexByte(doc[:e.Offset], '\n')
	return fmt.Errorf("not valid JSON (line %d, column %d: %s); fix it or move it away, nothing was changed", e.Line(doc), column, e.Msg)
}

// found is a handler of the file that runs one of flower's binaries under
// its event: flower's for dir (ours), the same binary from elsewhere, or a
// retired entry (why says why it goes).
type found struct {
	Entry
	command        string
	ours           bool
	why            string
	group, handler int // indexes in hooks.<event> and in the group's hooks
}

// scan finds the handlers of doc that run flower's binaries, in the order of
// the file. Groups and handlers of another shape are someone else's and are
// skipped, never touched.
func scan(doc []byte, dir string) []found {
	var out []found
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
				f := found{command: cmd.Str, group: gi, handler: hi}
				prog, rest := splitProgram(f.command)
				for _, e := range Catalog {
					if e.Event == event.Str && e.Binary == filepath.Base(prog) {
						f.Entry, f.ours = e, e.IsCommandOf(f.command, dir)
					}
				}
				for _, r := range retired {
					if r.Event == event.Str && r.Binary == filepath.Base(prog) && slices.Contains(strings.Fields(rest), r.Arg) {
						f.Entry, f.ours, f.why = Entry{Event: r.Event, Binary: r.Binary}, false, r.Why
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

// group is a settings hook group as flower writes it, its fields in the
// order Claude Code's documentation shows them.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// wire wires the hooks of layers for dir (none when uninstalling, which
// removes dir's entries) and removes retired entries.
func wire(doc []byte, dir string, layers []string, uninstall bool) ([]byte, []Change) {
	var want []Entry
	for _, e := range Catalog {
		if slices.Contains(layers, e.Layer) {
			want = append(want, e)
		}
	}
	present := scan(doc, dir)
	var changes []Change
	var doomed []found
	drop := func(f found, why string) {
		doomed = append(doomed, f)
		changes = append(changes, Change{Kind: Remove, Entry: f.Entry, Command: f.command, Why: why})
	}
	settled := map[Entry]bool{} // wired for dir already, or moved here
	for _, f := range present {
		settled[f.Entry] = settled[f.Entry] || f.ours
	}
	out := doc
	for _, f := range present {
		switch {
		case f.why != "":
			drop(f, f.why)
		case uninstall:
			if f.ours {
				drop(f, "")
			}
		case !slices.Contains(want, f.Entry):
			drop(f, "")
		case f.ours:
		case !settled[f.Entry]:
			settled[f.Entry] = true
			_, rest := splitProgram(f.command)
			to := f.Command(dir) + rest
			out = setValue(out, fmt.Sprintf("hooks.%s.%d.hooks.%d.command", gjson.Escape(f.Event), f.group, f.handler), to)
			changes = append(changes, Change{Kind: Move, Entry: f.Entry, Command: f.command, To: to})
		default:
			drop(f, "a second copy of layer "+f.Layer+"'s entry, which would fire twice")
		}
	}

	// From the back, so that the indexes of what remains hold; an emptied
	// group, event or "hooks" goes with its last entry.
	for _, f := range slices.Backward(doomed) {
		event := "hooks." + gjson.Escape(f.Event)
		group := event + "." + strconv.Itoa(f.group)
		var empty bool
		out, empty = remove(out, group+".hooks", strconv.Itoa(f.handler))
		if empty {
			out, empty = remove(out, event, strconv.Itoa(f.group))
		}
		if empty {
			out, empty = remove(out, "hooks", f.Event)
		}
		if empty {
			out, _ = remove(out, "", "hooks")
		}
	}

	for _, e := range want {
		if slices.ContainsFunc(present, func(f found) bool { return f.Entry == e }) {
			continue
		}
		g := group{Matcher: e.Matcher, Hooks: []handler{{Type: "command", Command: e.Command(dir), Timeout: e.Timeout}}}
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
