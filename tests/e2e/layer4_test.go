package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/pkg/transcript"
)

// Layer four: prune-session writes a pruned fork of a recorded session, and
// the real CLI resumes the fork.

// TestLayer4PruneAndResume records a session with layer one on (glances
// run, hands-on calls are denied by delegate-guard) and a subagent, prunes it
// with --keep-recent 2, resumes the fork with --resume, and checks what the
// CLI sent: the old glances expired, the older denial gone with its call, the
// rest (the newest denial, the recent glances, the subagent's report)
// verbatim, and every call paired.
func TestLayer4PruneAndResume(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const subPrompt = "SUBTASK: count the files and report"
	s.API.Agent(subPrompt, Steps(
		Call(Bash("s1", "ls -la")),
		Say("2 files."),
	))
	steps := Steps(
		Call(Bash("g1", "git status"), Bash("g2", "ls")),
		Call(Bash("d1", "rm -f junk.txt")),
		Call(Bash("g3", "cat README.md")),
		Call(Bash("d2", "make build")),
		Call(Agent("a1", subPrompt)),
		Call(Bash("g4", "git log --oneline")),
		Say("recorded"),
	)
	// The resumed request holds fewer assistant messages than the recording
	// (the pruned call's message is gone), so it is routed by its prompt.
	s.API.Main(func(r *Request) Reply {
		if strings.Contains(r.LastUser().Text(), "go on") {
			return Say("resumed")
		}
		return steps(r)
	})
	settings := Settings(LayerHooks(t, "1")...)
	first := s.Run(Options{Prompt: "look around", Settings: settings, AllowedTools: handsOn})
	if !first.Denied("d1") || !first.Denied("d2") {
		t.Fatalf("the recording should hold two hook denials, has %+v", first.PermissionDenials)
	}

	src := s.Transcript(first.SessionID)
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	subs, _ := transcript.Subagents(src)
	if len(subs) != 1 {
		t.Fatalf("the recording has %d subagent transcripts, want 1", len(subs))
	}

	cmd := exec.Command(Bin(t, "prune-session"), "--keep-recent", "2", first.SessionID)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.ConfigDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("prune-session: %v\n%s", err, stderr.String())
	}
	fork := strings.TrimSpace(stdout.String())
	t.Logf("prune-session report:\n%s", stderr.String())
	for _, want := range []string{"expired   2 glance results of 4", "removed   1 denied call of 2"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, stderr.String())
		}
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(after, orig) {
		t.Errorf("prune-session changed the original transcript")
	}
	forkPath := s.Transcript(fork)
	checkRedLine(t, forkPath)
	if forkSubs, _ := transcript.Subagents(forkPath); len(forkSubs) != 1 || filepath.Base(forkSubs[0]) != filepath.Base(subs[0]) {
		t.Errorf("the fork's subagent transcripts are %v, want a copy of %v", forkSubs, subs)
	}

	second := s.Run(Options{Prompt: "go on", Settings: settings, AllowedTools: handsOn, Args: []string{"--resume", fork}})
	if second.Result != "resumed" || second.SessionID != fork {
		t.Errorf("the resumed run answered %q in session %s, want \"resumed\" in %s", second.Result, second.SessionID, fork)
	}

	last := s.API.Last(MainThread)
	var uses, results []string
	for _, b := range last.ToolUses() {
		uses = append(uses, b.ID)
	}
	for _, b := range last.ToolResults() {
		results = append(results, b.ToolUseID)
	}
	slices.Sort(uses)
	slices.Sort(results)
	if want := []string{"a1", "d2", "g1", "g2", "g3", "g4"}; !slices.Equal(uses, want) {
		t.Errorf("the resumed request calls %v, want %v (d1 pruned, nothing else lost)", uses, want)
	}
	if !slices.Equal(uses, results) {
		t.Errorf("calls %v and results %v of the resumed request do not pair", uses, results)
	}
	for id, cmd := range map[string]string{"g1": "git status", "g2": "ls"} {
		b, _ := last.ToolResult(id)
		if !strings.HasPrefix(b.Text, "[`"+cmd+"` from ") || !strings.Contains(b.Text, "turns ago expired") {
			t.Errorf("the model saw %s as %q, want the expiry note", id, b.Text)
		}
	}
	if b, _ := last.ToolResult("g3"); !strings.Contains(b.Text, "# ") {
		t.Errorf("the recent glance g3 (cat README.md) came back as %q, want the file verbatim", b.Text)
	}
	if b, _ := last.ToolResult("d2"); !b.IsError || !strings.Contains(b.Text, hookDenial("Bash")) {
		t.Errorf("the kept denial came back as (is_error %v) %q", b.IsError, b.Text)
	}
	if b, _ := last.ToolResult("a1"); !strings.Contains(b.Text, "2 files.") {
		t.Errorf("the subagent's report came back as %q", b.Text)
	}
	if strings.Contains(string(last.Raw), "rm -f junk.txt") {
		t.Errorf("the pruned call's command still reaches the model")
	}
	if len(s.API.Rejected()) > 0 {
		t.Errorf("the fake API rejected %d requests", len(s.API.Rejected()))
	}
}
