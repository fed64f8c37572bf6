package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Payload is a validated hook payload. Raw holds the bytes as read; the
// accessors read them with gjson, so fields are never decoded into structs
// and untouched parts stay byte-identical.
type Payload struct {
	Raw []byte
	// top holds the top-level members (the first of duplicate keys, as
	// gjson reads them), found in one pass: a payload can carry a tool
	// result of many megabytes, and every lookup by path would scan past it.
	top map[string]gjson.Result
	// ends is where Raw's long strings are (jsonscan.Split): walks over
	// Raw step over them instead of scanning them again.
	ends jsonscan.Ends
}

// Ends says where the payload's long strings are, indexed in Raw, for
// jsonscan's walks (Ends.EachMember, Ends.ValueEnd) over Raw or a value in
// it: a tool result of 50 MB is then not scanned again by each walk.
func (p *Payload) Ends() jsonscan.Ends { return p.ends }

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
	p, wait, release, err := readPayload(r)
	if err == nil {
		err = wait()
	}
	if err != nil {
		release()
		return nil, err
	}
	return p, nil
}

// ReadPayloadLazily is ReadPayload for a hook that works on the payload's
// long strings (spill-guard writing a 50 MB tool result to a file): it
// returns once everything but the bodies of those strings is validated,
// and checks the bodies on another core while the hook goes on. wait
// returns the verdict on them: nil, or the error ReadPayload would have
// returned. Until wait has returned nil, a long string may hold invalid
// escapes or UTF-8: use it only in ways undone when wait fails (a temporary
// file that is then removed), and print nothing of it. Everything else the
// payload holds (its shape, its keys, its short strings) is checked before
// it returns. wait may be called more than once.
func ReadPayloadLazily(r io.Reader) (p *Payload, wait func() error, err error) {
	p, wait, release, err := readPayload(r)
	if err != nil {
		release()
		return nil, nil, err
	}
	// When wait fails the buffer stays: the caller still holds p, and a
	// read of memory given back would be a fault, not an error.
	return p, wait, nil
}

// readPayload reads and parses a payload; release frees its buffer, which
// the caller may do once nothing refers to it.
func readPayload(r io.Reader) (p *Payload, wait func() error, release func(), err error) {
	if IsTerminal(r) {
		return nil, nil, func() {}, ErrTerminal
	}
	raw, release, err := readAll(r)
	if err != nil {
		return nil, nil, release, fmt.Errorf("reading stdin: %v", err)
	}
	p, wait, err = parse(raw)
	return p, wait, release, err
}

// ParsePayload validates raw as ReadPayload does.
func ParsePayload(raw []byte) (*Payload, error) {
	p, wait, err := parse(raw)
	if err == nil {
		err = wait()
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// parse is ParsePayload with the long string bodies checked in the
// background (see ReadPayloadLazily).
func parse(raw []byte) (*Payload, func() error, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, nil, errors.New("empty stdin: expected a hook payload (a JSON object)")
	}
	v := startValidation(raw)
	if err := v.skeleton(); err != nil {
		// The bodies' check may still be reading raw on another core, and
		// a rejected payload's buffer is unmapped as soon as this returns:
		// a read of it then is a fault that kills the process (exit 2).
		v.bodies()
		return nil, nil, err
	}
	// From here the shape of the payload is known good: the walks below
	// find every member where a parser would.
	p, err := parseMembers(raw, trimmed, v.ends)
	if err != nil {
		// A bad body makes the payload invalid JSON or UTF-8, which is
		// the error to report, as ReadPayload always has, before a
		// wrongly typed field.
		if berr := v.bodies(); berr != nil {
			return nil, nil, berr
		}
		return nil, nil, err
	}
	return p, v.bodies, nil
}

// parseMembers reads the top-level members of a payload whose shape is
// valid and checks the common fields' types.
func parseMembers(raw, trimmed []byte, ends jsonscan.Ends) (*Payload, error) {
	if trimmed[0] != '{' {
		return nil, errors.New("stdin is not a JSON object")
	}
	p := &Payload{Raw: raw, top: make(map[string]gjson.Result, 16), ends: ends}
	// A zero-copy view: raw is never modified after this point, and the
	// results point into it instead of copying a large tool result.
	ends.EachMember(view(raw), 0, func(key, value string, at int) bool {
		k := jsonscan.Key(key)
		if _, dup := p.top[k]; !dup {
			p.top[k] = jsonscan.Result(value, at)
		}
		return true
	})
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

// view is raw as a string, without a copy.
func view(raw []byte) string { return unsafe.String(unsafe.SliceData(raw), len(raw)) }

// Get returns the value at a gjson path. A path whose first component is a
// plain key is answered from the top-level members without rescanning Raw.
func (p *Payload) Get(path string) gjson.Result {
	key, rest, plain := firstKey(path)
	if !plain || p.top == nil {
		return gjson.GetBytes(p.Raw, path)
	}
	v := p.top[key]
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

// readAll reads r whole. From a regular file it reads into a buffer of the
// file's size at once, so a large payload costs its size and not the
// doublings of a growing buffer; from a pipe (how Claude Code sends it) it
// grows one (readGrowing). release frees the buffer when the bytes are not
// kept.
func readAll(r io.Reader) (b []byte, release func(), err error) {
	size := 0
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = int(fi.Size())
		}
	}
	if size == 0 {
		return readGrowing(r)
	}
	// One spare byte lets the read that meets EOF happen without growing.
	b = make([]byte, 0, size+1)
	adviseHugePages(b[:cap(b)])
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, func() {}, nil
		}
		if err != nil {
			return nil, func() {}, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew: let append pick the size
		}
	}
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
	return v.String(), true, nil
}
