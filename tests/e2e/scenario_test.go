package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowerhooks/flower/internal/flowersettings"
)

// DefaultTimeout bounds one CLI run. A scenario takes a few seconds; the
// margin is for a shared machine running scenarios in parallel (runs past
// 90 s were seen at a load average of 36).
const DefaultTimeout = 3 * time.Minute

// Scenario is one sandboxed session: its own fake API and folders. Nothing of
// the machine's Claude configuration or environment reaches the CLI.
type Scenario struct {
	T   *testing.T
	API *API

	Dir       string // the scenario's temporary root
	Work      string // a git repository with one commit: the session's cwd
	Home      string // $HOME
	ConfigDir string // $CLAUDE_CONFIG_DIR, Home/.claude (the CLI's default there)
}

// NewScenario makes a scenario: a fake API and, under a fresh temp dir, a
// HOME, a CLAUDE_CONFIG_DIR and a git workspace holding README.md in one
// commit. It skips t (or fails it under FLOWER_E2E_REQUIRED=1 or CI=true)
// when the CLI is not installed.
func NewScenario(t *testing.T) *Scenario {
	t.Helper()
	needClaude(t)
	// EvalSymlinks: the CLI names transcripts after the real cwd.
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &Scenario{
		T: t, API: NewAPI(t), Dir: dir,
		Work: filepath.Join(dir, "work"), Home: filepath.Join(dir, "home"),
	}
	s.ConfigDir = filepath.Join(s.Home, ".claude")
	for _, d := range []string{s.Work, s.ConfigDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.WriteFile("README.md", "# e2e workspace\n")
	s.Git("init", "-q", "-b", "main")
	s.Git("add", "README.md")
	s.Git("commit", "-q", "-m", "initial commit")
	return s
}

// Bin is the absolute path of a command freshly built from ./cmd/<name>. It
// fails the test when there is no such command or it did not build.
func Bin(t testing.TB, name string) string {
	t.Helper()
	if msg, ok := buildErrs[name]; ok {
		t.Fatalf("./cmd/%s does not build: %s", name, msg)
	}
	p := filepath.Join(binDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no built command %q: is there a ./cmd/%s?", name, name)
	}
	return p
}

// HasCommand reports whether ./cmd/<name> exists: for setups that include a
// layer only once it has landed. (Bin then fails the test if it did not
// build.)
func HasCommand(name string) bool {
	_, err := os.Stat(filepath.Join(repoRoot, "cmd", name))
	return err == nil
}

// Cmd is a hook command line running the freshly built ./cmd/<name> with
// args, quoted for the `sh -c` the CLI runs it with.
func Cmd(t testing.TB, name string, args ...string) string {
	t.Helper()
	parts := []string{shellQuote(Bin(t, name))}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./=:,+@%-]+$`)

func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Hook is one hook of a settings file.
type Hook struct {
	Event   string // PreToolUse, PostToolUse, SessionStart, SubagentStart, …
	Matcher string // "" for none
	Command string // see Cmd
	Timeout int    // seconds; 0 for the CLI's default
}

// Settings is a settings.json object holding hooks, in the CLI's format:
// {"hooks": {Event: [{"matcher": M, "hooks": [{"type": "command", …}]}]}}.
// Hooks of one event and matcher share an entry, in the order given.
func Settings(hooks ...Hook) map[string]any {
	byEvent := map[string][]map[string]any{}
	var events []string
	for _, h := range hooks {
		cmd := map[string]any{"type": "command", "command": h.Command}
		if h.Timeout > 0 {
			cmd["timeout"] = h.Timeout
		}
		entries := byEvent[h.Event]
		if !slices.Contains(events, h.Event) {
			events = append(events, h.Event)
		}
		found := false
		for _, e := range entries {
			if e["matcher"] == h.Matcher || (h.Matcher == "" && e["matcher"] == nil) {
				e["hooks"] = append(e["hooks"].([]any), cmd)
				found = true
				break
			}
		}
		if !found {
			e := map[string]any{"hooks": []any{cmd}}
			if h.Matcher != "" {
				e["matcher"] = h.Matcher
			}
			byEvent[h.Event] = append(entries, e)
		}
	}
	out := map[string]any{}
	for _, ev := range events {
		out[ev] = byEvent[ev]
	}
	return map[string]any{"hooks": out}
}

// Options is one CLI run.
type Options struct {
	Prompt string
	// Settings, when not nil, is written to Dir/settings-N.json and passed
	// with --settings.
	Settings any
	// AllowedTools goes to --allowedTools. The CLI runs as root in CI and
	// then refuses --dangerously-skip-permissions, so this (or
	// PermissionMode) is how a scenario lets tools run.
	AllowedTools []string
	// PermissionMode goes to --permission-mode when set.
	PermissionMode string
	// AllSettingSources drops `--setting-sources ""`, so the CLI also loads
	// user (Home/.claude), project and local settings: for testing an install.
	AllSettingSources bool
	// Args are more flags: --resume ID, --plugin-dir DIR, --fork-session, ….
	Args []string
	// Env adds KEY=VALUE entries to the CLI's environment (hooks inherit it);
	// Unset removes the named variables from the defaults.
	Env   []string
	Unset []string
	// Timeout bounds the run; DefaultTimeout when zero.
	Timeout time.Duration
}

// Result is one CLI run's outcome.
type Result struct {
	ExitCode       int
	Stdout, Stderr string
	Duration       time.Duration // wall time
	CPU            time.Duration // user + system time of the CLI and what it ran

	// The fields of the -p --output-format json result object.
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	IsError           bool            `json:"is_error"`
	Result            string          `json:"result"`
	NumTurns          int             `json:"num_turns"`
	SessionID         string          `json:"session_id"`
	PermissionDenials []Denial        `json:"permission_denials"`
	Raw               json.RawMessage `json:"-"`
}

// Denial is one entry of the result's permission_denials.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Denied reports whether the tool call id was denied a permission.
func (r *Result) Denied(id string) bool {
	for _, d := range r.PermissionDenials {
		if d.ToolUseID == id {
			return true
		}
	}
	return false
}

// Run runs `claude -p` once in Work against the scenario's API and returns
// its result. It fails the test when the CLI does not exit 0 or prints no
// result JSON; use Try to look at such a run instead.
func (s *Scenario) Run(o Options) *Result {
	s.T.Helper()
	res, err := s.Try(o)
	if err != nil {
		s.T.Fatalf("claude run failed: %v\nstdout: %s\nstderr: %s", err, res.Stdout, res.Stderr)
	}
	return res
}

// Try is Run without failing the test on a failed run.
func (s *Scenario) Try(o Options) (*Result, error) {
	s.T.Helper()
	if o.Prompt == "" {
		s.T.Fatal("e2e: Options.Prompt is empty")
	}
	s.API.AddMainPrompt(o.Prompt)
	args := append([]string{"-p", o.Prompt, "--output-format", "json"}, s.args(o)...)

	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBin, args...)
	cmd.Dir = s.Work
	cmd.Env = s.env(o)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start), ExitCode: -1}
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode, res.CPU = ps.ExitCode(), ps.UserTime()+ps.SystemTime()
	}
	if ctx.Err() != nil {
		return res, errors.New("timed out after " + timeout.String())
	}
	if perr := res.parse(); perr != nil && err == nil {
		err = perr
	}
	return res, err
}

// args are the CLI's flags for o but the prompt: settings, tools, mode, Args.
func (s *Scenario) args(o Options) []string {
	var args []string
	if o.Settings != nil {
		p := s.writeSettings(o.Settings)
		args = append(args, "--settings", p)
	}
	if !o.AllSettingSources {
		args = append(args, "--setting-sources", "")
	}
	if len(o.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(o.AllowedTools, ","))
	}
	if o.PermissionMode != "" {
		args = append(args, "--permission-mode", o.PermissionMode)
	}
	return append(args, o.Args...)
}

// parse reads the result object: the last line of stdout that is JSON.
func (r *Result) parse() error {
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(last, "{") {
		return errors.New("no result JSON on stdout")
	}
	r.Raw = json.RawMessage(last)
	return json.Unmarshal(r.Raw, r)
}

// env is the CLI's whole environment: nothing of the machine's but PATH and
// the locale, so no CLAUDE_* or ANTHROPIC_* variable leaks in.
func (s *Scenario) env(o Options) []string {
	env := map[string]string{
		"PATH":               os.Getenv("PATH"),
		"LANG":               "C.UTF-8",
		"HOME":               s.Home,
		"TMPDIR":             s.Dir,
		"CLAUDE_CONFIG_DIR":  s.ConfigDir,
		"ANTHROPIC_BASE_URL": s.API.URL,
		"ANTHROPIC_API_KEY":  "sk-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"GIT_AUTHOR_NAME":                          "e2e", "GIT_AUTHOR_EMAIL": "e2e@example.com",
		"GIT_COMMITTER_NAME": "e2e", "GIT_COMMITTER_EMAIL": "e2e@example.com",
	}
	for _, k := range o.Unset {
		delete(env, k)
	}
	for _, kv := range o.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func (s *Scenario) writeSettings(v any) string {
	s.T.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.T.Fatal(err)
	}
	// A fresh name per run: a test may run the CLI twice with different
	// settings, and the second must not overwrite what the first was given.
	for i := 0; ; i++ {
		p := filepath.Join(s.Dir, "settings-"+strconv.Itoa(i)+".json")
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			s.T.Fatal(err)
		}
		return p
	}
}

// Path is the absolute path of rel inside Work.
func (s *Scenario) Path(rel string) string { return filepath.Join(s.Work, rel) }

// WriteFile writes content to rel inside Work, making folders as needed.
func (s *Scenario) WriteFile(rel, content string) {
	s.T.Helper()
	p := s.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.T.Fatal(err)
	}
}

// ReadFile returns the content of rel inside Work; ok is false when it does
// not exist.
func (s *Scenario) ReadFile(rel string) (content string, ok bool) {
	s.T.Helper()
	b, err := os.ReadFile(s.Path(rel))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		s.T.Fatal(err)
	}
	return string(b), true
}

// Exists reports whether rel exists inside Work.
func (s *Scenario) Exists(rel string) bool {
	_, err := os.Stat(s.Path(rel))
	return err == nil
}

// Git runs git in Work and returns its output.
func (s *Scenario) Git(args ...string) string {
	s.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.Work
	cmd.Env = s.env(Options{})
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ToolResult is what the model saw of tool call id: its tool_result in the
// latest request that holds one. It fails the test when there is none.
func (s *Scenario) ToolResult(id string) Block {
	s.T.Helper()
	b, ok := s.API.ToolResult(id)
	if !ok {
		s.T.Fatalf("no request carried a tool_result for %s", id)
	}
	return b
}

// ProjectDir is where the CLI keeps this workspace's transcripts:
// ConfigDir/projects/<Work with every non-alphanumeric character as '-'>.
func (s *Scenario) ProjectDir() string {
	name := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(s.Work, "-")
	return filepath.Join(s.ConfigDir, "projects", name)
}

// Transcript is the path of a session's main transcript (its subagents'
// are under <ProjectDir>/<sessionID>/subagents/).
func (s *Scenario) Transcript(sessionID string) string {
	return filepath.Join(s.ProjectDir(), sessionID+".jsonl")
}

// LayerHooks is the hooks flower wires for the named layers ("1", "2", "3":
// flowersettings' layer names), exactly as flower-settings writes
// them (flowersettings.Catalog: events, matchers, arguments, timeouts),
// calling the freshly built binaries. It fails the test when a layer's
// command has not been built.
func LayerHooks(t testing.TB, layers ...string) []Hook {
	t.Helper()
	var hooks []Hook
	for _, e := range flowersettings.Catalog {
		if !slices.Contains(layers, e.Layer) {
			continue
		}
		Bin(t, e.Binary)
		hooks = append(hooks, Hook{Event: e.Event, Matcher: e.Matcher, Command: e.Command(binDir), Timeout: e.Timeout})
	}
	if len(hooks) == 0 {
		t.Fatalf("no hook entries for layers %q", layers)
	}
	return hooks
}

// LandedHooks is LayerHooks for the named layers that have landed: only the
// entries whose command exists in ./cmd, and the layers they belong to. For
// setups (like the demo) that grow as layers land. A landed command that
// does not build fails the test.
func LandedHooks(t testing.TB, layers ...string) (hooks []Hook, landed []string) {
	t.Helper()
	for _, e := range flowersettings.Catalog {
		if !slices.Contains(layers, e.Layer) || !HasCommand(e.Binary) {
			continue
		}
		Bin(t, e.Binary)
		hooks = append(hooks, Hook{Event: e.Event, Matcher: e.Matcher, Command: e.Command(binDir), Timeout: e.Timeout})
		if !slices.Contains(landed, e.Layer) {
			landed = append(landed, e.Layer)
		}
	}
	return hooks, landed
}
