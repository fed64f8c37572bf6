package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// The status line runs only in Claude Code's interactive view, so this
// scenario drives the real CLI in tmux: the user types a prompt, the
// scripted model runs a long command, spill-guard spills it, and the status
// line at the bottom of the screen shows flower-status's segment.
func TestStatusLineInTheTerminal(t *testing.T) {
	t.Parallel()
	needTmux(t)
	s := NewScenario(t)
	const prompt = "count to three thousand"
	s.API.AddMainPrompt(prompt)
	s.API.Main(Steps(Call(Bash("seq", "seq 1 3000")), Say("counted")))
	settings := Settings(LayerHooks(t, "3")...)
	settings["statusLine"] = map[string]any{"type": "command", "command": Cmd(t, "flower-status")}
	o := Options{Settings: settings, AllowedTools: []string{"Bash"}, Args: []string{"--permission-mode", "default"},
		Env: []string{"XDG_STATE_HOME=" + s.Dir + "/state"}}
	before := false
	screen := runInTmux(t, s, prompt, o, func(screen string) bool {
		before = before || strings.Contains(screen, "flower: nothing kept out yet")
		return strings.Contains(screen, "chars in 1 spill(s)")
	})()
	if !before {
		t.Errorf("the status line did not show flower's segment before the first prompt")
	}
	var status string
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "flower: "); i >= 0 {
			status = strings.TrimSpace(l[i:])
		}
	}
	// seq 1 3000 prints 13,893 characters; the model saw the pointer and
	// 400 of them.
	kept := 13893 - len([]rune(s.ToolResult("seq").Text))
	want := "kept out " + strconv.FormatFloat(float64(kept)/1000, 'f', 1, 64) + "k chars in 1 spill(s) (main 1, subagents 0)"
	if !strings.Contains(status, want) || !strings.Contains(status, "main ") {
		t.Errorf("the status line reads %q; want it to hold %q and the main thread's share:\n%s", status, want, screen)
	}
}

// TestNoticeInTheTerminal: a user file the hooks cannot use is told to the
// person at the session's start, in a line of Claude Code's own (a
// systemMessage, which the model does not read), and the hooks work on the
// defaults meanwhile.
func TestNoticeInTheTerminal(t *testing.T) {
	t.Parallel()
	needTmux(t)
	s := NewScenario(t)
	userConfig(s, `{"spill-guard": {"treshold": 8000}}`)
	const prompt = "count to three thousand"
	s.API.AddMainPrompt(prompt)
	s.API.Main(Steps(Call(Bash("seq", "seq 1 3000")), Say("counted")))
	o := Options{Settings: Settings(LayerHooks(t, "2", "3")...), AllowedTools: []string{"Bash"}, Args: []string{"--permission-mode", "default"},
		Env: []string{"XDG_STATE_HOME=" + s.Dir + "/state"}}
	screen := runInTmux(t, s, prompt, o, func(screen string) bool { return strings.Contains(screen, "counted") })()
	if n := strings.Count(screen, `unknown key "spill-guard.treshold"`); n != 1 {
		t.Errorf("the notice is on the screen %d times, want once:\n%s", n, screen)
	}
	if !strings.Contains(s.ToolResult("seq").Text, "Spilled to a file") {
		t.Errorf("spill-guard did not spill on the defaults: %.300q", s.ToolResult("seq").Text)
	}
	for _, r := range s.API.Requests() {
		if strings.Contains(string(r.Raw), "treshold") {
			t.Errorf("the model was sent the notice")
		}
	}
}
