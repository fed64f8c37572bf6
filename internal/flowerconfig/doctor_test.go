package flowerconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/internal/flowersettings"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
)

// machine is a sandbox: a HOME with Claude Code's folder, a project folder,
// and a bin folder of stand-ins for flower's binaries and claude.
type machine struct {
	t                     *testing.T
	home, cfg, dir, bin   string
	claudeVersion, flower string
}

func newMachine(t *testing.T) *machine {
	m := &machine{t: t, home: t.TempDir(), dir: t.TempDir(), bin: t.TempDir(), claudeVersion: "2.1.328", flower: hook.Version()}
	m.cfg = filepath.Join(m.home, ".claude")
	os.MkdirAll(m.cfg, 0o700)
	t.Setenv("HOME", m.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("FLOWER_WORKBENCH", "")
	t.Setenv("CLAUDE_CONFIG_DIR", m.cfg)
	return m
}

// script writes an executable shell script.
func (m *machine) script(path, body string) {
	m.t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		m.t.Fatal(err)
	}
}

// install puts stand-ins for flower's binaries in bin and wires layers into
// the settings file at path.
func (m *machine) install(path string, layers ...string) {
	m.t.Helper()
	for _, b := range flowersettings.Binaries(layers) {
		m.script(filepath.Join(m.bin, b), "echo "+b+" "+m.flower)
	}
	doc, err := flowersettings.Example(m.bin, layers)
	if err != nil {
		m.t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, doc, 0o600)
}

func (m *machine) check() (int, string) {
	m.t.Helper()
	claude := filepath.Join(m.bin, "claude")
	m.script(claude, "echo '"+m.claudeVersion+" (Claude Code)'")
	var b strings.Builder
	n := Check(Options{Dir: m.dir, ConfigDir: m.cfg, Claude: claude}, &b)
	return n, b.String()
}

func TestCheckAllWell(t *testing.T) {
	m := newMachine(t)
	m.install(filepath.Join(m.cfg, "settings.json"), "1", "2", "3")
	n, out := m.check()
	if n != 0 || !strings.HasSuffix(out, "all is well\n") {
		t.Errorf("%d problems:\n%s", n, out)
	}
	for _, want := range []string{"ok       Claude Code   2.1.328", "user settings " + filepath.Join(m.cfg, "settings.json") + " wires layer(s) 1,2,3",
		filepath.Join(m.bin, "delegate-guard") + " " + hook.Version(), "not made yet"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(m *machine)
		want  string
	}{
		{"nothing wired", func(m *machine) {}, "no settings file or plugin wires a flower hook"},
		{"wired twice, user and project", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1", "2", "3")
			m.install(filepath.Join(m.dir, ".claude", "settings.local.json"), "1")
		}, "PreToolUse runs delegate-guard twice (user settings and local settings)"},
		{"wired twice, settings and plugin", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1", "2", "3")
			b, _ := os.ReadFile(filepath.Join(m.cfg, "settings.json"))
			b = []byte(strings.Replace(string(b), "{", `{"enabledPlugins": {"flower@flower": true},`, 1))
			os.WriteFile(filepath.Join(m.cfg, "settings.json"), b, 0o600)
			plugin := filepath.Join(m.cfg, "plugins", "cache", "flower")
			os.MkdirAll(filepath.Join(plugin, "hooks"), 0o700)
			hooks, _ := flowersettings.PluginHooks()
			os.WriteFile(filepath.Join(plugin, "hooks", "hooks.json"), hooks, 0o600)
			os.WriteFile(filepath.Join(m.cfg, "plugins", "installed_plugins.json"),
				[]byte(`{"version":2,"plugins":{"flower@flower":[{"scope":"user","installPath":"`+plugin+`"}]}}`), 0o600)
			t.Setenv("PATH", m.bin+":"+os.Getenv("PATH"))
		}, "runs delegate-guard twice (user settings and plugin flower@flower)"},
		{"an old binary", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1")
			m.script(filepath.Join(m.bin, "delegate-guard"), "echo delegate-guard 0.0.1")
		}, "is version 0.0.1"},
		{"a missing binary", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1")
			os.Remove(filepath.Join(m.bin, "delegate-guard"))
		}, "cannot be run"},
		{"an old Claude Code", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1")
			m.claudeVersion = "1.0.98"
		}, "older than " + hook.MinClaudeVersion},
		{"a typo in the user file", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1")
			os.MkdirAll(filepath.Join(m.home, ".config", "flower"), 0o700)
			os.WriteFile(filepath.Join(m.home, ".config", "flower", "config.json"), []byte(`{"spill-guard": {"treshold": 8000}}`), 0o600)
		}, "treshold"},
		{"a spill folder with another rule", func(m *machine) {
			m.install(filepath.Join(m.cfg, "settings.json"), "1")
			os.MkdirAll(filepath.Join(m.dir, ".flower", "spill"), 0o700)
			os.WriteFile(filepath.Join(m.dir, ".flower", "spill", spill.IgnoreFile), []byte("!*\n"), 0o600)
		}, "is not flower's ignore rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t)
			tc.setup(m)
			n, out := m.check()
			if n == 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "problem") {
				t.Errorf("%d problems; want one saying %q:\n%s", n, tc.want, out)
			}
		})
	}
}

// TestCheckUntrustedProject: settings a project file may not set are
// named, with how to trust the project; they are no problem.
func TestCheckUntrustedProject(t *testing.T) {
	m := newMachine(t)
	m.install(filepath.Join(m.cfg, "settings.json"), "1")
	os.MkdirAll(filepath.Join(m.dir, ".claude"), 0o700)
	os.WriteFile(filepath.Join(m.dir, ".claude", "flower.json"), []byte(`{"glances": [{"command": "docker ps"}]}`), 0o600)
	n, out := m.check()
	if n != 0 || !strings.Contains(out, "glances left out") || !strings.Contains(out, "to trust this project, add \""+m.dir+"\" to trusted-projects") {
		t.Errorf("%d problems:\n%s", n, out)
	}
}

func TestReadStream(t *testing.T) {
	for _, tc := range []struct{ name, stream, denial, failure string }{
		{"denied", `{"type":"user","message":{"content":[{"type":"tool_result","content":"PreToolUse:Bash hook error: no","is_error":true}]}}` + "\n" +
			`{"type":"result","is_error":false,"result":"ok"}`, "PreToolUse:Bash hook error: no", ""},
		{"denied, blocks", `{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"PreToolUse:Bash hook error: no"}]}]}}`, "PreToolUse:Bash hook error: no", ""},
		{"no key", `{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}`, "", "Invalid API key · Please run /login"},
		{"ran", `{"type":"user","message":{"content":[{"type":"tool_result","content":"","is_error":false}]}}` + "\n" + `{"type":"result","is_error":false}`, "", ""},
	} {
		d, f := readStream([]byte(tc.stream))
		if d != tc.denial || f != tc.failure {
			t.Errorf("%s: readStream = %q, %q; want %q, %q", tc.name, d, f, tc.denial, tc.failure)
		}
	}
}
