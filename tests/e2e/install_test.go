package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The installed setup: install.sh wiring the user's settings, the plugin
// loaded with --plugin-dir, and the plugin installed from the repository's
// marketplace. Each must make the real CLI fire flower's hooks with nothing
// but what the user would have: no --settings, the user's own settings
// sources.

// claudeCmdTimeout bounds one `claude plugin …` or install.sh run.
const claudeCmdTimeout = 3 * time.Minute

// runClaudeCmd runs the CLI with args in the scenario's sandbox (its HOME and
// CLAUDE_CONFIG_DIR) and returns its exit code and combined output.
func runClaudeCmd(s *Scenario, args ...string) (int, string) {
	s.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), claudeCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBin, args...)
	cmd.Dir = s.Work
	cmd.Env = s.env(Options{})
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		s.T.Fatalf("claude %s timed out", strings.Join(args, " "))
	}
	if err != nil && cmd.ProcessState == nil {
		s.T.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// landedLayers are the layers whose commands exist in this checkout: a layer
// joins these scenarios as soon as it lands.
func landedLayers() []string {
	var layers []string
	for layer, bin := range map[string]string{"1": "delegate-guard", "2": "index-guard", "3": "spill-guard"} {
		if HasCommand(bin) {
			layers = append(layers, layer)
		}
	}
	return layers
}

func hasLayer(layers []string, l string) bool {
	for _, x := range layers {
		if x == l {
			return true
		}
	}
	return false
}

// installBigFile is long enough for spill-guard (threshold 4,000 characters) and
// ends in a marker that must not reach the model when it is spilled.
const installBigMarker = "END-OF-BIG-FILE-7f3a"

func installBigFile() string {
	var b strings.Builder
	for i := 0; i < 400; i++ {
		b.WriteString("line of the big file, long enough to matter in context: ")
		b.WriteString(strings.Repeat("x", 20))
		b.WriteString("\n")
	}
	b.WriteString(installBigMarker + "\n")
	return b.String()
}

// checkLayersFire runs one session that meets every landed layer: a main-thread rm
// (layer 1 denies it), the session start (layer 2 shows the workbench) and a
// Read of a big file (layer 3 spills it), then checks that each fired. o
// carries how the hooks reach the CLI; Prompt and AllowedTools are set here.
func checkLayersFire(t *testing.T, s *Scenario, o Options) {
	t.Helper()
	layers := landedLayers()
	if len(layers) == 0 {
		t.Fatal("no layer's command exists in cmd/")
	}
	s.WriteFile("x", "keep me\n")
	s.WriteFile("big.txt", installBigFile())
	s.API.Main(Steps(
		Call(Bash("rm", "rm -f x")),
		Call(Read("big", s.Path("big.txt"))),
		Say("done"),
	))
	o.Prompt = "clean up and look at big.txt"
	o.AllowedTools = handsOn
	res := s.Run(o)

	if hasLayer(layers, "1") {
		got := s.ToolResult("rm")
		if !got.IsError || !strings.Contains(got.Text, delegateReason("Bash")) || !res.Denied("rm") {
			t.Errorf("layer 1: the rm was not denied by delegate-guard; the model saw (is_error %v) %q", got.IsError, got.Text)
		}
		if !s.Exists("x") {
			t.Error("layer 1: x was removed on the main thread")
		}
	}
	if hasLayer(layers, "2") {
		first := s.API.Thread(MainThread)
		if len(first) == 0 || !strings.Contains(allText(first[0]), "Workbench: "+s.Path(".flower")) {
			t.Errorf("layer 2: the first request does not show the workbench %s", s.Path(".flower"))
		}
	}
	if hasLayer(layers, "3") {
		got := s.ToolResult("big")
		if strings.Contains(got.Text, installBigMarker) {
			t.Errorf("layer 3: the whole big file reached the model (%d characters)", len(got.Text))
		}
		spilled, _ := filepath.Glob(s.Path(".flower/spill/*"))
		found := false
		for _, p := range spilled {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), installBigMarker) {
				found = true
			}
		}
		if !found {
			t.Errorf("layer 3: no spill file under %s holds the big file (found %v)", s.Path(".flower/spill"), spilled)
		}
	}
}

// TestInstalledSetupFiresHooks: install.sh into the scenario's HOME, then a
// plain `claude -p` with the user's settings fires the hooks.
func TestInstalledSetupFiresHooks(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	runInstall(t, s)
	checkLayersFire(t, s, Options{AllSettingSources: true})
}

// runInstall runs install.sh with the scenario's HOME, as a user would, and
// returns what it printed.
func runInstall(t *testing.T, s *Scenario, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(repoRoot, "install.sh")}, args...)...)
	cmd.Dir = s.Work
	cmd.Env = append(s.env(Options{}), hostGoCaches(t)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	settings := filepath.Join(s.ConfigDir, "settings.json")
	if b, err := os.ReadFile(settings); err != nil || !strings.Contains(string(b), filepath.Join(s.Home, ".local", "bin", "delegate-guard")) {
		t.Fatalf("install.sh did not wire %s (%v):\n%s\n%s", settings, err, b, out)
	}
	return string(out)
}

