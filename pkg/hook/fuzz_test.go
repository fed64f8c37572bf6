package hook

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
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
		checkParse(t, raw)
		// Again with a long string in front, which the parse walks over
		// without scanning (jsonscan.Ends), checked in the background.
		if rest, ok := bytes.CutPrefix(bytes.TrimSpace(raw), []byte("{")); ok {
			long := `{"_long":"` + strings.Repeat(`line\n`, jsonscan.LongString) + `"`
			if r := bytes.TrimSpace(rest); len(r) > 0 && r[0] != '}' {
				long += ","
			}
			checkParse(t, append([]byte(long), rest...))
		}
	})
}

// checkParse checks what ParsePayload makes of raw against gjson.
func checkParse(t *testing.T, raw []byte) {
	t.Helper()
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
}
