package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These tests check the fake API itself, without the CLI.

func post(t *testing.T, a *API, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(a.URL+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

const tools = `"tools":[{"name":"Bash"}]`

func TestFakeRejectsUnpairedToolUse(t *testing.T) {
	tests := []struct {
		name, messages, wantMsg string
	}{
		{
			name: "tool_use without tool_result",
			messages: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Bash","input":{}}]},
				{"role":"user","content":[{"type":"text","text":"where is the result"}]}]`,
			wantMsg: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a.",
		},
		{
			name: "tool_use last",
			messages: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_b","name":"Bash","input":{}}]}]`,
			wantMsg: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b.",
		},
		{
			name: "one of two results missing",
			messages: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"tool_use","id":"toolu_c","name":"Bash","input":{}},{"type":"tool_use","id":"toolu_d","name":"Bash","input":{}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_c","content":"ok"}]}]`,
			wantMsg: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_d.",
		},
		{
			name: "tool_result without tool_use",
			messages: `[{"role":"user","content":"go"},
				{"role":"assistant","content":[{"type":"text","text":"x"}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_e","content":"ok"}]}]`,
			wantMsg: "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_e.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := NewAPI(t)
			a.ExpectRejections()
			a.AddMainPrompt("go")
			a.Main(Steps(Say("unreachable")))
			resp, body := post(t, a, `{"model":"m","stream":true,`+tools+`,"messages":`+tt.messages+`}`)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", resp.StatusCode, body)
			}
			var e struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("error body is not JSON: %v: %s", err, body)
			}
			if e.Type != "error" || e.Error.Type != "invalid_request_error" || !strings.HasPrefix(e.Error.Message, tt.wantMsg) {
				t.Errorf("error body %s, want an invalid_request_error starting %q", body, tt.wantMsg)
			}
			if len(a.Rejected()) != 1 || len(a.Requests()) != 0 {
				t.Errorf("recorded %d rejected, %d accepted; want 1, 0", len(a.Rejected()), len(a.Requests()))
			}
		})
	}
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

func readSSE(t *testing.T, body string) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(strings.NewReader(body))
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

func TestFakeStreamsScriptedReplies(t *testing.T) {
	a := NewAPI(t)
	a.AddMainPrompt("main prompt")
	input := map[string]any{"command": "echo 'héllo wörld' && ls", "description": "d"}
	a.Main(Steps(
		Reply{Text: "looking", Tools: []ToolUse{{ID: "toolu_1", Name: "Bash", Input: input}}},
		Say("main done"),
	))
	a.Agent("agent prompt", Steps(Say("agent done")))

	first := `{"model":"m","stream":true,` + tools + `,"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"main prompt"}]}]}`
	_, body := post(t, a, first)
	events := readSSE(t, body)
	var names []string
	var partial strings.Builder
	for _, e := range events {
		names = append(names, e.Name)
		if d, ok := e.Data["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
			partial.WriteString(d["partial_json"].(string))
		}
	}
	wantNames := []string{"message_start",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("event sequence (-want +got):\n%s", diff)
	}
	var gotInput map[string]any
	if err := json.Unmarshal([]byte(partial.String()), &gotInput); err != nil {
		t.Fatalf("joined input_json_delta is not JSON: %v: %s", err, partial.String())
	}
	if diff := cmp.Diff(input, gotInput); diff != "" {
		t.Errorf("tool input after joining the deltas (-want +got):\n%s", diff)
	}
	if got := events[len(events)-2].Data["delta"].(map[string]any)["stop_reason"]; got != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", got)
	}

	// The next main request, a subagent's request and a side call each get
	// their own answer.
	second := `{"model":"m","stream":true,` + tools + `,"messages":[{"role":"user","content":"main prompt"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"héllo"}],"is_error":true}]}]}`
	agent := `{"model":"m","stream":false,` + tools + `,"messages":[{"role":"user","content":"agent prompt"}]}`
	side := `{"model":"m","stream":false,"messages":[{"role":"user","content":"title please"}]}`
	wantText := map[string]string{second: "main done", agent: "agent done", side: sideReply}
	for _, req := range []string{second, agent, side} {
		_, body := post(t, a, req)
		var got string
		if strings.Contains(req, `"stream":true`) {
			for _, e := range readSSE(t, body) {
				if d, ok := e.Data["delta"].(map[string]any); ok && d["type"] == "text_delta" {
					got += d["text"].(string)
				}
			}
		} else {
			var m struct{ Content []struct{ Text string } }
			if err := json.Unmarshal([]byte(body), &m); err != nil || len(m.Content) != 1 {
				t.Fatalf("non-streaming body %s: %v", body, err)
			}
			got = m.Content[0].Text
		}
		if got != wantText[req] {
			t.Errorf("reply %q, want %q", got, wantText[req])
		}
	}

	var threads []string
	for _, r := range a.Requests() {
		threads = append(threads, r.Thread)
	}
	if diff := cmp.Diff([]string{MainThread, MainThread, "agent prompt", SideThread}, threads); diff != "" {
		t.Errorf("threads (-want +got):\n%s", diff)
	}
	res, ok := a.ToolResult("toolu_1")
	if !ok || res.Text != "héllo" || !res.IsError {
		t.Errorf("ToolResult(toolu_1) = %+v, %v; want text héllo, is_error", res, ok)
	}
	if got := a.Last(MainThread).Step(); got != 1 {
		t.Errorf("Step of the second main request = %d, want 1", got)
	}
}

func TestSettingsGroupsHooks(t *testing.T) {
	got := Settings(
		Hook{Event: "PreToolUse", Matcher: "Bash", Command: "a"},
		Hook{Event: "SessionStart", Command: "c"},
		Hook{Event: "PreToolUse", Matcher: "Bash", Command: "b", Timeout: 5},
	)
	want := map[string]any{"hooks": map[string]any{
		"PreToolUse": []map[string]any{{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "command": "a"},
			map[string]any{"type": "command", "command": "b", "timeout": 5},
		}}},
		"SessionStart": []map[string]any{{"hooks": []any{map[string]any{"type": "command", "command": "c"}}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Settings (-want +got):\n%s", diff)
	}
}
