package contextaudit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHugeNestedCommand: a transcript is someone else's data, and a Bash
// command in it may be written to hurt the shell parser. Deep nesting
// overflowed the parser's stack, a crash that exits 2 ("block" to Claude
// Code); a command past the parser's limits (pkg/ephemeral's) is now read
// as naming no script, and the audit goes on.
func TestHugeNestedCommand(t *testing.T) {
	for name, cmd := range map[string]string{
		"nested substitutions": strings.Repeat("$(", 200<<10) + "sh .flower/scripts/a.sh" + strings.Repeat(")", 200<<10),
		"nested subshells":     strings.Repeat("(", 200<<10) + "sh .flower/scripts/a.sh" + strings.Repeat(")", 200<<10),
		"long":                 "sh .flower/scripts/a.sh " + strings.Repeat("x ", 1<<20),
		// A here-document into scripts/ has the command read for its text
		// too (figures.go), by a parse of its own.
		"nested after a here-document": "cat > .flower/scripts/a.sh <<E; " + strings.Repeat("(", 200<<10),
	} {
		t.Run(name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{"type": "assistant", "cwd": "/w", "message": map[string]any{
				"id": "m", "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t", "name": "Bash", "input": map[string]any{"command": cmd}}}}})
			path := filepath.Join(t.TempDir(), "s.jsonl")
			body := string(in) + "\n" + `{"type":"user","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}` + "\n"
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r, _, err := Audit(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if r.Scripts.Runs != 0 || r.Main.HandsOn != 1 {
				t.Errorf("scripts %+v, hands-on %d; want no run read, one hands-on call", r.Scripts, r.Main.HandsOn)
			}
		})
	}
}
