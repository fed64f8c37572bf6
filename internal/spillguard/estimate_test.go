package spillguard

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestEstimateIsWhatTheHookDoes: for each result, Estimate names the
// fields the hook spills and the very text it puts in their place (the
// spill file's path included), and nothing when the hook prints nothing.
func TestEstimateIsWhatTheHookDoes(t *testing.T) {
	long := strings.Repeat("a line of tool output, ünïcode included\n", 200)
	short := "three\nshort\nlines\n"
	for _, tc := range []struct {
		name, tool, resp string
		fields           []string // gjson paths of tool_response the hook replaces
	}{
		{"bash stdout", "Bash", `{"stdout":` + quote(long) + `,"stderr":"","interrupted":false,"isImage":false}`, []string{"stdout"}},
		{"bash stdout and stderr", "Bash", `{"stdout":` + quote(long) + `,"stderr":` + quote(long+"x") + `}`, []string{"stdout", "stderr"}},
		{"read", "Read", `{"type":"text","file":{"filePath":"/w/big.log","content":` + quote(long) + `,"numLines":200}}`, []string{"file.content"}},
		{"short", "Bash", `{"stdout":` + quote(short) + `,"stderr":""}`, nil},
		{"image", "Bash", `{"stdout":` + quote(long) + `,"isImage":true}`, nil},
		{"edit tool", "Write", `{"type":"create","content":` + quote(long) + `}`, nil},
		{"read of an image", "Read", `{"type":"image","file":{"base64":` + quote(long) + `}}`, nil},
		{"mcp string", "mcp__x__y", quote(long), []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), ".flower")
			stdin := `{"hook_event_name":"PostToolUse","tool_name":"` + tc.tool + `","tool_use_id":"toolu_9","cwd":"/w",` +
				`"tool_input":{},"tool_response":` + tc.resp + `}`
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"--workbench", root}, strings.NewReader(stdin), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var want []string
			out := gjson.Get(stdout.String(), "hookSpecificOutput.updatedToolOutput")
			for _, f := range tc.fields {
				if f == "" {
					want = append(want, out.Str)
				} else {
					want = append(want, out.Get(f).Str)
				}
			}
			est, err := Estimate(tc.tool, "toolu_9", tc.resp, root, DefaultThreshold, DefaultHead)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range est {
				got = append(got, e.Text)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the hook's replacements (-want) and the estimate's (+got):\n%s", diff)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
