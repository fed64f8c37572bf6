package support

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
