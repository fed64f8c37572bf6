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
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
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
	return e.runEnv(dir, nil, args...)
}

// runEnv is run with KEY=VALUE entries added to (or replacing) the environment.
func (e *installEnv) runEnv(dir string, extra []string, args ...string) (int, string) {
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
	cmd.Env = append(cmd.Env, extra...) // later entries win
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

// withoutBuildLines is install.sh's output without the lines that say it is
// building.
func withoutBuildLines(out string) string {
	var keep []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(line, "building flower's commands") && !strings.HasPrefix(line, "built in ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

func (e *installEnv) settings() string { return filepath.Join(e.home, ".claude", "settings.json") }
func (e *installEnv) bin() string      { return filepath.Join(e.home, ".local", "bin") }

// commands are the binaries install.sh installs: every cmd/, flower-settings
// included (--uninstall runs it, so that it needs no Go).
func (e *installEnv) commands() []string {
	entries, err := os.ReadDir(filepath.Join(e.src, "cmd"))
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, d := range entries {
		if d.IsDir() {
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
	if strings.Contains(out, "flower-settings:") {
		t.Errorf("the output names flower-settings, a tool the user never ran:\n%s", out)
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

	if !strings.Contains(out, "building flower's commands") || !strings.Contains(out, "built in ") {
		t.Errorf("the build is not announced:\n%s", out)
	}

	// Another set of layers keeps the backup of the user's own file: the
	// file before this run held flower's entries.
	if code, out = e.run("", "--layers", "1,2,3,capture"); code != 0 {
		t.Fatalf("--layers 1,2,3,capture: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(e.settings() + flowersettings.BackupSuffix); string(b) != userSettings {
		t.Errorf("after a second set of layers the backup = %q, want the user's file from before flower", b)
	}
	if code, out = e.run("", "--layers", "1,2,3"); code != 0 {
		t.Fatalf("--layers 1,2,3: exit %d\n%s", code, out)
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
	// The folders the install made go with it: HOME had no .local.
	if _, err := os.Lstat(filepath.Join(e.home, ".local")); !os.IsNotExist(err) {
		t.Errorf("--uninstall left %s (%v), which the install made", filepath.Join(e.home, ".local"), err)
	}
}

// TestInstallScriptKeepsFoldersItFound: an uninstall removes the folders
// the install made, not one that was there before (with a file of the
// user's, or empty).
func TestInstallScriptKeepsFoldersItFound(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	mine := filepath.Join(e.bin(), "my-tool")
	os.MkdirAll(e.bin(), 0o755)
	os.WriteFile(mine, []byte("#!/bin/sh\n"), 0o755)
	os.MkdirAll(filepath.Join(e.home, ".local", "share"), 0o755)
	if code, out := e.run(""); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	if code, out := e.run("", "--uninstall"); code != 0 {
		t.Fatalf("--uninstall: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's tool went: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(e.home, ".local", "share")); err != nil || !fi.IsDir() {
		t.Errorf(".local/share, there before the install, went: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(e.home, ".local", "share", "flower")); !os.IsNotExist(err) {
		t.Errorf(".local/share/flower, made by the install, stayed (%v)", err)
	}
}

// TestInstallScriptPlugin: a settings file that turns flower's plugin on
// would run every hook twice with install.sh's entries: the run says so,
// and --disable-plugin turns the plugin off in that file.
func TestInstallScriptPlugin(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	const withPlugin = "{\n  \"enabledPlugins\": {\n    \"flower@flower\": true,\n    \"other@market\": true\n  }\n}\n"
	os.WriteFile(e.settings(), []byte(withPlugin), 0o644)
	code, out := e.run("")
	if code != 0 || !strings.Contains(out, "note: flower's plugin (flower@flower) is on in this file too") {
		t.Fatalf("exit %d, and no note of the plugin:\n%s", code, out)
	}
	code, out = e.run("", "--disable-plugin")
	if code != 0 {
		t.Fatalf("--disable-plugin: exit %d\n%s", code, out)
	}
	b, _ := os.ReadFile(e.settings())
	if got := gjson.GetBytes(b, `enabledPlugins.flower\@flower`); got.Type != gjson.False {
		t.Errorf("the plugin is %s after --disable-plugin:\n%s", got.Raw, b)
	}
	if got := gjson.GetBytes(b, `enabledPlugins.other\@market`); got.Type != gjson.True {
		t.Errorf("another plugin changed: %s", got.Raw)
	}
	if strings.Contains(out, "note: flower's plugin") {
		t.Errorf("the note stayed after the plugin was turned off:\n%s", out)
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
	if !strings.Contains(out, "install.sh: "+e.settings()+": not valid JSON (line 3, column 1") {
		t.Errorf("the message does not say what is wrong, as install.sh:\n%s", out)
	}
	if strings.Contains(out, "flower-settings") {
		t.Errorf("the message names flower-settings, a tool the user never ran:\n%s", out)
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
	code, out := e.run(sub, "--project", "--layers", "1,3")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	project := filepath.Join(repo, ".claude", "settings.json")
	if diff := cmp.Diff([]string{"1", "3"}, wired(t, project, e.bin())); diff != "" {
		t.Errorf("wired layers (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(e.settings()); err == nil {
		t.Errorf("--project also wrote the user settings")
	}
}

// TestInstallScriptRetiredGlanceHook: run over an older install that wired
// the retired glance-check --hook, install.sh removes that entry and says so
// in one line, and keeps the rest.
func TestInstallScriptRetiredGlanceHook(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	old := glanceHookSettings(e.bin())
	if err := os.WriteFile(e.settings(), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := e.run("")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var said []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "glance-check --hook") {
			said = append(said, line)
		}
	}
	want := []string{"- PreToolUse " + filepath.Join(e.bin(), "glance-check") + " --hook (retired: flower no longer approves glances; Claude Code's own permission check decides)"}
	if diff := cmp.Diff(want, said); diff != "" {
		t.Errorf("what install.sh said of the retired entry (-want +got):\n%s\nall output:\n%s", diff, out)
	}
	got, err := os.ReadFile(e.settings())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "glance-check") || !strings.Contains(string(got), "notify-send done") {
		t.Errorf("settings after the install:\n%s", got)
	}
	if diff := cmp.Diff([]string{"1"}, wired(t, e.settings(), e.bin())); diff != "" {
		t.Errorf("wired layers (-want +got): the layers the old install wired stay\n%s", diff)
	}
}

// glanceHookSettings is userSettings as an older install.sh left it with
// --layers 1,glance and binaries in bin.
func glanceHookSettings(bin string) string {
	return strings.Replace(userSettings, `  "hooks": {
`, `  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|Write|Edit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "`+bin+`/delegate-guard",
            "timeout": 10
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "`+bin+`/glance-check --hook",
            "timeout": 10
          }
        ]
      }
    ],
`, 1)
}

// TestInstallScriptLayout: the new entries are laid out as the file is (two
// spaces as Claude Code writes it, tabs in a tab-indented file), one value per
// line, and the second prefix moves the entries instead of wiring them twice.
func TestInstallScriptLayout(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	tabbed := "{\n\t\"model\": \"opus\"\n}\n"
	if err := os.WriteFile(e.settings(), []byte(tabbed), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := e.run(""); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	got, err := os.ReadFile(e.settings())
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := flowersettings.Install([]byte("{\n  \"model\": \"opus\"\n}\n"), e.bin(), flowersettings.DefaultLayers)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.ReplaceAll(string(want), "  ", "\t"), string(got)); diff != "" {
		t.Errorf("the installed file is not laid out in tabs, one value per line (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(want), "\n        \"matcher\": \"Bash|Write|Edit|NotebookEdit\",\n") {
		t.Errorf("a Claude Code style file does not get its entries in two-space indents:\n%s", want)
	}

	other := filepath.Join(e.home, "opt")
	code, out := e.run("", "--prefix", other)
	if code != 0 {
		t.Fatalf("second install with --prefix %s: exit %d\n%s", other, code, out)
	}
	moved, err := os.ReadFile(e.settings())
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	for _, e := range flowersettings.Catalog {
		if slices.Contains(flowersettings.DefaultLayers, e.Layer) {
			entries++
		}
	}
	if n := strings.Count(string(moved), `"command":`); n != entries {
		t.Errorf("%d hook commands after a second install with another prefix, want %d:\n%s", n, entries, moved)
	}
	if strings.Contains(string(moved), e.bin()) {
		t.Errorf("entries still run the first install's binaries:\n%s", moved)
	}
	if !strings.Contains(out, "./install.sh --uninstall --prefix "+e.home+"/.local removes them") {
		t.Errorf("no word on the first install's binaries, now unused:\n%s", out)
	}
}

// TestInstallScriptUnwritableSettings: a settings file that cannot be written
// (read-only, or a link into a read-only store as home-manager makes it)
// stops the run before anything is installed, with the real cause and a way
// out; --dry-run then prints the hooks to add by hand.
func TestInstallScriptUnwritableSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(e *installEnv) (cause string)
	}{
		{"read-only file", func(e *installEnv) string {
			if err := os.WriteFile(e.settings(), []byte(userSettings), 0o444); err != nil {
				t.Fatal(err)
			}
			return "cannot write " + e.settings() + ": it is read-only (mode 0444)"
		}},
		{"link into a read-only store", func(e *installEnv) string {
			store := filepath.Join(e.home, "nix", "store", "abc-home-manager-files", "settings.json")
			if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(store, []byte(userSettings), 0o444); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(store, e.settings()); err != nil {
				t.Fatal(err)
			}
			return "cannot write " + e.settings() + " (a link to " + store + "): it is read-only (mode 0444)"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newInstallEnv(t)
			cause := tc.setup(e)
			before := e.state()
			code, out := e.run("")
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			want := "install.sh: " + cause + "; nothing was changed. Name another file with --settings, or run with --dry-run to print the hooks and add them where this file is generated\n"
			if diff := cmp.Diff(want, withoutBuildLines(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, e.state()); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
			if _, err := os.Stat(e.bin()); err == nil {
				t.Errorf("%s was created: binaries installed before the settings were found unwritable", e.bin())
			}

			code, out = e.run("", "--dry-run")
			if code != 0 {
				t.Fatalf("--dry-run: exit %d\n%s", code, out)
			}
			_, block, ok := strings.Cut(out, "add these hooks where it is generated:\n")
			if !ok || !strings.Contains(block, `"command": "`+filepath.Join(e.bin(), "delegate-guard")+`"`) {
				t.Errorf("--dry-run does not print the hooks to add by hand:\n%s", out)
			}
		})
	}
}

// TestInstallScriptArguments: --prefix=~/… is the home folder's, an unknown
// or retired layer is refused before anything is built, and --uninstall
// needs no Go.
func TestInstallScriptArguments(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	// GO=false: a build would fail with "go build failed".
	for layers, want := range map[string]string{
		"4":         "install.sh: --layers 4: layer four is the prune-session command, not a hook; it is installed with every layer (known layers: 1,2,3,capture)\n",
		"1,glance":  "install.sh: --layers glance: the glance layer (glance-check --hook) was retired; flower no longer approves commands, Claude Code's own permission check decides\n",
		"1,x":       "install.sh: --layers: unknown layer \"x\" (known: 1,2,3,capture)\n",
		"1,capture": "install.sh: --layers 1,capture: the capture layer needs layer 3, whose spill-guard shows the model what it captured (use --layers 1,2,3,capture)\n",
	} {
		code, out := e.runEnv("", []string{"GO=false"}, "--layers", layers)
		if diff := cmp.Diff(want, out); code != 1 || diff != "" {
			t.Errorf("--layers %s: exit %d, output (-want +got):\n%s", layers, code, diff)
		}
	}

	if code, out := e.run("", "--prefix=~/opt"); code != 0 {
		t.Fatalf("--prefix=~/opt: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(e.home, "opt", "bin", "delegate-guard")); err != nil {
		t.Errorf("--prefix=~/opt did not install into ~/opt/bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.src, "~")); err == nil {
		t.Errorf("--prefix=~/opt made a folder named ~")
	}

	// Without Go on PATH, the installed flower-settings does the edit.
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err != nil {
			path = append(path, d)
		}
	}
	code, out := e.runEnv("", []string{"PATH=" + strings.Join(path, string(os.PathListSeparator)), "GO="}, "--uninstall", "--prefix=~/opt")
	if code != 0 {
		t.Fatalf("--uninstall without Go: exit %d\n%s", code, out)
	}
	if got, err := os.ReadFile(e.settings()); err != nil || strings.Contains(string(got), "hooks") {
		t.Errorf("--uninstall without Go left %q (%v)", got, err)
	}
	if left, _ := os.ReadDir(filepath.Join(e.home, "opt", "bin")); len(left) != 0 {
		t.Errorf("--uninstall without Go left %v", left)
	}
}

// TestInstallScriptCaptureLayer: --layers 1,2,3,capture puts the capture
// script beside the binaries and names it in env.BASH_ENV, moving the
// user's own BASH_ENV to FLOWER_BASH_ENV; dropping the layer, and
// uninstalling, give the settings back as they were, and the script goes.
func TestInstallScriptCaptureLayer(t *testing.T) {
	t.Parallel()
	e := newInstallEnv(t)
	const mine = "{\n  \"env\": {\n    \"BASH_ENV\": \"/home/u/.bash_env\"\n  }\n}\n"
	if err := os.WriteFile(e.settings(), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(e.home, ".local", "share", "flower", "capture.bash")
	code, out := e.run("", "--layers", "1,2,3,capture")
	if code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	if b, err := os.ReadFile(script); err != nil || string(b) != capture.Script {
		t.Errorf("the capture script at %s is not the embedded one (%v)", script, err)
	}
	if first, _, _ := strings.Cut(capture.Script, "\n"); !strings.Contains(readFile(t, filepath.Join(e.src, "install.sh")), "script_head='"+first+"'") {
		t.Errorf("install.sh does not know the script's first line %q, by which --uninstall recognises it", first)
	}
	doc := readFile(t, e.settings())
	if got, want := gjsonPath(doc, "env.BASH_ENV"), script; got != want {
		t.Errorf("env.BASH_ENV = %q, want %q", got, want)
	}
	if got := gjsonPath(doc, "env.FLOWER_BASH_ENV"); got != "/home/u/.bash_env" {
		t.Errorf("env.FLOWER_BASH_ENV = %q, want the user's BASH_ENV", got)
	}
	if diff := cmp.Diff(append(slices.Clone(flowersettings.DefaultLayers), flowersettings.LayerCapture), wired(t, e.settings(), e.bin())); diff != "" {
		t.Errorf("wired layers (-want +got):\n%s", diff)
	}
	// A plain rerun keeps the layers already wired, capture included.
	if code, out = e.run(""); code != 0 || !strings.Contains(out, "already wired (layers 1,2,3,capture)") {
		t.Errorf("rerun: exit %d\n%s", code, out)
	}
	if code, out = e.run("", "--layers", "1,2,3"); code != 0 {
		t.Fatalf("--layers 1,2,3: exit %d\n%s", code, out)
	}
	if got := gjsonPath(readFile(t, e.settings()), "env.BASH_ENV"); got != "/home/u/.bash_env" {
		t.Errorf("without the capture layer env.BASH_ENV = %q, want the user's back", got)
	}
	if code, out = e.run("", "--layers", "1,2,3,capture"); code != 0 {
		t.Fatalf("again with capture: exit %d\n%s", code, out)
	}
	if code, out = e.run("", "--uninstall"); code != 0 {
		t.Fatalf("--uninstall: exit %d\n%s", code, out)
	}
	if diff := cmp.Diff(mine, readFile(t, e.settings())); diff != "" {
		t.Errorf("--uninstall did not restore settings.json (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Dir(script)); err == nil {
		t.Errorf("--uninstall left %s", filepath.Dir(script))
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func gjsonPath(doc, path string) string { return gjson.Get(doc, path).String() }

// TestInstallFromArchive: a release archive made by make dist installs and
// uninstalls with no Go on the machine, from its own install.sh and with
// --from; an archive that does not match its checksum is refused.
func TestInstallFromArchive(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds every command; not in -short")
	}
	dist := t.TempDir()
	target := goEnv(t, "GOOS") + "/" + goEnv(t, "GOARCH")
	if out, err := exec.Command("make", "-s", "-C", "..", "dist", "DIST="+dist, "DIST_TARGETS="+target).CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	archives, _ := filepath.Glob(filepath.Join(dist, "flower-*.tar.gz"))
	if len(archives) != 1 {
		t.Fatalf("make dist made %v", archives)
	}
	archive := archives[0]
	name := strings.TrimSuffix(filepath.Base(archive), ".tar.gz")

	// No Go: only the system's own folders on PATH.
	noGo := "PATH=/usr/bin:/bin"
	for _, dir := range []string{"/usr/bin", "/bin"} {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Fatalf("%s holds a go: the test cannot take Go away", dir)
		}
	}
	sh := func(home string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command("sh", args...)
		cmd.Env = []string{noGo, "HOME=" + home}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}

	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", archive, "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(userSettings), 0o644)
	script := filepath.Join(unpacked, name, "install.sh")
	code, out := sh(home, script)
	if code != 0 || !strings.Contains(out, "installing the prebuilt commands") {
		t.Fatalf("the archive's install.sh without Go: exit %d\n%s", code, out)
	}
	bin := filepath.Join(home, ".local", "bin")
	if diff := cmp.Diff(flowersettings.DefaultLayers, wired(t, filepath.Join(home, ".claude", "settings.json"), bin)); diff != "" {
		t.Errorf("wired layers (-want +got):\n%s", diff)
	}
	if v, err := exec.Command(filepath.Join(bin, "delegate-guard"), "--version").Output(); err != nil || !strings.HasPrefix(string(v), "delegate-guard ") {
		t.Errorf("installed delegate-guard --version = %q, %v", v, err)
	}
	if code, out = sh(home, script, "--uninstall"); code != 0 {
		t.Fatalf("--uninstall without Go: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); string(b) != userSettings {
		t.Errorf("--uninstall did not restore the settings:\n%s", b)
	}
	if _, err := os.Lstat(filepath.Join(home, ".local")); !os.IsNotExist(err) {
		t.Errorf("--uninstall left %s (%v)", filepath.Join(home, ".local"), err)
	}

	// --from the archive itself, checked against SHA256SUMS.
	home2 := t.TempDir()
	if code, out = sh(home2, "../install.sh", "--from", archive); code != 0 || !strings.Contains(out, "checked "+filepath.Base(archive)) {
		t.Fatalf("--from %s: exit %d\n%s", archive, code, out)
	}
	if _, err := os.Stat(filepath.Join(home2, ".local", "bin", "spill-guard")); err != nil {
		t.Errorf("--from installed no spill-guard: %v", err)
	}

	// A damaged download is refused before anything is installed.
	bad := t.TempDir()
	b, _ := os.ReadFile(archive)
	b[len(b)/2] ^= 0xff
	os.WriteFile(filepath.Join(bad, filepath.Base(archive)), b, 0o644)
	sums, _ := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	os.WriteFile(filepath.Join(bad, "SHA256SUMS"), sums, 0o644)
	home3 := t.TempDir()
	if code, out = sh(home3, "../install.sh", "--from", filepath.Join(bad, filepath.Base(archive))); code != 1 || !strings.Contains(out, "does not match its checksum") {
		t.Errorf("a damaged archive: exit %d\n%s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(home3, ".local")); !os.IsNotExist(err) {
		t.Errorf("a damaged archive installed something (%v)", err)
	}
}
