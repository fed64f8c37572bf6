package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/contextaudit"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// The layouts Claude Code has kept subagents and compactions in, each
// written here as the CLI versions that used it wrote its lines (the real
// transcripts of ../shared/transcripts show 1.0.108 inline, 2.1.39's
// subagents/ folder and compaction run; 2.0's files beside the session and
// its warmups are modelled on lines of 2.0.70 and 2.0.76 published as test
// fixtures, and on anthropics/claude-code#17457).

const layoutSession = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"

// layoutLine is one entry as the CLI of version writes it: uuid, parent
// ("" for a root), whether it is a subagent's (sidechain, agent "" for
// 1.0's inline entries, which carry no agentId), its type and message.
type layoutLine struct {
	version, uuid, parent, agent string
	sidechain                    bool
	typ, message                 string
	extra                        string // more members, each with a leading comma
}

func (l layoutLine) String() string {
	parent := "null"
	if l.parent != "" {
		parent = `"` + l.parent + `"`
	}
	agent := ""
	if l.agent != "" {
		agent = `,"agentId":"` + l.agent + `"`
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":%v,"userType":"external","cwd":"/path/to/Demo","sessionId":%q,"version":%q,"gitBranch":"main"%s,"type":%q,"message":%s,"uuid":%q,"timestamp":"2025-11-19T22:53:34.908Z"%s}`,
		parent, l.sidechain, layoutSession, l.version, agent, l.typ, l.message, l.uuid, l.extra)
}

func promptMsg(text string) string { return `{"role":"user","content":` + jsonString(text) + `}` }

func assistantMsg(id, content string, in, read, create int) string {
	return fmt.Sprintf(`{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[%s],"stop_reason":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":10}}`, id, content, in, create, read)
}

