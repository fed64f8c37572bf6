package e2e

import (
	"os"
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
	t.Logf("run took %v", res.Duration)
}
