package tests

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/tests/support"
)

func TestPruneSessionGolden(t *testing.T) { runGolden(t, "prune-session", prunesession.Main) }

// charsAfter matches the figure of the report that depends on the length of
// the case's folder when a pointer names a spill file in it.
var charsAfter = regexp.MustCompile(`(chars +\d+ -> )\d+ \([-+]\d+\.\d%\)`)

func TestPruneSessionTrimGolden(t *testing.T) {
	runGolden(t, "prune-session-trim", func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		var buf bytes.Buffer
		code := prunesession.Main(args, stdin, stdout, &buf)
		io.WriteString(stderr, charsAfter.ReplaceAllString(buf.String(), "${1}N (see the property test)"))
		return code
	})
}

const (
	oldID = "11111111-1111-4111-8111-111111111111"
	newID = "22222222-2222-4222-8222-222222222222"
)

// hugeTranscript is the size of the largest bad transcript: over
// transcript.MaxLineBytes on one line, to show it is refused, not read whole.
const hugeTranscript = 100 << 20

// TestPruneSessionBadInput: a transcript that does not fully parse is refused
// with exit 1 and one stderr line, and no fork is written.
func TestPruneSessionBadInput(t *testing.T) {
	good := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"e1","sessionId":"` + oldID + `"}` + "\n"
	binary := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range binary {
		binary[i] = byte(r.UintN(256))
	}
	cases := map[string][]byte{
		"empty":                   nil,
		"blank line":              []byte(good + "\n" + good),
		"truncated":               []byte(good + good[:30]),
		"binary":                  binary,
		"invalid utf-8":           []byte(strings.Replace(good, "hi", "h\xffi", 1)),
		"not an object":           []byte(good + `["user"]` + "\n"),
		"no type":                 []byte(good + `{"uuid":"e2"}` + "\n"),
		"type is a number":        []byte(`{"type":3}` + "\n"),
		"message is a string":     []byte(`{"type":"user","message":"hi"}` + "\n"),
		"content is a number":     []byte(`{"type":"user","message":{"content":1}}` + "\n"),
		"block without type":      []byte(`{"type":"assistant","message":{"content":[{"text":"x"}]}}` + "\n"),
		"tool_use id is a list":   []byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":[1],"name":"Bash","input":{}}]}}` + "\n"),
		"isSidechain is a string": []byte(`{"type":"user","isSidechain":"no"}` + "\n"),
		"two objects on a line":   []byte(`{"type":"user"}{"type":"user"}` + "\n"),
		"huge garbage":            bytes.Repeat([]byte("{garbage"), hugeTranscript/8),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, oldID+".jsonl")
			if err := os.WriteFile(src, data, 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := prunesession.Main([]string{"--session-id", newID, src}, strings.NewReader(""), &stdout, &stderr)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout not empty: %.200q", stdout.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "prune-session: ") {
				t.Errorf("stderr is not one line starting %q: %.300q", "prune-session: ", msg)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the folder holds %d entries, want only the original", len(entries))
			}
			if after, _ := os.ReadFile(src); !bytes.Equal(after, data) {
				t.Errorf("the original changed")
			}
		})
	}
}

