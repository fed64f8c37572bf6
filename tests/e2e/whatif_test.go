package e2e

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/contextaudit"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// context-audit --what-if, checked where the truth is known: each session
// below is played twice through the real CLI, without flower and with
// layers 1 to 3, by a scripted model that behaves as a real one does under
// flower (a denied hands-on call is handed to a subagent, with the rest of
// the work it was part of). The estimate made from the session without
// flower must come within whatIfTolerance of the context the session with
// flower really reached.

// whatIfTolerance is the largest error allowed for the estimate of the main
// thread's final context (the 15%).
const whatIfTolerance = 0.15

// recordWhatIf is where TestWhatIf copies the sessions it plays, sanitized,
// for the golden tests of --what-if:
//
//	go test ./tests/e2e -run '^TestWhatIf$' -count=1 \
//	    -args -record-whatif=$PWD/tests/testdata/context-audit-whatif
var recordWhatIf = flag.String("record-whatif", "", "copy the sessions TestWhatIf plays, sanitized, into this folder")

// wiAction is one thing the main thread sets out to do: one call per turn,
// or, when the first is denied, one subagent that does them all.
type wiAction struct {
	id       string
	calls    []func(*Scenario) ToolUse
	delegate string                 // the brief, when the first call is denied
	sub      func(*Scenario) Script // the subagent's script
}

// wiSession is a session to play both ways: its prompts, each with the
// actions it leads to and the answer that ends it.
type wiSession struct {
	name      string
	workspace func(*Scenario)
	prompts   []wiPrompt
}

type wiPrompt struct {
	text    string
	actions []wiAction
	answer  string
}

// script is the main thread: each reply follows from what the request
// holds, so the same script plays with flower and without.
func (ws wiSession) script(s *Scenario) Script {
	return func(r *Request) Reply {
		for _, p := range ws.prompts {
			for _, a := range p.actions {
				if b, ok := r.ToolResult(a.id + "-agent"); ok && !b.IsError {
					continue // delegated and reported
				}
				for _, c := range a.calls {
					call := c(s)
					b, ok := r.ToolResult(call.ID)
					if !ok {
						return Call(call)
					}
					if strings.Contains(b.Text, "hook error: ") && a.delegate != "" {
						return Call(Agent(a.id+"-agent", a.delegate))
					}
				}
			}
			// Each prompt's answer ends its turn; the next prompt's
			// actions start when it arrives.
			if !r.answered(p.answer) {
				return Say(p.answer)
			}
		}
		return Say("Nothing more to do.")
	}
}

// answered reports whether the model already gave answer in r.
func (r *Request) answered(answer string) bool {
	for _, m := range r.Messages {
		if m.Role == "assistant" && strings.Contains(m.Text(), answer) {
			return true
		}
	}
	return false
}

// play runs the session with hooks (none when nil) and returns its scenario
// and the path of its main transcript.
func (ws wiSession) play(t *testing.T, hooks []Hook) (*Scenario, string) {
	s := NewScenario(t)
	ws.workspace(s)
	s.API.Main(ws.script(s))
	for _, p := range ws.prompts {
		for _, a := range p.actions {
			switch {
			case a.delegate != "":
				s.API.Agent(a.delegate, a.sub(s))
			case a.sub != nil: // an Agent call of its own
				s.API.Agent(a.calls[0](s).Input["prompt"].(string), a.sub(s))
			}
		}
	}
	var texts []string
	for _, p := range ws.prompts {
		texts = append(texts, p.text)
	}
	s.Turns(Options{Settings: Settings(hooks...), AllowedTools: handsOn}, texts, nil)
	found, _ := filepath.Glob(filepath.Join(s.ProjectDir(), "*.jsonl"))
	if len(found) != 1 {
		t.Fatalf("want one session transcript, found %v", found)
	}
	return s, found[0]
}

// auditJSON runs context-audit --json with args and returns its first line.
func auditJSON(t *testing.T, args ...string) gjson.Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := contextaudit.Main(append([]string{"--json"}, args...), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("context-audit %v: exit %d: %s", args, code, stderr.String())
	}
	line, _, _ := strings.Cut(stdout.String(), "\n")
	return gjson.Parse(line)
}

