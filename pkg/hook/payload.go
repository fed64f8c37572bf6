package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Payload is a validated hook payload. Raw holds the bytes as read; the
// accessors read them with gjson, so fields are never decoded into structs
// and untouched parts stay byte-identical.
type Payload struct {
	Raw []byte
}

// stringFields are the common payload fields that must be strings when present.
// A payload where one of them has another type is malformed, not "another event".
var stringFields = []string{
	"session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode",
	"agent_id", "agent_type", "tool_name", "tool_use_id", "source", "prompt",
}

// ReadPayload reads all of r and validates it as a hook payload: one JSON
// object, valid UTF-8, with a string hook_event_name and correctly typed
// common fields. The error says in one line what is wrong.
func ReadPayload(r io.Reader) (*Payload, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %v", err)
	}
	return ParsePayload(raw)
}

// ParsePayload validates raw as ReadPayload does.
func ParsePayload(raw []byte) (*Payload, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, errors.New("empty stdin: expected a hook payload (a JSON object)")
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("stdin is not valid UTF-8")
	}
	if !gjson.ValidBytes(raw) {
		return nil, fmt.Errorf("stdin is not valid JSON (%d bytes)", len(raw))
	}
	if trimmed[0] != '{' {
		return nil, errors.New("stdin is not a JSON object")
	}
	p := &Payload{Raw: raw}
	for _, f := range stringFields {
		if v := p.Get(f); v.Exists() && v.Type != gjson.String && v.Type != gjson.Null {
			return nil, fmt.Errorf("payload field %q is %s, want a string", f, typeName(v))
		}
	}
	if p.Get("hook_event_name").Type != gjson.String {
		return nil, errors.New(`payload has no "hook_event_name"`)
	}
	if v := p.Get("tool_input"); v.Exists() && !v.IsObject() {
		return nil, fmt.Errorf(`payload field "tool_input" is %s, want an object`, typeName(v))
	}
	return p, nil
}

// Get returns the value at a gjson path.
func (p *Payload) Get(path string) gjson.Result { return gjson.GetBytes(p.Raw, path) }

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
		return "", false, fmt.Errorf("payload field %q is %s, want a string", "tool_input."+name, typeName(v))
	}
	return v.String(), true, nil
}

func typeName(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True, v.Type == gjson.False:
		return "a boolean"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Null:
		return "null"
	}
	return "unknown"
}