// TestPruneSessionRedLine prunes generated transcripts with every rule on and
// checks the red line on each fork: pairs whole, parents present, the chain
// from the newest leaf unbroken, unknown lines untouched, the report's
// figures true of the output.
func TestPruneSessionRedLine(t *testing.T) {
	const transcripts = 200
	for seed := range uint64(transcripts) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Parallel()
			g := newGen(seed)
			in := g.transcript()
			if problems := support.Verify(bytes.NewReader(in)); len(problems) > 0 {
				t.Fatalf("the generated transcript is already broken: %v\n%s", problems, in)
			}
			dir := t.TempDir()
			src := filepath.Join(dir, oldID+".jsonl")
			if err := os.WriteFile(src, in, 0o600); err != nil {
				t.Fatal(err)
			}
			keep := g.r.IntN(3)
			args := []string{"--session-id", newID, "--keep-recent", strconv.Itoa(keep), "--keep-denials", strconv.Itoa(keep),
				"--trim", "--trim-min", "40", "--trim-keep", strconv.Itoa(keep), "--spill-dir", filepath.Join(dir, "spill"), src}
			if seed%2 == 0 {
				args = append([]string{"--sync"}, args...) // the fsynced writes, spill files included
			}
			var stdout, stderr bytes.Buffer
			if code := prunesession.Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, stderr.String(), in)
			}
			if strings.TrimSpace(stdout.String()) == oldID {
				// Nothing to prune: the original's id, and no fork.
				if !strings.Contains(stderr.String(), "nothing to prune") {
					t.Errorf("the original's id printed, but the report does not say there was nothing to prune: %s", stderr.String())
				}
				if _, err := os.Stat(filepath.Join(dir, newID+".jsonl")); !os.IsNotExist(err) {
					t.Errorf("a fork written though nothing was pruned (%v)", err)
				}
				return
			}
			out, err := os.ReadFile(filepath.Join(dir, newID+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if problems := support.Verify(bytes.NewReader(out)); len(problems) > 0 {
				t.Fatalf("the fork breaks the red line: %v\n--- in\n%s--- out\n%s", problems, in, out)
			}
			if bytes.Contains(out, []byte(oldID)) {
				t.Errorf("the fork still names the old session id")
			}
			outLines := map[string]bool{}
			for _, l := range strings.Split(string(out), "\n") {
				outLines[l] = true
			}
			for _, l := range strings.Split(string(in), "\n") {
				if gjson.Get(l, "type").Str == "mystery" && !outLines[strings.ReplaceAll(l, oldID, newID)] {
					t.Errorf("an unknown line was changed or lost: %s", l)
				}
			}
			if want, got := min(keep, g.denials), countDenials(out); got != want {
				t.Errorf("the fork keeps %d denials, want %d", got, want)
			}
			if got := countType(out, "isApiErrorMessage"); got != 0 {
				t.Errorf("the fork keeps %d API-error entries", got)
			}
			m := regexp.MustCompile(`chars +(\d+) -> (\d+)`).FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("no chars line in the report: %s", stderr.String())
			}
			if want := strconv.Itoa(mainChars(t, in)); m[1] != want {
				t.Errorf("report says %s chars before, the input has %s", m[1], want)
			}
			if want := strconv.Itoa(mainChars(t, out)); m[2] != want {
				t.Errorf("report says %s chars after, the fork has %s", m[2], want)
			}
			if orig, _ := os.ReadFile(src); !bytes.Equal(orig, in) {
				t.Errorf("the original changed")
			}
		})
	}
}

func countDenials(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if gjson.GetBytes(l, "toolDenialKind").Str == "permission-rule" {
			n++
		}
	}
	return n
}

func countType(b []byte, flag string) int {
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if gjson.GetBytes(l, flag).Bool() {
			n++
		}
	}
	return n
}

// mainChars is the body characters of the main thread's user and assistant
// entries but API errors, which a resume does not send: the figure the
// report gives (the generated transcripts hold no compaction).
func mainChars(t *testing.T, b []byte) int {
	n := 0
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		e, err := transcript.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		if !e.IsSidechain && !e.IsAPIError && (e.Type == "user" || e.Type == "assistant") {
			n += e.Chars()
		}
	}
	return n
}

// gen writes random transcripts in the shapes Claude Code 2.1.328 writes:
// one assistant entry per content block chained by parentUuid, parallel
// calls whose results each hang off their own tool_use entry, denials,
// interruptions, API errors, hook progress entries and unknown lines.
type gen struct {
	r       *rand.Rand
	lines   []string
	n, msg  int
	tool    int
	last    string
	denials int
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 7))} }

var genCommands = []string{"git status", "ls -la", "cat a.txt", "make build", "rm -rf x", "git diff", "wc -l a.txt"}

func (g *gen) uuid() string { g.n++; return fmt.Sprintf("u%04d", g.n) }

func (g *gen) add(line string, uuid string) {
	g.lines = append(g.lines, line)
	if uuid != "" {
		g.last = uuid
	}
}

func (g *gen) parentJSON() string {
	if g.last == "" {
		return "null"
	}
	return strconv.Quote(g.last)
}

