package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/indexguard"
)

// TestNoticeOncePerSession: a configuration the hooks cannot use is told to
// the person once a session, with the first hook's output or alone when it
// prints nothing, and the hooks keep working on the defaults.
func TestNoticeOncePerSession(t *testing.T) {
	cfg, work := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("CLAUDE_PROJECT_DIR", work)
	os.MkdirAll(filepath.Join(cfg, "flower"), 0o700)
	os.WriteFile(filepath.Join(cfg, "flower", "config.json"), []byte(`{"spill-guard": {"treshold": 8000}}`), 0o600)

	run := func(main mainFunc, session, payload string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := main(nil, strings.NewReader(`{"session_id":"`+session+`","cwd":"`+work+`",`+payload+`}`), &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return stdout.String(), gjson.Get(stdout.String(), "systemMessage").String()
	}
	deny := `"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -f x"}`
	out, msg := run(delegateguard.Main, "s1", deny)
	if !strings.Contains(msg, `unknown key "spill-guard.treshold"`) || !strings.Contains(msg, "flower-config --doctor") ||
		gjson.Get(out, "hookSpecificOutput.permissionDecision").String() != "deny" {
		t.Errorf("the first hook of the session: %s", out)
	}
	if _, msg = run(delegateguard.Main, "s1", deny); msg != "" {
		t.Errorf("told twice in one session: %q", msg)
	}
	// Another session is told, by a hook that has nothing else to say.
	out, msg = run(indexguard.Main, "s2", `"hook_event_name":"UserPromptSubmit","prompt":"hi"`)
	if !strings.Contains(msg, "treshold") || gjson.Get(out, "hookSpecificOutput").Exists() {
		t.Errorf("a hook with nothing to print: %s", out)
	}
	// Fixed, nothing is told.
	os.WriteFile(filepath.Join(cfg, "flower", "config.json"), []byte(`{"spill-guard": {"threshold": 8000}}`), 0o600)
	if _, msg = run(delegateguard.Main, "s3", deny); msg != "" {
		t.Errorf("a good file is told about: %q", msg)
	}
}
