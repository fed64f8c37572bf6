package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// Layer two: index-guard shows the workbench, its rules and its index to the
// main thread at session start and to each subagent when it starts, and keeps
// INDEX.md current as scripts land in the workbench.

// countLines is a script already in the workbench when the session starts;
// its first comment is what the index must show.
const (
	countLinesPath = ".flower/scripts/count_lines.sh"
	countLinesDesc = "Count lines per file under data/, largest first"
	countLines     = "#!/usr/bin/env bash\n# " + countLinesDesc + "\nset -euo pipefail\nwc -l data/* | sort -rn\n"
)

// allText is everything a request shows the model as text: the system
// prompt and every text block and tool result of its messages.
func allText(r *Request) string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Messages {
		b.WriteString("\n")
		b.WriteString(m.Text())
		for _, c := range m.Content {
			if c.Type == "tool_result" {
				b.WriteString("\n" + c.Text)
			}
		}
	}
	return b.String()
}

func TestLayer2MainSeesIndex(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile(countLinesPath, countLines)
	s.API.Main(Steps(Say("I know the workbench.")))
	s.Run(Options{Prompt: "what is in the workbench?", Settings: Settings(LayerHooks(t, "2")...), AllowedTools: handsOn})

	first := s.API.Thread(MainThread)
	if len(first) == 0 {
		t.Fatal("the main thread sent no request")
	}
	// The CLI sends SessionStart's additionalContext as a system-role
	// message after the prompt ("SessionStart hook additional context: …").
	got := allText(first[0])
	for _, want := range []string{
		"Workbench: " + s.Path(".flower") + " (",
		"- scripts/count_lines.sh (",
		"): " + countLinesDesc + "\n",
		"1. Before a script gets written, look in the index below",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the first request lacks %q:\n%s", want, got)
		}
	}
	// The block came once: SessionStart showed it and recorded it, so the
	// prompt (same session, same index) did not repeat it.
	if n := strings.Count(got, "Rules of the workbench:"); n != 1 {
		t.Errorf("the first request shows the block %d times, want once", n)
	}
	if idx, ok := s.ReadFile(".flower/INDEX.md"); !ok || !strings.Contains(idx, "- scripts/count_lines.sh (") {
		t.Errorf("INDEX.md (exists %v):\n%s", ok, idx)
	}
}

// TestLayer2SubagentSeesIndex: a subagent's first request carries the
// worker's block, with the workbench and the existing script.
func TestLayer2SubagentSeesIndex(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile(countLinesPath, countLines)
	const task = "Count the lines under data/. Reply with only the path of the report."
	s.API.Main(Steps(
		Call(Agent("dispatch", task)),
		Say("Done."),
	))
	s.API.Agent(task, Steps(Say("artifacts/lines.txt")))
	s.Run(Options{Prompt: "count the lines", Settings: Settings(LayerHooks(t, "2")...), AllowedTools: handsOn})

	sub := s.API.Thread(task)
	if len(sub) == 0 {
		t.Fatal("the subagent sent no request")
	}
	got := allText(sub[0])
	for _, want := range []string{
		"Workbench: " + s.Path(".flower") + " (shared with the coordinator",
		"Rules for your work:",
		"- scripts/count_lines.sh (",
		"): " + countLinesDesc + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the subagent's first request lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Rules of the workbench:") {
		t.Error("the subagent was shown the coordinator's block")
	}
}

