package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/internal/flowersettings"
)

// userSettings is a settings file as Claude Code writes it, with a hook of
// the user's own: what install.sh must leave as it was.
const userSettings = `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  }
}
`

// installEnv runs install.sh from a snapshot of the checkout, with HOME in a
// temp folder. The snapshot keeps the build stable while the checkout changes
// under other work; Go's caches stay the machine's, so the build does not
// download or recompile everything for the new HOME.
type installEnv struct {
	t    *testing.T
	src  string // the snapshot holding install.sh
	home string
}

func newInstallEnv(t *testing.T) *installEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("builds every command several times; not in -short")
	}
	dir := t.TempDir()
	e := &installEnv{t: t, src: filepath.Join(dir, "src"), home: filepath.Join(dir, "home")}
	for _, f := range []string{"install.sh", "go.mod", "go.sum"} {
		copyFile(t, filepath.Join("..", f), filepath.Join(e.src, f))
	}
	for _, d := range []string{"cmd", "internal", "pkg"} {
		if err := os.CopyFS(filepath.Join(e.src, d), os.DirFS(filepath.Join("..", d))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(e.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// run runs install.sh with args in dir (the snapshot when dir is "") and
// returns its exit code and combined output.
func (e *installEnv) run(dir string, args ...string) (int, string) {
	e.t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(e.src, "install.sh")}, args...)...)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = e.src
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains([]string{"HOME", "PREFIX", "CLAUDE_CONFIG_DIR", "GOCACHE", "GOMODCACHE", "GOPATH"}, k) {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+e.home,
		"GOCACHE="+goEnv(e.t, "GOCACHE"), "GOMODCACHE="+goEnv(e.t, "GOMODCACHE"), "GOPATH="+goEnv(e.t, "GOPATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return code, out.String()
}

func (e *installEnv) settings() string { return filepath.Join(e.home, ".claude", "settings.json") }
func (e *installEnv) bin() string      { return filepath.Join(e.home, ".local", "bin") }

// commands are the binaries install.sh installs: every cmd/ but flower-settings.
func (e *installEnv) commands() []string {
	entries, err := os.ReadDir(filepath.Join(e.src, "cmd"))
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, d := range entries {
		if d.IsDir() && d.Name() != "flower-settings" {
			names = append(names, d.Name())
		}
	}
	return names
}

// state is everything install.sh may change: the settings folder's files and
// the binaries with their modification times.
func (e *installEnv) state() map[string]string {
	e.t.Helper()
	s := map[string]string{}
	for _, dir := range []string{filepath.Join(e.home, ".claude"), e.bin()} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, d := range entries {
			p := filepath.Join(dir, d.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				e.t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				e.t.Fatal(err)
			}
			s[p] = fi.ModTime().String() + " " + fi.Mode().String() + " " + string(b)
		}
	}
	return s
}

func wired(t *testing.T, settings, bin string) []string {
	t.Helper()
	doc, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := flowersettings.WiredLayers(doc, bin)
	if err != nil {
		t.Fatal(err)
	}
	return layers
}

// TestInstallScript walks install.sh through a user's life: a dry run, an
// install, a second install, an uninstall; each step checked on disk.
func TestInstallScript(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	if err := os.WriteFile(e.settings(), []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}

	before := e.state()
	code, out := e.run("", "--dry-run")
	if code != 0 {
		t.Fatalf("--dry-run: exit %d\n%s", code, out)
	}
	if diff := cmp.Diff(before, e.state()); diff != "" {
		t.Errorf("--dry-run changed files (-before +after):\n%s", diff)
	}
	if !strings.Contains(out, "+ PreToolUse [Bash|Write|Edit|NotebookEdit] "+filepath.Join(e.bin(), "delegate-guard")) {
		t.Errorf("--dry-run does not show the entry it would add:\n%s", out)
	}

	code, out = e.run("")
	if code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	for _, name := range e.commands() {
		p := filepath.Join(e.bin(), name)
		v, err := exec.Command(p, "--version").Output()
		if err != nil || !strings.HasPrefix(string(v), name+" ") {
			t.Errorf("%s --version = %q, %v", p, v, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.bin(), "flower-settings")); err == nil {
		t.Errorf("flower-settings was installed; only install.sh runs it")
	}
	if diff := cmp.Diff(flowersettings.DefaultLayers, wired(t, e.settings(), e.bin())); diff != "" {
		t.Errorf("wired layers (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(e.settings() + flowersettings.BackupSuffix); string(b) != userSettings {
		t.Errorf("backup = %q, want the previous file", b)
	}
	if !strings.Contains(out, "is not on your PATH") {
		t.Errorf("no PATH note although %s is not on PATH:\n%s", e.bin(), out)
	}

	installed := e.state()
	code, out = e.run("")
	if code != 0 {
		t.Fatalf("second install: exit %d\n%s", code, out)
	}
	if diff := cmp.Diff(installed, e.state()); diff != "" {
		t.Errorf("a second install changed files (-before +after):\n%s", diff)
	}
	for _, want := range []string{"binaries up to date", "already wired"} {
		if !strings.Contains(out, want) {
			t.Errorf("second install does not say %q:\n%s", want, out)
		}
	}
	if code, out = e.run("", "--dry-run", "--uninstall"); code != 0 {
		t.Fatalf("--dry-run --uninstall: exit %d\n%s", code, out)
	}
	if diff := cmp.Diff(installed, e.state()); diff != "" {
		t.Errorf("--dry-run --uninstall changed files (-before +after):\n%s", diff)
	}

	if code, out = e.run("", "--uninstall"); code != 0 {
		t.Fatalf("--uninstall: exit %d\n%s", code, out)
	}
	got, err := os.ReadFile(e.settings())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(userSettings, string(got)); diff != "" {
		t.Errorf("--uninstall did not restore settings.json (-want +got):\n%s", diff)
	}
	left, _ := os.ReadDir(e.bin())
	if len(left) != 0 {
		t.Errorf("--uninstall left %v in %s", left, e.bin())
	}
}

// TestInstallScriptBrokenSettings: a settings file that is not JSON stops the
// run with a message before anything is installed.
func TestInstallScriptBrokenSettings(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	broken := "{\n  \"model\": \"opus\",\n"
	if err := os.WriteFile(e.settings(), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	before := e.state()
	code, out := e.run("")
	if code == 0 {
		t.Fatalf("install into a broken settings file succeeded:\n%s", out)
	}
	if !strings.Contains(out, "not valid JSON") {
		t.Errorf("the message does not say what is wrong:\n%s", out)
	}
	if diff := cmp.Diff(before, e.state()); diff != "" {
		t.Errorf("files changed (-before +after):\n%s", diff)
	}
}

// TestInstallScriptProjectLayers: --project writes .claude/settings.json of
// the repository around the current directory, --layers chooses what.
func TestInstallScriptProjectLayers(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	repo := filepath.Join(t.TempDir(), "repo")
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	code, out := e.run(sub, "--project", "--layers", "1,glance")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	project := filepath.Join(repo, ".claude", "settings.json")
	if diff := cmp.Diff([]string{"1", "glance"}, wired(t, project, e.bin())); diff != "" {
		t.Errorf("wired layers (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(e.settings()); err == nil {
		t.Errorf("--project also wrote the user settings")
	}
}
