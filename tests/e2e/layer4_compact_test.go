package e2e

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/tests/support"
)

// Layer four on compacted sessions: a resume loads the conversation from
// the last compaction on (and the messages that compaction kept), so what
// prune-session reports and changes is about that part alone. These
// scenarios resume a fork and its original in the real CLI and hold the
// report to the first request each resume sent.

// compactRequest marks the request of a compaction's summarising run: the
// CLI's own prompt.
const compactRequest = "Your task is to create a detailed summary of the conversation so far"

// byPrompt scripts a main thread run by run: each run's replies in order,
// found by the newest user message that is one of the prompts, counting
// the assistant messages after it. (Steps counts every assistant message of
// a request, which a compaction and a pruned fork change.) A compaction's
// summarising request gets a short summary.
func byPrompt(runs map[string][]Reply) Script {
	return func(r *Request) Reply {
		if strings.Contains(r.LastUser().Text(), compactRequest) {
			return Say("<summary>The user asked to look around; the assistant ran glances.</summary>")
		}
		for i := len(r.Messages) - 1; i >= 0; i-- {
			replies, ok := runs[lastText(r.Messages[i])]
			if r.Messages[i].Role != "user" || !ok {
				continue
			}
			n := 0
			for _, m := range r.Messages[i+1:] {
				if m.Role == "assistant" {
					n++
				}
			}
			if n < len(replies) {
				return replies[n]
			}
			return Reply{Text: "(script exhausted)", exhausted: "a step past the run's replies"}
		}
		return Reply{Text: "(no run)", exhausted: "a request of no scripted run"}
	}
}

// lastText is the last text block of m: a prompt, after the reminders the
// CLI puts before it.
func lastText(m Message) string {
	for i := len(m.Content) - 1; i >= 0; i-- {
		if m.Content[i].Type == "text" {
			return m.Content[i].Text
		}
	}
	return ""
}

// addSummaryPrompt routes the requests of a compacted session, whose first
// user message is the last compaction's summary, to the main thread.
func addSummaryPrompt(t *testing.T, a *API, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	summary := ""
	for _, l := range strings.Split(string(b), "\n") {
		if gjson.Get(l, "isCompactSummary").Bool() {
			c := gjson.Get(l, "message.content")
			summary = c.Str
			if arr := c.Array(); c.IsArray() && len(arr) > 0 {
				summary = arr[len(arr)-1].Get("text").Str
			}
		}
	}
	if summary == "" {
		t.Fatalf("%s holds no compaction summary", path)
	}
	a.AddMainPrompt(summary)
}

// pruneReport is what prune-session's report says of what a resume sends.
type pruneReport struct {
	before, after, turns, compactions, turnsBefore int
	text                                           string
}

var (
	charsLine     = regexp.MustCompile(`(?m)^  chars +(\d+) -> (\d+) .* in the (\d+) turns? a resume sends$`)
	compactedLine = regexp.MustCompile(`(?m)^  compacted (\d+) times?: (\d+) turns? before the last one, left as they are`)
)

// prune runs prune-session on session with args and returns the id it
// printed and its report.
func prune(t *testing.T, s *Scenario, session string, args ...string) (string, pruneReport) {
	t.Helper()
	cmd := exec.Command(Bin(t, "prune-session"), append(args, session)...)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.ConfigDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("prune-session: %v\n%s", err, stderr.String())
	}
	rep := pruneReport{text: stderr.String()}
	m := charsLine.FindStringSubmatch(rep.text)
	if m == nil {
		t.Fatalf("no chars line in the report:\n%s", rep.text)
	}
	rep.before, _ = strconv.Atoi(m[1])
	rep.after, _ = strconv.Atoi(m[2])
	rep.turns, _ = strconv.Atoi(m[3])
	if m := compactedLine.FindStringSubmatch(rep.text); m != nil {
		rep.compactions, _ = strconv.Atoi(m[1])
		rep.turnsBefore, _ = strconv.Atoi(m[2])
	}
	return strings.TrimSpace(stdout.String()), rep
}

