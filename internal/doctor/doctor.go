// Package doctor checks an installation of flower on this machine, locally
// and in seconds: which settings files and plugins wire which of flower's
// hooks (and whether one runs twice), that each wired binary runs and is this
// version, the Claude Code version, the configuration in effect with its
// errors and the settings a project file may not set, and the workbench's
// ignore rules. Check says each finding in a line; Model runs one short
// session with the user's model to see delegate-guard deny in the real CLI.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/flowersettings"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/spill"
)

// Options say what to check: the project folder, and where Claude Code keeps
// its files.
type Options struct {
	Dir       string // the project folder
	ConfigDir string // $CLAUDE_CONFIG_DIR, else ~/.claude
	Claude    string // the claude command, "" for "claude" on PATH
}

// report collects the findings and says them.
type report struct {
	w        io.Writer
	problems int
}

func (r *report) ok(area, format string, a ...any) { r.line("ok", area, format, a...) }
func (r *report) note(area, format string, a ...any) {
	r.line("note", area, format, a...)
}
func (r *report) problem(area, format string, a ...any) {
	r.problems++
	r.line("problem", area, format, a...)
}
func (r *report) line(mark, area, format string, a ...any) {
	fmt.Fprintf(r.w, "%-8s %-13s %s\n", mark, area, fmt.Sprintf(format, a...))
}

// Check checks the installation for the project folder o.Dir and says what
// it found, one line a finding; it returns the number of problems.
func Check(o Options, w io.Writer) int {
	r := &report{w: w}
	fmt.Fprintf(w, "flower %s, project folder %s\n", hook.Version(), o.Dir)
	checkClaude(r, o)
	checkHooks(r, o)
	checkConfig(r, o.Dir)
	checkWorkbench(r, o.Dir)
	if r.problems == 0 {
		fmt.Fprintln(w, "all is well")
	} else {
		fmt.Fprintf(w, "%d problem(s)\n", r.problems)
	}
	return r.problems
}

// run runs name with args for at most d, and returns its stdout.
func run(d time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	return string(out), err
}

func (o Options) claude() string {
	if o.Claude != "" {
		return o.Claude
	}
	return "claude"
}

// checkClaude says which Claude Code runs, and whether flower works with it.
func checkClaude(r *report, o Options) {
	out, err := run(20*time.Second, o.claude(), "--version")
	if err != nil {
		r.problem("Claude Code", "%s --version: %v (is Claude Code installed and on PATH?)", o.claude(), err)
		return
	}
	version, _, _ := strings.Cut(strings.TrimSpace(out), " ")
	if why := hook.ClaudeVersionProblem(version); why != "" {
		r.problem("Claude Code", "%s: %s", version, why)
		return
	}
	r.ok("Claude Code", "%s (flower needs %s or later)", version, hook.MinClaudeVersion)
}

// source is a settings file Claude Code reads, or a plugin's hooks.
type source struct {
	label, path string
	doc         []byte
	plugin      bool
}

// settingsFiles are the settings files Claude Code reads for the project
// folder dir, lowest precedence first.
func settingsFiles(o Options) []source {
	managed := "/etc/claude-code/managed-settings.json"
	if runtime.GOOS == "darwin" {
		managed = "/Library/Application Support/ClaudeCode/managed-settings.json"
	}
	return []source{
		{label: "user settings", path: filepath.Join(o.ConfigDir, "settings.json")},
		{label: "project settings", path: filepath.Join(o.Dir, ".claude", "settings.json")},
		{label: "local settings", path: filepath.Join(o.Dir, ".claude", "settings.local.json")},
		{label: "managed settings", path: managed},
	}
}

// maxSettings bounds a settings file read.
const maxSettings = 4 << 20

// readFile reads a regular file of at most limit bytes without blocking on a
// FIFO; a missing file is (nil, nil).
func readFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, fmt.Errorf("not a regular file of at most %d bytes", limit)
	}
	return io.ReadAll(f)
}

