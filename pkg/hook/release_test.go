package hook

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRejectedPayloadFreedAfterItsCheck: a payload whose skeleton is bad
// UTF-8 is rejected at once, but the check of its long bodies runs in the
// background over the same buffer; ReadPayload frees that buffer (unmaps
// it) on a rejection, so the check must have ended first, or it reads
// memory given back and the process dies of a fault (exit 2).
func TestRejectedPayloadFreedAfterItsCheck(t *testing.T) {
	body := strings.Repeat("line\\n", 64<<20/6)
	stdin := `{"hook_event_name":"PostToolUse` + "\xff" + `","tool_response":{"stdout":"` + body + `"}}`
	for range 3 {
		_, err := ReadPayload(strings.NewReader(stdin))
		if diff := cmp.Diff("stdin is not valid UTF-8", prefix(err, 100)); diff != "" {
			t.Fatalf("ReadPayload error (-want +got):\n%s", diff)
		}
		_, _, err = ReadPayloadLazily(strings.NewReader(stdin))
		if diff := cmp.Diff("stdin is not valid UTF-8", prefix(err, 100)); diff != "" {
			t.Fatalf("ReadPayloadLazily error (-want +got):\n%s", diff)
		}
	}
	time.Sleep(200 * time.Millisecond) // a check still running would fault here
}
