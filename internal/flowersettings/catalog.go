package flowersettings

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Timeouts of the hook entries, in seconds. Hooks run on every matching tool
// call and a timed-out hook is killed with its output dropped (the action
// proceeds as if it were absent), so a timeout is a ceiling for a stuck
// process, not a budget: the guards answer in milliseconds.
const (
	guardTimeout = 10
	// spillTimeout is longer because spill-guard may copy a large output
	// (Claude Code's persisted Bash output can reach tens of MB) into the
	// workbench before it answers.
	spillTimeout = 30
)

// Layer names accepted by --layers. Layer four is a command (prune-session),
// not a hook. LayerCapture is layer three's opt-in part for failing
// commands (package capture): spill-guard on PostToolUseFailure, and the
// capture script named by BASH_ENV in the settings "env" (env.go). It
// needs LayerSpill.
const (
	LayerDelegate  = "1"
	LayerWorkbench = "2"
	LayerSpill     = "3"
	LayerCapture   = "capture"
)

// AllLayers lists every layer name in the order they are printed.
var AllLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill, LayerCapture}

// DefaultLayers are wired when --layers is not given and nothing of flower is
// wired yet. The capture layer is opt-in: it runs a script in every Bash call
// (see its section in docs/REFERENCE.md).
var DefaultLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill}

// Entry is one hook handler flower puts into a settings file.
type Entry struct {
	Layer   string
	Event   string
	Matcher string // "" means the group has no matcher (every occurrence)
	Binary  string
	Args    []string
	Timeout int // seconds
}

// Catalog is every hook entry flower wires, in the order they are added. It
// is the only list of them: settings.example.json and hooks/hooks.json are
// generated from it (a test keeps them equal).
//
// Within one event a binary appears at most once: an entry is recognised in a
// settings file by its event and binary, so that a user's edits to its
// matcher, timeout or arguments do not make flower lose track of it.
var Catalog = []Entry{
	{Layer: LayerDelegate, Event: "PreToolUse", Matcher: "Bash|Write|Edit|NotebookEdit",
		Binary: "delegate-guard", Timeout: guardTimeout},
	// A matcher with anything but letters, digits and "|" is an unanchored
	// regular expression to Claude Code; anchoring keeps "Read" from matching
	// other tools whose names contain it, while mcp__.* takes every MCP tool.
	{Layer: LayerSpill, Event: "PostToolUse", Matcher: "^(Bash|Read|Grep|Glob|WebFetch|WebSearch|mcp__.*)$",
		Binary: "spill-guard", Timeout: spillTimeout},
	{Layer: LayerWorkbench, Event: "PostToolUse", Matcher: "Write|Edit|MultiEdit|NotebookEdit",
		Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "SessionStart", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "SubagentStart", Binary: "index-guard", Timeout: guardTimeout},
	{Layer: LayerWorkbench, Event: "UserPromptSubmit", Binary: "index-guard", Timeout: guardTimeout},
	// A failed Bash call fires PostToolUseFailure, not PostToolUse: the
	// view of its captured output is an additionalContext.
	{Layer: LayerCapture, Event: "PostToolUseFailure", Matcher: "Bash",
		Binary: "spill-guard", Timeout: spillTimeout},
}

// Retired is what earlier versions wired and this one removes wherever it
// finds it, whichever folder the binary is in: an install or uninstall over
// an older install takes it out and says why.
var Retired = []struct {
	Event  string
	Binary string
	Arg    string // the argument that made the entry what it was
	Why    string
}{
	// An "allow" skips Claude Code's own permission checks, which ask about
	// commands the glance table called read-only (a redirection to /dev/tcp,
	// test -v with a subscript): the hook traded two prompts for a bypass.
	{Event: "PreToolUse", Binary: "glance-check", Arg: "--hook",
		Why: "retired: flower no longer approves glances; Claude Code's own permission check decides"},
}

// same reports whether e and o are the same entry: within a settings file an
// entry is known by its event and binary (see Catalog).
func (e Entry) same(o Entry) bool { return e.Event == o.Event && e.Binary == o.Binary }

// Command is the shell command of e with its binary in dir; an empty dir
// calls the binary by name, to be found on PATH. Claude Code runs it through
// sh -c, so a path with spaces or quotes is single-quoted.
func (e Entry) Command(dir string) string {
	bin := e.Binary
	if dir != "" {
		bin = filepath.Join(dir, e.Binary)
	}
	words := append([]string{shellQuote(bin)}, e.Args...)
	return strings.Join(words, " ")
}

// IsCommandOf reports whether command runs e's binary from dir: the quoted
// binary path alone or followed by arguments. The arguments, the matcher and
// the timeout may have been edited by the user; it is still flower's entry.
func (e Entry) IsCommandOf(command, dir string) bool {
	bin := shellQuote(filepath.Join(dir, e.Binary))
	return command == bin || strings.HasPrefix(command, bin+" ")
}

// shellQuote quotes s for sh when it holds anything but characters that are
// safe unquoted, so that a plain path stays readable in the settings file.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:=@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ParseLayers parses a --layers value: comma-separated names from AllLayers.
// The result is in AllLayers order without duplicates.
func ParseLayers(s string) ([]string, error) {
	var set []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(AllLayers, name) {
			return nil, fmt.Errorf("unknown layer %q in --layers (known: %s)", name, strings.Join(AllLayers, ","))
		}
		set = append(set, name)
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("--layers names no layer (known: %s)", strings.Join(AllLayers, ","))
	}
	if slices.Contains(set, LayerCapture) && !slices.Contains(set, LayerSpill) {
		return nil, errCaptureNeedsSpill
	}
	return sortLayers(set), nil
}

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
		if slices.Contains(layers, e.Layer) && !slices.Contains(out, e.Binary) {
			out = append(out, e.Binary)
		}
	}
	slices.Sort(out)
	return out
}
