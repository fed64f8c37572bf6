package hook

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func FuzzParsePayload(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PostToolUse","tool_response":{"stdout":"x"}}`,
		`{"hook_event_name":7}`, `[]`, ``, `{"hook_event_name":"x","agent_id":null}`,
		"{\"hook_event_name\":\"\xff\"}", `{"hook_event_name":"a","hook_event_name":"b","tool_input":{"command":"x","command":"y"}}`,
		`{"hook_event_name":"a","tool_input":{"co\u006dmand":"x","command":"y"}}`, `{"hook_event_name":"a","h\u006fok_event_name":"b"}`,
		`{"hook_event_name":"a","tool_input":{"co\u006dmand":"x"},"a":{"b":{"c":[1]}}}`, `{"hook_event_name":"x","tool_input":"s"}`,
		`{"hook_event_name":"x","cwd":1,`, `{"hook_event_name":"x","cwd":"\x"}`, "{\"hook_event_name\":\"x\",\"a\":\"\x01\"}",
		`"x"`, `{"hook_event_name":"x"}]`, `{"hook_event_name":"x","s":"\u12"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParsePayload(raw)
		dup, dupIn := repeatsKey(raw, ""), repeatsKey(raw, "tool_input")
		if err != nil {
			if dup && gjson.Valid(raw) && utf8.ValidString(raw) && !strings.Contains(err.Error(), "twice") {
				t.Fatalf("a repeated top-level key gave %q", err)
			}
			return
		}
		if !gjson.Valid(raw) || !utf8.ValidString(raw) {
			t.Fatalf("accepted invalid input %q", raw)
		}
		if dup {
			t.Fatalf("accepted a repeated top-level key: %q", raw)
		}
		if p.Get("hook_event_name").Type != gjson.String {
			t.Fatalf("accepted a payload without a string event: %q", raw)
		}
		for _, path := range []string{"hook_event_name", "tool_input", "tool_input.command", "tool_response.stdout", "agent_id", "a.b.c", "tool_input.file_path"} {
			if got, want := p.Get(path), gjson.Get(raw, path); got.Raw != want.Raw || got.Type != want.Type || got.Str != want.Str {
				t.Fatalf("Get(%q) = %q, gjson says %q", path, got.Raw, want.Raw)
			}
		}
		_, _, err = p.ToolInputString("command")
		switch {
		case dupIn && err == nil:
			t.Fatalf("a repeated key in tool_input passed: %q", raw)
		case !dupIn && err != nil && p.Get("tool_input.command").Type == gjson.String:
			t.Fatalf("string command refused: %v", err)
		}
	})
}

// repeatsKey reports whether the object at the top-level key in (the
// payload itself for "") of the JSON text raw holds a key twice, as
// encoding/json's tokens say.
func repeatsKey(raw, in string) bool {
	if in != "" {
		raw = gjson.Get(raw, gjson.Escape(in)).Raw
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return false
		}
		if seen[key] {
			return true
		}
		seen[key] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