// checkHooks says which files wire which of flower's hooks, whether one runs
// twice, and whether each binary runs as this version.
func checkHooks(r *report, o Options) {
	var sources []source
	plugins := map[string]bool{} // flower plugin keys, on or off by the last file
	for _, s := range settingsFiles(o) {
		b, err := readFile(s.path, maxSettings)
		switch {
		case err != nil:
			r.problem("settings", "%s %s: %v", s.label, s.path, err)
			continue
		case b == nil:
			continue
		}
		if err := jsoncheck.Check(string(b), 1000); err != nil {
			r.problem("settings", "%s %s: %v: Claude Code may ignore it", s.label, s.path, err)
			continue
		}
		s.doc = b
		sources = append(sources, s)
		gjson.GetBytes(b, "enabledPlugins").ForEach(func(k, v gjson.Result) bool {
			if name, _, _ := strings.Cut(k.Str, "@"); name == "flower" {
				plugins[k.Str] = v.Type == gjson.True
			}
			return true
		})
	}
	for _, key := range slices.Sorted(maps.Keys(plugins)) {
		if !plugins[key] {
			continue
		}
		path, err := pluginHooks(o.ConfigDir, key)
		if err != nil {
			r.problem("plugin", "%s is on, but its hooks cannot be read: %v", key, err)
			continue
		}
		b, err := readFile(path, maxSettings)
		if err != nil || b == nil {
			r.problem("plugin", "%s is on, but %s cannot be read: %v", key, path, err)
			continue
		}
		sources = append(sources, source{label: "plugin " + key, path: path, doc: b, plugin: true})
	}

	type wired struct {
		event, binary string
		where         []string
	}
	var all []*wired
	commands := map[string]string{} // command: where it is wired, first
	for _, s := range sources {
		ws := flowersettings.Wirings(s.doc)
		if len(ws) == 0 {
			continue
		}
		var layers []string
		for _, w := range ws {
			if w.Retired {
				r.problem("hooks", "%s %s runs %q, which flower retired: ./install.sh removes it", s.label, s.path, w.Command)
				continue
			}
			layers = append(layers, w.Layer)
			i := slices.IndexFunc(all, func(x *wired) bool { return x.event == w.Event && x.binary == w.Binary })
			if i < 0 {
				all = append(all, &wired{event: w.Event, binary: w.Binary})
				i = len(all) - 1
			}
			all[i].where = append(all[i].where, s.label)
			if _, seen := commands[w.Command]; !seen {
				commands[w.Command] = s.label
			}
		}
		slices.Sort(layers)
		r.ok("hooks", "%s %s wires layer(s) %s", s.label, s.path, strings.Join(slices.Compact(layers), ","))
	}
	if len(all) == 0 {
		r.problem("hooks", "no settings file or plugin wires a flower hook: run ./install.sh")
		return
	}
	for _, w := range all {
		if len(w.where) < 2 {
			continue
		}
		fix := "remove it from all but one file (./install.sh --uninstall --settings FILE)"
		if slices.ContainsFunc(w.where, func(s string) bool { return strings.HasPrefix(s, "plugin ") }) {
			fix = "./install.sh --disable-plugin turns the plugin off, or ./install.sh --uninstall keeps the plugin alone"
		}
		r.problem("hooks", "%s runs %s twice (%s), doing each decision twice; %s", w.event, w.binary, strings.Join(w.where, " and "), fix)
	}
	for _, cmd := range slices.Sorted(maps.Keys(commands)) {
		checkBinary(r, cmd, commands[cmd])
	}
}

// checkBinary runs the program of a hook's command with --version.
func checkBinary(r *report, command, where string) {
	prog := command
	if i := strings.IndexAny(prog, " \t"); i >= 0 && !strings.HasPrefix(prog, "'") && !strings.HasPrefix(prog, `"`) {
		prog = prog[:i]
	}
	prog = strings.Trim(prog, `'"`)
	prog = os.ExpandEnv(prog)
	name := filepath.Base(prog)
	path, err := exec.LookPath(prog)
	if err != nil {
		r.problem("binary", "%s (from the %s) cannot be run: %v: Claude Code skips its hook silently", prog, where, err)
		return
	}
	out, err := run(10*time.Second, path, "--version")
	switch got := strings.TrimSpace(out); {
	case err != nil:
		r.problem("binary", "%s --version: %v", path, err)
	case !strings.HasPrefix(got, name+" "):
		r.problem("binary", "%s --version says %q: not flower's %s", path, got, name)
	case strings.TrimPrefix(got, name+" ") != hook.Version():
		r.problem("binary", "%s is version %s, this is %s: run ./install.sh again", path, strings.TrimPrefix(got, name+" "), hook.Version())
	default:
		r.ok("binary", "%s %s", path, hook.Version())
	}
}

