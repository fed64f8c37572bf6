package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// MainThread is the Thread of the main thread's requests.
const MainThread = "main"

// continuedPrefix begins the summary the CLI opens a thread with after an
// automatic compaction: such a thread is the main thread continued.
const continuedPrefix = "This session is being continued from a previous conversation"

// SideThread is the Thread of side calls: requests without tools (titles,
// summaries), which the API answers with sideReply.
const SideThread = "side"

// sideReply is the answer to a side call. Short, like a session title.
const sideReply = "E2E session"

// Script answers one request of one thread. It runs on the server's
// goroutine: it may read the request but must not call t.Fatal.
type Script func(r *Request) Reply

// Steps is the usual Script: the reply to a thread's request is
// replies[n], n being the number of assistant messages the request already
// holds (0 for the first request, 1 after one answer, …). A resumed session
// carries its earlier assistant messages, so its first request continues
// where the recorded session stopped. A request past the last reply fails the
// test and is answered with end_turn so that the CLI stops.
func Steps(replies ...Reply) Script {
	return func(r *Request) Reply {
		n := r.Step()
		if n >= len(replies) {
			return Reply{Text: "(script exhausted)", exhausted: fmt.Sprintf("step %d of a %d-step script", n, len(replies))}
		}
		return replies[n]
	}
}

// Reply is one scripted answer of the model: optional text, then tool calls.
// The stop reason is tool_use when there are tool calls, end_turn otherwise.
type Reply struct {
	Text  string
	Tools []ToolUse

	exhausted string // set by Steps past its end: the API reports it
}

// Say is a reply of text only: the thread ends its turn.
func Say(text string) Reply { return Reply{Text: text} }

// Call is a reply that calls tools (in parallel when several).
func Call(tools ...ToolUse) Reply { return Reply{Tools: tools} }

// ToolUse is one tool call of a reply. ID must be unique within a session;
// tests use it to find the tool's result (API.ToolResult).
type ToolUse struct {
	ID    string
	Name  string
	Input map[string]any
}

// Bash calls the Bash tool.
func Bash(id, command string) ToolUse {
	return ToolUse{ID: id, Name: "Bash", Input: map[string]any{"command": command, "description": "e2e: " + id}}
}

// Read calls the Read tool; path is absolute.
func Read(id, path string) ToolUse {
	return ToolUse{ID: id, Name: "Read", Input: map[string]any{"file_path": path}}
}

// Write calls the Write tool; path is absolute.
func Write(id, path, content string) ToolUse {
	return ToolUse{ID: id, Name: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

// Edit calls the Edit tool; path is absolute. The CLI refuses an Edit of a
// file the thread has not Read first.
func Edit(id, path, oldString, newString string) ToolUse {
	return ToolUse{ID: id, Name: "Edit", Input: map[string]any{"file_path": path, "old_string": oldString, "new_string": newString}}
}

// Agent dispatches a synchronous general-purpose subagent whose first user
// message is prompt; script the subagent with API.Agent(prompt, …). (The CLI
// runs an Agent call in the background unless run_in_background is false.)
func Agent(id, prompt string) ToolUse {
	return ToolUse{ID: id, Name: "Agent", Input: map[string]any{
		"description": "e2e " + id, "prompt": prompt,
		"subagent_type": "general-purpose", "run_in_background": false,
	}}
}

// API is a fake Anthropic Messages API for the real CLI: it answers
// POST /v1/messages with SSE streams from the scenario's scripts, records
// every request, and rejects what the real API rejects (a tool_use without
// its tool_result right after it: HTTP 400, API-shaped error body).
type API struct {
	URL string // set ANTHROPIC_BASE_URL to this

	t   testing.TB
	srv *httptest.Server

	mu          sync.Mutex
	mainPrompts map[string]bool
	main        Script
	agents      map[string]Script
	requests    []*Request
	rejected    []*Request
	expectBad   bool
	nextMsgID   int
}

// NewAPI starts a fake API, closed when the test ends. Scenario makes one;
// call NewAPI directly only to test the fake itself.
func NewAPI(t testing.TB) *API {
	a := &API{t: t, mainPrompts: map[string]bool{}, agents: map[string]Script{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	a.URL = a.srv.URL
	t.Cleanup(a.srv.Close)
	return a
}

// Main scripts the main thread.
func (a *API) Main(s Script) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.main = s
}

// Agent scripts the subagent whose first user message is prompt (the Agent
// call's prompt input).
func (a *API) Agent(prompt string, s Script) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.agents[prompt] = s
}

// AddMainPrompt marks prompt as a main-thread prompt. Scenario.Run does this
// for its prompt; a resumed session keeps its first prompt, so it routes too.
func (a *API) AddMainPrompt(prompt string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mainPrompts[prompt] = true
}

// ExpectRejections stops a rejected request from failing the test (for tests
// that check the rejection itself).
func (a *API) ExpectRejections() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expectBad = true
}

// Requests returns every accepted request so far, in arrival order.
func (a *API) Requests() []*Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*Request(nil), a.requests...)
}

// Rejected returns the requests answered with HTTP 400.
func (a *API) Rejected() []*Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*Request(nil), a.rejected...)
}

// Thread returns the accepted requests of one thread: MainThread, SideThread
// or a subagent's prompt.
func (a *API) Thread(thread string) []*Request {
	var out []*Request
	for _, r := range a.Requests() {
		if r.Thread == thread {
			out = append(out, r)
		}
	}
	return out
}

// Last returns the latest accepted request of a thread, or nil.
func (a *API) Last(thread string) *Request {
	rs := a.Thread(thread)
	if len(rs) == 0 {
		return nil
	}
	return rs[len(rs)-1]
}

