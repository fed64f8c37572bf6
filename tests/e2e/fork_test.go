package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestLayer2ForkSeesIndex: `claude --resume ID --fork-session` fires
// SessionStart with source "fork" (CLI 2.1.214 on) under the fork's new
// session id, and index-guard shows the fork the workbench block as on a
// resume: a script saved since the forked session last saw the index is in
// the fork's first request, after its prompt, once. The fork's record is its
// own; the forked session's is left as it was. When nothing changed, the
// CLI does not add a SessionStart context equal to the one the copied
// history already holds, so the fork sees the block once.
func TestLayer2ForkSeesIndex(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile(countLinesPath, countLines)
	s.API.Main(Steps(Say("first"), Say("forked, unchanged"), Say("forked, changed")))
	starts := filepath.Join(s.Dir, "session-start.jsonl")
	hooks := Settings(append(LayerHooks(t, "2"),
		Hook{Event: "SessionStart", Command: "cat >> " + shellQuote(starts) + " && echo >> " + shellQuote(starts)})...)
	first := s.Run(Options{Prompt: "start", Settings: hooks, AllowedTools: handsOn})
	record := filepath.Join(s.Path(".flower/.state"), first.SessionID+".shown")
	before, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("the first session left no record of what it was shown: %v", err)
	}

	fork := func(prompt string) (string, *Request) {
		res := s.Run(Options{Prompt: prompt, Settings: hooks, AllowedTools: handsOn, Args: []string{"--resume", first.SessionID, "--fork-session"}})
		if res.SessionID == first.SessionID {
			t.Fatalf("the fork kept the session id %s", res.SessionID)
		}
		return res.SessionID, s.API.Last(MainThread)
	}

	id, req := fork("fork, nothing changed")
	if n := strings.Count(allText(req), "Rules of the workbench:"); n != 1 {
		t.Errorf("the unchanged fork's request shows the block %d times, want once (the copied history's)", n)
	}
	if _, err := os.Stat(filepath.Join(s.Path(".flower/.state"), id+".shown")); err != nil {
		t.Errorf("index-guard kept no record for the fork: %v", err)
	}

	const newDesc = "Find duplicate lines across data/ files"
	s.WriteFile(".flower/scripts/dupes.sh", "#!/bin/sh\n# "+newDesc+"\nsort data/* | uniq -d\n")
	id, req = fork("fork, a script was added")
	got := sinceReply(req)
	if !strings.Contains(got, "- scripts/dupes.sh (") || !strings.Contains(got, "): "+newDesc+"\n") {
		t.Errorf("after its prompt the fork was not shown the new script:\n%s", got)
	}
	if n := strings.Count(got, "Rules of the workbench:"); n != 1 {
		t.Errorf("after its prompt the fork was shown the block %d times, want once:\n%s", n, got)
	}
	if after, err := os.ReadFile(record); err != nil || string(after) != string(before) {
		t.Errorf("the forks changed the forked session's record (%v):\nbefore %s\nafter  %s", err, before, after)
	}

	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			sources = append(sources, gjson.Get(line, "source").Str+" "+gjson.Get(line, "session_id").Str)
		}
	}
	if want := []string{"startup " + first.SessionID, "fork ", "fork " + id}; len(sources) != 3 ||
		sources[0] != want[0] || !strings.HasPrefix(sources[1], want[1]) || sources[2] != want[2] {
		t.Errorf("SessionStart sources and sessions %q, want startup %s, then fork twice, the second %s", sources, first.SessionID, id)
	}
}
