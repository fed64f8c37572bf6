// Package e2e drives the pinned real Claude Code CLI (npm
// @anthropic-ai/claude-code@2.1.328, installed by `make e2e-deps`) against a
// scripted fake Messages API, with flower's freshly built commands as hooks.
// Our hooks count as working when they work inside the real client.
//
// The harness lives in the package's _test.go files; each layer adds its
// scenarios as tests/e2e/<layer>_test.go (package e2e) using it.
//
// # Running
//
// `make test` installs the CLI and runs this package with
// FLOWER_E2E_REQUIRED=1. Without the CLI, `go test ./...` skips every
// scenario with a message naming `make e2e-deps`; with FLOWER_E2E_REQUIRED=1
// or CI=true a missing CLI fails them. The CLI is $FLOWER_CLAUDE when set
// (a path that does not exist counts as missing), else
// .cache/claude-code/node_modules/@anthropic-ai/claude-code/bin/claude.exe.
// `make e2e-min` runs the tests that exercise what flower needs of Claude
// Code against the oldest version it supports (hook.MinClaudeVersion).
// TestMain builds ./cmd/... once (CGO_ENABLED=0) into a temp dir.
// FLOWER_E2E_DUMP=DIR writes every request body the fake API accepts to DIR:
// the way to see what the CLI really sends while writing a scenario.
//
// # A scenario
//
//	func TestLayer1RmDenied(t *testing.T) {
//		t.Parallel()
//		s := NewScenario(t) // fresh HOME, CLAUDE_CONFIG_DIR, git workspace, fake API
//		s.WriteFile("x", "keep me\n")
//		s.API.Main(Steps(
//			Call(Bash("rm1", "rm -f x")), // step 0: the model calls Bash
//			Say("ok"),                    // step 1: it ends its turn
//		))
//		res := s.Run(Options{
//			Prompt:       "remove x",
//			Settings:     Settings(LayerHooks(t, "1")...), // layer one as flower-settings wires it
//			AllowedTools: []string{"Bash", "Write", "Agent"}, // so only the hook can deny
//		})
//		got := s.ToolResult("rm1") // what the model saw of that call
//		// got.IsError, got.Text; s.Exists("x"); res.Denied("rm1"); …
//	}
//
// # The fake API
//
// Scenario.API is an *API. It answers POST /v1/messages (streaming SSE or
// plain JSON, as asked) and /v1/messages/count_tokens. Each request is
// routed to a thread by the last text block of its first user message
// (Request.FirstPrompt):
//   - a prompt given to Scenario.Run (or API.AddMainPrompt), or the summary
//     an automatic compaction opens the continued thread with: MainThread,
//     scripted by API.Main;
//   - an Agent call's prompt: that subagent, scripted by API.Agent(prompt, …);
//   - a request without tools (titles, summaries): SideThread, answered with
//     short text.
//
// A request for a thread with no script fails the test. A Script is
// func(*Request) Reply; Steps(r0, r1, …) answers with r_n where n is the
// number of assistant messages already in the request (Request.Step), so a
// session resumed with --resume continues at the next step, and running past
// the last step fails the test. Write a Script by hand to route on anything
// else (the latest prompt: r.LastUser().Text(); a pruned history: r.Messages).
//
// Replies: Say(text) ends the turn; Call(tools…) calls tools (stop_reason
// tool_use); Reply{Text, Tools} does both. Tool calls: Bash(id, cmd),
// Read(id, path), Write(id, path, content), Edit(id, path, old, new),
// Agent(id, prompt) (a synchronous general-purpose subagent:
// run_in_background false), or ToolUse{ID, Name, Input} for any other tool.
// Paths given to tools are absolute: use Scenario.Path.
//
// A subagent's first request is s.API.Thread(prompt)[0]; what a
// SessionStart or SubagentStart hook added is in Request.FirstUserText.
//
// Every accepted request is recorded, parsed (Request: Thread, System,
// Tools, Messages of Blocks, Raw). API.Requests, API.Thread(thread),
// API.Last(thread) return them; API.ToolResult(id) and Scenario.ToolResult(id)
// find what the model saw of a tool call (Block.Text, Block.IsError) in the
// latest request holding it; Request.ContextChars sizes the conversation,
// Request.RequestChars the whole request (system prompt and tools too): the
// usage the fake reports is the latter, at 4 characters a token.
//
// Like the real API, the fake answers HTTP 400 with an invalid_request_error
// body when an assistant tool_use has no tool_result in the next message (or
// a tool_result no tool_use before it), and the test fails: a broken
// transcript fails loudly. API.ExpectRejections allows it; API.Rejected
// lists such requests. But the CLI repairs some damage itself: on --resume
// it silently drops a tool_use whose tool_result does not match, and the
// orphan result (TestCLIDropsUnpairedCallsOnResume). A scenario that edits
// transcripts must check what the resumed request holds
// (Request.ToolUses, ToolResults), not only that it was accepted.
//
// TestHarness* (harness_test.go) show a round trip, a --resume, and hooks
// loaded from --plugin-dir and from Home/.claude/settings.json.
//
// # The sandbox
//
// NewScenario(t) gives Dir (temp root), Work (git repo with README.md in
// one commit, the CLI's cwd), Home and ConfigDir (Home/.claude, also set as
// CLAUDE_CONFIG_DIR). Helpers: Path, WriteFile, ReadFile, Exists, Git,
// ProjectDir and Transcript(sessionID) (the CLI's JSONL transcripts).
//
// Scenario.Run(Options) runs, in Work,
//
//	claude -p PROMPT --output-format json [--settings Dir/settings-N.json]
//	       --setting-sources "" [--allowedTools A,B] [--permission-mode M] ARGS…
//
// with only PATH, LANG, HOME, TMPDIR, CLAUDE_CONFIG_DIR, ANTHROPIC_BASE_URL,
// ANTHROPIC_API_KEY=sk-test, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
// DISABLE_TELEMETRY=1, DISABLE_AUTOUPDATER=1 and a git identity in its
// environment (Options.Env adds, Options.Unset removes), under a timeout
// (DefaultTimeout). It fails the test unless the CLI exits 0 with a result
// object, returned as a *Result (Result, NumTurns, SessionID, IsError,
// PermissionDenials, Stdout, Stderr, Duration); Scenario.Try returns the
// error instead.
//   - Options.Settings is any JSON value; Settings(Hook{Event, Matcher,
//     Command, Timeout}…) builds the hooks object. LayerHooks(t, "1",
//     "3", …) gives a layer's hooks exactly as flower-settings wires
//     them (flowersettings.Catalog) with the freshly built binaries: prefer
//     it, so the scenarios test the real wiring. LandedHooks(t, layers…)
//     gives only those whose ./cmd exists (for setups that grow as layers
//     land, like the demo). Cmd(t, "tool", args…) is the command line of a
//     freshly built ./cmd/<tool>; Bin(t, name) is its path. A command that
//     does not build fails only the tests that use it.
//   - An install test leaves Settings nil, sets AllSettingSources and writes
//     Home/.claude/settings.json (or runs install.sh with HOME=s.Home).
//   - A plugin: Args: []string{"--plugin-dir", dir}.
//   - Resuming: run once, then Run(Options{Prompt: …, Args:
//     []string{"--resume", res.SessionID}}); script the thread with enough
//     Steps for both runs.
//
// The CLI refuses --dangerously-skip-permissions as root (CI runs as
// root): let tools run with AllowedTools or PermissionMode. In -p mode a
// tool that is neither allowed nor approved by a hook is denied, and the
// denial is listed in Result.PermissionDenials.
package e2e
