package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowerhooks/flower/internal/delegateguard"
)

// Layer one: delegate-guard keeps hands-on work off the main thread, glances
// excepted; it never approves a call, so Claude Code's own permission checks
// still decide about every glance.

// handsOn is what the layer-one scenarios let the CLI run without asking, so
// that whatever is denied is denied by the hook, not by the CLI's
// permissions.
var handsOn = []string{"Bash", "Read", "Write", "Edit", "Agent"}

// delegateReason is the start of delegate-guard's denial for a tool.
func delegateReason(tool string) string {
	return tool + " runs in subagents only: dispatch one with the Agent tool"
}

// hookDenial is how the CLI renders a PreToolUse deny to the model.
func hookDenial(tool string) string { return "PreToolUse:" + tool + " hook error: " }

func TestLayer1MainRmDenied(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile("x", "keep me\n")
	s.API.Main(Steps(
		Call(Bash("rm", "rm -f x")),
		Say("I will delegate that."),
	))
	res := s.Run(Options{Prompt: "remove x", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

	got := s.ToolResult("rm")
	if !got.IsError || !strings.Contains(got.Text, hookDenial("Bash")+delegateReason("Bash")) {
		t.Errorf("the model saw (is_error %v) %q; want an error carrying delegate-guard's reason", got.IsError, got.Text)
	}
	if !strings.Contains(got.Text, " .flower/artifacts/.") {
		t.Errorf("the reason %q does not name the workbench's artifacts folder, relative to the cwd it lies in", got.Text)
	}
	if c, ok := s.ReadFile("x"); !ok || c != "keep me\n" {
		t.Errorf("x after the session: %q, exists %v; want it untouched", c, ok)
	}
	if !res.Denied("rm") {
		t.Errorf("permission_denials %+v does not list the rm call", res.PermissionDenials)
	}
}

// maxDenialChars bounds a denial as the model receives it: every character
// stays in the main context for good. The first wording cost 334.
const maxDenialChars = 200

// TestLayer1DenialAsReceived checks the whole text the model receives for a
// denied Bash call and a denied Edit: Claude Code's prefix and
// delegate-guard's reason, nothing else, short, and still saying what to do
// instead: which tool, dispatch a subagent with the Agent tool, long output
// to the workbench's artifacts/, and for Bash that glances run. (What a
// scripted model does next proves nothing; what a real one reads is this.)
func TestLayer1DenialAsReceived(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.API.Main(Steps(
		Call(Bash("rm", "rm -f README.md")),
		Call(Edit("edit", s.Path("README.md"), "e2e", "x")),
		Say("I will delegate both."),
	))
	s.Run(Options{Prompt: "clean up", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

	for _, tc := range []struct {
		id, tool  string
		essential []string
	}{
		{"rm", "Bash", []string{"Bash", "subagent", "Agent tool", ".flower/artifacts/", "long output", "Glances (git status, ls, cat)"}},
		{"edit", "Edit", []string{"Edit", "subagent", "Agent tool", ".flower/artifacts/", "long output"}},
	} {
		got := s.ToolResult(tc.id)
		want := hookDenial(tc.tool) + delegateguard.Reason(tc.tool, ".flower/artifacts", tc.tool == "Bash")
		if !got.IsError || got.Text != want {
			t.Errorf("%s: the model received (is_error %v) %q; want %q", tc.tool, got.IsError, got.Text, want)
		}
		for _, e := range tc.essential {
			if !strings.Contains(got.Text, e) {
				t.Errorf("%s: the denial %q lost %q", tc.tool, got.Text, e)
			}
		}
		n := utf8.RuneCountInString(got.Text)
		if n > maxDenialChars {
			t.Errorf("%s: the denial costs the main thread %d characters, want at most %d", tc.tool, n, maxDenialChars)
		}
		t.Logf("%s denial as received: %d characters", tc.tool, n)
	}
	if !s.Exists("README.md") {
		t.Error("README.md was removed on the main thread")
	}
}

func TestLayer1MainWriteDenied(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.API.Main(Steps(
		Call(Write("w", s.Path("new.txt"), "hello\n")),
		Say("I will delegate that."),
	))
	s.Run(Options{Prompt: "write new.txt", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

	got := s.ToolResult("w")
	if !got.IsError || !strings.Contains(got.Text, hookDenial("Write")+delegateReason("Write")) {
		t.Errorf("the model saw (is_error %v) %q; want an error carrying delegate-guard's reason", got.IsError, got.Text)
	}
	if s.Exists("new.txt") {
		t.Error("new.txt was created on the main thread")
	}
}

// glanceCompound is the shape the model really writes (the design's
// pitfall, hit twice): several glances chained with && and an echo banner.
const glanceCompound = `git status -s && echo "--- LOG ---" && git log --oneline -3`

// glanceWorkspace gives git status and git log something to show.
func glanceWorkspace(s *Scenario) {
	s.WriteFile("notes.txt", "draft\n")
	s.WriteFile("README.md", "# e2e workspace\nchanged\n")
}

// realOutput is what cmd prints in the scenario's workspace, run by the test.
func realOutput(t *testing.T, s *Scenario, cmd string) string {
	t.Helper()
	c := exec.Command("sh", "-c", cmd)
	c.Dir = s.Work
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

func TestLayer1MainGlanceRuns(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	glanceWorkspace(s)
	s.API.Main(Steps(
		Call(Bash("look", glanceCompound)),
		Say("The tree has local changes."),
	))
	res := s.Run(Options{Prompt: "what changed?", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

	want := realOutput(t, s, glanceCompound)
	if !strings.Contains(want, " M README.md") || !strings.Contains(want, "?? notes.txt") || !strings.Contains(want, "initial commit") {
		t.Fatalf("the workspace does not show what the scenario expects: %q", want)
	}
	got := s.ToolResult("look")
	if got.IsError || got.Text != want {
		t.Errorf("the model saw (is_error %v) %q; want the command's real output %q", got.IsError, got.Text, want)
	}
	if len(res.PermissionDenials) != 0 {
		t.Errorf("permission_denials %+v, want none", res.PermissionDenials)
	}
}

func TestLayer1SubagentWorks(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const task = "Build out/a.txt with Bash and out/b.txt with Write. Reply with only the paths."
	s.API.Main(Steps(
		Call(Agent("dispatch", task)),
		Say("Done: out/a.txt, out/b.txt."),
	))
	s.API.Agent(task, Steps(
		Call(Bash("sub-bash", "mkdir -p out && echo built-by-bash > out/a.txt && cat out/a.txt")),
		Call(Write("sub-write", s.Path("out/b.txt"), "written-by-write\n")),
		Say("out/a.txt out/b.txt"),
	))
	res := s.Run(Options{Prompt: "make the two files", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

	for rel, want := range map[string]string{"out/a.txt": "built-by-bash\n", "out/b.txt": "written-by-write\n"} {
		if got, ok := s.ReadFile(rel); !ok || got != want {
			t.Errorf("%s = %q (exists %v), want %q", rel, got, ok, want)
		}
	}
	sub := s.API.Last(task)
	if sub == nil {
		t.Fatal("the subagent sent no request")
	}
	if b, ok := sub.ToolResult("sub-bash"); !ok || b.IsError || b.Text != "built-by-bash" {
		t.Errorf("the subagent saw its Bash call as %+v (found %v); want \"built-by-bash\"", b, ok)
	}
	if b, ok := sub.ToolResult("sub-write"); !ok || b.IsError {
		t.Errorf("the subagent saw its Write call as %+v (found %v); want a success", b, ok)
	}
	// The work stayed in the subagent: the main thread saw only the report.
	for _, r := range s.API.Thread(MainThread) {
		for _, id := range []string{"sub-bash", "sub-write"} {
			if _, ok := r.ToolResult(id); ok {
				t.Errorf("a main-thread request carries the subagent's %s result", id)
			}
		}
	}
	if got := s.ToolResult("dispatch"); got.IsError || !strings.Contains(got.Text, "out/a.txt out/b.txt") {
		t.Errorf("the main thread saw the Agent call as (is_error %v) %q; want the subagent's report", got.IsError, got.Text)
	}
	if len(res.PermissionDenials) != 0 {
		t.Errorf("permission_denials %+v, want none", res.PermissionDenials)
	}
}

// cliAsksGlance is a glance compound the CLI's own read-only check does not
// approve. Claude Code 2.1.328 runs most glances (git status, git log, ls,
// cat, grep, echo, pipes of them) unasked even in the default mode; of 49
// glances tried, only cksum, uniq FILE and printenv needed approval.
const cliAsksGlance = `git status -s && echo "--- SUMS ---" && cksum README.md notes.txt`

// TestLayer1GlanceLeftToCLI: delegate-guard lets a glance through by saying
// nothing, never with "allow", so Claude Code's own permission checks still
// decide. A glance the CLI asks about, under the default permission mode
// with Bash not in --allowedTools, is denied by the CLI itself (in -p mode
// it cannot ask): not run, and not with delegate-guard's reason.
func TestLayer1GlanceLeftToCLI(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	glanceWorkspace(s)
	s.API.Main(Steps(
		Call(Bash("look", cliAsksGlance)),
		Say("seen"),
	))
	res := s.Run(Options{Prompt: "what changed?", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: []string{"Read"}})

	got := s.ToolResult("look")
	if !got.IsError || strings.Contains(got.Text, "--- SUMS ---") {
		t.Errorf("the model saw (is_error %v) %q; want a permission error, the command not run", got.IsError, got.Text)
	}
	if strings.Contains(got.Text, delegateReason("Bash")) {
		t.Errorf("the model saw delegate-guard's denial %q; want the CLI's own permission check to decide", got.Text)
	}
	if !res.Denied("look") {
		t.Errorf("permission_denials %+v does not list the glance", res.PermissionDenials)
	}
}

// TestLayer1HostileGlanceDenied: commands that the glance table once let
// through because its parser read them differently from bash are denied on
// the main thread. Bash is allowed, so only the hook stands between the
// command and the repository; the file stays.
func TestLayer1HostileGlanceDenied(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, cmd string }{
		// The parser continues the comment past backslash-newline; bash ends
		// it at the newline and runs rm.
		{"comment ending in a backslash", "git status -s # note \\\nrm -f README.md"},
		// bash evaluates the subscript of a -v operand.
		{"test -v subscript", "test -v 'a[$(rm -f README.md)]'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScenario(t)
			glanceWorkspace(s)
			s.API.Main(Steps(
				Call(Bash("trick", tc.cmd)),
				Say("done"),
			))
			res := s.Run(Options{Prompt: "look", Settings: Settings(LayerHooks(t, "1")...), AllowedTools: handsOn})

			got := s.ToolResult("trick")
			if !got.IsError || !strings.Contains(got.Text, hookDenial("Bash")+delegateReason("Bash")) {
				t.Errorf("the model saw (is_error %v) %q; want delegate-guard's denial", got.IsError, got.Text)
			}
			if !s.Exists("README.md") {
				t.Error("README.md was removed on the main thread")
			}
			if !res.Denied("trick") {
				t.Errorf("permission_denials %+v does not list the call", res.PermissionDenials)
			}
		})
	}
}