// TestWhatIf plays each session without flower and with layers 1 to 3,
// estimates the session with flower from the one without, and compares.
func TestWhatIf(t *testing.T) {
	t.Parallel()
	needClaude(t)
	for _, ws := range []wiSession{demoWhatIf(), featureWhatIf(), logsWhatIf()} {
		t.Run(ws.name, func(t *testing.T) {
			t.Parallel()
			sWithout, without := ws.play(t, nil)
			sWith, with := ws.play(t, LayerHooks(t, "1", "2", "3"))
			if *recordWhatIf != "" {
				for _, rec := range []struct {
					s    *Scenario
					path string
					way  string
				}{{sWithout, without, "without"}, {sWith, with, "with"}} {
					dir := filepath.Join(*recordWhatIf, ws.name, rec.way)
					saveRecording(t, rec.s, transcript.SessionID(rec.path), dir)
					slimRecording(t, dir)
				}
			}
			est := auditJSON(t, "--what-if", without).Get("what_if")
			truth := auditJSON(t, "--what-if", with)
			measured := truth.Get("context.last").Int()
			estimated := est.Get("estimated.context_last").Int()
			if measured == 0 || estimated == 0 {
				t.Fatalf("no context: measured %d, estimated %d", measured, estimated)
			}
			e := float64(estimated-measured) / float64(measured)
			t.Logf("%s: final context without flower %d tokens; with flower measured %d, estimated %d (%+.1f%%); "+
				"main chars without %d, with %d, estimated %d; turns without %d, with %d, estimated %d; "+
				"layer four: estimated %d denials removed, %d glances expired",
				ws.name, est.Get("observed.context_last").Int(), measured, estimated, 100*e,
				est.Get("observed.chars").Int(), truth.Get("main.chars").Int(), est.Get("estimated.chars").Int(),
				est.Get("observed.turns").Int(), truth.Get("main.turns").Int(), est.Get("estimated.turns").Int(),
				est.Get("layer_four.removed").Int(), est.Get("layer_four.expired").Int())
			// The estimate assumes what a delegation costs (the session
			// without flower has none of its own, or one); priced as the
			// session with flower's delegations really cost, what is left
			// is the error of the rules.
			own := truth.Get("what_if.assumed.delegation").Int()
			priced := auditJSON(t, "--what-if", "--delegation-chars", fmt.Sprint(own), without).Get("what_if.estimated.context_last").Int()
			t.Logf("%s: with a delegation priced at %d characters, as the session with flower's cost, estimated %d (%+.1f%%)",
				ws.name, own, priced, 100*float64(priced-measured)/float64(measured))
			if math.Abs(e) > whatIfTolerance {
				t.Errorf("the estimate of the final context is %d tokens, the session with flower reached %d: %+.1f%%, beyond ±%.0f%%",
					estimated, measured, 100*e, 100*whatIfTolerance)
			}
			// Layer four: what prune-session really does to the session
			// with flower, against what the estimate says it would.
			out, err := exec.Command(Bin(t, "prune-session"), "--dry-run", with).CombinedOutput()
			if err != nil {
				t.Fatalf("prune-session --dry-run: %v\n%s", err, out)
			}
			for _, rule := range []struct{ word, key string }{{"expired", "expired"}, {"removed", "removed"}} {
				m := regexp.MustCompile(`(?m)^\s*` + rule.word + `\s+(\d+) `).FindSubmatch(out)
				if m == nil {
					t.Fatalf("no %q line in prune-session's report:\n%s", rule.word, out)
				}
				if got, want := est.Get("layer_four."+rule.key).Int(), string(m[1]); fmt.Sprint(got) != want {
					t.Errorf("layer four: the estimate says %d %s, prune-session %s on the session with flower", got, rule.word, want)
				}
			}
			// With flower in place there is next to nothing left to
			// estimate: no run to delegate, nothing over the threshold.
			if w := truth.Get("what_if"); w.Get("layer_one.runs").Int() != 0 || w.Get("layer_three.results").Int() != 0 {
				t.Errorf("the session with flower still has work for layers one and three: %s", w.Raw)
			}
		})
	}
}