// ToolResult finds the tool_result of the tool call id in the latest request
// that holds one: what the model saw of that call.
func (a *API) ToolResult(id string) (Block, bool) {
	rs := a.Requests()
	for i := len(rs) - 1; i >= 0; i-- {
		if b, ok := rs[i].ToolResult(id); ok {
			return b, true
		}
	}
	return Block{}, false
}

// apiError is the body the real API sends with a 4xx.
func apiError(kind, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}})
	return b
}

func (a *API) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages/count_tokens":
		r, err := ParseRequest(body)
		if err != nil {
			a.reject(w, nil, err.Error())
			return
		}
		writeJSON(w, map[string]any{"input_tokens": tokens(r.RequestChars())})
		return
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages":
	case hr.Method == http.MethodHead:
		// Older CLIs (2.1.178) warm the connection with a HEAD of the base
		// URL at start and ignore the answer.
		return
	default:
		a.t.Errorf("fake API: unexpected %s %s", hr.Method, hr.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write(apiError("not_found_error", "not found: "+hr.URL.Path))
		return
	}

	r, err := ParseRequest(body)
	if err == nil {
		err = r.check()
	}
	if err != nil {
		a.reject(w, r, err.Error())
		return
	}
	a.dump(body)

	a.mu.Lock()
	var script Script
	switch {
	case len(r.Tools) == 0:
		r.Thread = SideThread
	case a.agents[r.FirstPrompt()] != nil:
		r.Thread = r.FirstPrompt()
		script = a.agents[r.Thread]
	case (a.mainPrompts[r.FirstPrompt()] || strings.HasPrefix(r.FirstPrompt(), continuedPrefix)) && a.main != nil:
		r.Thread = MainThread
		script = a.main
	}
	a.requests = append(a.requests, r)
	a.nextMsgID++
	msgID := fmt.Sprintf("msg_e2e_%03d", a.nextMsgID)
	a.mu.Unlock()

	var reply Reply
	switch {
	case r.Thread == SideThread:
		reply = Say(sideReply)
	case script == nil:
		a.t.Errorf("fake API: no script for a thread whose first user message is %.200q", r.FirstPrompt())
		reply = Say("(no script for this thread)")
	default:
		reply = script(r)
		if reply.exhausted != "" {
			a.t.Errorf("fake API: thread %.80q asked for %s", r.Thread, reply.exhausted)
		}
	}
	if r.Stream {
		writeSSE(w, msgID, r.Model, tokens(r.RequestChars()), reply)
	} else {
		writeJSON(w, message(msgID, r.Model, tokens(r.RequestChars()), reply))
	}
}

// reject answers HTTP 400 as the real API does and, unless expected, fails
// the test: a broken transcript must fail loudly.
func (a *API) reject(w http.ResponseWriter, r *Request, msg string) {
	a.mu.Lock()
	if r != nil {
		a.rejected = append(a.rejected, r)
	}
	expected := a.expectBad
	a.mu.Unlock()
	if !expected {
		a.t.Errorf("fake API: rejected a request (HTTP 400): %s", msg)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(apiError("invalid_request_error", msg))
}

// dump writes each accepted request body to $FLOWER_E2E_DUMP/NNN.json, for
// looking at what the CLI really sends while writing a scenario.
func (a *API) dump(body []byte) {
	dir := os.Getenv("FLOWER_E2E_DUMP")
	if dir == "" {
		return
	}
	a.mu.Lock()
	n := len(a.requests) + len(a.rejected)
	a.mu.Unlock()
	name := fmt.Sprintf("%s-%03d.json", strings.ReplaceAll(a.t.Name(), "/", "_"), n)
	if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
		a.t.Errorf("fake API: dump: %v", err)
	}
}

// charsPerToken turns characters into the token counts the fake reports, of
// the whole request (Request.RequestChars) as the real API's are. The CLI
// uses them for its auto-compact threshold and cost display; 4 is the usual
// rough ratio for English text.
const charsPerToken = 4

func tokens(chars int) int { return chars/charsPerToken + 1 }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// blocks renders a reply as Messages API content blocks.
func (rp Reply) blocks() []map[string]any {
	var out []map[string]any
	if rp.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": rp.Text})
	}
	for _, tu := range rp.Tools {
		in := tu.Input
		if in == nil {
			in = map[string]any{}
		}
		out = append(out, map[string]any{"type": "tool_use", "id": tu.ID, "name": tu.Name, "input": in})
	}
	return out
}

func (rp Reply) stopReason() string {
	if len(rp.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func usage(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// message is the non-streaming response body.
func message(id, model string, inTokens int, rp Reply) map[string]any {
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": rp.blocks(), "stop_reason": rp.stopReason(), "stop_sequence": nil,
		"usage": usage(inTokens, 10),
	}
}

// writeSSE streams rp the way the real API does: message_start, per block
// content_block_start / _delta / _stop (text_delta, input_json_delta split in
// two so the CLI must join partial JSON), message_delta with the stop
// reason, message_stop.
func writeSSE(w http.ResponseWriter, id, model string, inTokens int, rp Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var buf bytes.Buffer
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	start := message(id, model, inTokens, Reply{})
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = usage(inTokens, 1)
	event("message_start", map[string]any{"message": start})
	for i, b := range rp.blocks() {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			half := len(in) / 2
			for half > 0 && !utf8.RuneStart(in[half]) {
				half--
			}
			for _, part := range [][]byte{in[:half], in[half:]} {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(part)}})
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": rp.stopReason(), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event("message_stop", map[string]any{})
	w.Write(buf.Bytes())
}
