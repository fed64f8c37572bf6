package hook

import (
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
		`{"hook_event_name":"a","tool_input":{"co\u006dmand":"x"},"a":{"b":{"c":[1]}}}`, `{"hook_event_name":"x","tool_input":"s"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParsePayload(raw)
		if err != nil {
			return
		}
		if !gjson.ValidBytes(raw) || !utf8.Valid(raw) {
			t.Fatalf("accepted invalid input %q", raw)
		}
		if p.Get("hook_event_name").Type != gjson.String {
			t.Fatalf("accepted a payload without a string event: %q", raw)
		}
		for _, path := range []string{"hook_event_name", "tool_input", "tool_input.command", "tool_response.stdout", "agent_id", "a.b.c", "tool_input.file_path"} {
			if got, want := p.Get(path), gjson.GetBytes(raw, path); got.Raw != want.Raw || got.Type != want.Type || got.Str != want.Str {
				t.Fatalf("Get(%q) = %q, gjson says %q", path, got.Raw, want.Raw)
			}
		}
		if _, _, err := p.ToolInputString("command"); err != nil && p.Get("tool_input.command").Type == gjson.String {
			t.Fatalf("string command refused: %v", err)
		}
	})
}
