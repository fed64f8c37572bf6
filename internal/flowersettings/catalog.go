package flowersettings

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Timeouts in seconds: a ceiling for a stuck process, not a budget;
// spill-guard may copy tens of MB into the workbench.
const (
	guardTimeout = 10
	spillTimeout = 30
)

// Layers of --layers; capture is layer 3's opt-in part for failing commands.
const (
	LayerDelegate  = "1"
	LayerWorkbench = "2"
	LayerSpill     = "3"
	LayerCapture   = "capture"
)

// AllLayers lists every layer in the order they are printed.
var AllLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill, LayerCapture}

// DefaultLayers are wired when --layers is not given and nothing is wired yet.
var DefaultLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill}

// Entry is one hook handler flower puts into a settings file.
type Entry struct {
	Layer, Event string
	Matcher      string // "" for every occurrence
	Binary       string
	Timeout      int // seconds
}

// Catalog is every hook entry flower wires, in the order they are added. An
// entry is known in a file by its event and binary, whatever the user edited.
var Catalog = []Entry{
	{Layer: LayerDelegate, Event: "PreToolUse", Matcher: "Bash|Write|Edit|NotebookEdit", Binary: "delegate-guard", Timeout: guardTimeout},
	// The coordinator's rules, before the main thread works and after each compaction.
	{Layer: LayerDelegate, Event: "SessionStart", Binary: "delegate-guard", Timeout: guardTimeout},
	// A matcher with anything but letters, digits and "|" is an unanchored
	// regular expression to Claude Code: anchored, "Read" does not match
	// other tools whose names contain it, while mcp__.* takes every MCP tool.
	{Layer: LayerSpill, Event: "PostToolUse", Matcher: "^(Bash|Read|Grep|Glob|WebFetch|WebSearch|mcp__.*)$", Binary: "spill-guard", Timeout: spillTimeout},
	{Layer: LayerWorkbench, Event: "PostToolUse", Matcher: "Write|Edit|MultiEdit|NotebookEdit", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "SessionStart", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "SubagentStart", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "UserPromptSubmit", Binary: "index-guard", Timeout: guardTimeout},
	// A failed Bash call fires PostToolUseFailure, not PostToolUse.
	{Layer: LayerCapture, Event: "PostToolUseFailure", Matcher: "Bash", Binary: "spill-guard", Timeout: spillTimeout},
}

// retired is what earlier versions wired, known by an argument, removed wherever found.
var retired = []struct{ Event, Binary, Arg, Why string }{
	// An "allow" skips Claude Code's own permission checks, which ask about
	// commands the glance table called read-only (a redirection to /dev/tcp,
	// test -v with a subscript): the hook traded two prompts for a bypass.
	{"PreToolUse", "glance-check", "--hook", "retired: flower no longer approves glances; Claude Code's own permission check decides"},
}

// Command runs e's binary in dir (by name for ""), quoted for sh -c.
func (e Entry) Command(dir string) string {
	if dir == "" {
		return e.Binary
	}
	return shellQuote(filepath.Join(dir, e.Binary))
}

// IsCommandOf reports whether command runs e's binary from dir, with or without arguments.
func (e Entry) IsCommandOf(command, dir string) bool {
	bin := e.Command(dir)
	return command == bin || strings.HasPrefix(command, bin+" ")
}

// shellQuote quotes s for sh unless every character is safe unquoted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:=@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ParseLayers parses a --layers value into layers in AllLayers order.
func ParseLayers(s string) ([]string, error) {
	names := strings.Split(s, ",")
	for i, name := range names {
		if names[i] = strings.TrimSpace(name); names[i] != "" && !slices.Contains(AllLayers, names[i]) {
			return nil, fmt.Errorf("unknown layer %q in --layers (known: %s)", names[i], strings.Join(AllLayers, ","))
		}
	}
	switch layers := sortLayers(names); {
	case len(layers) == 0:
		return nil, fmt.Errorf("--layers names no layer (known: %s)", strings.Join(AllLayers, ","))
	case slices.Contains(layers, LayerCapture) && !slices.Contains(layers, LayerSpill):
		// Without spill-guard on PostToolUse the model would see only the
		// capture script's marker of a call that succeeded.
		return nil, errors.New("the capture layer needs layer 3: spill-guard shows the model what it captured (use --layers 1,2,3,capture)")
	default:
		return layers, nil
	}
}

// sortLayers returns the layers named in names, in AllLayers order.
func sortLayers(names []string) (out []string) {
	for _, l := range AllLayers {
		if slices.Contains(names, l) {
			out = append(out, l)
		}
	}
	return out
}

// Binaries is the sorted set of binaries the entries of layers run.
func Binaries(layers []string) []string {
	var out []string
	for _, e := range Catalog {
		if slices.Contains(layers, e.Layer) {
			out = append(out, e.Binary)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
