package hook

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Payload is a validated hook payload, read with gjson: fields are never
// decoded into structs, and untouched parts stay byte-identical.
type Payload struct {
	// Raw is the payload as read.
	Raw string
	// top holds the top-level members as written, found in one pass: a
	// payload can carry a tool result of a megabyte, and a lookup by path
	// from the top would scan past it each time.
	top map[string]string
	// in and inErr are tool_input's members as ToolInput found them,
	// once: a Write's tool_input holds the whole file it wrote.
	in    map[string]string
	inErr error
}

// MaxPayload is the most ReadPayload reads. Claude Code cannot build a
// larger payload (a V8 string holds at most 2^29 UTF-16 units, so its
// JSON.stringify output is under 1 GiB unless most of it is non-ASCII),
// and real ones are a few KB to 1 MB: Bash output past 30,000 characters
// arrives as a file path, Read and MCP results are capped near 25,000
// tokens.
const MaxPayload = 1 << 30

// stringFields are the common payload fields that must be strings when present.
// A payload where one of them has another type is malformed, not "another event".
var stringFields = []string{
	"session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode",
	"agent_id", "agent_type", "tool_name", "tool_use_id", "source", "prompt",
}

// ReadPayload reads all of r, up to MaxPayload bytes, and validates it as
// ParsePayload does; a terminal is refused at once (ErrTerminal). The
// error says in one line what is wrong.
func ReadPayload(r io.Reader) (*Payload, error) {
	if IsTerminal(r) {
		return nil, ErrTerminal
	}
	b, err := readAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %v", err)
	}
	if len(b) > MaxPayload {
		return nil, fmt.Errorf("stdin is over %d MiB: not a hook payload", MaxPayload>>20)
	}
	return ParsePayload(view(b))
}

// ParsePayload validates raw as a hook payload: one JSON object, valid
// UTF-8, with no key twice at its top level (gjson reads the first of
// two, Claude Code's JSON.parse the last: a guard would judge another
// value than the one that takes effect), a string hook_event_name and
// correctly typed common fields.
func ParsePayload(raw string) (*Payload, error) {
	switch {
	case strings.TrimSpace(raw) == "":
		return nil, errors.New("empty stdin: expected a hook payload (a JSON object)")
	case !utf8.ValidString(raw):
		return nil, errors.New("stdin is not valid UTF-8")
	// jsonscan.Valid accepts what gjson.Valid accepts, but checks the
	// bodies of long strings eight bytes a step: on a 1 MB payload,
	// gjson.Valid made a whole hook run 1.2 to 1.3x slower
	// (docs/BENCHMARKS.md, "What the read path's pieces buy").
	case !jsonscan.Valid(raw):
		return nil, fmt.Errorf("stdin is not valid JSON (%d bytes), or nested deeper than %d levels", len(raw), jsonscan.MaxNesting)
	case raw[jsonscan.SkipSpace(raw, 0)] != '{':
		return nil, errors.New("stdin is not a JSON object")
	}
	top, err := Members(raw, "")
	if err != nil {
		return nil, err
	}
	p := &Payload{Raw: raw, top: top}
	for _, f := range stringFields {
		if v := p.Get(f); v.Exists() && v.Type != gjson.String && v.Type != gjson.Null {
			return nil, fmt.Errorf("payload field %q is %s, want a string", f, jsonkind.Of(v))
		}
	}
	if p.Get("hook_event_name").Type != gjson.String {
		return nil, errors.New(`payload has no "hook_event_name"`)
	}
	if v := p.Get("tool_input"); v.Exists() && !v.IsObject() {
		return nil, fmt.Errorf(`payload field "tool_input" is %s, want an object`, jsonkind.Of(v))
	}
	return p, nil
}

// Members returns the members of the JSON object obj (valid JSON), each
// key unescaped, each value as written, or an error when obj holds a key
// twice: gjson reads the first of two, Claude Code's JSON.parse the last,
// so a hook would judge another value than the one that takes effect.
// path names obj in that error ("" for the payload itself). It decodes no
// value: gjson's ForEach would unescape every string it passes, a copy of
// a megabyte for a tool result nobody asked about.
func Members(obj, path string) (map[string]string, error) {
	out := make(map[string]string, 16)
	var err error
	jsonscan.EachMember(obj, func(key, value string, _ int) bool {
		k := jsonscan.Key(key)
		if _, dup := out[k]; dup {
			err = DuplicateKey(path, k)
			return false
		}
		out[k] = value
		return true
	})
	return out, err
}

// DuplicateKey is the error for an object of the payload, at path (""
// for the payload itself), that holds key twice.
func DuplicateKey(path, key string) error {
	if path == "" {
		return fmt.Errorf("payload has the key %q twice", key)
	}
	return fmt.Errorf("payload field %q has the key %q twice", path, key)
}

// Member is the top-level member key as written, without decoding it.
func (p *Payload) Member(key string) (string, bool) {
	v, ok := p.top[key]
	return v, ok
}

// Get returns the value at a gjson path, the first component of which is
// a top-level key.
func (p *Payload) Get(path string) gjson.Result {
	key, rest, plain := firstKey(path)
	if !plain {
		return gjson.Get(p.Raw, path)
	}
	v := gjson.Parse(p.top[key])
	if rest == "" || !v.Exists() {
		return v
	}
	return v.Get(rest)
}

// firstKey splits a gjson path at its first dot when the first component is
// a plain key, one with no character that gjson's path syntax gives a meaning.
func firstKey(path string) (key, rest string, plain bool) {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '.':
			return path[:i], path[i+1:], i > 0
		case '\\', '*', '?', '#', '|', '@', '!', '=', '<', '>', '%', '[', ']', '{', '}', '(', ')', '"', ':', ',':
			return "", "", false
		}
	}
	return path, "", path != ""
}

// Event is hook_event_name.
func (p *Payload) Event() string { return p.Get("hook_event_name").String() }

// ToolName is tool_name, empty for events without a tool.
func (p *Payload) ToolName() string { return p.Get("tool_name").String() }

// Cwd is the session's current directory as the payload reports it.
func (p *Payload) Cwd() string { return p.Get("cwd").String() }

// SessionID is session_id.
func (p *Payload) SessionID() string { return p.Get("session_id").String() }

// IsMainThread reports whether the hook fired on the main thread. Claude Code
// sets agent_id only inside a subagent; agent_type alone marks the main thread
// of an --agent session, so it does not count.
func (p *Payload) IsMainThread() bool { return p.Get("agent_id").String() == "" }

// ToolInput returns the members of tool_input (none when it is missing),
// or the error for a tool_input that holds a key twice.
func (p *Payload) ToolInput() (map[string]string, error) {
	if p.in == nil && p.inErr == nil {
		p.in, p.inErr = Members(p.top["tool_input"], "tool_input")
	}
	return p.in, p.inErr
}

// ToolInputString returns the string field name of tool_input. A field that
// exists with another type is an error, and so is a tool_input that holds
// it twice; a missing one is "", false.
func (p *Payload) ToolInputString(name string) (string, bool, error) {
	in, err := p.ToolInput()
	if err != nil {
		return "", false, err
	}
	v := gjson.Parse(in[name])
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return "", false, nil
	case v.Type != gjson.String:
		return "", false, fmt.Errorf("payload field %q is %s, want a string", "tool_input."+name, jsonkind.Of(v))
	}
	return v.String(), true, nil
}
