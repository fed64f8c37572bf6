package prunesession

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRewriteChanged: pass two copies the lines pass one checked and no
// more. Lines appended between the passes are left out; a line that changed
// makes it refuse.
func TestRewriteChanged(t *testing.T) {
	const oldID, newID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	line := func(uuid, parent, text string) string {
		return `{"parentUuid":` + parent + `,"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `","sessionId":"` + oldID + `"}` + "\n"
	}
	a, b := line("a", "null", "one"), line("b", `"a"`, "two")
	read := a + b
	tests := []struct {
		name, then, want string
		err              error
	}{
		{"unchanged", read, strings.ReplaceAll(read, oldID, newID), nil},
		{"appended", read + line("c", `"b"`, "three"), strings.ReplaceAll(read, oldID, newID), nil},
		{"appended to the last line", strings.TrimSuffix(read, "\n") + `x` + "\n", "", errChanged},
		{"a line changed, same length", a + strings.Replace(b, oldID[:8], "99999999", 1), "", errChanged},
		{"a line changed length", a + line("b", `"a"`, "twenty") + line("c", `"b"`, "x"), "", errChanged},
		{"truncated", a, "", errChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := buildPlan(strings.NewReader(read), options{})
			if err != nil {
				t.Fatal(err)
			}
			rw := &rewriter{p: p, oldID: oldID, newID: newID}
			var out bytes.Buffer
			err = rw.rewrite(strings.NewReader(tt.then), &out)
			if !errors.Is(err, tt.err) {
				t.Fatalf("rewrite: %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
