package contextaudit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzWhatIf: a transcript of any bytes, audited with every figure and the
// what-if, never panics, reads the same twice, and gives a report that
// marshals to JSON with an estimate of no negative size.
func FuzzWhatIf(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s.line + "\n" + s.line))
	}
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","logicalParentUuid":"x"}` + "\n" +
		`{"type":"assistant","message":{"id":"m","role":"assistant","usage":{"input_tokens":9},"content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/w/.flower/scripts/a.sh","content":"sh b.sh"}}]}}` + "\n" +
		`{"type":"user","toolUseResult":{"stdout":"x"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`))
	path := filepath.Join(f.TempDir(), "s.jsonl")
	o := Options{Window: DefaultWindow, WhatIf: &WhatIfOptions{Window: DefaultWindow, CharsPerToken: DefaultCharsPerToken}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r1, _, err1 := audit(path, o, nil)
		r2, _, err2 := audit(path, o, nil)
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
		if e := r1.WhatIf.Estimated; e.Chars < 0 || e.ContextLast != nil && *e.ContextLast < 1 {
			t.Fatalf("an estimate below nothing: %s", j1)
		}
	})
}
