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
// layers 1 to 3, by a scripted model that behaves as a coordinator does
// under flower: denied a hands-on call once, it hands the piece of work to
// a subagent, and from then on delegates such work without trying it. The
// estimate made from the session without flower must come within
// whatIfTolerance of the context the session with flower really reached,
// whole requests as the fake's usage counts them.

// whatIfTolerance is the largest error allowed for the estimate of the main
// thread's final context (the 15%).
const whatIfTolerance = 0.15

// recordWhatIf is where TestWhatIf copies the sessions it plays, sanitized,
// for the golden tests of --what-if:
//
//	go test ./tests/e2e -run '^TestWhatIf$' -count=1 \
//	    -args -record-whatif=$PWD/tests/testdata/context-audit-whatif
var recordWhatIf = flag.String("record-whatif", "", "copy the sessions TestWhatIf plays, sanitized, into this folder")

// wiAction is one thing the main thread sets out to do: its calls, one a
// turn; with a brief, a piece of work a coordinator delegates whole.
type wiAction struct {
	id       string
	calls    []func(*Scenario) ToolUse
	delegate string                 // the brief, for a main thread that may not do it
	sub      func(*Scenario) Script // the subagent's script (the delegation's, or the Agent call's in calls)
}

// wiSession is a session to play both ways: its prompts, each with the
// actions it leads to and the answer that ends it.
type wiSession struct {
	name      string
	workspace func(*Scenario)
	prompts   []wiPrompt
	env       []string // for the CLI, both ways
	record    bool     // copied by -record-whatif
}

type wiPrompt struct {
	text    string
	actions []wiAction
	answer  string
}

// script is the main thread: each reply follows from what the request
// holds, so the same script plays with flower and without. A compaction's
// request gets a summary naming what was done, which is all the thread
// holds of it after.
func (ws wiSession) script(s *Scenario) Script {
	return func(r *Request) Reply {
		if strings.Contains(r.LastUser().Text(), compactRequest) {
			return Say(ws.summary(s, r))
		}
		denied := strings.Contains(allText(r), "hook error: ")
		for _, p := range ws.prompts {
			for _, a := range p.actions {
				if a.delegate != "" && r.done(a.id+"-agent") {
					continue // delegated and reported
				}
				if a.delegate != "" && denied {
					return Call(Agent(a.id+"-agent", a.delegate))
				}
				for _, c := range a.calls {
					if call := c(s); !r.done(call.ID) {
						return Call(call)
					}
				}
			}
			// Each prompt's answer ends its turn; the next prompt's
			// actions start when it arrives.
			if !strings.Contains(allText(r), p.answer) {
				return Say(p.answer)
			}
		}
		return Say("Nothing more to do.")
	}
}

// summary is the answer to a compaction's request: the calls done and the
// answers given so far.
func (ws wiSession) summary(s *Scenario, r *Request) string {
	var b strings.Builder
	b.WriteString("<summary>Done:")
	for _, p := range ws.prompts {
		for _, a := range p.actions {
			ids := []string{a.id + "-agent"}
			for _, c := range a.calls {
				ids = append(ids, c(s).ID)
			}
			for _, id := range ids {
				if r.done(id) {
					b.WriteString(" [" + id + "]")
				}
			}
		}
	}
	for _, p := range ws.prompts {
		if strings.Contains(allText(r), p.answer) {
			b.WriteString("\n" + p.answer)
		}
	}
	return b.String() + "</summary>"
}

