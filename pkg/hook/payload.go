package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// Payload is a checked hook payload, read with gjson: fields are never
// decoded into structs, and untouched parts stay byte-identical.
type Payload struct {
	// Raw is the payload as read.
	Raw string
	// top holds the top-level members as written, found by the check: a
	// payload can carry a tool result of a megabyte, which a lookup by
	// path from the top would scan past each time.
	top map[string]string
}

// MaxPayload is the most ReadPayload reads: more than Claude Code can build
// (a V8 string holds at most 2^29 UTF-16 units).
const MaxPayload = 1 << 30

// MaxNesting bounds how deep arrays and objects nest in a payload. Claude
// Code's JSON.stringify gives up at 5,000 levels (node 22, measured).
const MaxNesting = 100_000

// stringFields are the common payload fields that must be strings when present.
// A payload where one of them has another type is malformed, not "another event".
var stringFields = []string{
	"session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode",
	"agent_id", "agent_type", "tool_name", "tool_use_id", "source", "prompt",
}

// ErrTerminal is the error for a hook payload asked of a terminal: started by
// hand, a hook would otherwise wait silently for input.
var ErrTerminal = errors.New("stdin is a terminal: this is a Claude Code hook, it reads a hook payload (JSON) on stdin; see --help")

// IsTerminal reports whether r is a terminal: a character device other
// than /dev/null, which reads as empty input.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// firstBuffer holds every realistic payload (Bash output past 30,000
// characters arrives as a file path, Read and MCP results are capped near
// 25,000 tokens). It is made, not filled: only the pages a payload fills
// cost anything, where a buffer grown as it fills copies the payload.
const firstBuffer = 2 << 20

// ReadPayload reads all of r, up to MaxPayload bytes, and checks it as
// ParsePayload does; a terminal is refused at once (ErrTerminal). The
// error says in one line what is wrong.
func ReadPayload(r io.Reader) (*Payload, error) {
	if IsTerminal(r) {
		return nil, ErrTerminal
	}
	buf := bytes.NewBuffer(make([]byte, 0, firstBuffer))
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxPayload+1)); err != nil {
		return nil, fmt.Errorf("reading stdin: %v", err)
	}
	if buf.Len() > MaxPayload {
		return nil, fmt.Errorf("stdin is over %d MiB: not a hook payload", MaxPayload>>20)
	}
	// Viewed, not copied: nothing writes the buffer once read.
	return ParsePayload(unsafe.String(unsafe.SliceData(buf.Bytes()), buf.Len()))
}

// ParsePayload checks raw as a hook payload: one JSON object in valid
// UTF-8, no key twice in any object (gjson reads the first of two, Claude
// Code's JSON.parse the last: a guard would judge another value than the
// one that takes effect), a string hook_event_name and correctly typed
// common fields.
func ParsePayload(raw string) (*Payload, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("empty stdin: expected a hook payload (a JSON object)")
	}
	top, err := jsoncheck.Members(raw, MaxNesting)
	var e *jsoncheck.Error
	switch {
	case errors.As(err, &e) && e.Repeated && e.Path == "":
		return nil, fmt.Errorf("payload has the key %q twice", e.Key)
	case err != nil && e.Repeated:
		return nil, fmt.Errorf("payload field %q has the key %q twice", e.Path, e.Key)
	case err != nil && e.Msg == "not valid UTF-8":
		return nil, errors.New("stdin is not valid UTF-8")
	case err != nil:
		return nil, fmt.Errorf("stdin is not valid JSON (%d bytes): %v at byte %d", len(raw), err, e.Offset)
	case top == nil:
		return nil, errors.New("stdin is not a JSON object")
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

// Member is the top-level member key as written, without decoding it.
func (p *Payload) Member(key string) (string, bool) {
	v, ok := p.top[key]
	return v, ok
}

// Get returns the value at a gjson path. A first component that is a plain
// key, one with no character gjson's path syntax gives a meaning, is found
// among the members.
func (p *Payload) Get(path string) gjson.Result {
	key, rest, _ := strings.Cut(path, ".")
	if key == "" || strings.ContainsAny(key, `\*?#|@!=<>%[]{}()":,`) {
		return gjson.Get(p.Raw, path)
	}
	v := gjson.Parse(p.top[key])
	if rest == "" || !v.Exists() {
		return v
	}
	return v.Get(rest)
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

// ToolInputString returns the string field name of tool_input. A field that
// exists with another type is an error; a missing one is "", false.
func (p *Payload) ToolInputString(name string) (string, bool, error) {
	v := p.Get("tool_input." + gjson.Escape(name))
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return "", false, nil
	case v.Type != gjson.String:
		return "", false, fmt.Errorf("payload field %q is %s, want a string", "tool_input."+name, jsonkind.Of(v))
	}
	return v.Str, true, nil
}