// noResponse is the assistant message the CLI puts in on resume after a
// conversation that ends with a user message, so that the new prompt does
// not follow one.
const noResponse = "No response requested."

// sentChars is what prune-session's chars figure measures, read from a
// resumed request: the bodies of the conversation's messages (text, a
// tool_use's input JSON, a tool_result's text) without what the CLI adds
// on resume: its system reminders, messages of role system, noResponse,
// and the new prompt, the request's last user message. turns counts the
// assistant messages.
func sentChars(r *Request) (chars, turns int) {
	last := len(r.Messages) - 1
	for i, m := range r.Messages {
		if m.Role != "user" && m.Role != "assistant" || i == last || m.Role == "assistant" && m.Text() == noResponse {
			continue
		}
		if m.Role == "assistant" {
			turns++
		}
		for _, b := range m.Content {
			switch {
			case b.Type == "tool_use":
				chars += utf8.RuneCount(b.Input)
			case b.Type == "text" && strings.HasPrefix(b.Text, "<system-reminder>"):
			case b.Type == "text" || b.Type == "tool_result":
				chars += utf8.RuneCountInString(b.Text)
			}
		}
	}
	return chars, turns
}

// rendering bounds how far the CLI's rendering of a resumed conversation
// may stray from the transcript's characters: it trims the trailing blank
// lines of assistant text and ends a local command's output with a newline
// (seen with 2.1.328: 3 characters in 2,489, 6 in 114,880).
const rendering = 0.001

// checkSent holds a report to the first requests that resuming the
// original and the fork sent: the change exactly (what the CLI re-renders
// is the same on both sides), each figure within rendering, the turns
// exactly.
func checkSent(t *testing.T, rep pruneReport, orig, fork *Request) {
	t.Helper()
	origChars, origTurns := sentChars(orig)
	forkChars, _ := sentChars(fork)
	if got, want := origChars-forkChars, rep.before-rep.after; got != want {
		t.Errorf("the fork's resume sent %d characters fewer than the original's, the report says %d\n%s", got, want, rep.text)
	}
	for _, c := range []struct {
		name      string
		sent, rep int
	}{{"original", origChars, rep.before}, {"fork", forkChars, rep.after}} {
		if math.Abs(float64(c.sent-c.rep)) > rendering*float64(c.rep)+1 {
			t.Errorf("resuming the %s sent %d characters, the report says %d\n%s", c.name, c.sent, c.rep, rep.text)
		}
	}
	if origTurns != rep.turns {
		t.Errorf("resuming the original sent %d turns, the report says %d\n%s", origTurns, rep.turns, rep.text)
	}
}

// checkRedLine fails t if the transcript at path breaks the red line
// (support.Verify).
func checkRedLine(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if problems := support.Verify(f); len(problems) > 0 {
		t.Errorf("%s breaks the red line: %v", path, problems)
	}
}

// ids is the sorted ids of blocks.
func ids(blocks []Block, result bool) []string {
	var out []string
	for _, b := range blocks {
		if result {
			out = append(out, b.ToolUseID)
		} else {
			out = append(out, b.ID)
		}
	}
	slices.Sort(out)
	return out
}

