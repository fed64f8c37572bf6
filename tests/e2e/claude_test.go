package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/hook"
)

// What flower relies on in Claude Code itself, pinned on the CLI under test:
// the pinned one (make test) and the oldest one flower supports (make
// e2e-min runs the tests that exercise what the minimum must support).

// TestCLIVersion: the CLI under test is not older than flower's minimum.
func TestCLIVersion(t *testing.T) {
	t.Parallel()
	needClaude(t)
	home := t.TempDir()
	cmd := exec.Command(claudeBin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude --version: %v", err)
	}
	// "2.1.328 (Claude Code)", read as flower-config --doctor reads it.
	version, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if why := hook.ClaudeVersionProblem(version); why != "" {
		t.Errorf("claude --version printed %q: %s", out, why)
	}
}

// TestCLIUpdatedToolOutputShape pins when a PostToolUse updatedToolOutput
// replaces what the model sees of a built-in tool: when it has the tool's
// output shape (spill-guard keeps the original object and replaces fields).
// A bare string is dropped without a word, and the original output is used:
// that is what the reports of "updatedToolOutput ignored for Bash" in CLI
// 2.1.121 to 2.1.177 sent (anthropics/claude-code#54196, #67442, #68951);
// spill-guard's object replacement works in those versions (its tests
// passed with 2.1.121, 2.1.150 and 2.1.177). Before 2.1.121 no replacement of
// a built-in tool's output has any effect.
func TestCLIUpdatedToolOutputShape(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile("a.txt", "original a\n")
	s.WriteFile("b.txt", "original b\n")
	reply := func(id, output string) string {
		return `*'"tool_use_id":"` + id + `"'*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":` + output + `}}' ;;` + "\n"
	}
	script := filepath.Join(s.Dir, "replace.sh")
	body := "in=$(cat)\ncase $in in\n" +
		reply("bash-string", `"replaced as a string"`) +
		reply("bash-object", `{"stdout":"replaced as an object","stderr":"","interrupted":false}`) +
		reply("read-string", `"replaced as a string"`) +
		reply("read-object", `{"type":"text","file":{"filePath":"`+s.Path("b.txt")+`","content":"replaced as an object\n","numLines":1,"startLine":1,"totalLines":1}}`) +
		"esac\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	s.API.Main(Steps(
		Call(Bash("bash-string", "echo original string")),
		Call(Bash("bash-object", "echo original object")),
		Call(Read("read-string", s.Path("a.txt"))),
		Call(Read("read-object", s.Path("b.txt"))),
		Say("done"),
	))
	s.Run(Options{Prompt: "replace outputs", Settings: Settings(Hook{Event: "PostToolUse", Matcher: "Bash|Read", Command: "sh " + shellQuote(script)}),
		AllowedTools: []string{"Bash", "Read"}})

	for _, c := range []struct{ id, want, not string }{
		{"bash-string", "original string", "replaced"},
		{"bash-object", "replaced as an object", "original"},
		{"read-string", "original a", "replaced"},
		{"read-object", "replaced as an object", "original"},
	} {
		got := s.ToolResult(c.id)
		if got.IsError || !strings.Contains(got.Text, c.want) || strings.Contains(got.Text, c.not) {
			t.Errorf("%s: the model saw (is_error %v) %q; want %q in it and no %q", c.id, got.IsError, got.Text, c.want, c.not)
		}
	}
}