// slimRecording drops from the transcripts under dir the lines
// context-audit does not read and that make up most of their size: Claude
// Code's copies of what it sent (api-request*), and attachments but the
// hooks' (the environment, the skills and tools listed on every turn).
func slimRecording(t *testing.T, dir string) {
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var kept []string
		for _, line := range strings.SplitAfter(string(data), "\n") {
			typ := gjson.Get(line, "type").Str
			if strings.HasPrefix(typ, "api-request") ||
				typ == "attachment" && !strings.HasPrefix(gjson.Get(line, "attachment.type").Str, "hook_") {
				continue
			}
			kept = append(kept, line)
		}
		return os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// demoWhatIf is the demo's session (demo_test.go).
func demoWhatIf() wiSession {
	var actions []wiAction
	for _, a := range demoActions() {
		actions = append(actions, wiAction{id: a.id, calls: []func(*Scenario) ToolUse{a.call}, delegate: a.delegate, sub: a.sub})
	}
	return wiSession{name: "demo", workspace: demoWorkspace, prompts: []wiPrompt{{
		text: demoPrompt, actions: actions,
		answer: "Fixed: config.ini had timeout_ms = 5, below the minimum of 50; it is 500 now and the suite passes.",
	}}}
}

// featureWhatIf: a feature written and tested in four hands-on turns in a
// row (one delegation with flower), a long spec read on the main thread
// (spilled), glances, and a commit.
func featureWhatIf() wiSession {
	const (
		specLines = 160 // ~12,000 characters with the Read tool's line numbers
		testCases = 150 // ~7,000 characters of test output
		featureV1 = "#!/bin/sh\n# greet prints a greeting for its argument.\ngreet() { echo \"hi $1\"; }\ngreet \"$@\"\n"
	)
	calls := func(tests string) []func(*Scenario) ToolUse {
		return []func(*Scenario) ToolUse{
			func(s *Scenario) ToolUse { return Write("f-write", s.Path("src/feature.sh"), featureV1) },
			func(*Scenario) ToolUse { return Bash("f-test1", tests) },
			func(s *Scenario) ToolUse {
				return Edit("f-edit", s.Path("src/feature.sh"), `echo "hi $1"`, `echo "hello, $1"`)
			},
			func(*Scenario) ToolUse { return Bash("f-test2", tests) },
		}
	}
	sub := func(s *Scenario) Script {
		var steps []Reply
		for _, c := range calls("mkdir -p .flower/artifacts && sh tests/run.sh > .flower/artifacts/tests.log 2>&1; tail -n 1 .flower/artifacts/tests.log") {
			steps = append(steps, Call(c(s)))
		}
		return Steps(append(steps, Say(".flower/artifacts/tests.log: PASS, 151 cases (src/feature.sh greets with \"hello, NAME\")."))...)
	}
	const commit = "git add -A && git commit -qm 'Add greet' && git log --oneline -1"
	return wiSession{
		name: "feature",
		workspace: func(s *Scenario) {
			var spec strings.Builder
			spec.WriteString("# Greeter spec\n")
			for i := 1; i <= specLines; i++ {
				fmt.Fprintf(&spec, "%d.%d The greeter answers every name it is given with one line, and logs nothing else.\n", i/40+1, i)
			}
			s.WriteFile("docs/spec.md", spec.String())
			s.WriteFile("src/app.sh", "#!/bin/sh\n. src/feature.sh\n")
			s.WriteFile("tests/run.sh", fmt.Sprintf(`#!/bin/sh
i=1
while [ $i -le %d ]; do
  echo "ok $i - greeter case $i (fixtures/names-$i.txt)"
  i=$((i+1))
done
if grep -q 'hello, ' src/feature.sh; then echo "ok %d - greeting wording"; echo PASS; else echo "not ok %d - greeting wording: want \"hello, NAME\""; echo FAIL; fi
`, testCases, testCases+1, testCases+1))
			s.Git("add", ".")
			s.Git("commit", "-q", "-m", "greeter skeleton")
		},
		prompts: []wiPrompt{{
			text: "Implement the greeter as docs/spec.md says, make tests/run.sh pass, and commit it.",
			actions: []wiAction{
				{id: "f-look", calls: []func(*Scenario) ToolUse{func(*Scenario) ToolUse { return Bash("f-look", "ls src tests docs && git log --oneline -3") }}},
				{id: "f-spec", calls: []func(*Scenario) ToolUse{func(s *Scenario) ToolUse { return Read("f-spec", s.Path("docs/spec.md")) }}},
				{id: "f-impl", calls: calls("sh tests/run.sh"), sub: sub,
					delegate: "Write src/feature.sh: a greet function per docs/spec.md, greeting with \"hello, NAME\". Run sh tests/run.sh until it passes; " +
						"write its output to .flower/artifacts/tests.log and reply with that path and the result."},
				{id: "f-status", calls: []func(*Scenario) ToolUse{func(*Scenario) ToolUse { return Bash("f-status", "git status -s") }}},
				{id: "f-commit", calls: []func(*Scenario) ToolUse{func(*Scenario) ToolUse { return Bash("f-commit", commit) }},
					delegate: "Commit every change with the message 'Add greet'. Reply with the new commit's hash and subject only.",
					sub: func(*Scenario) Script {
						return Steps(Call(Bash("f-sub-commit", commit)), Say("Committed: Add greet."))
					}},
			},
			answer: "Done: src/feature.sh greets with \"hello, NAME\", tests/run.sh passes, committed as 'Add greet'.",
		}},
	}
}

// logsWhatIf: two prompts of investigation, most of it glances (one of
// them long, spilled; seven in all, so that a pruned resume expires one),
// a long data file read, and three small hands-on steps delegated.
func logsWhatIf() wiSession {
	glance := func(id, cmd string) wiAction {
		return wiAction{id: id, calls: []func(*Scenario) ToolUse{func(*Scenario) ToolUse { return Bash(id, cmd) }}}
	}
	one := func(id string, call func(*Scenario) ToolUse, brief, report string) wiAction {
		return wiAction{id: id, calls: []func(*Scenario) ToolUse{call}, delegate: brief,
			sub: func(s *Scenario) Script {
				c := call(s)
				c.ID = "sub-" + c.ID
				return Steps(Call(c), Say(report))
			}}
	}
	const (
		count  = "awk -F, 'NR>1 {print $4}' data/orders.csv | sort | uniq -c | sort -rn"
		note   = "# Import of 2026-11-30\n\nThe nightly import stopped at order 1088: 17 orders are 'stuck' (logs/app-1.log, the ERROR lines).\n"
		append = "printf '\\n## app-2, app-3\\nNo errors.\\n' >> notes/import.md"
	)
	return wiSession{
		name: "logs",
		workspace: func(s *Scenario) {
			for n, lines := range map[int]int{1: 110, 2: 80, 3: 40} {
				var b strings.Builder
				for i := 1; i <= lines; i++ {
					level, msg := "INFO ", fmt.Sprintf("imported order %d from batch %d", 1000+i, i/25)
					if n == 1 && i%20 == 0 {
						level, msg = "ERROR", fmt.Sprintf("order %d stuck: status 'stuck' is not importable", 1000+i)
					}
					fmt.Fprintf(&b, "2026-11-30T02:%02d:%02d %s %s\n", i/60, i%60, level, msg)
				}
				s.WriteFile(fmt.Sprintf("logs/app-%d.log", n), b.String())
			}
			var csv strings.Builder
			csv.WriteString("id,customer,amount,status\n")
			for i := 1; i <= 220; i++ {
				status := "imported"
				if i%13 == 0 {
					status = "stuck"
				}
				fmt.Fprintf(&csv, "%d,customer-%03d,%d.%02d,%s\n", 1000+i, i%97, 10+i%90, i%100, status)
			}
			s.WriteFile("data/orders.csv", csv.String())
			s.WriteFile("notes/README.md", "Notes of the investigations.\n")
			s.Git("add", ".")
			s.Git("commit", "-q", "-m", "nightly data")
		},
		prompts: []wiPrompt{
			{
				text: "Why did last night's import fail? Look at the logs and the orders.",
				actions: []wiAction{
					glance("l-ls", "ls -l logs data"),
					glance("l-cat1", "cat logs/app-1.log"),
					glance("l-grep", "grep -n ERROR logs/app-1.log"),
					one("l-count", func(*Scenario) ToolUse { return Bash("l-count", count) },
						"Count the orders in data/orders.csv by status (4th column). Reply with the counts only.", "203 imported, 17 stuck."),
					{id: "l-csv", calls: []func(*Scenario) ToolUse{func(s *Scenario) ToolUse { return Read("l-csv", s.Path("data/orders.csv")) }}},
					one("l-note", func(s *Scenario) ToolUse { return Write("l-note", s.Path("notes/import.md"), note) },
						"Write notes/import.md: the nightly import of 2026-11-30 stopped at order 1088 because 17 orders have status 'stuck' (logs/app-1.log, ERROR lines). Reply with the path only.",
						"notes/import.md"),
				},
				answer: "The import failed on 17 orders with status 'stuck'; details in notes/import.md.",
			},
			{
				text: "Check the other two logs as well.",
				actions: []wiAction{
					glance("l-cat2", "cat logs/app-2.log"),
					glance("l-cat3", "cat logs/app-3.log"),
					glance("l-wc", "wc -l logs/*.log"),
					glance("l-status", "git status -s"),
					one("l-append", func(*Scenario) ToolUse { return Bash("l-append", append) },
						"Append to notes/import.md a section '## app-2, app-3' saying they show no errors. Reply with the path only.", "notes/import.md"),
				},
				answer: "app-2 and app-3 show no errors; notes/import.md says so.",
			},
		},
	}
}

// TestWhatIfDelegationCost measures what a delegation costs the main thread
// in the real CLI, beyond its brief and its report: the Agent call's other
// input and the hand-back's frame (contextaudit's delegationFrame, which
// --what-if prices delegations with). And the prefix the CLI puts before a
// SessionStart hook's context, which --what-if adds to index-guard's block.
func TestWhatIfDelegationCost(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	briefs := []struct{ brief, report string }{
		{"Run `sh run.sh` and reply with the failing cases only.", "none"},
		{"List the three largest files under src/ with their sizes. Write the full listing to .flower/artifacts/sizes.txt and reply with that path and the three names.",
			".flower/artifacts/sizes.txt: src/a.go (12 KB), src/b.go (9 KB), src/c.go (4 KB)."},
	}
	var steps []Reply
	for i, b := range briefs {
		steps = append(steps, Call(Agent(fmt.Sprintf("d%d", i), b.brief)))
		s.API.Agent(b.brief, Steps(Say(b.report)))
	}
	s.API.Main(Steps(append(steps, Say("done"))...))
	res := s.Run(Options{Prompt: "delegate twice", Settings: Settings(LayerHooks(t, "2")...), AllowedTools: handsOn})

	calls := map[string]int{}
	results := map[string]int{}
	f, err := os.Open(s.Transcript(res.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = transcript.Scan(f, func(_ int, e *transcript.Entry, err error) error {
		if err != nil {
			return err
		}
		// The entry's strings are views of a buffer the next line reuses.
		for _, b := range e.ToolUses() {
			calls[strings.Clone(b.ID)] = b.Chars
		}
		for _, b := range e.ToolResults() {
			results[strings.Clone(b.ToolUseID)] = b.Chars
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range briefs {
		id := fmt.Sprintf("d%d", i)
		// The description is the model's: Agent's schema asks for 3 to 5
		// words, the fake writes "e2e <id>".
		brief, report, desc := utf8.RuneCountInString(b.brief), utf8.RuneCountInString(b.report), len("e2e "+id)
		frame := calls[id] + results[id] - brief - report - desc
		want := contextaudit.DelegationFrame - contextaudit.DescriptionChars
		t.Logf("delegation %s: call %d + hand-back %d characters, brief %d, report %d, description %d: frame %d (--what-if assumes %d and a description of %d)",
			id, calls[id], results[id], brief, report, desc, frame, want, contextaudit.DescriptionChars)
		// The hand-back's usage line carries the subagent's tokens and
		// its duration, whose digits vary.
		if d := frame - want; d < -3 || d > 3 {
			t.Errorf("delegation %s costs the main thread %d characters beyond its brief, report and description; --what-if assumes %d", id, frame, want)
		}
	}
	first := allText(s.API.Thread(MainThread)[0])
	if !strings.Contains(first, contextaudit.SessionStartPrefix+"Workbench: ") {
		t.Errorf("the first request does not show index-guard's block after %q:\n%.600s", contextaudit.SessionStartPrefix, first)
	}
}

// TestWhatIfAgentPrompt: the sentences of Claude Code's agent prompt that
// context-audit counts a brief as restating are still what the pinned CLI
// gives a general-purpose subagent.
func TestWhatIfAgentPrompt(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const brief = "Reply with OK."
	s.API.Main(Steps(Call(Agent("a", brief)), Say("done")))
	s.API.Agent(brief, Steps(Say("OK")))
	s.Run(Options{Prompt: "delegate", AllowedTools: handsOn})
	sub := s.API.Thread(brief)
	if len(sub) == 0 {
		t.Fatal("the subagent sent no request")
	}
	for _, sentence := range contextaudit.AgentPrompt {
		if !strings.Contains(sub[0].System, sentence) {
			t.Errorf("the subagent's system prompt no longer says %q", sentence)
		}
	}
}
