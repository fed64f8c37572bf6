package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The status line runs only in Claude Code's interactive view, so this
// scenario drives the real CLI in a terminal of tmux's: the user types a
// prompt, the scripted model runs a long command, spill-guard spills it, and
// the status line at the bottom of the screen shows flower-status's segment.

// tmux runs tmux on the scenario's own server.
func tmux(s *Scenario, args ...string) string {
	s.T.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", filepath.Join(s.Dir, "tmux.sock")}, args...)...).CombinedOutput()
	if err != nil {
		s.T.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screenShows waits until the screen holds want, and returns the screen.
func screenShows(s *Scenario, want string, within time.Duration) (string, bool) {
	s.T.Helper()
	var screen string
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if screen = tmux(s, "capture-pane", "-p", "-t", "main"); strings.Contains(screen, want) {
			return screen, true
		}
	}
	return screen, false
}

func TestStatusLineInTheTerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed to drive Claude Code's interactive view:", err)
	}
	s := NewScenario(t)
	const prompt = "count to three thousand"
	s.API.AddMainPrompt(prompt)
	s.API.Main(Steps(Call(Bash("seq", "seq 1 3000")), Say("counted")))
	settings := Settings(LayerHooks(t, "3")...)
	settings["statusLine"] = map[string]any{"type": "command", "command": Cmd(t, "flower-status")}
	path := s.writeSettings(settings)
	// What a user answered once: onboarding, trust in the folder, the key.
	state, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               map[string]any{s.Work: map[string]any{"hasTrustDialogAccepted": true}},
		"customApiKeyResponses":  map[string]any{"approved": []string{"sk-test"}, "rejected": []string{}},
	})
	if err := os.WriteFile(filepath.Join(s.ConfigDir, ".claude.json"), state, 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(s.env(Options{}), "TERM=xterm-256color", "XDG_STATE_HOME="+filepath.Join(s.Dir, "state"))
	line := []string{"env", "-i"}
	for _, kv := range env {
		line = append(line, shellQuote(kv))
	}
	line = append(line, shellQuote(claudeBin), "--settings", shellQuote(path), "--setting-sources", "''", "--allowedTools", "Bash")
	tmux(s, "new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "-c", s.Work, strings.Join(line, " "))
	defer exec.Command("tmux", "-S", filepath.Join(s.Dir, "tmux.sock"), "kill-server").Run()

	if screen, ok := screenShows(s, "flower: nothing kept out yet", 60*time.Second); !ok {
		t.Fatalf("the status line does not show flower's segment before the first prompt:\n%s", screen)
	}
	tmux(s, "send-keys", "-t", "main", "-l", prompt)
	tmux(s, "send-keys", "-t", "main", "Enter")
	screen, ok := screenShows(s, "chars in 1 spill(s)", 90*time.Second)
	if !ok {
		t.Fatalf("the status line does not show the spill:\n%s", screen)
	}
	var status string
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "flower: "); i >= 0 {
			status = strings.TrimSpace(l[i:])
		}
	}
	// seq 1 3000 prints 13,893 characters; the model saw the pointer and
	// 400 of them.
	got := s.ToolResult("seq").Text
	kept := 13893 - len([]rune(got))
	want := "kept out " + strconv.FormatFloat(float64(kept)/1000, 'f', 1, 64) + "k chars in 1 spill(s) (main 1, subagents 0)"
	if !strings.Contains(status, want) || !strings.Contains(status, "main ") {
		t.Errorf("the status line reads %q; want it to hold %q and the main thread's share:\n%s", status, want, screen)
	}
}
