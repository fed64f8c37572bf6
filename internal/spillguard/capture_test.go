package spillguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
)

// TestCaptured runs spill-guard on Bash results that start with a capture
// marker: the view replaces the marker whatever --main-only says, a read of
// a spill file is shown whole, and a failed call gets an additionalContext.
func TestCaptured(t *testing.T) {
	const session = "0f3c9a2e-5b7d-4e61-9c08-2a4b6d8e1f37"
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, event, command, content string
		args                          []string
		agent                         bool
		want                          string // a part of the view
	}{
		{"success", "PostToolUse", "make", "ok\n", nil, false, `"stdout":"ok"`},
		{"long success", "PostToolUse", "make", long, nil, false, `[Spilled to a file to keep it out of context: 5000 characters, 1 line`},
		{"subagent with --main-only", "PostToolUse", "make", "ok\n", []string{"--main-only"}, true, `"stdout":"ok"`},
		{"a glance at a spill file", "PostToolUse", "cat .flower/spill/Bash-x-stdout.txt", long, nil, false, `"stdout":"` + long + `"`},
		{"failure", "PostToolUseFailure", "make", long, nil, false, `"additionalContext":"The command failed (Exit code 2). [Spilled`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			spill := filepath.Join(project, ".flower", "spill")
			if err := os.MkdirAll(spill, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(spill, "capture-20261201-153012-"+session+"-1-2.txt")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("CLAUDE_PROJECT_DIR", project)
			t.Setenv("FLOWER_WORKBENCH", "")
			payload := `{"session_id":"` + session + `","cwd":` + string(gjson.AppendJSONString(nil, project)) +
				`,"hook_event_name":"` + tc.event + `","tool_name":"Bash","tool_input":{"command":` +
				string(gjson.AppendJSONString(nil, tc.command)) + `},"tool_use_id":"toolu_1"`
			if tc.agent {
				payload += `,"agent_id":"a1"`
			}
			if tc.event == "PostToolUse" {
				payload += `,"tool_response":{"stdout":` + string(gjson.AppendJSONString(nil, capture.Marker(path))) + `,"stderr":"","interrupted":false}}`
			} else {
				payload += `,"error":` + string(gjson.AppendJSONString(nil, "Exit code 2\n"+capture.Marker(path))) + `}`
			}
			var stdout, stderr strings.Builder
			if code := Main(tc.args, strings.NewReader(payload), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("the output lacks %q:\n%.700s", tc.want, stdout.String())
			}
		})
	}
}
