// Package flowerconfig is flower-config: it prints the configuration flower's
// hooks use in a project folder and where each value came from, checks one
// configuration file (--check), prints the decision log (--log), vouches for
// a local file (--trust-local) and checks the whole installation (--doctor).
package flowerconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
)

const name = "flower-config"

const usage = `Usage: flower-config [DIR]
       flower-config --check FILE
       flower-config --log [--session ID] [--json] [DIR]
       flower-config --doctor [--model] [DIR]
       flower-config --trust-local [DIR]

Prints the configuration flower's hooks use in the project folder DIR (default
$CLAUDE_PROJECT_DIR, else the current folder): the user file
($XDG_CONFIG_HOME/flower/config.json, else ~/.config/flower/config.json), the
project file (DIR/.claude/flower.json), each key's value and where it came
from, and the project file's settings left out because the project is not
trusted. --check checks one file; --log prints the decision log.

--trust-local vouches for DIR's .claude/flower.local.json as it is now: from
then on it counts as yours, like the user file, until its content changes; it
is also added to .git/info/exclude.

--doctor checks flower on this machine for DIR, locally and in seconds: which
settings files and plugins wire which hooks (and any wired twice), that each
binary runs as this version, the Claude Code version, the configuration with
its errors, the workbench's ignore rules. With --model it then runs one short
session of Claude Code with your model, to see delegate-guard deny in it.

Exit codes: 0 done (--doctor: all is well); 1 a configuration file cannot be
used (path:line: reason on stderr), --doctor found a problem, or another
failure.`

// Main runs flower-config and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	check := c.Flags.String("check", "", "check the configuration `file` and exit")
	log := c.Flags.Bool("log", false, "print the decision log")
	session := c.Flags.String("session", "", "with --log: only the decisions of the session whose id starts with `ID`")
	asJSON := c.Flags.Bool("json", false, "with --log: print the log's lines as they are")
	doctor := c.Flags.Bool("doctor", false, "check flower's installation for the project folder")
	model := c.Flags.Bool("model", false, "with --doctor: also run one short session of Claude Code with your model")
	trustLocal := c.Flags.Bool("trust-local", false, "vouch for the project's .claude/flower.local.json as it is now")
	if code, done := c.Parse(args); done {
		return code
	}
	switch {
	case *model && !*doctor:
		return c.Fail(errors.New("--model goes with --doctor (see --help)"))
	case (*doctor || *trustLocal) && (*check != "" || *log || *doctor && *trustLocal):
		return c.Fail(errors.New("--doctor and --trust-local each take a folder and nothing else (see --help)"))
	case c.Flags.NArg() > 1:
		return c.Fail(fmt.Errorf("%d arguments, want at most one folder (see --help)", c.Flags.NArg()))
	case *check != "" && (c.Flags.NArg() > 0 || *log):
		return c.Fail(errors.New("--check takes one file and nothing else (see --help)"))
	case !*log && (*session != "" || *asJSON):
		return c.Fail(errors.New("--session and --json go with --log (see --help)"))
	case *check != "":
		extras, err := config.Check(*check)
		if err == nil {
			_, err = ephemeral.NewGlances(extras)
		}
		if err != nil {
			return c.Fail(err)
		}
		fmt.Fprintf(stdout, "%s: ok\n", *check)
		return hook.ExitOK
	}
	// A folder named on the command line is the one asked about, also
	// inside a session, where $CLAUDE_PROJECT_DIR names the session's.
	dir := c.Flags.Arg(0)
	var err error
	if dir == "" {
		dir, err = os.Getwd()
		dir = hook.ProjectDir(dir)
	} else if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
		return c.Fail(fmt.Errorf("%s is not a folder", dir))
	} else {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return c.Fail(err)
	}
	switch {
	case *doctor:
		o := Options{Dir: dir, ConfigDir: os.Getenv("CLAUDE_CONFIG_DIR")}
		if home, _ := os.UserHomeDir(); o.ConfigDir == "" {
			o.ConfigDir = filepath.Join(home, ".claude")
		}
		problems := Check(o, stdout) // the model check runs whatever it found
		if *model && !Model(o, stdout) || problems > 0 {
			return hook.ExitFail
		}
		return hook.ExitOK
	case *trustLocal:
		return vouch(c, dir)
	}
	cfg := config.Load(dir)
	if *log {
		return printLog(c, cfg, *session, *asJSON)
	}
	_, entries := ephemeral.NewGlances(cfg.Extras())
	if _, err := io.WriteString(stdout, configText(cfg, entries)); err != nil {
		return c.Fail(err)
	}
	if problems := append(cfg.Problems(), entries); problems[0] != nil {
		return c.Fail(problems[0])
	}
	return hook.ExitOK
}

// vouch vouches for the local file of dir and keeps it out of git.
func vouch(c *hook.CLI, dir string) int {
	path, err := config.Vouch(dir)
	if err != nil {
		return c.Fail(err)
	}
	fmt.Fprintf(c.Stdout, "%s: yours as it is now; it counts like your user file until it changes\n", path)
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		return hook.ExitOK // not a repository's top folder, or a worktree: nothing to ignore it in
	}
	const rule = "/" + config.LocalFile
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	b, err := os.ReadFile(exclude)
	switch {
	case err != nil && !os.IsNotExist(err):
		return c.Fail(err)
	case slices.Contains(strings.Split(string(b), "\n"), rule):
		return hook.ExitOK
	case len(b) > 0 && b[len(b)-1] != '\n':
		b = append(b, '\n')
	}
	if err = os.MkdirAll(filepath.Dir(exclude), 0o755); err == nil {
		err = os.WriteFile(exclude, append(b, rule+"\n"...), 0o644)
	}
	if err != nil {
		return c.Fail(fmt.Errorf("adding %s to %s: %v", rule, exclude, err))
	}
	fmt.Fprintf(c.Stdout, "%s: ignores %s\n", exclude, rule)
	return hook.ExitOK
}

