package contextaudit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Seeds: real line shapes (a tool_use, a spilled result, a denial, a usage)
// and the Bash commands the script rules read.
var fuzzSeeds = []struct{ line, command string }{
	{`{"type":"user","uuid":"p","cwd":"/w","message":{"role":"user","content":"go"}}`, "sh .flower/scripts/a.sh"},
	{`{"type":"assistant","uuid":"a","cwd":"/w","message":{"id":"m","role":"assistant","usage":{"input_tokens":1,"cache_read_input_tokens":2,"cache_creation_input_tokens":3},"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"x"}}]}}`, "cd .flower/scripts && ./a.sh > b.sh"},
	{`{"type":"user","uuid":"r","cwd":"/w","toolDenialKind":"permission-rule","permissionDecision":{"source":"hook"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"[Spilled to a file to keep it out of context: 5 characters, 1 lines, in full at /w/.flower/spill/x.txt. Use Read on that file with offset/limit to see the rest."}]}}`, "python3 -u /w/.flower/scripts/c.py 2>&1 | tail"},
	{"\xff\x00{", "echo $(sh .flower/scripts/a.sh) >> .flower/scripts/"},
	{`{"type":"system","subtype":"compact_boundary","logicalParentUuid":"x"}`, "cat > .flower/scripts/b.sh <<'EOF'\nsh a.sh\nEOF"},
}

// fuzzOptions turn every figure on, the what-if's included.
var fuzzOptions = Options{Window: DefaultWindow, WhatIf: &WhatIfOptions{Window: DefaultWindow, CharsPerToken: DefaultCharsPerToken}}

// FuzzAudit: a transcript of any bytes never panics, reads the same twice,
// and gives a report that marshals to JSON, or an error.
func FuzzAudit(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s.line+"\n"+s.line), s.command)
	}
	// One file per fuzzing process, rewritten each run: a folder per run
	// costs more than the audit.
	path := filepath.Join(f.TempDir(), "s.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, command string) {
		cmdLine, _ := json.Marshal(map[string]any{"type": "assistant", "cwd": "/w", "message": map[string]any{
			"id": "m9", "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t9", "name": "Bash", "input": map[string]any{"command": command}}}}})
		resLine := []byte(`{"type":"user","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"ok"}]}}`)
		body := bytes.Join([][]byte{data, cmdLine, resLine}, []byte("\n"))
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		r1, _, _, err1 := audit(path, fuzzOptions, nil)
		r2, _, _, err2 := audit(path, fuzzOptions, nil)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		j1, err := json.Marshal(r1)
		if err != nil {
			t.Fatal(err)
		}
		j2, _ := json.Marshal(r2)
		if !bytes.Equal(j1, j2) {
			t.Fatalf("two reads differ:\n%s\n%s", j1, j2)
		}
		if r1.Scripts.Written > r1.Scripts.Writes || r1.Scripts.RunMoreThanOnce*2 > r1.Scripts.Runs {
			t.Fatalf("script figures do not add up: %+v", r1.Scripts)
		}
		if e := r1.WhatIf.Estimated; e.Chars < 0 || e.ContextLast != nil && *e.ContextLast < 1 {
			t.Fatalf("an estimate below nothing: %s", j1)
		}
	})
}