// pluginHooks is the hooks.json of the installed plugin key.
func pluginHooks(configDir, key string) (string, error) {
	b, err := readFile(filepath.Join(configDir, "plugins", "installed_plugins.json"), maxSettings)
	if err == nil && b == nil {
		err = fs.ErrNotExist
	}
	if err != nil {
		return "", fmt.Errorf("installed_plugins.json: %v", err)
	}
	install := gjson.GetBytes(b, "plugins."+gjson.Escape(key)+".0.installPath").String()
	if install == "" {
		return "", fmt.Errorf("installed_plugins.json names no install of %s", key)
	}
	return filepath.Join(install, "hooks", "hooks.json"), nil
}

// checkConfig says which configuration files were read, what they got
// wrong, and what a project file set that it may not, with how to trust it.
func checkConfig(r *report, dir string) {
	c := config.Load(dir)
	for _, f := range []struct {
		label string
		file  config.File
	}{{"user file", c.User}, {"project file", c.Project}, {"local file", c.Local}} {
		switch {
		case f.file.Path == "":
		case f.file.Err != nil:
			r.problem("configuration", "%s: %v (ignored whole: the defaults stand in)", f.label, f.file.Err)
		case f.file.Found && f.file.Trusted:
			r.ok("configuration", "%s %s read, trusted", f.label, f.file.Path)
		case f.file.Found:
			r.ok("configuration", "%s %s read", f.label, f.file.Path)
		}
	}
	if !c.User.Found && !c.Project.Found {
		r.ok("configuration", "no configuration file: the defaults")
	}
	for _, ig := range c.Ignored {
		r.note("configuration", "%s line %d: %s left out: %s", ig.From, ig.Line, ig.Key, ig.Why)
	}
	if len(c.Ignored) > 0 && !c.Project.Trusted {
		r.note("configuration", "to trust this project, add %q to trusted-projects in %s", dir, c.User.Path)
	}
}

// checkWorkbench says where the workbench is and whether its spill folder
// ignores itself.
func checkWorkbench(r *report, dir string) {
	root := filepath.Join(dir, hook.WorkbenchDirName)
	if v := config.Load(dir).Value("workbench"); v != nil && v.Path != "" {
		root = v.Path
	}
	if env := os.Getenv("FLOWER_WORKBENCH"); env != "" {
		root = env
	}
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.ok("workbench", "%s: not made yet (the first spill, script or artifact makes it)", root)
		return
	case err != nil:
		r.problem("workbench", "%s: %v", root, err)
		return
	case fi.Mode()&fs.ModeSymlink != 0 && root == filepath.Join(dir, hook.WorkbenchDirName):
		r.problem("workbench", "%s is a symlink: the hooks refuse it (name the real folder with FLOWER_WORKBENCH)", root)
		return
	}
	spillDir := spill.Dir(root)
	b, err := readFile(filepath.Join(spillDir, spill.IgnoreFile), 1<<10)
	switch {
	case err != nil:
		r.problem("workbench", "%s: %v: nothing is spilled there", filepath.Join(spillDir, spill.IgnoreFile), err)
	case b == nil:
		r.ok("workbench", "%s (its spill folder gets its ignore rule with the first spill)", root)
	case string(b) != spill.IgnoreRule:
		r.problem("workbench", "%s is not flower's ignore rule: nothing is spilled there until it is removed", filepath.Join(spillDir, spill.IgnoreFile))
	default:
		r.ok("workbench", "%s (its spill folder ignores itself)", root)
	}
}
