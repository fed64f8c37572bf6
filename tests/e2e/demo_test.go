package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowerhooks/flower/internal/flowersettings"
)

// demoOut is where `make demo` has TestDemo write its report.
var demoOut = flag.String("demo", "", "write the demo's report to this file")

// The demo session: a coordinator asked to find why the tests fail and fix
// it. It glances at the tree, reads a big log, runs the long test suite,
// edits the config and has a subagent review the fix. The scripted model
// behaves as a real one does under flower: when a hands-on call of the
// main thread is denied, it hands that action to a subagent.

const demoPrompt = "The nightly build is red. Find out why, fix it, and tell me what you changed."

// demoAction is one thing the main thread sets out to do.
type demoAction struct {
	id       string                  // the direct call's tool_use id; the delegation is id+"-agent"
	call     func(*Scenario) ToolUse // the direct call on the main thread
	delegate string                  // the subagent prompt used when the direct call is denied
	sub      func(*Scenario) Script  // that subagent's script
}

// Sizes of the demo's files, chosen like the design's measurements: a
// build log and a test run of tens of thousands of characters, above spill
// guard's 4,000-character threshold, below the CLI's own 30,000-character
// Bash cut so that without flower all of it reaches the model.
const (
	demoLogLines  = 400 // ~26,000 characters with the Read tool's line numbers
	demoTestCases = 300 // ~17,000 characters of test output
)

func demoWorkspace(s *Scenario) {
	var log strings.Builder
	for i := 1; i <= demoLogLines; i++ {
		fmt.Fprintf(&log, "2026-11-30T01:%02d:%02d INFO  step %03d: compiled module pkg%03d in %dms\n", i/60%60, i%60, i, i, 40+i%37)
	}
	log.WriteString("2026-11-30T01:59:59 ERROR config: timeout_ms=5 is below the minimum of 50\n")
	s.WriteFile("logs/build.log", log.String())
	s.WriteFile("config.ini", "[server]\nport = 8080\ntimeout_ms = 5\n")
	s.WriteFile("run_tests.sh", fmt.Sprintf(`#!/bin/sh
# The test suite: one line per case, then a summary.
i=1
while [ $i -le %d ]; do
  echo "=== RUN   TestCase$i (fixtures/case$i.json)"
  echo "--- PASS: TestCase$i (0.0${i}s)"
  i=$((i+1))
done
if grep -q 'timeout_ms = 5$' config.ini; then
  echo "--- FAIL: TestTimeout: timeout_ms=5 is below the minimum of 50"
  echo "FAIL"
else
  echo "PASS"
fi
`, demoTestCases))
	s.Git("add", ".")
	s.Git("commit", "-q", "-m", "nightly state")
}

func demoActions() []demoAction {
	reply := func(text string, calls ...func(*Scenario) ToolUse) func(*Scenario) Script {
		return func(s *Scenario) Script {
			var steps []Reply
			for _, c := range calls {
				steps = append(steps, Call(c(s)))
			}
			return Steps(append(steps, Say(text))...)
		}
	}
	return []demoAction{
		{id: "glance", call: func(*Scenario) ToolUse {
			return Bash("glance", `git status -s && echo "--- LOG ---" && git log --oneline -3`)
		}},
		{id: "read-log", call: func(s *Scenario) ToolUse { return Read("read-log", s.Path("logs/build.log")) }},
		{
			id:       "tests",
			call:     func(*Scenario) ToolUse { return Bash("tests", "sh run_tests.sh") },
			delegate: "Run `sh run_tests.sh`. Write the full output to .flower/artifacts/tests.log and reply with only that path and the failing tests.",
			sub: reply(".flower/artifacts/tests.log: 1 failure, TestTimeout (timeout_ms=5 is below the minimum of 50).",
				func(*Scenario) ToolUse {
					return Bash("sub-tests", "mkdir -p .flower/artifacts && sh run_tests.sh > .flower/artifacts/tests.log 2>&1; grep -- '--- FAIL' .flower/artifacts/tests.log")
				}),
		},
		{id: "read-config", call: func(s *Scenario) ToolUse { return Read("read-config", s.Path("config.ini")) }},
		{
			id: "edit",
			call: func(s *Scenario) ToolUse {
				return Edit("edit", s.Path("config.ini"), "timeout_ms = 5\n", "timeout_ms = 500\n")
			},
			delegate: "In config.ini set timeout_ms to 500. Reply with only the changed line.",
			sub: reply("config.ini: timeout_ms = 500",
				func(s *Scenario) ToolUse { return Read("sub-read", s.Path("config.ini")) },
				func(s *Scenario) ToolUse {
					return Edit("sub-edit", s.Path("config.ini"), "timeout_ms = 5\n", "timeout_ms = 500\n")
				}),
		},
		{
			id: "review",
			call: func(*Scenario) ToolUse {
				return Agent("review", "Run `sh run_tests.sh` and check that it passes now. Reply with only PASS or the failures.")
			},
			sub: reply("PASS", func(*Scenario) ToolUse { return Bash("sub-review", "sh run_tests.sh | tail -1") }),
		},
	}
}