// TestLayer4CompactedResume records a session in the real CLI with layer
// one on: glances and a hook denial, a /compact (which keeps the last
// message), then more glances and two denials. prune-session --keep-recent
// 1 prunes only what follows the compaction and says so; the fork and the
// original, resumed, send the same conversation but for what the report
// counts, character for character.
func TestLayer4CompactedResume(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.API.Main(byPrompt(map[string][]Reply{
		"look around": {Call(Bash("g1", "git status"), Bash("g2", "ls")), Call(Bash("d1", "rm -f junk.txt")), Call(Bash("g3", "cat README.md")), Say("looked")},
		"more":        {Call(Bash("g4", "git status -s")), Call(Bash("d2", "rm -f other.txt")), Call(Bash("g5", "ls -a")), Call(Bash("d3", "make build")), Say("more done")},
		"go on":       {Say("resumed")},
	}))
	settings := Settings(LayerHooks(t, "1")...)
	first := s.Run(Options{Prompt: "look around", Settings: settings, AllowedTools: handsOn})
	s.Run(Options{Prompt: "/compact", Settings: settings, AllowedTools: handsOn, Args: []string{"--resume", first.SessionID}})
	src := s.Transcript(first.SessionID)
	addSummaryPrompt(t, s.API, src)
	s.Run(Options{Prompt: "more", Settings: settings, AllowedTools: handsOn, Args: []string{"--resume", first.SessionID}})
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}

	fork, rep := prune(t, s, first.SessionID, "--keep-recent", "1")
	t.Logf("prune-session report:\n%s", rep.text)
	for _, want := range []string{"expired   1 glance result of 2", "removed   1 denied call of 2"} {
		if !strings.Contains(rep.text, want) {
			t.Errorf("the report does not say %q (only what follows the compaction counts):\n%s", want, rep.text)
		}
	}
	// Before the compaction: g1 and g2, d1, g3, and "looked", which the
	// compaction kept and a resume sends.
	if rep.compactions != 1 || rep.turnsBefore != 4 || !strings.Contains(rep.text, "a resume sends the 1 it kept") {
		t.Errorf("the report does not say 1 compaction after 4 turns, 1 of them kept:\n%s", rep.text)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(after, orig) {
		t.Errorf("prune-session changed the original transcript")
	}
	checkRedLine(t, s.Transcript(fork))

	n := len(s.API.Requests())
	s.Run(Options{Prompt: "go on", Settings: settings, AllowedTools: handsOn, Args: []string{"--resume", first.SessionID}})
	origReq := s.API.Requests()[n]
	n = len(s.API.Requests())
	second := s.Run(Options{Prompt: "go on", Settings: settings, AllowedTools: handsOn, Args: []string{"--resume", fork}})
	forkReq := s.API.Requests()[n]
	if second.Result != "resumed" || second.SessionID != fork {
		t.Errorf("the resumed fork answered %q in session %s, want \"resumed\" in %s", second.Result, second.SessionID, fork)
	}
	checkSent(t, rep, origReq, forkReq)

	// What precedes the compaction is sent by neither; what follows it is
	// the same but for the expired g4 and the removed d2.
	for _, r := range []*Request{origReq, forkReq} {
		if raw := string(r.Raw); strings.Contains(raw, "rm -f junk.txt") || strings.Contains(raw, `"g1"`) {
			t.Errorf("a resume sent what precedes the compaction")
		}
		if uses, results := ids(r.ToolUses(), false), ids(r.ToolResults(), true); !slices.Equal(uses, results) {
			t.Errorf("calls %v and results %v of a resumed request do not pair", uses, results)
		}
	}
	if got, want := ids(forkReq.ToolUses(), false), []string{"d3", "g4", "g5"}; !slices.Equal(got, want) {
		t.Errorf("the resumed fork calls %v, want %v (d2 pruned)", got, want)
	}
	if b, _ := forkReq.ToolResult("g4"); !strings.HasPrefix(b.Text, "[`git status -s` from ") {
		t.Errorf("the fork sent g4 as %q, want the expiry note", b.Text)
	}
	for _, id := range []string{"g5", "d3"} {
		o, _ := origReq.ToolResult(id)
		f, _ := forkReq.ToolResult(id)
		if o.Text != f.Text || o.IsError != f.IsError {
			t.Errorf("%s came back as %q in the fork, %q in the original", id, f.Text, o.Text)
		}
	}
	if len(s.API.Rejected()) > 0 {
		t.Errorf("the fake API rejected %d requests", len(s.API.Rejected()))
	}
}