func (g *gen) transcript() []byte {
	g.prompt("start")
	for range 1 + g.r.IntN(12) {
		switch k := g.r.IntN(10); {
		case k == 0:
			g.prompt("go on")
		case k == 1:
			u := g.uuid()
			g.add(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"assistant","uuid":%q,"message":{"id":"err-%s","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Connection error."}]},"isApiErrorMessage":true,"sessionId":%q}`, g.parentJSON(), u, u, oldID), u)
		case k == 2:
			g.add(fmt.Sprintf(`{"type":"mystery","n":%d,"at":%s,"sessionId":%q}`, g.r.IntN(100), g.parentJSON(), oldID), "")
		default:
			g.turn()
		}
	}
	g.add(fmt.Sprintf(`{"type":"last-prompt","lastPrompt":"start","leafUuid":%s,"sessionId":%q}`, g.parentJSON(), oldID), "")
	return []byte(strings.Join(g.lines, "\n") + "\n")
}

func (g *gen) prompt(text string) {
	u := g.uuid()
	g.add(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":%q,"cwd":"/w","sessionId":%q}`, g.parentJSON(), text, u, oldID), u)
}

// turn writes one assistant response: maybe a text block, one to three
// calls, then their results in a random order.
func (g *gen) turn() {
	g.msg++
	block := func(content string) string {
		u := g.uuid()
		g.add(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"message":{"id":"msg_%d","role":"assistant","content":[%s],"usage":{"input_tokens":1}},"type":"assistant","uuid":%q,"sessionId":%q}`, g.parentJSON(), g.msg, content, u, oldID), u)
		return u
	}
	if g.r.IntN(2) == 0 {
		block(fmt.Sprintf(`{"type":"text","text":"step %d"}`, g.msg))
	}
	type call struct{ id, entry, cmd string }
	var calls []call
	for range 1 + g.r.IntN(3) {
		g.tool++
		id := fmt.Sprintf("toolu_%03d", g.tool)
		cmd := genCommands[g.r.IntN(len(genCommands))]
		entry := block(fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Bash","input":{"command":%q}}`, id, cmd))
		calls = append(calls, call{id, entry, cmd})
		if g.r.IntN(4) == 0 {
			pu := g.uuid()
			g.add(fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"type":"progress","toolUseID":%q,"parentToolUseID":%q,"uuid":%q,"sessionId":%q}`, entry, id, id, pu, oldID), "")
		}
	}
	g.r.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
	for _, c := range calls {
		u := g.uuid()
		body := strings.Repeat("output of "+c.cmd+"\n", 1+g.r.IntN(8))
		extra := ""
		switch g.r.IntN(6) {
		case 0:
			body, extra = "Permission to use Bash with command "+c.cmd+" has been denied.", `,"toolDenialKind":"permission-rule"`
			g.denials++
		case 1:
			body, extra = "[Request interrupted by user for tool use]", `,"toolDenialKind":"interrupted"`
		}
		g.add(fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q,"is_error":false}]},"uuid":%q,"toolUseResult":{"stdout":%q,"stderr":""}%s,"sessionId":%q}`,
			c.entry, c.id, body, u, body, extra, oldID), u)
	}
}

// expiredContent matches a tool_result content that is an expiry note.
var expiredContent = regexp.MustCompile(`"content":"\[` + "`[^`]+`" + ` from \d+ turns? ago expired; state may have changed, rerun if needed\]"`)

// TestPruneSessionExpiryNeedsRealGlances guards the expiry golden against a
// classifier that calls nothing a glance: it would pass vacuously.
func TestPruneSessionExpiryNeedsRealGlances(t *testing.T) {
	data, err := os.ReadFile("testdata/prune-session/expire.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(3, len(expiredContent.FindAllString(string(data), -1))); diff != "" {
		t.Errorf("expired results in the golden fork (-want +got):\n%s", diff)
	}
}

