package status

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/spill"
)

const session = "0f3c9a2e-5b7d-4e61-9c08-2a4b6d8e1f37"

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// pointer is a spill pointer for chars characters, with a head.
func pointer(chars int64) string {
	return spill.File{Path: "/p/.flower/spill/Bash-x-stdout.txt", Chars: chars, Lines: 10, Head: strings.Repeat("h", 40)}.Text()
}

func assistant(uuid, tools string, context int) string {
	return `{"type":"assistant","uuid":"` + uuid + `","sessionId":"` + session + `","message":{"id":"m` + uuid + `","role":"assistant","model":"claude-sonnet-4-5","content":[` + tools +
		`],"usage":{"input_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":` + itoa(context-10) + `,"output_tokens":5}}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func result(uuid, id, text, extra string) string {
	return `{"type":"user","uuid":"` + uuid + `","sessionId":"` + session + `"` + extra + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + jsonString(text) + `}]}}`
}

// writeSession writes a main transcript and a subagent's, and returns the
// main one's path.
func writeSession(t *testing.T, main, sub []string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, session+".jsonl")
	os.WriteFile(path, []byte(strings.Join(main, "\n")+"\n"), 0o600)
	if sub != nil {
		os.MkdirAll(filepath.Join(dir, session, "subagents"), 0o700)
		os.WriteFile(filepath.Join(dir, session, "subagents", "agent-a1.jsonl"), []byte(strings.Join(sub, "\n")+"\n"), 0o600)
	}
	return path
}

func TestRead(t *testing.T) {
	denial := "PreToolUse:Bash hook error: Bash runs in subagents only: dispatch one with the Agent tool and have it write long output to .flower/artifacts/."
	path := writeSession(t, []string{
		`{"type":"user","uuid":"u1","sessionId":"` + session + `","message":{"role":"user","content":"go"}}`,
		assistant("a1", `{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm x"}}`, 5000),
		result("r1", "t1", denial, `,"toolDenialKind":"permission-rule"`),
		assistant("a2", `{"type":"tool_use","id":"t2","name":"Agent","input":{"prompt":"do it"}}`, 6000),
		result("r2", "t2", "done", ""),
		assistant("a3", `{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"seq 1 20000"}}`, 7000),
		result("r3", "t3", pointer(108894), ""),
		assistant("a4", `{"type":"text","text":"ok"}`, 9000),
	}, []string{
		`{"type":"user","uuid":"s1","isSidechain":true,"sessionId":"` + session + `","message":{"role":"user","content":"do it"}}`,
		assistant("s2", `{"type":"tool_use","id":"st1","name":"Bash","input":{"command":"make test"}}`, 3000),
		result("s3", "st1", pointer(50000), `,"isSidechain":true`),
	})
	state := t.TempDir()
	s, err := Read(path, state)
	if err != nil {
		t.Fatal(err)
	}
	shown := int64(len([]rune(pointer(1)))) // the same length for both counts' digits, near enough
	if s.Spills != [2]int{1, 1} || s.SpilledChars != [2]int64{108894, 50000} || s.Delegations != 1 || s.Denials != 1 || s.ContextTokens != 9000 {
		t.Fatalf("counted %+v", s)
	}
	if s.ShownChars[0] < shown || s.ShownChars[0] > shown+10 {
		t.Errorf("shown %d characters of the main thread's spill, want about %d", s.ShownChars[0], shown)
	}
	line := s.Line(gjson.Parse(`{"context_window_size":200000,"used_percentage":4.5}`))
	for _, want := range []string{"main 4% of 200k", "kept out 158.", "in 2 spill(s) (main 1, subagents 1)", "1 delegation", "1 denial"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line %q lacks %q", line, want)
		}
	}
	if got := s.Line(gjson.Result{}); !strings.Contains(got, "main 4% of 200k") {
		t.Errorf("without the window from Claude Code: %q", got)
	}

	// Appended lines are counted from where the last refresh stopped; a
	// line still being written waits.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(assistant("a5", `{"type":"tool_use","id":"t5","name":"Task","input":{}}`, 12000) + "\n" + `{"type":"user","uuid":"par`)
	f.Close()
	if s, err = Read(path, state); err != nil || s.Delegations != 2 || s.Denials != 1 || s.Spills != [2]int{1, 1} || s.ContextTokens != 12000 {
		t.Fatalf("after an append: %+v, %v", s, err)
	}
	// A line still being written that spans several of wholeLines' blocks
	// waits too, and is counted once whole.
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`ent"}` + "\n" + `{"type":"user","uuid":"u9","sessionId":"` + session + `","message":{"role":"user","content":"` + strings.Repeat("x", 200<<10))
	f.Close()
	if s, err = Read(path, state); err != nil || s.Delegations != 2 || s.ContextTokens != 12000 {
		t.Fatalf("with a long line being written: %+v, %v", s, err)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`"}}` + "\n" + assistant("a6", `{"type":"tool_use","id":"t6","name":"Agent","input":{}}`, 13000) + "\n")
	f.Close()
	if s, err = Read(path, state); err != nil || s.Delegations != 3 || s.ContextTokens != 13000 {
		t.Fatalf("once the line is whole: %+v, %v", s, err)
	}
	// A transcript that shrank (rewritten) is counted anew.
	main, _ := os.ReadFile(path)
	os.WriteFile(path, main[:bytes.Index(main, []byte(`{"type":"assistant","uuid":"a2"`))], 0o600)
	if s, err = Read(path, state); err != nil || s.Delegations != 0 || s.Denials != 1 || s.Spills != [2]int{0, 1} {
		t.Fatalf("after the transcript shrank: %+v, %v", s, err)
	}
	// A state file gone bad (a negative offset) is counted anew, not a
	// crash: make with a length of a file less a negative number.
	for _, bad := range []string{"-100", "-1099511627776", "-9223372036854775000"} {
		os.WriteFile(filepath.Join(state, stateName(session)), []byte(`{"read":{"`+path+`":`+bad+`}}`), 0o600)
		if s, err = Read(path, state); err != nil || s.Delegations != 0 || s.Denials != 1 || s.Spills != [2]int{0, 1} {
			t.Fatalf("with the offset %s in the state: %+v, %v", bad, s, err)
		}
	}
}

