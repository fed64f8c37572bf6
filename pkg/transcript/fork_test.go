package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestForkedFrom(t *testing.T) {
	const id = "11111111-1111-4111-8111-111111111111"
	tests := []struct {
		name, marker, want string
	}{
		{"written by ForkMarkerJSON", string(ForkMarkerJSON(id)), id},
		{"no marker", "", ""},
		{"not JSON", `{"forkedFrom":`, ""},
		{"not a string", `{"forkedFrom":42}`, ""},
		{"a path", `{"forkedFrom":"../../etc/passwd"}`, ""},
		{"a control character", `{"forkedFrom":"a\u001b[2Jb"}`, ""},
		{"a space", `{"forkedFrom":"a b"}`, ""},
		{"empty", `{"forkedFrom":""}`, ""},
		{"too long", `{"forkedFrom":"` + strings.Repeat("a", maxSessionID+1) + `"}`, ""},
		{"too big", `{"forkedFrom":"` + id + `","pad":"` + strings.Repeat(" ", maxForkMarker) + `"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if tt.marker != "" {
				if err := os.MkdirAll(SessionDir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(SessionDir(path), ForkMarker), []byte(tt.marker), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, ForkedFrom(path)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNativeForkedFrom(t *testing.T) {
	const id = "11111111-1111-4111-8111-111111111111"
	tests := []struct{ name, line, want string }{
		// The shape Claude Code's /branch writes each copied entry in.
		{"branched", `{"type":"user","uuid":"u1","sessionId":"22222222-2222-4222-8222-222222222222","forkedFrom":{"sessionId":"` + id + `","messageUuid":"u1"},"message":{"role":"user","content":"hi"}}`, id},
		{"not forked", `{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`, ""},
		{"only in the text", `{"type":"user","uuid":"u1","message":{"role":"user","content":"\"forkedFrom\":{\"sessionId\":\"x\"}"}}`, ""},
		{"wrong type", `{"type":"user","forkedFrom":{"sessionId":7},"message":{"role":"user","content":"hi"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, NativeForkedFrom(e)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