// TestPruneSessionRealTranscripts forks every real transcript with every
// rule on and checks what must hold on other people's data: the original
// (and its session folder) byte for byte as it was; what the fork keeps
// before the last compaction the original's lines but for the session id;
// every session id field the fork's; the breakage a third-party copy left
// (a call without its result, a parent that is gone) carried over, no more
// and no less; the last newline as the original has it or not.
func TestPruneSessionRealTranscripts(t *testing.T) {
	for _, path := range realTranscripts(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+transcript.SessionID(path)[:8], func(t *testing.T) {
			t.Parallel()
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			id := transcript.SessionID(path)
			project := t.TempDir()
			src := filepath.Join(project, id+".jsonl")
			if err := os.WriteFile(src, orig, 0o600); err != nil {
				t.Fatal(err)
			}
			subs, _ := transcript.Subagents(path)
			for _, sub := range subs {
				b, _ := os.ReadFile(sub)
				dst := filepath.Join(project, id, "subagents", filepath.Base(sub))
				os.MkdirAll(filepath.Dir(dst), 0o700)
				if err := os.WriteFile(dst, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			args := []string{"--session-id", newID, "--keep-recent", "0", "--keep-denials", "0", "--trim", "--trim-keep", "0", "--spill-dir", filepath.Join(project, "spill"), src}
			if code := prunesession.Main(args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			t.Logf("%s", stderr.String())
			if after, _ := os.ReadFile(src); !bytes.Equal(after, orig) {
				t.Errorf("the original changed")
			}
			if strings.TrimSpace(stdout.String()) == id {
				if entries, _ := os.ReadDir(project); len(entries) != 1+min(len(subs), 1) {
					t.Errorf("nothing to prune, but the project folder holds %d entries", len(entries))
				}
				return // nothing to prune (spotter-small/55604662: no glance, no tool result)
			}
			fork, err := os.ReadFile(filepath.Join(project, newID+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.HasSuffix(fork, []byte("\n")) != bytes.HasSuffix(orig, []byte("\n")) {
				t.Errorf("the fork ends in a newline: %v; the original: %v", bytes.HasSuffix(fork, []byte("\n")), bytes.HasSuffix(orig, []byte("\n")))
			}
			origLines := strings.Split(strings.TrimSuffix(string(orig), "\n"), "\n")
			forkLines := strings.Split(strings.TrimSuffix(string(fork), "\n"), "\n")
			cut := 0
			for i, l := range origLines {
				if gjson.Get(l, "subtype").Str == "compact_boundary" {
					cut = i
				}
			}
			for i, l := range forkLines[:cut] {
				if back := strings.ReplaceAll(l, newID, id); back != origLines[i] {
					t.Fatalf("line %d, before the last compaction, changed:\n%s\n%s", i+1, origLines[i], l)
				}
			}
			for i, l := range forkLines {
				for _, key := range []string{"sessionId", "session_id"} {
					if v := gjson.Get(l, key); v.Exists() && v.Str != newID {
						t.Fatalf("line %d: %s %q", i+1, key, v.Str)
					}
				}
			}
			if diff := cmp.Diff(verifyKinds(orig), verifyKinds(fork)); diff != "" {
				t.Errorf("what is broken changed (-original +fork):\n%s", diff)
			}
		})
	}
}

// verifyKinds is what support.Verify finds in b, without line numbers.
func verifyKinds(b []byte) []string {
	var out []string
	for _, p := range support.Verify(bytes.NewReader(b)) {
		out = append(out, regexp.MustCompile(`^line \d+: `).ReplaceAllString(p, ""))
	}
	return out
}

// TestPruneSessionFinalNewline: a transcript that does not end in a newline
// (Entire's copies do not) gives a fork that does not either, its subagent
// transcripts too; one that does gives one that does.
func TestPruneSessionFinalNewline(t *testing.T) {
	lines := []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"e001","sessionId":"` + oldID + `"}`,
		`{"parentUuid":"e001","isSidechain":false,"type":"assistant","uuid":"e002","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 529"}]},"isApiErrorMessage":true,"sessionId":"` + oldID + `"}`,
		`{"parentUuid":"e001","isSidechain":false,"type":"assistant","uuid":"e003","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"hello"}]},"sessionId":"` + oldID + `"}`,
	}
	sub := `{"parentUuid":null,"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":"go"},"uuid":"s001","sessionId":"` + oldID + `"}`
	for _, final := range []string{"", "\n"} {
		t.Run(strconv.Quote(final), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, oldID+".jsonl")
			if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+final), 0o600); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, oldID, "subagents"), 0o700)
			if err := os.WriteFile(filepath.Join(dir, oldID, "subagents", "agent-a1.jsonl"), []byte(sub+final), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := prunesession.Main([]string{"--session-id", newID, src}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			for _, f := range []string{newID + ".jsonl", filepath.Join(newID, "subagents", "agent-a1.jsonl")} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if got := bytes.HasSuffix(b, []byte("\n")); got != (final != "") {
					t.Errorf("%s ends in a newline: %v, want %v", f, got, final != "")
				}
				if bytes.Contains(b, []byte("\n\n")) || bytes.HasPrefix(b, []byte("\n")) {
					t.Errorf("%s holds an empty line: %q", f, b)
				}
			}
		})
	}
}