func TestLineNothingYet(t *testing.T) {
	if got := (&Session{}).Line(gjson.Result{}); got != "flower: nothing kept out yet" {
		t.Errorf("%q", got)
	}
}

func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		model  string
		tokens int64
		want   string
	}{
		{"claude-sonnet-4-5", 50_000, "main 25% of 200k"},
		{"claude-sonnet-4-5[1m]", 50_000, "main 5% of 1M"},
		{"claude-sonnet-4-5", 452_400, "main 45% of 1M"},
	} {
		if got := (&Session{Model: tc.model, ContextTokens: tc.tokens}).Line(gjson.Result{}); !strings.HasPrefix(got, "flower: "+tc.want) {
			t.Errorf("%s at %d tokens: %q, want %q", tc.model, tc.tokens, got, tc.want)
		}
	}
}

func TestStateName(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "", strings.Repeat("a", 300), "a/b"} {
		if name := stateName(id); strings.ContainsAny(name, "/\\") || !strings.HasPrefix(name, "h-") {
			t.Errorf("stateName(%q) = %q", id, name)
		}
	}
	if name := stateName(session); name != session+".json" {
		t.Errorf("stateName(%q) = %q", session, name)
	}
}

func TestMainBadInput(t *testing.T) {
	for _, tc := range []struct{ name, stdin, wantOut, wantErr string }{
		{"no transcript", `{"session_id":"x"}`, "", "names no transcript_path"},
		{"not JSON", `{`, "", "reading stdin"},
		{"a key twice", `{"transcript_path":"a","transcript_path":"b"}`, "", "given twice"},
	} {
		var out, errs bytes.Buffer
		code := Main(nil, strings.NewReader(tc.stdin), &out, &errs)
		if code != 1 || !strings.Contains(errs.String(), tc.wantErr) || strings.Count(errs.String(), "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, errs.String())
		}
	}
}

// TestBeforeTheFirstMessage: Claude Code runs the status line before the
// session's transcript exists, with used_percentage null.
func TestBeforeTheFirstMessage(t *testing.T) {
	s, err := Read(filepath.Join(t.TempDir(), session+".jsonl"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Line(gjson.Parse(`{"context_window_size":1000000,"used_percentage":null}`)); got != "flower: nothing kept out yet" {
		t.Errorf("%q", got)
	}
}
