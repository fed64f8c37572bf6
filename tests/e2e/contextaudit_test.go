package e2e

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/contextaudit"
	"github.com/flowerhooks/flower/internal/delegateguard"
)

// recordAudit is where TestContextAuditRecording copies the session it
// records, sanitized, for the golden test of context-audit:
//
//	go test ./tests/e2e -run '^TestContextAuditRecording$' -count=1 \
//	    -args -record-audit=$PWD/tests/testdata/context-audit/recorded
var recordAudit = flag.String("record-audit", "", "copy the recorded session, sanitized, into this folder")

// The recorded session holds one of everything context-audit measures: main
// thread glances, a hook denial on the main thread, a brief, a subagent
// that writes a workbench script, runs it twice (the first run spilled by
// spill-guard), edits it, and is denied an rm by a settings rule.
const (
	auditPrompt = "Count to 3000 with a reusable script and tell me the last number."
	auditBrief  = "Write .flower/scripts/count.sh that prints 1 to 3000, run it, then make it count to 5000 and run it again. Reply with the last number only."
	// auditScript is the script the subagent writes. It counts to 3000 so
	// that its output (13,892 characters as the model gets it) is well over
	// spill-guard's 4,000-character threshold.
	auditScript = "#!/bin/sh\n# Count from 1, one number a line.\nseq 1 3000\n"
)

// auditSettings is layers 1 to 3 of flower plus a settings rule denying rm,
// so that the session holds a hook denial and a rule denial.
func auditSettings(t *testing.T) map[string]any {
	set := Settings(LayerHooks(t, "1", "2", "3")...)
	set["permissions"] = map[string]any{"deny": []string{"Bash(rm:*)"}}
	return set
}

// recordAuditSession runs the session and returns its scenario and id.
func recordAuditSession(t *testing.T) (*Scenario, string) {
	s := NewScenario(t)
	s.WriteFile("notes.txt", "draft\n")
	script := s.Path(".flower/scripts/count.sh")
	s.API.Main(Steps(
		Call(Bash("look", "git status -s")),
		Call(Bash("rm-main", "rm -f notes.txt")),
		Call(Agent("count", auditBrief)),
		Call(Bash("look2", "ls .flower/scripts")),
		Say("5000"),
	))
	s.API.Agent(auditBrief, Steps(
		Call(Write("write", script, auditScript)),
		Call(Bash("run1", "sh .flower/scripts/count.sh")),
		Call(Read("read", script)),
		Call(Edit("edit", script, "seq 1 3000", "seq 1 5000")),
		Call(Bash("run2", "sh .flower/scripts/count.sh | tail -n 1")),
		Call(Bash("rm-sub", "rm -f notes.txt")),
		Say("5000"),
	))
	res := s.Run(Options{Prompt: auditPrompt, Settings: auditSettings(t), AllowedTools: handsOn})
	return s, res.SessionID
}

