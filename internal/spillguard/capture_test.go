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
// a spill file is shown whole, and a failed call gets an additionalContext;
// a project file that switches layer three off still gets the view (the
// model would otherwise see the marker alone).
func TestCaptured(t *testing.T) {
	const session = "0f3c9a2e-5b7d-4e61-9c08-2a4b6d8e1f37"
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, event, command, content string
		args                          []string
		agent                         bool
		want                          string // a part of the view
		project                       string // .claude/flower.json
	}{
		{"success", "PostToolUse", "make", "ok\n", nil, false, `"stdout":"ok"`, ""},
		{"long success", "PostToolUse", "make", long, nil, false, `[Spilled to a file to keep it out of context: 5000 characters, 1 line`, ""},
		{"subagent with --main-only", "PostToolUse", "make", "ok\n", []string{"--main-only"}, true, `"stdout":"ok"`, ""},
		{"a glance at a spill file", "PostToolUse", "cat .flower/spill/Bash-x-stdout.txt", long, nil, false, `"stdout":"` + long + `"`, ""},
		{"failure", "PostToolUseFailure", "make", long, nil, false, `"additionalContext":"The command failed (Exit code 2). [Spilled`, ""},
		{"layer off", "PostToolUse", "make", long, nil, false, `[Spilled to a file to keep it out of context: 5000 characters, 1 line`, `{"spill-guard": {"enabled": false}}`},
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
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			if tc.project != "" {
				if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(project, ".claude", "flower.json"), []byte(tc.project), 0o644); err != nil {
					t.Fatal(err)
				}
			}
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

// brokenWriter fails every write, as a stdout whose reader has gone.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestCapturedKeptWhenUnprinted: a capture file the view shows whole is
// removed only once the view is printed. When it cannot be, the model gets
// the marker that names the file, so the file stays.
func TestCapturedKeptWhenUnprinted(t *testing.T) {
	const session = "0f3c9a2e-5b7d-4e61-9c08-2a4b6d8e1f37"
	project := t.TempDir()
	spill := filepath.Join(project, ".flower", "spill")
	if err := os.MkdirAll(spill, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(spill, "capture-20261201-153012-"+session+"-1-2.txt")
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	t.Setenv("FLOWER_WORKBENCH", "")
	payload := `{"session_id":"` + session + `","cwd":` + string(gjson.AppendJSONString(nil, project)) +
		`,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_1"` +
		`,"tool_response":{"stdout":` + string(gjson.AppendJSONString(nil, capture.Marker(path))) + `,"stderr":"","interrupted":false}}`
	for _, tc := range []struct {
		name string
		out  interface{ Write([]byte) (int, error) }
		code int
		kept bool
	}{
		{"printed", &strings.Builder{}, 0, false},
		{"stdout broken", brokenWriter{}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte("ok\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			if code := Main(nil, strings.NewReader(payload), tc.out, &stderr); code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			_, err := os.Stat(path)
			if kept := err == nil; kept != tc.kept {
				t.Errorf("file kept %v, want %v", kept, tc.kept)
			}
		})
	}
}