// sharedTranscripts is ../shared/transcripts seen from this package.
const sharedTranscripts = "../../../shared/transcripts"

// TestLayer4RealTranscriptsResume forks real sessions of other CLI
// versions, compacted or not, some already broken by the tools that
// copied them (../shared/transcripts), and resumes fork and original in
// the pinned CLI: no request refused, the fork sends the session's id
// nowhere, and the report holds to what each resume sent.
func TestLayer4RealTranscriptsResume(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{
		"entire-cli/b00b80af-879f-4265-b95b-48db0938673c.jsonl", // 2.1.5: two compactions, no final newline
		"spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",    // 2.1.39: a compaction, subagents
		"entire-sem/0f469ab8-bece-40b3-b3b8-c37e9ea7bc4b.jsonl", // 2.1.218: session_id beside sessionId
		"cctrace/132b2f66-ee5f-46f6-8904-32d9dc4d36c3.jsonl",    // 2.0.76
	} {
		t.Run(filepath.Dir(rel), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(sharedTranscripts, rel)
			b, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				t.Skipf("no %s: the shared transcripts are not here", path)
			}
			if err != nil {
				t.Fatal(err)
			}
			s := NewScenario(t)
			id := transcript.SessionID(path)
			if err := os.MkdirAll(s.ProjectDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.Transcript(id), b, 0o600); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(`"isCompactSummary":true`)) {
				addSummaryPrompt(t, s.API, s.Transcript(id))
			} else {
				s.API.AddMainPrompt(firstPrompt(t, b))
			}
			s.API.Main(func(*Request) Reply { return Say("resumed") })

			fork, rep := prune(t, s, id, "--keep-recent", "0")
			t.Logf("prune-session report:\n%s", rep.text)
			if fork == id {
				t.Fatalf("nothing pruned: the case tests nothing\n%s", rep.text)
			}
			if after, _ := os.ReadFile(s.Transcript(id)); !bytes.Equal(after, b) {
				t.Errorf("prune-session changed the original transcript")
			}
			forked, err := os.ReadFile(s.Transcript(fork))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(forked, []byte(`"`+id+`"`)) {
				t.Errorf("the fork still names the original's id as a value")
			}
			if bytes.HasSuffix(b, []byte("\n")) != bytes.HasSuffix(forked, []byte("\n")) {
				t.Errorf("the fork ends in a newline: %v, the original: %v", bytes.HasSuffix(forked, []byte("\n")), bytes.HasSuffix(b, []byte("\n")))
			}

			n := len(s.API.Requests())
			s.Run(Options{Prompt: "go on", AllowedTools: handsOn, Args: []string{"--resume", id}})
			origReq := s.API.Requests()[n]
			n = len(s.API.Requests())
			s.Run(Options{Prompt: "go on", AllowedTools: handsOn, Args: []string{"--resume", fork}})
			forkReq := s.API.Requests()[n]
			checkSent(t, rep, origReq, forkReq)
			if len(s.API.Rejected()) > 0 {
				t.Errorf("the fake API rejected %d requests", len(s.API.Rejected()))
			}
		})
	}
}

// firstPrompt is the text of the first user entry of a transcript without
// a compaction: what the first user message of a resume ends with.
func firstPrompt(t *testing.T, b []byte) string {
	t.Helper()
	for _, l := range bytes.Split(b, []byte("\n")) {
		e := gjson.ParseBytes(l)
		if e.Get("type").Str != "user" || e.Get("isSidechain").Bool() {
			continue
		}
		c := e.Get("message.content")
		if c.Type == gjson.String {
			return c.Str
		}
		var text string
		for _, blk := range c.Array() {
			if blk.Get("type").Str == "text" {
				text = blk.Get("text").Str
			}
		}
		if text != "" {
			return text
		}
	}
	t.Fatal("no first prompt")
	return ""
}
