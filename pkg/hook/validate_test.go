package hook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLazyValidation: with long bodies checked apart (and, from
// backgroundBodies up, in the background), every payload gets the verdict
// and the error message a whole check gives, from ReadPayload and from
// ReadPayloadLazily's wait.
func TestLazyValidation(t *testing.T) {
	for _, size := range []int{2000, backgroundBodies + 10} {
		long := strings.Repeat("line\\n", size/6+1)
		payload := func(stdout, rest string) string {
			return `{"hook_event_name":"PostToolUse","tool_response":{"stdout":"` + stdout + `"}` + rest + `}`
		}
		tests := []struct {
			name, stdin string
			wantEarly   string // the error ReadPayloadLazily returns itself
			wantErr     string // the error ReadPayload returns, and wait
		}{
			{name: "valid", stdin: payload(long, "")},
			{name: "bad escape in the body", stdin: payload(long+`\x`, ""),
				wantErr: "stdin is not valid JSON"},
			{name: "control byte in the body", stdin: payload(long+"\x01", ""),
				wantErr: "stdin is not valid JSON"},
			{name: "bad UTF-8 in the body", stdin: payload(long+"\xff", ""),
				wantErr: "stdin is not valid UTF-8"},
			{name: "bad UTF-8 in the body, bad JSON around it", stdin: payload(long+"\xff", ",]"),
				wantEarly: "stdin is not valid UTF-8", wantErr: "stdin is not valid UTF-8"},
			{name: "bad escape in the body, bad JSON around it", stdin: payload(long+`\x`, ",]"),
				wantEarly: "stdin is not valid JSON", wantErr: "stdin is not valid JSON"},
			{name: "bad UTF-8 in the body, a wrongly typed field", stdin: payload(long+"\xff", `,"cwd":1`),
				wantEarly: "stdin is not valid UTF-8", wantErr: "stdin is not valid UTF-8"},
			{name: "a wrongly typed field", stdin: payload(long, `,"cwd":1`),
				wantEarly: `payload field "cwd" is a number, want a string`, wantErr: `payload field "cwd" is a number, want a string`},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%d", tt.name, size), func(t *testing.T) {
				_, err := ReadPayload(strings.NewReader(tt.stdin))
				if diff := cmp.Diff(tt.wantErr, prefix(err, len(tt.wantErr))); diff != "" {
					t.Errorf("ReadPayload error (-want +got):\n%s", diff)
				}
				p, wait, err := ReadPayloadLazily(strings.NewReader(tt.stdin))
				if diff := cmp.Diff(tt.wantEarly, prefix(err, len(tt.wantEarly))); diff != "" {
					t.Fatalf("ReadPayloadLazily error (-want +got):\n%s", diff)
				}
				if err != nil {
					return
				}
				if p.Event() != "PostToolUse" {
					t.Errorf("event %q before wait", p.Event())
				}
				for range 2 { // the same verdict each time
					if diff := cmp.Diff(tt.wantErr, prefix(wait(), len(tt.wantErr))); diff != "" {
						t.Errorf("wait (-want +got):\n%s", diff)
					}
				}
			})
		}
	}
}

// prefix is the start of err's message, up to n bytes ("" for nil): the
// JSON error goes on with the payload's size.
func prefix(err error, n int) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	return msg[:min(n, len(msg))]
}
