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
		"{\"hook_event_name\":\"\xff\"}", `{"hook_event_name":"x","tool_input":"s"}`,
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
		if _, _, err := p.ToolInputString("command"); err != nil && p.Get("tool_input.command").Type == gjson.String {
			t.Fatalf("string command refused: %v", err)
		}
	})
}
