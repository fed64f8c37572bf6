package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/pkg/decisionlog"
)

// The configuration (package config): a user file under the sandbox's HOME
// (~/.config/flower/config.json, as XDG_CONFIG_HOME is not set) and a
// project file in the workspace (.claude/flower.json), read by the hooks
// the real CLI runs.

// userConfig writes the sandbox user's flower configuration.
func userConfig(s *Scenario, content string) {
	s.T.Helper()
	p := filepath.Join(s.Home, ".config", "flower", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.T.Fatal(err)
	}
}

// fakeDocker puts a docker on a folder of its own that prints a container
// list, and returns the PATH entry that finds it first.
func fakeDocker(s *Scenario) string {
	s.T.Helper()
	bin := filepath.Join(s.Dir, "fakebin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		s.T.Fatal(err)
	}
	script := "#!/bin/sh\necho \"CONTAINER ID   IMAGE   NAMES ($*)\"\necho \"3f2a9c1d0b7e   redis   cache\"\n"
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
		s.T.Fatal(err)
	}
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// TestConfigProjectTurnsLayerOff: a project file that switches layer one
// off lets the main thread run rm, which delegate-guard denies otherwise.
func TestConfigProjectTurnsLayerOff(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile("x", "remove me\n")
	s.WriteFile(".claude/flower.json", `{"delegate-guard": {"enabled": false}}`)
	s.Git("add", ".")
	s.Git("commit", "-qm", "the project switches layer one off")
	s.API.Main(Steps(
		Call(Bash("rm", "rm -f x && echo removed")),
		Say("done"),
	))
	res := s.Run(Options{Prompt: "remove x", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

	if got := s.ToolResult("rm"); got.IsError || got.Text != "removed" {
		t.Errorf("the model saw (is_error %v) %q; want the command's output", got.IsError, got.Text)
	}
	if s.Exists("x") {
		t.Error("x is still there: the layer was not off")
	}
	if len(res.PermissionDenials) != 0 {
		t.Errorf("permission_denials %+v, want none", res.PermissionDenials)
	}
}

// TestConfigUserGlanceEntry: a glance entry in the user file lets docker ps
// run on the main thread (a docker of the test's own, on the PATH the hooks
// and the CLI share); docker rm, which no entry names, is still denied; and
// prune-session, reading the same file, expires the docker ps result as it
// expires git status's.
func TestConfigUserGlanceEntry(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	userConfig(s, `{"glances": [{"command": "docker ps", "options": ["-a", "--format=X"], "operands": 0}]}`)
	path := fakeDocker(s)
	s.API.Main(Steps(
		Call(Bash("ps", "docker ps -a 2>&1 | head -5")),
		Call(Bash("rm", "docker rm cache")),
		Say("done"),
	))
	res := s.Run(Options{Prompt: "what runs?", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn, Env: []string{path}})

	if got := s.ToolResult("ps"); got.IsError || !strings.Contains(got.Text, "NAMES (ps -a)") || !strings.Contains(got.Text, "redis") {
		t.Errorf("docker ps: the model saw (is_error %v) %q; want the container list", got.IsError, got.Text)
	}
	if got := s.ToolResult("rm"); !got.IsError || !strings.Contains(got.Text, delegateReason("Bash")) {
		t.Errorf("docker rm: the model saw (is_error %v) %q; want delegate-guard's denial", got.IsError, got.Text)
	}
	if res.Denied("ps") || !res.Denied("rm") {
		t.Errorf("permission_denials %+v, want the docker rm call only", res.PermissionDenials)
	}

	cmd := exec.Command(Bin(t, "prune-session"), "--keep-recent", "0", "--dry-run", res.SessionID)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.ConfigDir, "HOME="+s.Home, "XDG_CONFIG_HOME=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("prune-session: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "expired   1 glance result of 1") {
		t.Errorf("prune-session does not expire the docker ps result:\n%s", stderr.String())
	}
}

// TestConfigProjectCannotWiden: a repository's project file that adds
// docker ps to the glance table, as a glance and as a hands-on command,
// and guards Write alone, widens nothing: the user has not trusted the
// project, so docker ps is denied on the main thread.
func TestConfigProjectCannotWiden(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	path := fakeDocker(s)
	s.WriteFile(".claude/flower.json", `{
  "glances": [{"command": "docker ps"}],
  "delegate-guard": {"tools": ["Write"], "glance": true, "main-thread": [{"command": "docker ps"}]}
}`)
	s.Git("add", ".")
	s.Git("commit", "-qm", "a project file that tries to widen the table")
	s.API.Main(Steps(
		Call(Bash("ps", "docker ps")),
		Say("I will delegate that."),
	))
	res := s.Run(Options{Prompt: "what runs?", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn, Env: []string{path}})

	if got := s.ToolResult("ps"); !got.IsError || !strings.Contains(got.Text, delegateReason("Bash")) || strings.Contains(got.Text, "redis") {
		t.Errorf("the model saw (is_error %v) %q; want delegate-guard's denial", got.IsError, got.Text)
	}
	if !res.Denied("ps") {
		t.Errorf("permission_denials %+v does not list docker ps", res.PermissionDenials)
	}
}

// seq2000 is the characters of seq 1 2000's output as the hook gets it:
// the CLI drops the last newline.
const seq2000 = 8892

// TestConfigLogRecordsDenialAndSpill: with the decision log on in the user
// file, a main-thread rm denied by layer one and a long glance output
// spilled by layer three are each a line of the log, with no tool output
// in it.
func TestConfigLogRecordsDenialAndSpill(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	userConfig(s, `{"log": {"enabled": true}}`)
	s.API.Main(Steps(
		Call(Bash("rm", "rm -f README.md")),
		Call(Bash("seq", "seq 1 2000")),
		Say("done"),
	))
	res := s.Run(Options{Prompt: "look", Settings: Settings(LayerHooks(t, "1", "3")...), AllowedTools: handsOn})
	if !res.Denied("rm") {
		t.Fatalf("rm was not denied: %+v", res.PermissionDenials)
	}
	if got := s.ToolResult("seq"); !strings.Contains(got.Text, "[Spilled to a file") {
		t.Fatalf("seq 1 2000 was not spilled: %.300q", got.Text)
	}

	log := filepath.Join(s.Home, ".local", "state", "flower", "decisions.jsonl")
	var deny, spill *decisionlog.Entry
	bad, err := decisionlog.Read(log, func(e decisionlog.Entry) {
		switch {
		case e.Hook == "delegate-guard" && e.Verdict == "deny":
			deny = &e
		case e.Hook == "spill-guard" && e.Verdict == "spill":
			spill = &e
		}
	})
	if err != nil || bad != 0 {
		t.Fatalf("reading %s: %v, %d bad lines", log, err, bad)
	}
	if deny == nil || deny.Input != "rm -f README.md" || deny.Reason != "rm: writes or removes files" || deny.Session != res.SessionID || deny.Event != "PreToolUse" {
		t.Errorf("the denial's line: %+v", deny)
	}
	if spill == nil || spill.Sizes.Spilled != seq2000 || spill.Sizes.Files != 1 || spill.Session != res.SessionID || spill.Project != s.Work {
		t.Errorf("the spill's line: %+v", spill)
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "1999\\n2000") || strings.Contains(string(raw), "\\n2\\n3\\n") {
		t.Error("the log holds the output of seq")
	}
	show := exec.Command(Bin(t, "flower-config"), "--log", "--session", res.SessionID, s.Work)
	show.Env = append(os.Environ(), "HOME="+s.Home, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=")
	out, err := show.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "deny") || !strings.Contains(string(out), "spill") {
		t.Errorf("flower-config --log: %v\n%s", err, out)
	}
}