// TestContextAuditRecording records the session and audits it: the figures
// that follow from the script alone, whatever the CLI adds around it. (The
// committed recording's every figure is worked out in
// tests/contextaudit_test.go.)
func TestContextAuditRecording(t *testing.T) {
	t.Parallel()
	s, id := recordAuditSession(t)
	if *recordAudit != "" {
		saveRecording(t, s, id, *recordAudit)
	}
	var stdout, stderr bytes.Buffer
	if code := contextaudit.Main([]string{"--json", s.Transcript(id)}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("context-audit exit %d: %s", code, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	got := map[string]any{}
	for _, key := range []string{"main.turns", "main.tool_calls", "main.hands_on", "subagents.turns", "subagents.tool_calls",
		"subagents.hands_on", "subagent_transcripts", "denials", "glances_main", "spills.count", "scripts", "briefs", "bad_lines"} {
		got[key] = gjson.Get(stdout.String(), key).Value()
	}
	want := map[string]any{
		// Five main responses: look, rm-main, count, look2, "5000".
		"main.turns": 5.0,
		// look, rm-main, count (Agent), look2; all but the Agent are Bash.
		"main.tool_calls": 4.0, "main.hands_on": 3.0,
		// Seven subagent responses: write, run1, read, edit, run2, rm-sub, "5000";
		// six calls, all but the Read hands-on.
		"subagents.turns": 7.0, "subagents.tool_calls": 6.0, "subagents.hands_on": 5.0,
		"subagent_transcripts": 1.0,
		// rm-main denied by delegate-guard, rm-sub by the Bash(rm:*) rule;
		// each costs its call and what the model was told.
		"denials": map[string]any{"hook": 1.0, "rule": 1.0,
			"main_chars": runeCount(`{"command":"rm -f notes.txt","description":"e2e: rm-main"}`, hookDenial("Bash"), delegateguard.Reason("Bash", ".flower/artifacts", true)),
			"chars": runeCount(`{"command":"rm -f notes.txt","description":"e2e: rm-main"}`, hookDenial("Bash"), delegateguard.Reason("Bash", ".flower/artifacts", true),
				`{"command":"rm -f notes.txt","description":"e2e: rm-sub"}`, "Permission to use Bash with command rm -f notes.txt has been denied.")},
		// git status -s and ls .flower/scripts; rm is not a glance.
		"glances_main": 2.0,
		// run1's 13,892-character output went to spill/.
		"spills.count": 1.0,
		// count.sh: written by Write and Edit, run by run1 and run2.
		// No other script names it.
		"scripts": map[string]any{"written": 1.0, "writes": 2.0, "runs": 2.0, "run_more_than_once": 1.0, "written_not_run": 0.0,
			"reused_by_scripts": 0.0, "most_reused": nil},
		// No sentence of the brief restates the workbench's rules.
		"briefs":    map[string]any{"count": 1.0, "chars": float64(utf8.RuneCountInString(auditBrief)), "restating": 0.0, "restating_chars": 0.0},
		"bad_lines": 0.0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context-audit of the recorded session (-want +got):\n%s", diff)
	}
}

// runeCount sums the characters of texts.
func runeCount(texts ...string) float64 {
	n := 0
	for _, s := range texts {
		n += utf8.RuneCountInString(s)
	}
	return float64(n)
}

// saveRecording copies the session's transcripts to dir with the scenario's
// temporary paths replaced by fixed ones, so the recording reads the same
// on every machine.
func saveRecording(t *testing.T, s *Scenario, id, dir string) {
	dashed := func(p string) string {
		b := []byte(p)
		for i, c := range b {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				b[i] = '-'
			}
		}
		return string(b)
	}
	sanitize := strings.NewReplacer(s.Dir, "/tmp/audit", dashed(s.Dir), "-tmp-audit", binDir, "/tmp/flower-bin").Replace
	src := s.Transcript(id)
	files := []string{src}
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(src, ".jsonl"), "subagents", "*"))
	files = append(files, subs...)
	for _, f := range files {
		rel, err := filepath.Rel(s.ProjectDir(), f)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, []byte(sanitize(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestContextAuditCompaction records a session compacted in the real CLI
// (/compact after its first run's 4 responses, then 2 more) and a subagent,
// and audits it: the compaction is reported as one, after main turn 4,
// with the context it summarized; the subagent is the only subagent work.
func TestContextAuditCompaction(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const sub = "SUBTASK: count the files and report"
	s.API.Agent(sub, Steps(Call(Bash("s1", "ls -la")), Say("2 files.")))
	s.API.Main(byPrompt(map[string][]Reply{
		"look around": {Call(Bash("g1", "git status")), Call(Bash("g2", "ls")), Call(Agent("a1", sub)), Say("looked")},
		"more":        {Call(Bash("g3", "git log --oneline")), Say("more done")},
	}))
	first := s.Run(Options{Prompt: "look around", AllowedTools: handsOn})
	s.Run(Options{Prompt: "/compact", AllowedTools: handsOn, Args: []string{"--resume", first.SessionID}})
	addSummaryPrompt(t, s.API, s.Transcript(first.SessionID))
	s.Run(Options{Prompt: "more", AllowedTools: handsOn, Args: []string{"--resume", first.SessionID}})

	var stdout, stderr bytes.Buffer
	if code := contextaudit.Main([]string{"--json", s.Transcript(first.SessionID)}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("context-audit exit %d: %s", code, stderr.String())
	}
	got := map[string]any{}
	for _, key := range []string{"main.turns", "subagents.turns", "subagent_transcripts", "compactions.count", "compactions.after_turns", "warmups"} {
		got[key] = gjson.Get(stdout.String(), key).Value()
	}
	want := map[string]any{
		// g1, g2, a1, "looked"; g3, "more done". The summarising run is no
		// turn of the main thread (2.1.328 keeps no transcript of it).
		"main.turns": 6.0, "compactions.count": 1.0, "compactions.after_turns": []any{4.0},
		// s1, "2 files.".
		"subagents.turns": 2.0, "subagent_transcripts": 1.0, "warmups": 0.0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context-audit of the compacted session (-want +got):\n%s", diff)
	}
	if pre := gjson.Get(stdout.String(), "compactions.pre_tokens").Int(); pre <= 0 {
		t.Errorf("pre_tokens %d: the compaction's context is not read", pre)
	}
}
