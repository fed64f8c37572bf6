package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Lines recorded with Claude Code 2.1.328 against a fake API (usage and
// system fields trimmed): a prompt, one block of a response, a tool result,
// a denial, an API error, a subagent entry and an entry type without uuid.
var recorded = map[string]string{
	"prompt":    `{"parentUuid":null,"isSidechain":false,"promptId":"0920","type":"user","message":{"role":"user","content":"do the thing"},"uuid":"bb99","timestamp":"2026-11-30T02:44:58.423Z","cwd":"/tmp/rec/ws","sessionId":"a8e3","version":"2.1.328"}`,
	"tool_use":  `{"parentUuid":"e18e","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"git status","description":"status"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":20}},"type":"assistant","uuid":"bf22","timestamp":"2026-11-30T02:45:00.900Z","cwd":"/tmp/rec/ws","sessionId":"a8e3"}`,
	"result":    `{"parentUuid":"bff7","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_02","type":"tool_result","content":"a.txt","is_error":false}]},"uuid":"1523","toolUseResult":{"stdout":"a.txt","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},"sourceToolAssistantUUID":"bff7","permissionDecision":{"decision":"accept","source":"config"},"sessionId":"a8e3"}`,
	"denial":    `{"parentUuid":"f980","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"Permission to use Bash with command rm -f junk.txt has been denied.","is_error":true,"tool_use_id":"toolu_03"}]},"uuid":"1c55","toolUseResult":"Error: Permission to use Bash with command rm -f junk.txt has been denied.","toolDenialKind":"permission-rule","permissionDecision":{"decision":"reject","source":"hook"},"sessionId":"a8e3"}`,
	"api error": `{"parentUuid":"e001","isSidechain":false,"type":"assistant","uuid":"e002","message":{"id":"9d3e","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Connection error."}]},"isApiErrorMessage":true,"sessionId":"a8e3"}`,
	"subagent":  `{"parentUuid":"35f0","isSidechain":true,"agentId":"a2a3","message":{"id":"msg_6","role":"assistant","content":[{"type":"tool_use","id":"toolu_07","name":"Bash","input":{"command":"ls -la"}}]},"type":"assistant","uuid":"83de","sessionId":"a8e3"}`,
	"last":      `{"type":"last-prompt","lastPrompt":"do the thing","leafUuid":"941e","sessionId":"a8e3"}`,
	"blocks":    `{"type":"user","uuid":"x","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":[{"type":"text","text":"héllo"},{"type":"image","source":{}}]}]}}`,
}

// summary is what a test compares of a parsed entry.
type summary struct {
	Type, UUID, Parent, Leaf, Session, Denial, Source, MsgID string
	Sidechain, APIError                                      bool
	Uses, Results                                            []string
	Chars                                                    int
	Context                                                  int64
}

func summarize(e *Entry) summary {
	s := summary{Type: e.Type, UUID: e.UUID, Parent: e.ParentUUID, Leaf: e.LeafUUID, Session: e.SessionID,
		Denial: e.ToolDenialKind, Source: e.DenialSource, Sidechain: e.IsSidechain,
		APIError: e.IsAPIError, Chars: e.Chars()}
	if e.Message != nil {
		s.MsgID = e.Message.ID
		s.Context = e.Message.Usage.ContextTokens()
	}
	for _, b := range e.ToolUses() {
		s.Uses = append(s.Uses, b.Name+":"+b.ID)
	}
	for _, b := range e.ToolResults() {
		s.Results = append(s.Results, b.ToolUseID)
	}
	return s
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		want summary
	}{
		{"prompt", summary{Type: "user", UUID: "bb99", Session: "a8e3", Chars: 12}},
		{"tool_use", summary{Type: "assistant", UUID: "bf22", Parent: "e18e", Session: "a8e3", MsgID: "msg_1",
			Uses: []string{"Bash:toolu_01"}, Chars: len(`{"command":"git status","description":"status"}`), Context: 115}},
		{"result", summary{Type: "user", UUID: "1523", Parent: "bff7", Session: "a8e3", Source: "config", Results: []string{"toolu_02"}, Chars: 5}},
		{"denial", summary{Type: "user", UUID: "1c55", Parent: "f980", Session: "a8e3", Denial: "permission-rule", Source: "hook",
			Results: []string{"toolu_03"}, Chars: len("Permission to use Bash with command rm -f junk.txt has been denied.")}},
		{"api error", summary{Type: "assistant", UUID: "e002", Parent: "e001", Session: "a8e3", MsgID: "9d3e", APIError: true, Chars: 28}},
		{"subagent", summary{Type: "assistant", UUID: "83de", Parent: "35f0", Session: "a8e3", MsgID: "msg_6",
			Sidechain: true, Uses: []string{"Bash:toolu_07"}, Chars: len(`{"command":"ls -la"}`)}},
		{"last", summary{Type: "last-prompt", Leaf: "941e", Session: "a8e3"}},
		{"blocks", summary{Type: "user", UUID: "x", Results: []string{"t"}, Chars: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse([]byte(recorded[tt.name]))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(e)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, line, want string }{
		{"empty", ``, "not valid JSON"},
		{"truncated", `{"type":"user","uuid":"a`, "not valid JSON"},
		{"array", `[1]`, "an array, want a JSON object"},
		{"bad utf-8", "{\"type\":\"user\",\"x\":\"\xff\"}", "not valid UTF-8"},
		{"no type", `{"uuid":"a"}`, `no "type" field`},
		{"type number", `{"type":1}`, `field "type" is a number, want a string`},
		{"parent number", `{"type":"user","parentUuid":3}`, `field "parentUuid" is a number, want a string`},
		{"sidechain string", `{"type":"user","isSidechain":"yes"}`, `field "isSidechain" is a string, want a boolean`},
		{"message array", `{"type":"user","message":[]}`, `field "message" is an array, want an object`},
		{"content object", `{"type":"user","message":{"content":{}}}`, `field "message.content" is an object, want a string or an array`},
		{"block string", `{"type":"user","message":{"content":["x"]}}`, `field "message.content.0" is a string, want an object`},
		{"tool_use input", `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":"ls"}]}}`, `field "message.content.0.input" is a string, want an object`},
		{"result content", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":5}]}}`, `field "message.content.0.content" is a number, want a string or an array`},
		{"usage string", `{"type":"assistant","message":{"usage":{"input_tokens":"5"}}}`, `field "message.usage.input_tokens" is a string, want a number`},
		// Fields prune-session edits by path: gjson's path takes the first,
		// Claude Code the last.
		{"message twice", `{"type":"user","message":{"content":"x"},"message":{"content":"y"}}`, `field "message" appears twice`},
		{"parent twice", `{"type":"user","parentUuid":"a","parentUuid":"b"}`, `field "parentUuid" appears twice`},
		{"session id twice", `{"type":"user","sessionId":"a","sessionId":"b"}`, `field "sessionId" appears twice`},
		{"session_id twice", `{"type":"user","session_id":"a","session_id":"b"}`, `field "session_id" appears twice`},
		{"content twice", `{"type":"user","message":{"content":"x","content":[]}}`, `field "message.content" appears twice`},
		{"key twice elsewhere", `{"type":"user","toolUseResult":{"a":1,"\u0061":2}}`, `field "toolUseResult.a" appears twice`},
		{"nested too deep", `{"type":"user","x":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`, "not valid JSON"},
		{"result content twice", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"a","content":"b"}]}}`, `field "message.content.0.content" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.line))
			got := "<nil>"
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 3*readBufferSize+17)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "a\nb\n", []string{"a", "b"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"carriage return kept", "a\r\nb\n", []string{"a\r", "b"}},
		{"empty line", "a\n\nb\n", []string{"a", "", "b"}},
		{"longer than the buffer", "a\n" + long + "\nb\n", []string{"a", long, "b"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in))
			var got []string
			for {
				b, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
				if r.Line() != len(got) {
					t.Errorf("Line() = %d after %d lines", r.Line(), len(got))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderSkipsOverlongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a line over MaxLineBytes")
	}
	in := "a\n" + strings.Repeat("x", MaxLineBytes+1) + "\nb\n"
	r := NewReader(strings.NewReader(in))
	if b, err := r.Next(); err != nil || string(b) != "a" {
		t.Fatalf("first line: %q, %v", b, err)
	}
	_, err := r.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("second line: %v, want line 2 too long", err)
	}
	if b, err := r.Next(); err != nil || string(b) != "b" {
		t.Fatalf("third line: %q, %v", b, err)
	}
}