func toolUse(id, name, input string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}`
}

func resultMsg(id, content string) string {
	return `{"role":"user","content":[{"tool_use_id":"` + id + `","type":"tool_result","content":` + jsonString(content) + `}]}`
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func joinLines(lines []layoutLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.String() + "\n")
	}
	return b.String()
}

// mainThread is a main thread of two turns: a Task (Agent in 2.1) call,
// then a glance (ls, a Bash call: hands-on), each with its result. Its
// context is 1000 then 1200 tokens.
func mainThread(version, task string) []layoutLine {
	return []layoutLine{
		{version: version, uuid: "m1", typ: "user", message: promptMsg("look at the project")},
		{version: version, uuid: "m2", parent: "m1", typ: "assistant", message: assistantMsg("msg_main1", toolUse("toolu_task", task, `{"description":"survey","prompt":"Survey the project."}`), 10, 900, 90)},
		{version: version, uuid: "m3", parent: "m2", typ: "user", message: resultMsg("toolu_task", "2 files.")},
		{version: version, uuid: "m4", parent: "m3", typ: "assistant", message: assistantMsg("msg_main2", toolUse("toolu_ls", "Bash", `{"command":"ls"}`), 10, 1100, 90)},
		{version: version, uuid: "m5", parent: "m4", typ: "user", message: resultMsg("toolu_ls", "a\nb")},
	}
}

// subagentRun is a subagent's work: its prompt, a response of two entries
// (text, then a Bash call, hands-on), the result, and its report: 2 turns,
// 1 hands-on call.
func subagentRun(version, agent, prefix string, sidechainAgent string) []layoutLine {
	return []layoutLine{
		{version: version, uuid: prefix + "1", sidechain: true, agent: sidechainAgent, typ: "user", message: promptMsg("Survey the project.")},
		{version: version, uuid: prefix + "2", parent: prefix + "1", sidechain: true, agent: sidechainAgent, typ: "assistant", message: assistantMsg("msg_"+agent+"1", `{"type":"text","text":"Surveying."}`, 4, 0, 5000)},
		{version: version, uuid: prefix + "3", parent: prefix + "2", sidechain: true, agent: sidechainAgent, typ: "assistant", message: assistantMsg("msg_"+agent+"1", toolUse("toolu_"+agent, "Bash", `{"command":"find . -type f | wc -l"}`), 4, 0, 5000)},
		{version: version, uuid: prefix + "4", parent: prefix + "3", sidechain: true, agent: sidechainAgent, typ: "user", message: resultMsg("toolu_"+agent, "2")},
		{version: version, uuid: prefix + "5", parent: prefix + "4", sidechain: true, agent: sidechainAgent, typ: "assistant", message: assistantMsg("msg_"+agent+"2", `{"type":"text","text":"2 files."}`, 6, 5000, 20)},
	}
}

// warmupRun is a cache warmup of CLI 2.0 to 2.1.4: the prompt "Warmup" and
// one response, in a transcript of its own.
func warmupRun(version, agent string) []layoutLine {
	return []layoutLine{
		{version: version, uuid: agent + "-w1", sidechain: true, agent: agent, typ: "user", message: promptMsg("Warmup")},
		{version: version, uuid: agent + "-w2", parent: agent + "-w1", sidechain: true, agent: agent, typ: "assistant", message: assistantMsg("msg_"+agent, `{"type":"text","text":"Ready."}`, 3, 0, 11112)},
	}
}

// compaction is a compact_boundary and the summary after it, as 2.1.39
// writes them; what follows the summary is one more main turn.
func compaction(version string, preTokens int) []layoutLine {
	return []layoutLine{
		{version: version, uuid: "c1", typ: "system", message: "null",
			extra: fmt.Sprintf(`,"subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","logicalParentUuid":"m5","compactMetadata":{"trigger":"auto","preTokens":%d}`, preTokens)},
		{version: version, uuid: "c2", parent: "c1", typ: "user", message: promptMsg("This session is being continued from a previous conversation that ran out of context."),
			extra: `,"isVisibleInTranscriptOnly":true,"isCompactSummary":true`},
		{version: version, uuid: "c3", parent: "c2", typ: "assistant", message: assistantMsg("msg_main3", `{"type":"text","text":"Going on."}`, 3, 0, 2000)},
	}
}

// compactionRun is the transcript of a compaction's summarising run, as
// 2.1.39 writes it in subagents/agent-acompact-<hex>.jsonl: the prompt and
// one response.
func compactionRun(version string) []layoutLine {
	a := "acompact-fffbd0"
	return []layoutLine{
		{version: version, uuid: "k1", sidechain: true, agent: a, typ: "user", message: promptMsg("Your task is to create a detailed summary of the conversation so far.")},
		{version: version, uuid: "k2", parent: "k1", sidechain: true, agent: a, typ: "assistant", message: assistantMsg("msg_compact", `{"type":"text","text":"<summary>…</summary>"}`, 3, 166758, 2487)},
	}
}

// figures is what a layout test compares of a report.
type figures struct {
	Main, Sub          [2]int64 // turns, hands-on
	SubagentFiles      int
	SubagentOf         string
	Compactions        int64
	AfterTurns         []int64
	PreTokens          int64
	Runs, RunIn        int64
	Warmups            int64
	ContextFirst, Last int64
	Glances            int64
	CacheRead          int64
}

func figuresOf(r *contextaudit.Report) figures {
	f := figures{
		Main: [2]int64{r.Main.Turns, r.Main.HandsOn}, Sub: [2]int64{r.Subagents.Turns, r.Subagents.HandsOn},
		SubagentFiles: r.SubagentTranscripts, Compactions: r.Compactions.Count, AfterTurns: r.Compactions.AfterTurns,
		PreTokens: r.Compactions.PreTokens, Runs: r.Compactions.Runs, RunIn: r.Compactions.RunInputTokens,
		Warmups: r.Warmups, ContextFirst: r.Context.First, Last: r.Context.Last, Glances: r.GlancesMain, CacheRead: r.Cache.Read,
	}
	if r.SubagentOf != nil {
		f.SubagentOf = *r.SubagentOf
	}
	return f
}

// TestContextAuditLayouts: each layout's subagents are subagent work in
// every figure, compaction runs and warmups are not, and a subagent's
// transcript given alone is reported as a subagent's.
func TestContextAuditLayouts(t *testing.T) {
	// The main thread alone: 2 turns, 1 hands-on call, a glance (ls);
	// context 1000 and 1200.
	mainOnly := figures{Main: [2]int64{2, 1}, AfterTurns: []int64{}, ContextFirst: 1000, Last: 1200, Glances: 1, CacheRead: 2000}
	with := func(f figures, edit func(*figures)) figures { edit(&f); return f }
	// One subagent run: 2 turns, 1 hands-on call, cache read 5000.
	oneSub := with(mainOnly, func(f *figures) { f.Sub, f.SubagentFiles, f.CacheRead = [2]int64{2, 1}, 1, 7000 })
	tests := []struct {
		name  string
		files map[string]string // relative to the project folder
		audit string            // the path given, relative to it
		want  figures
	}{
		{
			// CLI 1.0: the subagent's entries inline, isSidechain, no agentId,
			// written between the Task call and its result.
			name: "1.0 inline",
			files: map[string]string{layoutSession + ".jsonl": joinLines(append(append(mainThread("1.0.108", "Task")[:2:2],
				subagentRun("1.0.108", "s", "s", "")...), mainThread("1.0.108", "Task")[2:]...))},
			audit: layoutSession + ".jsonl",
			want:  oneSub,
		},
		{
			// CLI 2.0: agent-<id>.jsonl beside the session, naming it in
			// sessionId; another session's agent file and a warmup beside it.
			name: "2.0 beside",
			files: map[string]string{
				layoutSession + ".jsonl":                     joinLines(mainThread("2.0.76", "Task")),
				"agent-a2898e3.jsonl":                        joinLines(subagentRun("2.0.76", "a2898e3", "s", "a2898e3")),
				"agent-a6e4019.jsonl":                        joinLines(warmupRun("2.0.76", "a6e4019")),
				"agent-a0ther00.jsonl":                       strings.ReplaceAll(joinLines(subagentRun("2.0.76", "a0ther00", "o", "a0ther00")), layoutSession, "0f469ab8-bece-40b3-b3b8-c37e9ea7bc4b"),
				"0f469ab8-bece-40b3-b3b8-c37e9ea7bc4b.jsonl": strings.ReplaceAll(joinLines(mainThread("2.0.76", "Task")), layoutSession, "0f469ab8-bece-40b3-b3b8-c37e9ea7bc4b"),
			},
			audit: layoutSession + ".jsonl",
			// The warmup's tokens are the session's too: cache read +0.
			want: with(oneSub, func(f *figures) { f.Warmups = 1 }),
		},
		{
			// CLI 2.1: <session>/subagents/, and a workflow's agents in a
			// folder below it.
			name: "2.1 subagents folder",
			files: map[string]string{
				layoutSession + ".jsonl":                                         joinLines(mainThread("2.1.39", "Task")),
				layoutSession + "/subagents/agent-a881341.jsonl":                 joinLines(subagentRun("2.1.39", "a881341", "s", "a881341")),
				layoutSession + "/subagents/agent-a881341.meta.json":             `{"agentType":"general-purpose"}`,
				layoutSession + "/subagents/workflows/wf_01/agent-ab12cd3.jsonl": joinLines(subagentRun("2.1.39", "ab12cd3", "w", "ab12cd3")),
			},
			audit: layoutSession + ".jsonl",
			want:  with(oneSub, func(f *figures) { f.Sub, f.SubagentFiles, f.CacheRead = [2]int64{4, 2}, 2, 12000 }),
		},
		{
			// CLI 2.1: a compaction after the main thread's 2 turns, its run
			// in agent-acompact-*.jsonl: a compaction, no subagent.
			name: "2.1 compaction",
			files: map[string]string{
				layoutSession + ".jsonl":                                 joinLines(append(mainThread("2.1.39", "Task"), compaction("2.1.39", 167094)...)),
				layoutSession + "/subagents/agent-acompact-fffbd0.jsonl": joinLines(compactionRun("2.1.39")),
			},
			audit: layoutSession + ".jsonl",
			// Turn 3 follows the summary: context 2003. The run: 3 + 166758
			// + 2487 = 169248 tokens in; its cache read is the session's.
			want: with(mainOnly, func(f *figures) {
				f.Main[0], f.Last, f.CacheRead = 3, 2003, 2000+166758
				f.Compactions, f.AfterTurns, f.PreTokens, f.Runs, f.RunIn = 1, []int64{2}, 167094, 1, 169248
			}),
		},
		{
			// A subagent's transcript given alone is a subagent's.
			name: "2.1 subagent alone",
			files: map[string]string{
				layoutSession + "/subagents/agent-a881341.jsonl": joinLines(subagentRun("2.1.39", "a881341", "s", "a881341")),
			},
			audit: layoutSession + "/subagents/agent-a881341.jsonl",
			want:  figures{Sub: [2]int64{2, 1}, SubagentFiles: 1, SubagentOf: layoutSession, AfterTurns: []int64{}, CacheRead: 5000},
		},
		{
			name: "2.0 subagent alone",
			files: map[string]string{
				"agent-a2898e3.jsonl": joinLines(subagentRun("2.0.76", "a2898e3", "s", "a2898e3")),
			},
			audit: "agent-a2898e3.jsonl",
			want:  figures{Sub: [2]int64{2, 1}, SubagentFiles: 1, SubagentOf: layoutSession, AfterTurns: []int64{}, CacheRead: 5000},
		},
		{
			name: "compaction run alone",
			files: map[string]string{
				layoutSession + "/subagents/agent-acompact-fffbd0.jsonl": joinLines(compactionRun("2.1.39")),
			},
			audit: layoutSession + "/subagents/agent-acompact-fffbd0.jsonl",
			want:  figures{SubagentOf: layoutSession, AfterTurns: []int64{}, Runs: 1, RunIn: 169248, CacheRead: 166758},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, body := range tt.files {
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r, warnings, err := contextaudit.Audit(filepath.Join(dir, tt.audit), "")
			if err != nil || len(warnings) > 0 {
				t.Fatalf("%v %v", err, warnings)
			}
			if diff := cmp.Diff(tt.want, figuresOf(r)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestContextAuditProjectBeside: --project lists the sessions of a 2.0
// project folder, not the subagent transcripts beside them.
func TestContextAuditProjectBeside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "projects", "-path-to-Demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		layoutSession + ".jsonl": joinLines(mainThread("2.0.76", "Task")),
		"agent-a2898e3.jsonl":    joinLines(subagentRun("2.0.76", "a2898e3", "s", "a2898e3")),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := audit(t, "--project", dir)
	if r["session"] != layoutSession || r["subagent_transcripts"] != 1.0 {
		t.Errorf("reported %v with %v subagent transcripts, want %s with 1", r["session"], r["subagent_transcripts"], layoutSession)
	}
}

// sharedTranscripts is ../shared/transcripts from this folder: real
// sessions of CLI 1.0.108 to 2.1.218 (see its README).
const sharedTranscripts = "../../shared/transcripts"

// realTranscripts lists the main transcripts of sharedTranscripts, and
// skips t when there are none.
func realTranscripts(t *testing.T) []string {
	paths, _ := filepath.Glob(filepath.Join(sharedTranscripts, "*", "*.jsonl"))
	if len(paths) == 0 {
		t.Skipf("no transcripts in %s", sharedTranscripts)
	}
	return paths
}

// TestContextAuditRealTranscripts audits the real transcripts of
// ../shared/transcripts and works out the split of turns and hands-on calls
// between the main thread and subagents, and the compactions, from their
// lines by another road: every assistant line by its isSidechain, turns as
// distinct message ids per file and side (Claude Code writes a response's
// entries one after another), the subagent files found by a walk, those
// named agent-acompact-* apart.
func TestContextAuditRealTranscripts(t *testing.T) {
	for _, path := range realTranscripts(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+transcript.SessionID(path)[:8], func(t *testing.T) {
			var want figures
			want.AfterTurns = []int64{}
			inline := 0
			count := func(file string, forceSide bool) (main, side [2]int64, boundaries []int64, pre int64) {
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				ids := [2]map[string]bool{{}, {}}
				for _, l := range bytes.Split(b, []byte("\n")) {
					e := gjson.ParseBytes(l)
					s := 0
					if forceSide || e.Get("isSidechain").Bool() {
						s = 1
					}
					if !forceSide && s == 1 && e.Get("type").Str == "user" && e.Get("parentUuid").Type == gjson.Null {
						inline++ // a subagent run inline (CLI 1.0) starts at a root
					}
					if s == 0 && e.Get("subtype").Str == "compact_boundary" {
						boundaries = append(boundaries, int64(len(ids[0])))
						pre += e.Get("compactMetadata.preTokens").Int()
					}
					if e.Get("type").Str != "assistant" || e.Get("isApiErrorMessage").Bool() {
						continue
					}
					ids[s][e.Get("message.id").Str] = true
					var handsOn int64
					for _, blk := range e.Get("message.content").Array() {
						switch blk.Get("name").Str {
						case "Bash", "Write", "Edit", "MultiEdit", "NotebookEdit":
							handsOn++
						}
					}
					if s == 0 {
						main[1] += handsOn
					} else {
						side[1] += handsOn
					}
				}
				main[0], side[0] = int64(len(ids[0])), int64(len(ids[1]))
				return main, side, boundaries, pre
			}
			m, s, boundaries, pre := count(path, false)
			want.Main, want.Sub, want.PreTokens, want.SubagentFiles = m, s, pre, inline
			if boundaries != nil {
				want.AfterTurns = boundaries
				want.Compactions = int64(len(boundaries))
			}
			filepath.WalkDir(transcript.SessionDir(path), func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
					return nil
				}
				if strings.HasPrefix(filepath.Base(p), "agent-acompact") {
					want.Runs++
					return nil
				}
				_, side, _, _ := count(p, true)
				want.Sub[0] += side[0]
				want.Sub[1] += side[1]
				want.SubagentFiles++
				return nil
			})
			r, _, err := contextaudit.Audit(path, "")
			if err != nil {
				t.Fatal(err)
			}
			got := figuresOf(r)
			// What this test does not work out.
			got.ContextFirst, got.Last, got.Glances, got.CacheRead, got.RunIn = 0, 0, 0, 0, 0
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			t.Logf("main %d turns, subagents %d (share %.1f%%); hands-on %d and %d; %d compactions",
				r.Main.Turns, r.Subagents.Turns, 100*ptr(r.SubagentShare.Turns), r.Main.HandsOn, r.Subagents.HandsOn, r.Compactions.Count)
		})
	}
}

func ptr(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// TestContextAuditTotalsRealTranscripts: the totals of the real
// transcripts, every layout among them (inline subagents, a subagents/
// folder, a compaction and its run), are the sums of their reports: none
// shares an entry with another, so nothing is counted once for two, and
// each brief is weighed against its own session's workbench.
func TestContextAuditTotalsRealTranscripts(t *testing.T) {
	paths := realTranscripts(t)
	var out, errb bytes.Buffer
	if code := contextaudit.Main(append([]string{"--json"}, paths...), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(paths)+1 {
		t.Fatalf("%d lines, want %d sessions and the totals", len(lines), len(paths))
	}
	keys := []string{"main.turns", "main.chars", "main.hands_on", "subagents.turns", "subagents.chars", "subagents.hands_on",
		"subagent_transcripts", "glances_main", "compactions.count", "compactions.pre_tokens", "compactions.runs",
		"compactions.run_input_tokens", "warmups", "cache.read", "cache.creation", "cache.input",
		"denials.hook", "denials.rule", "denials.chars", "denials.main_chars", "briefs.count", "briefs.chars",
		"briefs.restating", "briefs.restating_chars", "scripts.writes", "scripts.runs", "spills.count", "bad_lines"}
	sum := map[string]int64{}
	for _, l := range lines[:len(paths)] {
		for _, k := range keys {
			sum[k] += gjson.Get(l, k).Int()
		}
	}
	totals := gjson.Get(lines[len(paths)], "totals")
	got := map[string]int64{}
	for _, k := range keys {
		got[k] = totals.Get(k).Int()
	}
	if diff := cmp.Diff(sum, got); diff != "" {
		t.Errorf("totals against the sums of the sessions (-sum +totals):\n%s", diff)
	}
	if sum["subagent_transcripts"] == 0 || sum["compactions.runs"] == 0 {
		t.Errorf("the real transcripts hold no subagent or no compaction run: %v", sum)
	}
	if totals.Get("compactions.after_turns").Exists() || totals.Get("subagent_of").Exists() {
		t.Errorf("totals carry a session's key: %s", totals.Raw)
	}
}

// TestContextAuditSessionTwice: a session named twice (here by two
// spellings of its path) is read once: its report alone, no totals. The
// totals of it twice counted its entries once but its subagent
// transcripts and compaction runs twice.
func TestContextAuditSessionTwice(t *testing.T) {
	withRun := spotterTranscript(t)
	run := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := contextaudit.Main(append([]string{"--json"}, args...), nil, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	once := run(withRun)
	other := filepath.Join(filepath.Dir(withRun), ".", filepath.Base(withRun))
	if twice := run(withRun, other); twice != once {
		t.Errorf("named twice:\n%s\nwant its report once:\n%s", twice, once)
	}
}

// TestContextAuditSubagentTwice: a session's subagent transcripts named
// beside it are reports of their own, and the totals count each file once:
// they counted its entries once but the transcripts, compaction runs and
// their tokens twice.
func TestContextAuditSubagentTwice(t *testing.T) {
	session := spotterTranscript(t)
	subs, err := transcript.Subagents(session)
	if err != nil || len(subs) < 2 {
		t.Fatalf("subagents of %s: %v %v, want a subagent and a compaction run", session, subs, err)
	}
	var out, errb bytes.Buffer
	if code := contextaudit.Main(append([]string{"--json", session}, subs...), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	alone, totals := lines[0], gjson.Get(lines[len(lines)-1], "totals")
	for _, k := range []string{"subagent_transcripts", "subagents.turns", "subagents.chars", "compactions.runs", "compactions.run_input_tokens", "compactions.run_output_tokens", "warmups"} {
		if got, want := totals.Get(k).Int(), gjson.Get(alone, k).Int(); got != want {
			t.Errorf("totals %s = %d, want the session's %d", k, got, want)
		}
	}
}

// spotterTranscript is the real session with a subagent transcript and a
// compaction run in its subagents/ folder.
func spotterTranscript(t *testing.T) string {
	for _, p := range realTranscripts(t) {
		if strings.Contains(p, "spotter"+string(filepath.Separator)) {
			return p
		}
	}
	t.Fatal("no spotter transcript among the real ones")
	return ""
}