// done reports whether the call id got its result in r, or was done
// before a compaction whose summary r holds.
func (r *Request) done(id string) bool {
	if _, ok := r.ToolResult(id); ok {
		return true
	}
	return strings.Contains(r.FirstUserText(), "["+id+"]")
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
	s.Turns(Options{Settings: Settings(hooks...), AllowedTools: handsOn, Env: ws.env}, texts, nil)
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
// Its log holds a row of docs/REFERENCE.md's table per session.
func TestWhatIf(t *testing.T) {
	t.Parallel()
	needClaude(t)
	for _, ws := range []wiSession{demoWhatIf(), featureWhatIf(), logsWhatIf(), debugWhatIf(), reviewWhatIf(), longWhatIf()} {
		t.Run(ws.name, func(t *testing.T) {
			t.Parallel()
			sWithout, without := ws.play(t, nil)
			sWith, with := ws.play(t, LayerHooks(t, "1", "2", "3"))
			if *recordWhatIf != "" && ws.record {
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
			// The same error against the messages alone: the last
			// request less its system prompt and tools, which are the
			// same both ways.
			last := sWith.API.Last(MainThread)
			fixed := int64(tokens(last.RequestChars()) - tokens(last.ContextChars()))
			em := float64(estimated-measured) / float64(measured-fixed)
			w := truth.Get("what_if.observed")
			t.Logf("%s: estimate %+.1f%% (whole requests), %+.1f%% (messages); layer one %s; assumed %s",
				ws.name, 100*e, 100*em, est.Get("layer_one").Raw, est.Get("assumed").Raw)
			t.Logf("| %s | %s | %d | %s | %s | %+.1f%% | %s | %s | %+.1f%% | %d / %d | %d / %d | %s / %s |",
				ws.name, thousands(int(est.Get("observed.context_last").Int())), est.Get("observed.compactions").Int(),
				thousands(int(measured)), thousands(int(estimated)), 100*e,
				thousands(int(measured-fixed)), thousands(int(estimated-fixed)), 100*em,
				w.Get("compactions").Int(), est.Get("estimated.compactions").Int(),
				w.Get("turns").Int()+w.Get("subagents.requests").Int(), est.Get("estimated.turns").Int()+est.Get("estimated.subagents.requests").Int(),
				thousands(int(w.Get("sent").Int()+w.Get("subagents.sent").Int())), thousands(int(est.Get("estimated.sent").Int()+est.Get("estimated.subagents.sent").Int())))
			if math.Abs(e) > whatIfTolerance {
				t.Errorf("the estimate of the final context is %d tokens, the session with flower reached %d: %+.1f%%, beyond ±%.0f%%",
					estimated, measured, 100*e, 100*whatIfTolerance)
			}
			if got, want := est.Get("estimated.compactions").Int(), w.Get("compactions").Int(); got != want {
				t.Errorf("the estimate has %d compactions, the session with flower had %d", got, want)
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
			// estimate: no piece of work to delegate, nothing over the
			// threshold.
			if w := truth.Get("what_if"); w.Get("layer_one.delegations").Int() != 0 || w.Get("layer_three.results").Int() != 0 {
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
	return wiSession{name: "demo", workspace: demoWorkspace, record: true, prompts: []wiPrompt{{
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
		name: "feature", record: true,
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
		name: "logs", record: true,
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

// calls is the calls of one action, each a turn.
func calls(c ...func(*Scenario) ToolUse) []func(*Scenario) ToolUse { return c }

// glanceAction is one glance of the main thread.
func glanceAction(id, cmd string) wiAction {
	return wiAction{id: id, calls: calls(func(*Scenario) ToolUse { return Bash(id, cmd) })}
}

// readAction is one Read of the main thread.
func readAction(id, rel string) wiAction {
	return wiAction{id: id, calls: calls(func(s *Scenario) ToolUse { return Read(id, s.Path(rel)) })}
}

// piece is a piece of work: the main thread's calls without flower; with
// it, a subagent that makes them (after reads, reads, to edit what they
// read) and reports.
func piece(id, brief, report string, reads []string, cs ...func(*Scenario) ToolUse) wiAction {
	return wiAction{id: id, calls: cs, delegate: brief, sub: func(s *Scenario) Script {
		var steps []Reply
		for i, rel := range reads {
			steps = append(steps, Call(Read(fmt.Sprintf("sub-%s-read%d", id, i), s.Path(rel))))
		}
		for _, c := range cs {
			call := c(s)
			call.ID = "sub-" + call.ID
			steps = append(steps, Call(call))
		}
		return Steps(append(steps, Say(report))...)
	}}
}

// lines is n numbered lines of about width characters each.
func lines(n, width int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		l := fmt.Sprintf(format, i)
		for len(l) < width {
			l += " ."
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// debugWhatIf is a debugging session shaped like the held-out one:
// one fix loop (run the tests, grep, read, edit, run again, read, grep,
// edit, run) whose greps and reads cut the hands-on calls apart, then a
// commit asked for in a second prompt. A coordinator is denied once and
// delegates the loop whole, then the commit.
func debugWhatIf() wiSession {
	const tests = "sh tests/run.sh"
	test := func(id string) func(*Scenario) ToolUse { return func(*Scenario) ToolUse { return Bash(id, tests) } }
	const commit = "git add -A && git commit -qm 'Apply discounts as a percentage of the amount' && git log --oneline -1"
	return wiSession{
		name: "debug", record: true,
		workspace: func(s *Scenario) {
			var log strings.Builder
			for i := 1; i <= 240; i++ {
				if i%4 == 0 {
					fmt.Fprintf(&log, "2026-11-30T03:%02d:%02d WARN  order %d: discount 10 applied, total %d.00 (expected %d.00)\n", i/60, i%60, 2000+i, 100+i, 90+i)
				} else {
					fmt.Fprintf(&log, "2026-11-30T03:%02d:%02d INFO  order %d: no discount, total %d.00\n", i/60, i%60, 2000+i, 100+i)
				}
			}
			s.WriteFile("logs/nightly.log", log.String())
			s.WriteFile("src/price.sh", "#!/bin/sh\n# price.sh: an order's total, its lines summed, less its discount.\n. src/discount.sh\n"+
				lines(70, 60, "line_%d() { amount=$((amount + qty * unit)); } # sums one order line")+
				"total() { discount=$(rate \"$1\"); echo $((amount - discount)); }\n")
			s.WriteFile("src/discount.sh", "#!/bin/sh\n# discount.sh: the discount of a customer, in percent.\n"+
				lines(40, 50, "tier_%d() { echo 10; } # percent for tier")+"rate() { tier_1; }\n")
			s.WriteFile("tests/cases.txt", lines(110, 40, "case %d: order with lines, discount 10, want total - 10%%"))
			s.WriteFile("tests/run.sh", `#!/bin/sh
i=1
while [ $i -le 120 ]; do
  if [ $((i % 4)) -ne 0 ]; then echo "ok $i - order $i without a discount (fixtures/order-$i.json)"
  elif grep -q 'percent / 100' src/price.sh; then echo "ok $i - order $i with a discount (fixtures/order-$i.json)"
  else echo "not ok $i - order $i with a discount: total $((100 + i)).00, want $((90 + i)).00"; fi
  i=$((i+1))
done
`)
			s.Git("add", ".")
			s.Git("commit", "-q", "-m", "nightly totals")
		},
		prompts: []wiPrompt{
			{
				text: "Nightly totals are wrong for orders with a discount (logs/nightly.log). Find the bug, fix it, and make tests/run.sh pass.",
				actions: []wiAction{
					glanceAction("d-grep", "grep -n WARN logs/nightly.log"),
					readAction("d-price", "src/price.sh"),
					piece("d-fix", "Orders with a discount get wrong totals in the nightly job: logs/nightly.log shows total 110.00 where 100.00 "+
						"is expected, so the discount is taken as an amount, not a percentage. src/price.sh computes the total and "+
						"calls rate() from src/discount.sh. Reproduce with sh tests/run.sh (write its output to .flower/artifacts/), "+
						"find the cause, fix it in src/, and run the tests until they pass. Reply with the cause in one sentence, "+
						"the files you changed and the path of the last test log.",
						".flower/artifacts/tests-3.log: 120 ok. Cause: total() subtracted the discount rate (10) as an amount; it now "+
							"takes amount * percent / 100. Changed src/price.sh; src/discount.sh is back as it was.",
						[]string{"src/price.sh"},
						test("d-test1"),
						func(*Scenario) ToolUse { return Bash("d-grep2", "grep -rn rate src/") },
						func(s *Scenario) ToolUse { return Read("d-disc", s.Path("src/discount.sh")) },
						func(s *Scenario) ToolUse {
							return Edit("d-edit1", s.Path("src/discount.sh"), "rate() { tier_1; }", "rate() { tier_1 | tr -d ' '; }")
						},
						test("d-test2"),
						func(s *Scenario) ToolUse { return Read("d-cases", s.Path("tests/cases.txt")) },
						func(*Scenario) ToolUse { return Bash("d-grep3", "grep -n discount src/price.sh") },
						func(s *Scenario) ToolUse {
							return Edit("d-edit2", s.Path("src/price.sh"), "echo $((amount - discount))", "percent=$discount; echo $((amount - amount * percent / 100))")
						},
						test("d-test3")),
					glanceAction("d-diff", "git diff --stat"),
				},
				answer: "Fixed: total() took the discount rate as an amount; src/price.sh now subtracts amount * percent / 100, and tests/run.sh passes.",
			},
			{
				text: "Commit the fix, with a message that says what was wrong.",
				actions: []wiAction{
					glanceAction("d-status", "git status -s"),
					piece("d-commit", "Commit every change with the message 'Apply discounts as a percentage of the amount'. Reply with the new commit's hash and subject only.",
						"Committed: Apply discounts as a percentage of the amount (git log --oneline -1).", nil,
						func(*Scenario) ToolUse { return Bash("d-commit", commit) }),
				},
				answer: "Committed as 'Apply discounts as a percentage of the amount'.",
			},
		},
	}
}

// reviewWhatIf: three prompts: a question answered by an Explore agent of
// the session's own (a long research report, flower or not) before a flag
// is added in four hands-on turns; a README edit; an answer from greps
// and reads alone. The session's only subagent is a research agent, so
// the estimate prices its delegations as assumed, not at that report.
func reviewWhatIf() wiSession {
	const tests = "sh tests/run.sh"
	const question = "Find how src/cli.sh loads its configuration (files, environment, defaults, precedence) and what src/config.sh exposes. Report the call path and each source of a setting with its file and line."
	var report strings.Builder
	report.WriteString("## How configuration is loaded\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&report, "%d. src/config.sh:%d: setting_%d is read from $APP_SETTING_%d, else ~/.apprc, else the default %d; src/cli.sh:%d passes it on.\n", i, 10+i*3, i, i, i*10, 20+i)
	}
	return wiSession{
		name: "review",
		workspace: func(s *Scenario) {
			s.WriteFile("src/cli.sh", "#!/bin/sh\n# cli.sh: the command line.\n. src/config.sh\nwhile [ $# -gt 0 ]; do\n  case \"$1\" in\n"+
				lines(30, 70, "    --opt%d) opt=$2; shift ;; # an option of the command")+"  esac\n  shift\ndone\n")
			s.WriteFile("src/config.sh", "#!/bin/sh\n# config.sh: settings from the environment, ~/.apprc and defaults.\n"+
				lines(120, 70, "setting_%d=${APP_SETTING:-$(grep -s setting ~/.apprc || echo default)}"))
			s.WriteFile("src/other.sh", "#!/bin/sh\n"+lines(20, 60, "# other.sh: helper %d, no flags parsed here"))
			s.WriteFile("README.md", "# app\n\n## Usage\n\n    app [--opt1 V] ... [--opt30 V]\n\n"+lines(30, 70, "Option --opt%d sets one setting for this run."))
			s.WriteFile("tests/run.sh", `#!/bin/sh
i=1
while [ $i -le 90 ]; do echo "ok $i - option case $i (fixtures/cli-$i.txt)"; i=$((i+1)); done
if grep -q -- '--verbose) verbose=1' src/cli.sh; then echo "ok 91 - --verbose prints the config"; else echo "not ok 91 - --verbose: unknown option"; fi
`)
			s.Git("add", ".")
			s.Git("commit", "-q", "-m", "app")
		},
		prompts: []wiPrompt{
			{
				text: "How does the CLI load its configuration? Then add a --verbose flag that prints the settings it loaded.",
				actions: []wiAction{
					{id: "r-explore", calls: calls(func(*Scenario) ToolUse {
						return ToolUse{ID: "r-explore", Name: "Agent", Input: map[string]any{
							"description": "find config loading", "prompt": question, "subagent_type": "Explore", "run_in_background": false}}
					}), sub: func(s *Scenario) Script {
						return Steps(Call(Read("sub-r-config", s.Path("src/config.sh"))), Call(Bash("sub-r-grep", "grep -n config src/cli.sh")), Say(report.String()))
					}},
					readAction("r-cli", "src/cli.sh"),
					piece("r-verbose", "Add a --verbose flag to src/cli.sh that prints every setting src/config.sh loaded, one per line as name=value, "+
						"before the command runs; follow how the other options are parsed there. Run sh tests/run.sh until it passes, with its "+
						"output in .flower/artifacts/. Reply with the lines you changed and the path of the test log.",
						".flower/artifacts/tests.log: 91 ok. src/cli.sh: a --verbose) case sets verbose=1; after the loop, verbose prints set | grep ^setting_.",
						[]string{"src/cli.sh"},
						func(s *Scenario) ToolUse {
							return Edit("r-edit1", s.Path("src/cli.sh"), "  esac\n", "    --verbose) verbose=1 ;;\n  esac\n")
						},
						func(*Scenario) ToolUse { return Bash("r-test1", tests) },
						func(s *Scenario) ToolUse {
							return Edit("r-edit2", s.Path("src/cli.sh"), "done\n", "done\n[ \"$verbose\" ] && set | grep ^setting_\n")
						},
						func(*Scenario) ToolUse { return Bash("r-test2", tests) }),
				},
				answer: "Configuration: src/config.sh reads each setting from the environment, then ~/.apprc, then a default; --verbose now prints them.",
			},
			{
				text: "Document --verbose in the README's usage section.",
				actions: []wiAction{
					readAction("r-readme", "README.md"),
					piece("r-doc", "In README.md, add --verbose to the usage line and a sentence saying it prints the loaded settings as name=value. Reply with the new lines only.",
						"README.md: usage now ends with [--verbose]; added: \"--verbose prints the loaded settings as name=value.\"",
						[]string{"README.md"},
						func(s *Scenario) ToolUse {
							return Edit("r-edit3", s.Path("README.md"), "[--opt30 V]", "[--opt30 V] [--verbose]")
						}),
				},
				answer: "README.md documents --verbose.",
			},
			{
				text: "Does anything else still parse flags by hand?",
				actions: []wiAction{
					glanceAction("r-grep", "grep -rn 'case \"$1\"' src/"),
					readAction("r-other", "src/other.sh"),
				},
				answer: "No: src/cli.sh is the only file that parses flags; src/other.sh has helpers only.",
			},
		},
	}
}

// longWhatIf is long enough to cross a compaction without flower: seven
// prompts each read four big files and grep them (spilled with flower),
// then run a check and note its result (one delegation each with flower).
// The model is one with a 200,000-token window, and the auto-compact
// window is set: without one the pinned CLI does not compact at the
// threshold but waits for the API to refuse a request too long.
func longWhatIf() wiSession {
	const groups, files = 7, 4
	mod := func(g, f int) string { return fmt.Sprintf("src/mod%d%d.go", g, f) }
	var prompts []wiPrompt
	for g := 1; g <= groups; g++ {
		var actions []wiAction
		for f := 1; f <= files; f++ {
			actions = append(actions, readAction(fmt.Sprintf("l%d-read%d", g, f), mod(g, f)))
		}
		actions = append(actions, glanceAction(fmt.Sprintf("l%d-grep", g), fmt.Sprintf("grep -n '_[1-3][0-9]()' src/mod%d*.go", g)))
		check, note := fmt.Sprintf("l%d-check", g), fmt.Sprintf("l%d-note", g)
		actions = append(actions, piece(fmt.Sprintf("l%d", g),
			fmt.Sprintf("Run sh tools/check.sh %d, which checks the error handling of src/mod%d*.go, with its output in .flower/artifacts/check-%d.log. "+
				"Append to notes/review.md a section '## group %d' listing the functions it reports as dropping an error, one line each. "+
				"Reply with the path of the log, the number of findings and the section's first line.", g, g, g, g),
			fmt.Sprintf(".flower/artifacts/check-%d.log: 12 findings, all in src/mod%d1.go; notes/review.md has '## group %d' with one line per function.", g, g, g),
			nil,
			func(*Scenario) ToolUse { return Bash(check, fmt.Sprintf("sh tools/check.sh %d", g)) },
			func(*Scenario) ToolUse {
				return Bash(note, fmt.Sprintf("printf '\\n## group %d\\n12 functions drop an error (tools/check.sh %d)\\n' >> notes/review.md", g, g))
			}))
		prompts = append(prompts, wiPrompt{
			text:    fmt.Sprintf("Review the error handling of module group %d (src/mod%d*.go) and note what you find in notes/review.md.", g, g),
			actions: actions,
			answer:  fmt.Sprintf("Group %d: 12 functions drop an error, all in src/mod%d1.go; noted in notes/review.md.", g, g),
		})
	}
	return wiSession{
		name: "long",
		env:  []string{"ANTHROPIC_MODEL=claude-opus-4-5", "CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000"},
		workspace: func(s *Scenario) {
			for g := 1; g <= groups; g++ {
				for f := 1; f <= files; f++ {
					s.WriteFile(mod(g, f), fmt.Sprintf("package mod%d%d\n\n", g, f)+
						lines(340, 62, fmt.Sprintf("func f%d%d_%%d() error { if err := step(); err != nil { return err }; return nil }", g, f)))
				}
			}
			s.WriteFile("tools/check.sh", `#!/bin/sh
# check.sh: lists the functions of a module group that drop an error.
for i in $(seq 1 110); do echo "src/mod${1}1.go:$i: f${1}1_$i: error checked and returned (ok)"; done
for i in $(seq 1 12); do echo "src/mod${1}1.go:$((200 + i)): f${1}1_$((200 + i)): error dropped"; done
`)
			s.WriteFile("notes/review.md", "# Review of the error handling\n")
			s.Git("add", ".")
			s.Git("commit", "-q", "-m", "modules")
		},
		prompts: prompts,
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
// gives a general-purpose subagent; and the subagent's first request
// against the main thread's, each without its prompt, is
// contextaudit.SubagentShare.
func TestWhatIfAgentPrompt(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const brief, prompt = "Reply with OK.", "delegate"
	s.API.Main(Steps(Call(Agent("a", brief)), Say("done")))
	s.API.Agent(brief, Steps(Say("OK")))
	s.Run(Options{Prompt: prompt, AllowedTools: handsOn})
	sub := s.API.Thread(brief)
	if len(sub) == 0 {
		t.Fatal("the subagent sent no request")
	}
	for _, sentence := range contextaudit.AgentPrompt {
		if !strings.Contains(sub[0].System, sentence) {
			t.Errorf("the subagent's system prompt no longer says %q", sentence)
		}
	}
	main := s.API.Thread(MainThread)[0]
	share := float64(sub[0].RequestChars()-len(brief)) / float64(main.RequestChars()-len(prompt))
	t.Logf("a subagent's first request: %d characters, the main thread's %d: %.3f (--what-if assumes %.2f)",
		sub[0].RequestChars(), main.RequestChars(), share, contextaudit.SubagentShare)
	if math.Abs(share-contextaudit.SubagentShare) > 0.02 {
		t.Errorf("a subagent's first request is %.3f of the main thread's; --what-if assumes %.2f", share, contextaudit.SubagentShare)
	}
}