// TestLayer2SubagentScriptIndexed: with layers one and two, the main thread
// delegates; the subagent saves a new script in the workbench, and INDEX.md
// lists it with the description from its first comment. Resuming the
// session shows the new script to the main thread at once (SessionStart
// fires with source "resume").
func TestLayer2SubagentScriptIndexed(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile(countLinesPath, countLines)
	const (
		task    = "Write a script that finds duplicate lines and save it in the workbench. Reply with its path."
		newDesc = "Find duplicate lines across data/ files"
	)
	script := s.Path(".flower/scripts/dupes.sh")
	s.API.Main(Steps(
		Call(Agent("dispatch", task)),
		Say("Saved scripts/dupes.sh."),
		Say("The workbench has dupes.sh now."), // the resumed run's prompt
	))
	s.API.Agent(task, Steps(
		Call(Write("save", script, "#!/bin/sh\n# "+newDesc+"\nsort data/* | uniq -d\n")),
		Say(".flower/scripts/dupes.sh"),
	))
	hooks := Settings(LayerHooks(t, "1", "2")...)
	res := s.Run(Options{Prompt: "make a duplicate finder", Settings: hooks, AllowedTools: handsOn})

	if b, ok := s.API.ToolResult("save"); !ok || b.IsError {
		t.Fatalf("the subagent's Write came back as %+v (found %v)", b, ok)
	}
	idx, ok := s.ReadFile(".flower/INDEX.md")
	if !ok || !strings.Contains(idx, "- scripts/dupes.sh (") || !strings.Contains(idx, "): "+newDesc+"\n") {
		t.Fatalf("INDEX.md does not list the new script (exists %v):\n%s", ok, idx)
	}
	if !strings.Contains(idx, "- scripts/count_lines.sh (") {
		t.Errorf("INDEX.md lost the old script:\n%s", idx)
	}

	s.Run(Options{Prompt: "what is new in the workbench?", Settings: hooks, AllowedTools: handsOn, Args: []string{"--resume", res.SessionID}})
	last := s.API.Last(MainThread)
	if got := allText(last); !strings.Contains(got, "): "+newDesc+"\n") {
		t.Errorf("the resumed session's request does not show the new script:\n%s", got)
	}
}

// sinceReply is the text of the messages after the request's last
// assistant message: the prompt, and what the prompt's hooks added (the CLI
// sends UserPromptSubmit's additionalContext as a system-role message after
// the prompt).
func sinceReply(r *Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			b.Reset()
			continue
		}
		b.WriteString(m.Text() + "\n")
	}
	return b.String()
}

// compactSummary is the text of the last compaction summary in the
// scenario's transcripts: the first user message of a compacted thread.
func compactSummary(t *testing.T, s *Scenario) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(s.ProjectDir(), "*.jsonl"))
	summary := ""
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if gjson.Get(line, "isCompactSummary").Bool() {
				summary = gjson.Get(line, "message.content").String()
			}
		}
	}
	if summary == "" {
		t.Fatal("no compaction summary in the transcripts")
	}
	return summary
}

// Turns runs one CLI process that takes the prompts one after another, as a
// user typing them in one session would (-p with stream-json input), so
// SessionStart fires once and UserPromptSubmit before each prompt.
// between(i) runs after turn i has ended and before prompt i+1 is sent.
func (s *Scenario) Turns(o Options, prompts []string, between func(i int)) {
	s.T.Helper()
	for _, p := range prompts {
		s.API.AddMainPrompt(p) // after a compaction the first message is the next prompt
	}
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--settings", s.writeSettings(o.Settings), "--setting-sources", ""}
	if len(o.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(o.AllowedTools, ","))
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBin, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = s.Work, s.env(o), 5*time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		s.T.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		s.T.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		s.T.Fatal(err)
	}
	send := func(p string) {
		msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		if _, err := stdin.Write(append(msg, '\n')); err != nil {
			s.T.Errorf("sending prompt %q: %v", p, err)
		}
	}
	send(prompts[0])
	turn := 0
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		if gjson.GetBytes(lines.Bytes(), "type").String() != "result" {
			continue
		}
		if gjson.GetBytes(lines.Bytes(), "is_error").Bool() {
			s.T.Errorf("turn %d ended in an error: %s", turn, lines.Bytes())
		}
		if between != nil {
			between(turn)
		}
		if turn++; turn == len(prompts) {
			stdin.Close()
			continue
		}
		send(prompts[turn])
	}
	if err := cmd.Wait(); err != nil || turn != len(prompts) {
		s.T.Fatalf("claude ran %d of %d turns: %v\nstderr: %s", turn, len(prompts), err, stderr.String())
	}
}

