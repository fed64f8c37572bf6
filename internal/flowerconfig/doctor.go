package flowerconfig

import (
	"bufio"
	"bytes"
	"cmp"
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
	"time"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/flowersettings"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// Options say what --doctor checks.
type Options struct {
	Dir       string
	ConfigDir string // $CLAUDE_CONFIG_DIR, else ~/.claude
	Claude    string // the claude command, "" for "claude" on PATH
}

func (o Options) claude() string { return cmp.Or(o.Claude, "claude") }

// report says the findings, one line each, and counts the problems.
type report struct {
	w        io.Writer
	problems int
}

func (r *report) say(mark, area, format string, a ...any) {
	if mark == "problem" {
		r.problems++
	}
	fmt.Fprintf(r.w, "%-8s %-13s %s\n", mark, area, fmt.Sprintf(format, a...))
}

// maxSettings bounds a settings file read.
const maxSettings = 4 << 20

// Check checks the installation for o.Dir, a line a finding, and returns the number of problems.
func Check(o Options, w io.Writer) int {
	r := &report{w: w}
	fmt.Fprintf(w, "flower %s, project folder %s\n", hook.Version(), o.Dir)
	if out, err := run(20*time.Second, o.claude(), "--version"); err != nil {
		r.say("problem", "Claude Code", "%s --version: %v (is Claude Code installed and on PATH?)", o.claude(), err)
	} else if version, _, _ := strings.Cut(strings.TrimSpace(out), " "); hook.ClaudeVersionProblem(version) != "" {
		r.say("problem", "Claude Code", "%s: %s", version, hook.ClaudeVersionProblem(version))
	} else {
		r.say("ok", "Claude Code", "%s (flower needs %s or later)", version, hook.MinClaudeVersion)
	}
	checkHooks(r, o)
	cfg := config.Load(o.Dir)
	checkConfig(r, cfg)
	checkWorkbench(r, o.Dir, cfg)
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

// checkHooks says which files and plugins wire which hooks, any twice, and
// whether each binary runs as this version.
func checkHooks(r *report, o Options) {
	managed := "/etc/claude-code/managed-settings.json"
	if runtime.GOOS == "darwin" {
		managed = "/Library/Application Support/ClaudeCode/managed-settings.json"
	}
	type source struct{ label, path string }
	docs := map[source][]byte{}
	sources := []source{{"user settings", filepath.Join(o.ConfigDir, "settings.json")}, // lowest precedence first
		{"project settings", filepath.Join(o.Dir, ".claude", "settings.json")},
		{"local settings", filepath.Join(o.Dir, ".claude", "settings.local.json")}, {"managed settings", managed}}
	plugins := map[string]bool{} // flower's plugin keys, on or off by the last file
	for _, s := range sources {
		b, err := config.ReadFile(s.path, maxSettings, 0)
		if err == nil && b != nil {
			err = jsoncheck.Check(string(b), 1000)
		}
		if err != nil {
			r.say("problem", "settings", "%s %s: %v: Claude Code may ignore it", s.label, s.path, err)
			continue
		}
		docs[s] = b
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
		path, b, err := pluginHooks(o.ConfigDir, key)
		if err != nil {
			r.say("problem", "plugin", "%s is on, but its hooks cannot be read: %v", key, err)
			continue
		}
		s := source{"plugin " + key, path}
		sources, docs[s] = append(sources, s), b
	}

	type hookOf struct{ event, binary string }
	var wired []hookOf
	where := map[hookOf][]string{}
	programs := map[string]string{} // the program a hook runs: the first file that wires it
	for _, s := range sources {
		var layers []string
		for _, w := range flowersettings.Wirings(docs[s]) {
			if w.Retired {
				r.say("problem", "hooks", "%s %s runs %q, which flower retired: ./install.sh removes it", s.label, s.path, w.Command)
				continue
			}
			layers = append(layers, w.Layer)
			h := hookOf{w.Event, w.Binary}
			if where[h] == nil {
				wired = append(wired, h)
			}
			where[h] = append(where[h], s.label)
			programs[w.Program] = cmp.Or(programs[w.Program], s.label)
		}
		if layers != nil {
			slices.Sort(layers)
			r.say("ok", "hooks", "%s %s wires layer(s) %s", s.label, s.path, strings.Join(slices.Compact(layers), ","))
		}
	}
	if len(wired) == 0 {
		r.say("problem", "hooks", "no settings file or plugin wires a flower hook: run ./install.sh")
		return
	}
	for _, h := range wired {
		if len(where[h]) < 2 {
			continue
		}
		fix := "remove it from all but one file (./install.sh --uninstall --settings FILE)"
		if slices.ContainsFunc(where[h], func(s string) bool { return strings.HasPrefix(s, "plugin ") }) {
			fix = "./install.sh --disable-plugin turns the plugin off, or ./install.sh --uninstall keeps the plugin alone"
		}
		r.say("problem", "hooks", "%s runs %s twice (%s), doing each decision twice; %s", h.event, h.binary, strings.Join(where[h], " and "), fix)
	}
	for _, prog := range slices.Sorted(maps.Keys(programs)) {
		checkBinary(r, os.ExpandEnv(prog), programs[prog])
	}
}

// checkBinary runs prog, a hook's program, with --version.
func checkBinary(r *report, prog, where string) {
	name := filepath.Base(prog)
	path, err := exec.LookPath(prog)
	if err != nil {
		r.say("problem", "binary", "%s (from the %s) cannot be run: %v: Claude Code skips its hook silently", prog, where, err)
		return
	}
	out, err := run(10*time.Second, path, "--version")
	switch version, ok := strings.CutPrefix(strings.TrimSpace(out), name+" "); {
	case err != nil:
		r.say("problem", "binary", "%s --version: %v", path, err)
	case !ok:
		r.say("problem", "binary", "%s --version says %q: not flower's %s", path, strings.TrimSpace(out), name)
	case version != hook.Version():
		r.say("problem", "binary", "%s is version %s, this is %s: run ./install.sh again", path, version, hook.Version())
	default:
		r.say("ok", "binary", "%s %s", path, hook.Version())
	}
}

// pluginHooks reads the hooks.json of the installed plugin key.
func pluginHooks(configDir, key string) (string, []byte, error) {
	b, err := config.ReadFile(filepath.Join(configDir, "plugins", "installed_plugins.json"), maxSettings, 0)
	if err == nil && b == nil {
		err = fs.ErrNotExist
	}
	if err != nil {
		return "", nil, fmt.Errorf("installed_plugins.json: %v", err)
	}
	install := gjson.GetBytes(b, "plugins."+gjson.Escape(key)+".0.installPath").String()
	if install == "" {
		return "", nil, fmt.Errorf("installed_plugins.json names no install of %s", key)
	}
	path := filepath.Join(install, "hooks", "hooks.json")
	if b, err = config.ReadFile(path, maxSettings, 0); err == nil && b == nil {
		err = fs.ErrNotExist
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s: %v", path, err)
	}
	return path, b, nil
}

// checkConfig says which configuration files were read, their errors, and
// what a project file may not set, with how to trust it.
func checkConfig(r *report, c *config.Config) {
	for i, f := range []config.File{c.User, c.Project, c.Local} {
		which := []string{"user", "project", "local"}[i]
		if f.Err != nil {
			r.say("problem", "configuration", "%s file %s", which, fileState(f, which))
		} else if f.Found {
			r.say("ok", "configuration", "%s file %s", which, fileState(f, which))
		}
	}
	if !c.User.Found && !c.Project.Found {
		r.say("ok", "configuration", "no configuration file: the defaults")
	}
	for _, ig := range c.Ignored {
		r.say("note", "configuration", "%s line %d: %s left out: %s", ig.From, ig.Line, ig.Key, ig.Why)
	}
	if len(c.Ignored) > 0 && !c.Project.Trusted {
		r.say("note", "configuration", "to trust this project, add %q to trusted-projects in %s", c.Dir, c.User.Path)
	}
}

// checkWorkbench says where the workbench is and whether its spill folder ignores itself.
func checkWorkbench(r *report, dir string, c *config.Config) {
	root := cmp.Or(os.Getenv("FLOWER_WORKBENCH"), c.Value("workbench").Path, filepath.Join(dir, hook.WorkbenchDirName))
	ignore := filepath.Join(spill.Dir(root), spill.IgnoreFile)
	fi, err := os.Lstat(root)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 && root == filepath.Join(dir, hook.WorkbenchDirName) {
		err = errors.New("a symlink: the hooks refuse it (name the real folder with FLOWER_WORKBENCH)")
	}
	if errors.Is(err, fs.ErrNotExist) {
		r.say("ok", "workbench", "%s: not made yet (the first spill, script or artifact makes it)", root)
		return
	} else if err != nil {
		r.say("problem", "workbench", "%s: %v", root, err)
		return
	}
	switch b, err := config.ReadFile(ignore, 1<<10, 0); {
	case err != nil:
		r.say("problem", "workbench", "%s: %v: nothing is spilled there", ignore, err)
	case b == nil:
		r.say("ok", "workbench", "%s (its spill folder gets its ignore rule with the first spill)", root)
	case string(b) != spill.IgnoreRule:
		r.say("problem", "workbench", "%s is not flower's ignore rule: nothing is spilled there until it is removed", ignore)
	default:
		r.say("ok", "workbench", "%s (its spill folder ignores itself)", root)
	}
}

// ModelPrompt asks the main thread for a harmless hands-on command; with Bash
// allowed, only a hook can refuse it.
const ModelPrompt = "Use the Bash tool to run: rm -f flower-check.txt"

// denialStart begins the tool result of a call a PreToolUse hook denied.
const denialStart = "PreToolUse:Bash hook error: "

// Model runs one short session with the user's model in a new empty folder
// and says whether delegate-guard denied ModelPrompt, the model call failed
// (Claude Code's connection, not flower), or nothing denied it; it leaves
// neither the folder nor its session behind.
func Model(o Options, w io.Writer) bool {
	dir, err := os.MkdirTemp("", "flower-check-")
	if err != nil {
		fmt.Fprintf(w, "cannot make a folder for the check: %v\n", err)
		return false
	}
	defer os.RemoveAll(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		if projects, err := transcript.ProjectDir(real); err == nil {
			if _, err := os.Lstat(projects); errors.Is(err, fs.ErrNotExist) {
				defer os.RemoveAll(projects) // made by this run
			}
		}
	}
	// An unreachable API is retried for minutes by default.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.claude(), "-p", ModelPrompt, "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose")
	cmd.Dir, cmd.Env = dir, os.Environ()
	for _, kv := range []string{"CLAUDE_CODE_MAX_RETRIES=1", "API_TIMEOUT_MS=60000"} {
		if k, _, _ := strings.Cut(kv, "="); os.Getenv(k) == "" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	denial, failure := readStream(out)
	if denial == "" && failure == "" && runErr != nil {
		failure = cmp.Or(firstLine(stderr.String()), runErr.Error())
	}
	switch {
	case denial != "":
		fmt.Fprintf(w, "%s\nok: flower's delegate-guard denied the main thread's command, as layer one should\n", denial)
	case failure != "":
		fmt.Fprintf(w, "the model call failed: %s\nThat is Claude Code's connection to the model (API key, network, login), not flower: `claude -p hi` fails the same way.\n", failure)
	default:
		fmt.Fprintln(w, "no denial: the session ran the command itself, so flower's delegate-guard did not run (see Troubleshooting)")
	}
	return denial != ""
}

// readStream finds in claude -p's stream-json the denial of a Bash call and why the session failed.
func readStream(out []byte) (denial, failure string) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := gjson.ParseBytes(sc.Bytes())
		switch line.Get("type").String() {
		case "user":
			line.Get("message.content").ForEach(func(_, b gjson.Result) bool {
				text := b.Get("content")
				if text.IsArray() {
					text = text.Get("0.text")
				}
				if b.Get("type").String() == "tool_result" && strings.HasPrefix(text.String(), denialStart) && denial == "" {
					denial = text.String()
				}
				return true
			})
		case "result":
			if line.Get("is_error").Bool() {
				failure = cmp.Or(firstLine(line.Get("result").String()), line.Get("subtype").String())
			}
		}
	}
	return denial, failure
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