// TestPluginDirFiresHooks: the repository loaded as a plugin for one
// session, its hooks calling the binaries by name from PATH.
func TestPluginDirFiresHooks(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	checkLayersFire(t, s, Options{
		Args: []string{"--plugin-dir", repoRoot},
		Env:  []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")},
	})
}

// TestPluginMarketplaceInstall: `claude plugin marketplace add` of the
// repository's marketplace, `claude plugin install flower@flower`, then a
// plain session fires the hooks. The marketplace is a copy of the plugin's
// files only: a local marketplace is copied whole into the plugin cache, and
// the checkout's .cache/ holds the CLI itself.
func TestPluginMarketplaceInstall(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	mkt := filepath.Join(s.Dir, "marketplace")
	for _, d := range []string{".claude-plugin", "hooks"} {
		if err := os.CopyFS(filepath.Join(mkt, d), os.DirFS(filepath.Join(repoRoot, d))); err != nil {
			t.Fatal(err)
		}
	}
	if code, out := runClaudeCmd(s, "plugin", "marketplace", "add", mkt); code != 0 {
		t.Fatalf("plugin marketplace add: exit %d\n%s", code, out)
	}
	if code, out := runClaudeCmd(s, "plugin", "install", "flower@flower"); code != 0 {
		t.Fatalf("plugin install: exit %d\n%s", code, out)
	}
	installed, _ := filepath.Glob(filepath.Join(s.ConfigDir, "plugins", "cache", "flower", "flower", "*", "hooks", "hooks.json"))
	want, err := os.ReadFile(filepath.Join(repoRoot, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(installed) != 1 {
		t.Fatalf("installed plugin hooks: %v, want one hooks.json", installed)
	}
	if got, _ := os.ReadFile(installed[0]); !bytes.Equal(want, got) {
		t.Errorf("the installed hooks.json differs from the repository's:\n%s", got)
	}
	checkLayersFire(t, s, Options{
		AllSettingSources: true,
		Env:               []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")},
	})
}

// TestPluginValidate: the real CLI's validator accepts the repository as a
// plugin and as a marketplace.
func TestPluginValidate(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	code, out := runClaudeCmd(s, "plugin", "validate", repoRoot)
	if code != 0 || !strings.Contains(out, "Validation passed") {
		t.Errorf("claude plugin validate %s: exit %d\n%s", repoRoot, code, out)
	}
	for _, want := range []string{"marketplace.json", "hooks: PreToolUse Bash|Write|Edit|NotebookEdit command delegate-guard"} {
		if !strings.Contains(out, want) {
			t.Errorf("the validator's report lacks %q:\n%s", want, out)
		}
	}
}

// hostGoCaches keeps the machine's Go caches for a build under another HOME, so
// install.sh neither downloads modules nor recompiles everything.
func hostGoCaches(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		env = append(env, name+"="+strings.TrimSpace(string(out)))
	}
	return env
}

// TestInstallRemovesRetiredGlanceHook: install.sh over an older install that
// wired glance-check --hook (the retired auto-approve) takes that entry out,
// and afterwards a glance on the main thread runs under Claude Code's own
// permission check: one it approves runs, one it would ask about is denied
// in -p mode, by the CLI and not by a hook.
func TestInstallRemovesRetiredGlanceHook(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	glanceWorkspace(s)
	bin := filepath.Join(s.Home, ".local", "bin")
	old := `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|Write|Edit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "` + bin + `/delegate-guard",
            "timeout": 10
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "` + bin + `/glance-check --hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`
	settings := filepath.Join(s.ConfigDir, "settings.json")
	if err := os.WriteFile(settings, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runInstall(t, s)
	if want := "- PreToolUse " + bin + "/glance-check --hook (retired: "; !strings.Contains(out, want) {
		t.Errorf("install.sh did not say it removed the retired entry (%q):\n%s", want, out)
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), "glance-check") {
		t.Fatalf("the settings still wire glance-check:\n%s", b)
	}

	s.API.Main(Steps(
		Call(Bash("look", "git status -s")),
		Call(Bash("sums", cliAsksGlance)),
		Say("seen"),
	))
	res := s.Run(Options{Prompt: "what changed?", AllSettingSources: true, AllowedTools: []string{"Read"}})

	if got, want := s.ToolResult("look"), realOutput(t, s, "git status -s"); got.IsError || got.Text != want {
		t.Errorf("the glance the CLI approves: the model saw (is_error %v) %q, want its output %q", got.IsError, got.Text, want)
	}
	got := s.ToolResult("sums")
	if !got.IsError || strings.Contains(got.Text, "--- SUMS ---") || strings.Contains(got.Text, "hook error") {
		t.Errorf("the glance the CLI asks about: the model saw (is_error %v) %q; want the CLI's own denial, the command not run", got.IsError, got.Text)
	}
	if !res.Denied("sums") || res.Denied("look") {
		t.Errorf("permission_denials %+v, want the cksum glance only", res.PermissionDenials)
	}
}