func TestVerify(t *testing.T) {
	user := func(uuid, parent string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + p + `,"message":{"content":"x"}}`
	}
	use := `{"type":"assistant","uuid":"b","parentUuid":"a","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`
	result := `{"type":"user","uuid":"c","parentUuid":"b","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"whole", []string{user("a", ""), use, result, `{"type":"last-prompt","leafUuid":"c"}`}, nil},
		{"missing result", []string{user("a", ""), use}, []string{"tool_use t1 has no tool_result"}},
		{"missing use", []string{user("a", ""), result}, []string{"line 2: parentUuid b names no entry", "tool_result t1 answers no tool_use", "the chain from the newest leaf c breaks at b"}},
		{"dangling leaf", []string{user("a", ""), `{"type":"summary","leafUuid":"zz"}`}, []string{"line 2: leafUuid zz names no entry"}},
		{"cycle", []string{user("a", "b"), user("b", "a"), user("c", "a")}, []string{"the chain from the newest leaf c loops at a"}},
		// A loop off the newest leaf's chain: removing that leaf would put
		// it on the chain (FuzzPrune's crasher 150affd3efb32a85).
		{"self-loop elsewhere", []string{user("a", ""), user("c", "c"), user("d", "c"), user("e", "")}, []string{"the chain of parentUuid loops at c"}},
		{"duplicate", []string{user("a", ""), user("a", "")}, []string{"line 2: uuid a appears twice"}},
		{"bad line", []string{user("a", ""), `{"type":`}, []string{"line 2: not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Verify(strings.NewReader(strings.Join(tt.lines, "\n") + "\n"))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	id := "0b0b0b0b-1111-4111-8111-111111111111"
	p := filepath.Join(cfg, "projects", "-home-u-ws", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Locate(id)
	if err != nil || got != p {
		t.Errorf("Locate(id) = %q, %v; want %q", got, err, p)
	}
	if got, err := Locate(p); err != nil || got != p {
		t.Errorf("Locate(path) = %q, %v", got, err)
	}
	for _, bad := range []string{"", "nope", "*", "..", filepath.Join(cfg, "missing.jsonl"), filepath.Dir(p) + "/"} {
		if _, err := Locate(bad); err == nil {
			t.Errorf("Locate(%q) found something", bad)
		}
	}
	if dir, _ := ProjectDir("/home/u/ws"); dir != filepath.Dir(p) {
		t.Errorf("ProjectDir = %q, want %q", dir, filepath.Dir(p))
	}
	if got := SessionID(p); got != id {
		t.Errorf("SessionID = %q", got)
	}
}

// FuzzParse: Parse never panics, answers the same twice, and an entry it
// accepts keeps the line it came from.
func FuzzParse(f *testing.F) {
	for _, l := range recorded {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[1]}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e1, err1 := Parse(line)
		e2, err2 := Parse(line)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("two answers: %v, %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if !bytes.Equal(e1.Raw, line) {
			t.Fatalf("Raw is not the line")
		}
		if diff := cmp.Diff(summarize(e1), summarize(e2)); diff != "" {
			t.Fatalf("two answers (-first +second):\n%s", diff)
		}
	})
}

// A FIFO where a transcript is expected is refused, not opened: opening it
// would wait for a writer forever. Found by id, and read by the peeks that
// run before the transcript proper.
func TestLocateRefusesFIFO(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	id := "0c0c0c0c-1111-4111-8111-111111111111"
	p := filepath.Join(cfg, "projects", "-home-u-ws", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	// The fork marker of session x is a FIFO too.
	if err := os.MkdirAll(filepath.Join(filepath.Dir(p), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(filepath.Dir(p), "x", ForkMarker), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if got, err := Locate(id); err == nil {
			t.Errorf("Locate(id of a FIFO) = %q, want an error", got)
		}
		if f, err := Open(p); err == nil {
			f.Close()
			t.Errorf("Open(FIFO) succeeded, want an error")
		}
		if got := FirstCwd(p); got != "" {
			t.Errorf("FirstCwd(FIFO) = %q", got)
		}
		if got := ForkedFrom(filepath.Join(filepath.Dir(p), "x.jsonl")); got != "" {
			t.Errorf("ForkedFrom = %q", got)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}