// demoScript is the main thread: each request's reply follows from what the
// request holds, so the same script plays with and without flower.
func demoScript(s *Scenario, actions []demoAction) Script {
	return func(r *Request) Reply {
		for _, a := range actions {
			if b, ok := r.ToolResult(a.id + "-agent"); ok && !b.IsError {
				continue // delegated and reported
			}
			b, ok := r.ToolResult(a.id)
			if !ok {
				return Call(a.call(s))
			}
			if strings.Contains(b.Text, "hook error: ") && a.delegate != "" {
				return Call(Agent(a.id+"-agent", a.delegate))
			}
		}
		return Say("Fixed: config.ini had timeout_ms = 5, below the minimum of 50; it is 500 now and the suite passes.")
	}
}

// demoFollowUp is the prompt of the resumed session: by then the work is
// done, so what counts is the history the resume carries.
const demoFollowUp = "Is anything left to do?"

// demoRun is one played session and its resumption.
type demoRun struct {
	title    string
	main     []*Request // the first session's main-thread requests
	resumed  *Request   // the resumed session's request
	resumeBy string     // how it was resumed
	pruned   string     // prune-session's report, when layer four ran
	subReqs  int
	subChars int
	finalOK  bool
}

// playDemo plays the session with hooks (none when nil), then resumes it
// with demoFollowUp: through a prune-session fork when prune is set.
func playDemo(t *testing.T, title string, hooks []Hook, prune bool) demoRun {
	s := NewScenario(t)
	demoWorkspace(s)
	actions := demoActions()
	script := demoScript(s, actions)
	s.API.Main(func(r *Request) Reply {
		if r.LastUser().Text() == demoFollowUp {
			return Say("Nothing: config.ini is fixed and the suite passes.")
		}
		return script(r)
	})
	for _, a := range actions {
		switch {
		case a.delegate != "":
			s.API.Agent(a.delegate, a.sub(s))
		case a.sub != nil:
			s.API.Agent(a.call(s).Input["prompt"].(string), a.sub(s))
		}
	}
	o := Options{Prompt: demoPrompt, AllowedTools: handsOn}
	if hooks != nil {
		o.Settings = Settings(hooks...)
	}
	res := s.Run(o)
	run := demoRun{title: title, main: s.API.Thread(MainThread), resumeBy: "--resume " + res.SessionID}
	for _, r := range s.API.Requests() {
		if r.Thread != MainThread && r.Thread != SideThread {
			run.subReqs++
			run.subChars += r.ContextChars()
		}
	}
	c, _ := s.ReadFile("config.ini")
	run.finalOK = strings.Contains(c, "timeout_ms = 500\n")

	id := res.SessionID
	if prune {
		cmd := exec.Command(Bin(t, "prune-session"), id)
		cmd.Dir, cmd.Env = s.Work, s.env(Options{})
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("prune-session %s: %v\n%s", id, err, stderr.String())
		}
		id = strings.TrimSpace(string(out))
		run.resumeBy = `--resume "$(prune-session ` + res.SessionID + `)"`
		run.pruned = strings.TrimSpace(stderr.String())
	}
	o.Prompt, o.Args = demoFollowUp, []string{"--resume", id}
	s.Run(o)
	run.resumed = s.API.Last(MainThread)
	return run
}

