package flowersettings

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Timeouts of the hook entries, in seconds: a ceiling for a stuck process
// (Claude Code kills it and drops its output), not a budget. spill-guard may
// first copy an output of tens of MB into the workbench.
const (
	guardTimeout = 10
	spillTimeout = 30
)

// Layer names accepted by --layers. Layer four is a command (prune-session),
// not a hook. LayerCapture is layer three's opt-in part for failing
// commands: spill-guard on PostToolUseFailure and the capture script in the
// settings "env" (env.go).
const (
	LayerDelegate  = "1"
	LayerWorkbench = "2"
	LayerSpill     = "3"
	LayerCapture   = "capture"
)

// AllLayers lists every layer name in the order they are printed.
var AllLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill, LayerCapture}

// DefaultLayers are wired when --layers is not given and nothing of flower is
// wired yet. The capture layer is opt-in: it runs a script in every Bash call.
var DefaultLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill}

// Entry is one hook handler flower puts into a settings file.
type Entry struct {
	Layer   string
	Event   string
	Matcher string // "" means the group has no matcher (every occurrence)
	Binary  string
	Timeout int // seconds
}

// Catalog is every hook entry flower wires, in the order they are added;
// settings.example.json and hooks/hooks.json are generated from it. Within
// one event a binary appears at most once: an entry is recognised in a
// settings file by its event and binary, so that the user's edits to its
// matcher, timeout or arguments do not make flower lose track of it.
var Catalog = []Entry{
	{Layer: LayerDelegate, Event: "PreToolUse", Matcher: "Bash|Write|Edit|NotebookEdit",
		Binary: "delegate-guard", Timeout: guardTimeout},
	// The coordinator's rules, before the main thread works and after each
	// compaction.
	{Layer: LayerDelegate, Event: "SessionStart", Binary: "delegate-guard", Timeout: guardTimeout},
	// A matcher with anything but letters, digits and "|" is an unanchored
	// regular expression to Claude Code: anchored, "Read" does not match
	// other tools whose names contain it, while mcp__.* takes every MCP tool.
	{Layer: LayerSpill, Event: "PostToolUse", Matcher: "^(Bash|Read|Grep|Glob|WebFetch|WebSearch|mcp__.*)$",
		Binary: "spill-guard", Timeout: spillTimeout},
	{Layer: LayerWorkbench, Event: "PostToolUse", Matcher: "Write|Edit|MultiEdit|NotebookEdit",
		Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "SessionStart", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "SubagentStart", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "UserPromptSubmit", Binary: "index-guard", Timeout: guardTimeout},
	// A failed Bash call fires PostToolUseFailure, not PostToolUse.
	{Layer: LayerCapture, Event: "PostToolUseFailure", Matcher: "Bash",
		Binary: "spill-guard", Timeout: spillTimeout},
}

// retired is what earlier versions wired, recognised by an argument, and
// this one removes wherever it finds it, saying why.
var retired = []struct{ Event, Binary, Arg, Why string }{
	// An "allow" skips Claude Code's own permission checks, which ask about
	// commands the glance table called read-only (a redirection to /dev/tcp,
	// test -v with a subscript): the hook traded two prompts for a bypass.
	{Event: "PreToolUse", Binary: "glance-check", Arg: "--hook",
		Why: "retired: flower no longer approves glances; Claude Code's own permission check decides"},
}

// Command is the shell command of e with its binary in dir; an empty dir
// calls the binary by name, to be found on PATH. Claude Code runs it through
// sh -c, so a path with spaces or quotes is single-quoted.
func (e Entry) Command(dir string) string {
	if dir == "" {
		return e.Binary
	}
	return shellQuote(filepath.Join(dir, e.Binary))
}

// IsCommandOf reports whether command runs e's binary from dir, alone or
// followed by arguments.
func (e Entry) IsCommandOf(command, dir string) bool {
	bin := e.Command(dir)
	return command == bin || strings.HasPrefix(command, bin+" ")
}

// shellQuote quotes s for sh unless every character is safe unquoted, so
// that a plain path stays readable in the settings file.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:=@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ParseLayers parses a --layers value: comma-separated names from AllLayers.
// The result is in AllLayers order without duplicates.
func ParseLayers(s string) ([]string, error) {
	names := strings.Split(s, ",")
	for i, name := range names {
		names[i] = strings.TrimSpace(name)
		if names[i] != "" && !slices.Contains(AllLayers, names[i]) {
			return nil, fmt.Errorf("unknown layer %q in --layers (known: %s)", names[i], strings.Join(AllLayers, ","))
		}
	}
	layers := sortLayers(names)
	switch {
	case len(layers) == 0:
		return nil, fmt.Errorf("--layers names no layer (known: %s)", strings.Join(AllLayers, ","))
	case slices.Contains(layers, LayerCapture) && !slices.Contains(layers, LayerSpill):
		// Without spill-guard on PostToolUse the model would see only the
		// capture script's marker of a call that succeeded.
		return nil, errors.New("the capture layer needs layer 3: spill-guard shows the model what it captured (use --layers 1,2,3,capture)")
	}
	return layers, nil
}

// sortLayers returns the layers named in names, in AllLayers order.
func sortLayers(names []string) []string {
	var out []string
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
