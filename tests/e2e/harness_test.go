package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarnessRoundTrip checks the harness end to end without flower's hooks:
// a scripted Bash call really runs in the workspace, its output reaches the
// next request, the result object is parsed and the transcript is where
// Scenario.Transcript says.
func TestHarnessRoundTrip(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.API.Main(Steps(
		Call(Bash("echo1", "echo made-$((6*7)) > out.txt && cat out.txt")),
		Say("all done"),
	))
	res := s.Run(Options{Prompt: "make out.txt", AllowedTools: []string{"Bash"}})

	if res.IsError || res.Result != "all done" || res.NumTurns != 2 {
		t.Errorf("result: is_error %v, result %q, num_turns %d; want false, \"all done\", 2", res.IsError, res.Result, res.NumTurns)
	}
	got := s.ToolResult("echo1")
	if got.IsError || got.Text != "made-42" {
		t.Errorf("the model saw %+q (is_error %v), want \"made-42\"", got.Text, got.IsError)
	}
	if content, _ := s.ReadFile("out.txt"); content != "made-42\n" {
		t.Errorf("out.txt = %q, want \"made-42\\n\"", content)
	}
	if n := len(s.API.Thread(MainThread)); n != 2 {
		t.Errorf("%d main-thread requests, want 2", n)
	}
	if _, err := os.Stat(s.Transcript(res.SessionID)); err != nil {
		t.Errorf("no transcript at %s", s.Transcript(res.SessionID))
	}
	t.Logf("run took %v, %v of CPU", res.Duration, res.CPU)
}

// TestHarnessResume records a session and resumes it with --resume: the
// fake API routes the resumed requests to the main thread, Steps continues
// where the first run stopped, and the resumed request carries the first
// run's history.
func TestHarnessResume(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.API.Main(Steps(
		Call(Bash("first", "echo from-the-first-run")),
		Say("first run done"),
		Call(Bash("second", "echo from-the-second-run")),
		Say("second run done"),
	))
	first := s.Run(Options{Prompt: "start", AllowedTools: []string{"Bash"}})
	second := s.Run(Options{Prompt: "go on", AllowedTools: []string{"Bash"}, Args: []string{"--resume", first.SessionID}})

	if second.Result != "second run done" {
		t.Errorf("resumed result %q, want \"second run done\"", second.Result)
	}
	last := s.API.Last(MainThread)
	if b, ok := last.ToolResult("first"); !ok || b.Text != "from-the-first-run" {
		t.Errorf("the resumed request carries the first run's result as %+v (found %v)", b, ok)
	}
	if b, ok := last.ToolResult("second"); !ok || b.Text != "from-the-second-run" {
		t.Errorf("the resumed request carries the second run's result as %+v (found %v)", b, ok)
	}
	if got := last.FirstPrompt(); got != "start" {
		t.Errorf("the resumed thread opens with %q, want the first prompt", got)
	}
	if !strings.Contains(last.Messages[len(last.Messages)-3].Text(), "go on") {
		t.Errorf("the new prompt is not the user message before the second call: %+v", last.Messages[len(last.Messages)-3])
	}
}

// TestHarnessPluginDirAndUserSettings loads hooks the two ways an install
// does, without --settings: a plugin folder given with --plugin-dir, and
// the sandbox HOME's ~/.claude/settings.json. Each hook writes a marker.
func TestHarnessPluginDirAndUserSettings(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	plugin := filepath.Join(s.Dir, "plugin")
	write := func(path string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marker := func(name string) Hook {
		return Hook{Event: "PreToolUse", Matcher: "Bash", Command: "touch " + shellQuote(filepath.Join(s.Dir, name))}
	}
	write(filepath.Join(plugin, ".claude-plugin", "plugin.json"), map[string]any{"name": "e2e-plugin", "version": "0.0.1", "description": "e2e"})
	write(filepath.Join(plugin, "hooks", "hooks.json"), Settings(marker("plugin-fired")))
	write(filepath.Join(s.ConfigDir, "settings.json"), Settings(marker("user-fired")))
	s.API.Main(Steps(Call(Bash("b", "true")), Say("ok")))
	s.Run(Options{Prompt: "fire", AllowedTools: []string{"Bash"}, AllSettingSources: true, Args: []string{"--plugin-dir", plugin}})

	for _, name := range []string{"plugin-fired", "user-fired"} {
		if _, err := os.Stat(filepath.Join(s.Dir, name)); err != nil {
			t.Errorf("the %s hook did not fire: %v", name, err)
		}
	}
}

// TestCLIDropsUnpairedCallsOnResume pins what the real CLI does with a
// transcript whose tool_result no longer matches its tool_use: on --resume
// it silently drops both and sends a valid request, so the fake API's 400
// never fires. A scenario that edits transcripts (layer four) must check
// what the resumed request holds, not only that it was accepted.
func TestCLIDropsUnpairedCallsOnResume(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	// The resumed request holds one assistant message (the dropped call's
	// went with it), so Steps answers it with step 1 again.
	s.API.Main(Steps(Call(Bash("kept", "echo one")), Say("done")))
	first := s.Run(Options{Prompt: "start", AllowedTools: []string{"Bash"}})

	path := s.Transcript(first.SessionID)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const from, to = `"tool_use_id":"kept"`, `"tool_use_id":"orphan"`
	if n := strings.Count(string(b), from); n != 1 {
		t.Fatalf("the transcript holds %s %d times, want 1", from, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Run(Options{Prompt: "go on", AllowedTools: []string{"Bash"}, Args: []string{"--resume", first.SessionID}})

	last := s.API.Last(MainThread)
	if uses := last.ToolUses(); len(uses) != 0 {
		t.Errorf("the resumed request holds tool calls %+v; the CLI used to drop the unpaired one", uses)
	}
	if results := last.ToolResults(); len(results) != 0 {
		t.Errorf("the resumed request holds tool results %+v; the CLI used to drop the orphan", results)
	}
	if got := last.LastUser().Text(); got != "go on" {
		t.Errorf("the resumed request ends with %q, want the new prompt", got)
	}
	if n := len(s.API.Rejected()); n != 0 {
		t.Errorf("%d requests rejected", n)
	}
}