// TestDemo plays the demo session without flower and with every layer of
// flower that has landed, and checks that flower keeps the main thread's
// context smaller while the work still gets done. `make demo` prints it.
func TestDemo(t *testing.T) {
	t.Parallel()
	needClaude(t)
	hooks, layers := LandedHooks(t, flowersettings.DefaultLayers...)
	// Layer four is no hook: prune-session forks a session for --resume.
	prune := HasCommand("prune-session")
	if prune {
		layers = append(layers, "4")
	}
	slices.Sort(layers)
	runs := make([]demoRun, 2)
	t.Run("without", func(t *testing.T) {
		t.Parallel()
		runs[0] = playDemo(t, "without flower (no hooks)", nil, false)
	})
	t.Run("with", func(t *testing.T) {
		t.Parallel()
		runs[1] = playDemo(t, "with flower (layers "+strings.Join(layers, ", ")+")", hooks, prune)
	})
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		for _, r := range runs {
			if !r.finalOK {
				t.Errorf("%s: config.ini was not fixed", r.title)
			}
		}
		without, with := runs[0].main, runs[1].main
		if got, base := with[len(with)-1].ContextChars(), without[len(without)-1].ContextChars(); got >= base {
			t.Errorf("with flower the main thread's final context is %d characters, without %d: flower saved nothing", got, base)
		}
		if got, base := runs[1].resumed.ContextChars(), runs[0].resumed.ContextChars(); got >= base {
			t.Errorf("with flower the resumed context is %d characters, without %d: flower saved nothing", got, base)
		}
		report := demoReport(runs)
		if *demoOut != "" {
			if err := os.WriteFile(*demoOut, []byte(report), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
}

// demoReport renders both runs step by step, then the totals side by side.
func demoReport(runs []demoRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "flower demo: one scripted session through the real Claude Code CLI, twice.\n")
	fmt.Fprintf(&b, "Task: %q\n", demoPrompt)
	fmt.Fprintf(&b, "Context = characters of the messages the main thread's model is sent on that turn.\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "\n== %s ==\n", r.title)
		fmt.Fprintf(&b, "turn  context  what the main thread's model received\n")
		for i, req := range r.main {
			for j, line := range received(req) {
				if j == 0 {
					fmt.Fprintf(&b, "%4d %8s  %s\n", i+1, thousands(req.ContextChars()), line)
				} else {
					fmt.Fprintf(&b, "%4s %8s  %s\n", "", "", line)
				}
			}
		}
		fmt.Fprintf(&b, "then %s\n", r.resumeBy)
		for _, line := range strings.Split(r.pruned, "\n") {
			// The first line names the transcript files: temp paths.
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "prune-session:") {
				fmt.Fprintf(&b, "%14s  prune-session: %s\n", "", line)
			}
		}
		for j, line := range received(r.resumed) {
			if j == 0 {
				fmt.Fprintf(&b, "%4s %8s  %s\n", "", thousands(r.resumed.ContextChars()), line)
			} else {
				fmt.Fprintf(&b, "%4s %8s  %s\n", "", "", line)
			}
		}
	}
	total := func(r demoRun) int {
		n := 0
		for _, req := range r.main {
			n += req.ContextChars()
		}
		return n
	}
	last := func(r demoRun) int { return r.main[len(r.main)-1].ContextChars() }
	fmt.Fprintf(&b, "\nThe first session, each way (the resumed one adds one main-thread request):\n")
	fmt.Fprintf(&b, "%-44s %12s %12s\n", "", "without", "with flower")
	rows := []struct {
		name string
		f    func(demoRun) int
	}{
		{"main thread: requests (turns)", func(r demoRun) int { return len(r.main) }},
		{"main thread: final context (chars)", last},
		{"main thread: sent over the session (chars)", total},
		{"subagents: requests", func(r demoRun) int { return r.subReqs }},
		{"subagents: sent over the session (chars)", func(r demoRun) int { return r.subChars }},
		{"main + subagents: requests", func(r demoRun) int { return len(r.main) + r.subReqs }},
		{"main + subagents: sent (chars)", func(r demoRun) int { return total(r) + r.subChars }},
		{"resumed session: context (chars)", func(r demoRun) int { return r.resumed.ContextChars() }},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "%-44s %12s %12s\n", row.name, thousands(row.f(runs[0])), thousands(row.f(runs[1])))
	}
	without, with := runs[0], runs[1]
	fmt.Fprintf(&b, "\nWith flower the main thread ends at %d%% of its context without it, and main and subagents\n"+
		"together send %d%% of the characters, in %d API requests instead of %d.\n",
		percent(last(with), last(without)), percent(total(with)+with.subChars, total(without)+without.subChars),
		len(with.main)+with.subReqs, len(without.main)+without.subReqs)
	return b.String()
}