// TestLayer2PromptsGetUpdates: in one session, the main thread is shown the
// whole block once; a prompt after a script was saved brings only that
// entry; a prompt after nothing changed brings nothing; after a compaction
// (which leaves the model a summary) the whole block comes again, once.
func TestLayer2PromptsGetUpdates(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile(countLinesPath, countLines)
	s.API.Main(func(r *Request) Reply { return Say("ok") })
	const newDesc = "Find duplicate lines across data/ files"
	prompts := []string{"first", "second", "third", "/compact", "after"}
	s.Turns(Options{Settings: Settings(LayerHooks(t, "2")...)}, prompts, func(i int) {
		switch prompts[i] {
		case "first":
			s.WriteFile(".flower/scripts/dupes.sh", "#!/bin/sh\n# "+newDesc+"\nsort data/* | uniq -d\n")
		case "/compact":
			// The compacted thread starts with the summary: route it to main.
			s.API.AddMainPrompt(compactSummary(t, s))
		}
	})
	reqs := s.API.Thread(MainThread)
	if len(reqs) < 4 {
		t.Fatalf("%d main-thread requests, want at least 4", len(reqs))
	}
	const update = "Workbench index update since you last saw it"
	third := reqs[2]
	if n := strings.Count(allText(third), "Rules of the workbench:"); n != 1 {
		t.Errorf("the session holds the whole block %d times, want once", n)
	}
	if n := strings.Count(allText(third), update); n != 1 {
		t.Errorf("the session holds %d updates, want 1", n)
	}
	second := sinceReply(reqs[1])
	for _, want := range []string{update, "+ scripts/dupes.sh (", "): " + newDesc + "\n", "2 of 2 files listed"} {
		if !strings.Contains(second, want) {
			t.Errorf("the second prompt's messages lack %q:\n%s", want, second)
		}
	}
	if strings.Contains(second, "count_lines.sh") {
		t.Errorf("the update repeats an entry the model already has:\n%s", second)
	}
	if got := sinceReply(third); strings.Contains(got, "Workbench") {
		t.Errorf("the third prompt brought workbench text although nothing changed:\n%s", got)
	}

	after := reqs[len(reqs)-1]
	if got := after.FirstPrompt(); !strings.HasPrefix(got, "This session is being continued") || !strings.Contains(sinceReply(after), "after") {
		t.Fatalf("the last request is not the compacted thread's \"after\" turn: it starts with %.100q", got)
	}
	text := allText(after)
	if n := strings.Count(text, "Rules of the workbench:"); n != 1 {
		t.Errorf("after the compaction the context holds the whole block %d times, want once:\n%s", n, text)
	}
	for _, want := range []string{"- scripts/dupes.sh (", "- scripts/count_lines.sh ("} {
		if !strings.Contains(text, want) {
			t.Errorf("after the compaction the block lacks %q", want)
		}
	}
	if strings.Contains(text, update) {
		t.Errorf("after the compaction an update came too:\n%s", text)
	}
}

// TestLayer2NoWorkbenchUntilUsed: a session that saves nothing leaves no
// .flower/ behind (git status stays clean); the first spill creates it,
// with the .gitignore that keeps spill/ out of git.
func TestLayer2NoWorkbenchUntilUsed(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.API.Main(Steps(Say("hello"), Call(Bash("big", "seq 1 3000")), Say("done")))
	hooks := Settings(LayerHooks(t, "2", "3")...)
	res := s.Run(Options{Prompt: "say hello", Settings: hooks, AllowedTools: handsOn})
	if first := allText(s.API.Thread(MainThread)[0]); !strings.Contains(first, "Workbench: "+s.Path(".flower")+" (") {
		t.Errorf("the block does not name where the workbench will be:\n%.500s", first)
	}
	if s.Exists(".flower") {
		t.Error("a session that saved nothing created .flower/")
	}
	if st := s.Git("status", "--porcelain"); st != "" {
		t.Errorf("git status after a session that saved nothing:\n%s", st)
	}

	s.Run(Options{Prompt: "count to 3000", Settings: hooks, AllowedTools: handsOn, Args: []string{"--resume", res.SessionID}})
	if got := s.ToolResult("big"); !strings.Contains(got.Text, "Spilled to a file") {
		t.Fatalf("no spill:\n%.300s", got.Text)
	}
	if ignore, ok := s.ReadFile(".flower/.gitignore"); !ok || !strings.Contains(ignore, "/spill/") {
		t.Errorf("the workbench the spill created has no .gitignore for spill/: %q", ignore)
	}
	if st := s.Git("status", "--porcelain", "--untracked-files=all"); strings.Contains(st, "spill/") {
		t.Errorf("git status shows spilled output:\n%s", st)
	}
}
