package e2e

import (
	"strings"
	"testing"
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