// TestCLIHookIf pins the `if` field of a hook handler (CLI 2.1.85 on): one
// permission rule, Tool(pattern); when the call does not match, Claude Code
// starts no process. A Bash rule is matched against each command of a line,
// past VAR=value prefixes. A path rule names one tool (Write(…) does not
// cover Edit); "/x" is anchored at the project root, wherever the session
// cd'd and whichever settings file holds the hook, while "x" follows the
// current folder. On events without a tool, and with an `if` that is not a
// rule, the hook never runs. `if` sees the tool call, nothing else: not
// agent_id, not the output.
func TestCLIHookIf(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	log := filepath.Join(s.Dir, "starts.log")
	wrapper := filepath.Join(s.Dir, "started.sh")
	// Each start appends the handler's name and the call it came for.
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nid=$(cat | grep -o '\"tool_use_id\":\"[^\"]*\"' | cut -d'\"' -f4)\necho \"$1 $id\" >> "+shellQuote(log)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	handlers := map[string][]any{}
	add := func(event, matcher, cond, name string) {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": wrapper + " " + name, "if": cond}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		handlers[event] = append(handlers[event], g)
	}
	add("PreToolUse", "Bash", "Bash(git *)", "git")
	add("PreToolUse", "Bash", "not a rule(", "garbage")
	add("PostToolUse", "Write|Edit", "Write(/.flower/**)", "root-write")
	add("PostToolUse", "Write|Edit", "Write(.flower/**)", "cwd-write")
	add("PostToolUse", "Write|Edit", "Edit(/.flower/**)", "root-edit")
	add("SessionStart", "", "Bash(git *)", "session")
	add("UserPromptSubmit", "", "Bash(git *)", "prompt")
	if err := os.MkdirAll(s.Path("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.API.Main(Steps(
		Call(Bash("git", "git status")),
		Call(Bash("ls", "ls")),
		Call(Bash("compound", "ls && git log -1")),
		Call(Bash("prefixed", "GIT_PAGER=cat git status")),
		Call(Write("wb", s.Path(".flower/scripts/a.sh"), "#!/bin/sh\n# a\n")),
		Call(Write("notes", s.Path("notes.txt"), "x\n")),
		Call(Edit("wb-edit", s.Path(".flower/scripts/a.sh"), "# a", "# b")),
		Call(Bash("cd", "cd sub")),
		Call(Write("wb-after-cd", s.Path(".flower/scripts/b.sh"), "#!/bin/sh\n# b\n")),
		Call(Write("sub-wb", s.Path("sub/.flower/c.txt"), "x\n")),
		Say("done"),
	))
	s.Run(Options{Prompt: "try the conditions", Settings: map[string]any{"hooks": handlers}, AllowedTools: []string{"Bash", "Write", "Edit"}})

	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(got)
	want := []string{
		"cwd-write sub-wb", "cwd-write wb",
		"git compound", "git git", "git prefixed",
		"root-edit wb-edit",
		"root-write wb", "root-write wb-after-cd",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the handlers started (-want +got):\n%s", diff)
	}
}