// configText is the files, the keys and what was left out.
func configText(cfg *config.Config, entries error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "project folder  %s\nuser file       %s\nproject file    %s\n", cfg.Dir, fileState(cfg.User, "user"), fileState(cfg.Project, "project"))
	if cfg.Local.Found {
		fmt.Fprintf(&b, "local file      %s\n", fileState(cfg.Local, "local"))
	}
	b.WriteString("\n")
	width := 0
	for _, k := range config.Keys() {
		width = max(width, len(k.Name))
	}
	for _, k := range config.Keys() {
		v := cfg.Value(k.Name)
		from := v.From
		if v.Line > 0 {
			from = fmt.Sprintf("%s, line %d", from, v.Line)
		}
		if value := v.String(); len(v.Extras) == 0 {
			if value == "" {
				value = "-"
			}
			fmt.Fprintf(&b, "%-*s  %s  (%s)\n", width, k.Name, value, from)
		}
		label := k.Name
		for _, e := range v.Extras {
			desc := printable(e.Command)
			if len(e.Options) > 0 {
				opts := make([]string, len(e.Options))
				for i, o := range e.Options {
					opts[i] = printable(o)
				}
				desc += " [" + strings.Join(opts, " ") + "]"
			}
			if e.Operands == 0 {
				desc += " (no operands)"
			} else if e.Operands > 0 {
				desc += fmt.Sprintf(" (at most %d operands)", e.Operands)
			}
			fmt.Fprintf(&b, "%-*s  %s  (%s)\n", width, label, desc, e.Source)
			label = ""
		}
	}
	if entries != nil {
		b.WriteString("\nleft out of the glance table:\n  " + strings.ReplaceAll(entries.Error(), "\n", "\n  ") + "\n")
	}
	if len(cfg.Ignored) > 0 {
		b.WriteString("\nleft out of the project file:\n")
		for _, ig := range cfg.Ignored {
			fmt.Fprintf(&b, "  line %d: %s: %s\n", ig.Line, ig.Key, ig.Why)
		}
	}
	return b.String()
}

// printable quotes s if a character of it does not print: a terminal's escape
// sequences, say, from a repository's file.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// fileState says where a file is and what became of it.
func fileState(f config.File, which string) string {
	switch {
	case f.Path == "":
		return "(none: no folder to look in)"
	case f.Err != nil:
		return f.Path + " (ignored: " + f.Err.Error() + ")"
	case !f.Found:
		return f.Path + " (not found)"
	case which == "project" && f.Trusted:
		return f.Path + " (read; trusted, in trusted-projects)"
	case which == "project":
		return f.Path + " (read; not trusted)"
	case which == "local" && f.Trusted:
		return f.Path + " (read; yours: vouched for with --trust-local, or the project is trusted)"
	case which == "local":
		return f.Path + " (read; not vouched for, so taken as a project file: flower-config --trust-local)"
	}
	return f.Path + " (read)"
}

// printLog prints the decision log, oldest first.
func printLog(c *hook.CLI, cfg *config.Config, session string, asJSON bool) int {
	path := cfg.Value("log.file").Path
	if path == "" {
		return c.Fail(errors.New("no log file: neither log.file, $XDG_STATE_HOME nor $HOME is set"))
	}
	var b strings.Builder
	n := 0
	bad, err := decisionlog.Read(path, func(e decisionlog.Entry) {
		if !strings.HasPrefix(e.Session, session) {
			return
		}
		n++
		if asJSON {
			line, _ := json.Marshal(e)
			b.Write(append(line, '\n'))
		} else {
			b.WriteString(entryLine(e))
		}
	})
	if err == nil {
		_, err = io.WriteString(c.Stdout, b.String())
	}
	switch {
	case err != nil:
		return c.Fail(err)
	case bad > 0:
		fmt.Fprintf(c.Stderr, "%s: warning: %s: %d line(s) that are not decisions skipped\n", name, path, bad)
	case n == 0 && !cfg.Value("log.enabled").Bool:
		fmt.Fprintf(c.Stderr, "%s: the decision log is off (log.enabled in the user file turns it on); %s holds no decision\n", name, path)
	}
	return hook.ExitOK
}

// entryLine is one decision on a line: when, session, hook, verdict, why, sizes.
func entryLine(e decisionlog.Entry) string {
	what, thread := e.Event, "main"
	if e.Tool != "" {
		what += " " + e.Tool
	}
	if e.Agent != "" {
		thread = "agent " + short(e.Agent)
	}
	line := fmt.Sprintf("%s  %s  %-14s  %-24s  %-10s  %-6s  %s", strings.Replace(strings.TrimSuffix(e.Time, "Z"), "T", " ", 1),
		short(e.Session), e.Hook, what, thread, e.Verdict, e.Reason)
	if e.Input != "" {
		line += fmt.Sprintf("  input %q", e.Input)
	}
	var sizes []string
	z := e.Sizes
	for i, n := range []int64{int64(z.Payload), int64(z.Input), int64(z.Result), z.Spilled, int64(z.Files), int64(z.Shown)} {
		if n > 0 {
			sizes = append(sizes, fmt.Sprintf("%d %s", n, []string{"B payload", "B command", "B result", "chars spilled", "spill files", "chars shown"}[i]))
		}
	}
	if len(sizes) > 0 {
		line += "  (" + strings.Join(sizes, ", ") + ")"
	}
	return line + "\n"
}

// short is the first 8 characters of an id.
func short(id string) string {
	if id == "" {
		return "-"
	}
	return id[:min(8, len(id))]
}