// received describes, one line per block, what is new in a main-thread
// request: the prompt on the first turn; then everything after the model's
// last answer: the results of the calls it made, a new prompt, and the notes
// the CLI adds as system messages (hook context on resume).
func received(r *Request) []string {
	if r.Step() == 0 {
		return []string{"prompt: " + abbrev(r.FirstPrompt())}
	}
	calls := map[string]Block{}
	after := 0
	for i, m := range r.Messages {
		if m.Role == "assistant" {
			after = i + 1
		}
		for _, blk := range m.Content {
			if blk.Type == "tool_use" {
				calls[blk.ID] = blk
			}
		}
	}
	var out []string
	for _, m := range r.Messages[after:] {
		for _, blk := range m.Content {
			switch {
			case blk.Type == "tool_result":
				what := "result"
				if blk.IsError {
					what = "ERROR"
				}
				text := blk.Text
				// The CLI frames a subagent's report in ~600 characters of
				// hand-back notice; show the report.
				if _, report, ok := strings.Cut(text, handBack); ok {
					text = "[hand-back] " + strings.TrimSpace(report)
				}
				out = append(out, fmt.Sprintf("%s → %s, %s chars: %s", describeCall(calls[blk.ToolUseID]), what, thousands(blk.Chars()), abbrev(text)))
			case blk.Type == "text" && m.Role == "system":
				out = append(out, fmt.Sprintf("system note, %s chars: %s", thousands(blk.Chars()), abbrev(blk.Text)))
			case blk.Type == "text":
				out = append(out, "prompt: "+abbrev(blk.Text))
			}
		}
	}
	return out
}

// handBack ends the CLI's framing of a subagent's report (2.1.328).
const handBack = "The report follows:\n"

// describeCall names a tool call in a few words: the tool and its main input.
func describeCall(c Block) string {
	var in map[string]any
	_ = json.Unmarshal(c.Input, &in)
	arg := ""
	for _, k := range []string{"command", "file_path", "prompt"} {
		if v, ok := in[k].(string); ok {
			arg = v
			break
		}
	}
	if c.Name == "Read" || c.Name == "Edit" {
		arg = shortPath(arg)
	}
	return c.Name + " " + abbrevN(arg, 40)
}

func shortPath(p string) string {
	if i := strings.Index(p, "/work/"); i >= 0 {
		return p[i+len("/work/"):]
	}
	return p
}

// abbrevLen is how much of a received text the report shows.
const abbrevLen = 60

func abbrev(s string) string { return abbrevN(s, abbrevLen) }

func abbrevN(s string, n int) string {
	s = strings.NewReplacer("\n", "⏎", "\t", " ").Replace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// percent is a of b, rounded.
func percent(a, b int) int { return (200*a + b) / (2 * b) }

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