// TestCLIAgentTeammates pins how agent teammates (CLAUDE_CODE_EXPERIMENTAL_
// AGENT_TEAMS=1) appear to hooks. In 2.1.328 a teammate is an Agent call
// with a name; team_name is "deprecated; ignored". Run in the lead's
// process (always under -p; in a terminal unless teammateMode puts it in a
// tmux or iTerm2 pane), a teammate is a subagent: its payloads carry
// agent_id and agent_type, and delegate-guard lets its hands-on calls run.
// In a pane, a teammate is a CLI process of its own (started with --agent-id
// name@team --agent-name --team-name --parent-session-id): its payloads carry
// its own session_id and no agent_id; spawned without a subagent_type they
// carry no agent_type either, the shape of the lead's main thread, and
// delegate-guard denies its hands-on calls. What tells the two apart is the
// teammate's transcript: each of its conversation entries carries agentName
// and teamName, and its first user message is the lead's
// <teammate-message teammate_id="team-lead">.
func TestCLIAgentTeammates(t *testing.T) {
	t.Parallel()
	const task = "Be the worker: touch mate.txt."
	teams := "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"
	spawn := ToolUse{ID: "spawn", Name: "Agent", Input: map[string]any{"description": "e2e teammate", "prompt": task, "name": "worker"}}

	t.Run("in-process", func(t *testing.T) {
		t.Parallel()
		s := NewScenario(t)
		in := map[string]any{"run_in_background": false}
		for k, v := range spawn.Input {
			in[k] = v
		}
		s.API.Main(Steps(Call(ToolUse{ID: spawn.ID, Name: spawn.Name, Input: in}), Say("done")))
		s.API.Agent(task, Steps(Call(Bash("mate-bash", "touch mate.txt")), Say("worker done")))
		payloads := filepath.Join(s.Dir, "pre.jsonl")
		hooks := append(LayerHooks(t, "1"), dumpPayloads("PreToolUse", payloads))
		s.Run(Options{Prompt: "spawn a teammate", Settings: Settings(hooks...), AllowedTools: handsOn, Env: []string{teams}})

		p := payloadOf(t, payloads, "mate-bash")
		if !p.Get("agent_id").Exists() || p.Get("agent_type").Str != "general-purpose" || p.Get("teammate_name").Exists() {
			t.Errorf("the in-process teammate's PreToolUse payload: %s; want agent_id and agent_type general-purpose, no teammate_name", p.Raw)
		}
		if got := s.ToolResult("mate-bash"); got.IsError || !s.Exists("mate.txt") {
			t.Errorf("delegate-guard stopped the in-process teammate's Bash: %q", got.Text)
		}
	})

	t.Run("tmux-pane", func(t *testing.T) {
		t.Parallel()
		needTmux(t)
		s := NewScenario(t)
		const prompt = "spawn a pane teammate"
		s.API.AddMainPrompt(prompt)
		s.API.Main(func(r *Request) Reply {
			if r.Step() == 0 {
				return Call(spawn)
			}
			return Say("noted")
		})
		s.API.Agent(`<teammate-message teammate_id="team-lead">`+"\n"+task+"\n</teammate-message>", func(r *Request) Reply {
			if r.Step() == 0 {
				return Call(Bash("mate-bash", "touch mate.txt"))
			}
			return Say("worker done")
		})
		payloads := filepath.Join(s.Dir, "hooks.jsonl")
		hooks := append(LayerHooks(t, "1"), dumpPayloads("PreToolUse", payloads), dumpPayloads("SessionStart", payloads), dumpPayloads("TeammateIdle", payloads))
		runInTmux(t, s, prompt, Options{Settings: Settings(hooks...), AllowedTools: handsOn, Env: []string{teams},
			Args: []string{"--teammate-mode", "tmux", "--permission-mode", "default"}}, func(screen string) bool {
			if strings.Contains(screen, "Do you want to proceed?") {
				// Claude Code's own permission check asks about the
				// teammate's command, which flower lets through: yes.
				tmuxKeys(t, s, "Enter")
			}
			b, _ := os.ReadFile(payloads)
			return strings.Contains(string(b), `"TeammateIdle"`)
		})

		lead := sessionOf(t, s, prompt)
		p := payloadOf(t, payloads, "mate-bash")
		mate := p.Get("session_id").Str
		if mate == "" || mate == lead {
			t.Fatalf("the pane teammate's PreToolUse carries session %q, the lead's is %q: want a session of its own", mate, lead)
		}
		for _, f := range []string{"agent_id", "agent_type", "teammate_name", "team_name"} {
			if p.Get(f).Exists() {
				t.Errorf("the pane teammate's PreToolUse payload carries %s: %s", f, p.Raw)
			}
		}
		for session, want := range map[string]string{mate: "worker", lead: ""} {
			e := firstUserEntry(t, s.Transcript(session))
			if got := e.Get("agentName").Str; got != want || (want != "") != strings.HasPrefix(e.Get("teamName").Str, "session-") {
				t.Errorf("session %s's first user entry has agentName %q, teamName %q; want agentName %q (and a teamName with it)", session, got, e.Get("teamName").Str, want)
			}
		}
		if got := firstUserEntry(t, s.Transcript(mate)).Get("message.content").Str; !strings.HasPrefix(got, `<teammate-message teammate_id="team-lead">`) {
			t.Errorf("the pane teammate's first message is %.100q, want the lead's teammate-message", got)
		}
		// delegate-guard tells it by its transcript: a worker, whose
		// hands-on call it lets through.
		if got := s.ToolResult("mate-bash"); got.IsError || !s.Exists("mate.txt") {
			t.Errorf("delegate-guard stopped the pane teammate's Bash: %q", got.Text)
		}
	})
}

// dumpPayloads is a hook that appends each payload of event to path, one a line.
func dumpPayloads(event, path string) Hook {
	return Hook{Event: event, Command: "cat >> " + shellQuote(path) + " && echo >> " + shellQuote(path)}
}

// payloadOf is the payload in path for tool call id; it fails t without one.
func payloadOf(t *testing.T, path, id string) gjson.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p := gjson.Parse(line); p.Get("tool_use_id").Str == id {
			return p
		}
	}
	t.Fatalf("no payload for %s in:\n%s", id, b)
	return gjson.Result{}
}

// sessionOf is the session of Work whose first user message is prompt.
func sessionOf(t *testing.T, s *Scenario, prompt string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(s.ProjectDir(), "*.jsonl"))
	for _, p := range paths {
		if firstUserEntry(t, p).Get("message.content").Str == prompt {
			return strings.TrimSuffix(filepath.Base(p), ".jsonl")
		}
	}
	t.Fatalf("no transcript in %s opens with %q", s.ProjectDir(), prompt)
	return ""
}

// firstUserEntry is the first "user" entry of a transcript.
func firstUserEntry(t *testing.T, path string) gjson.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if e := gjson.Parse(line); e.Get("type").Str == "user" {
			return e
		}
	}
	t.Fatalf("no user entry in %s", path)
	return gjson.Result{}
}
