package prunesession

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/tests/cputime"
	"github.com/flowerhooks/flower/tests/support"
)

func TestExpiredNote(t *testing.T) {
	tests := []struct {
		cmd  string
		ago  int
		want string
	}{
		{"git status -s", 7, "[`git status -s` from 7 turns ago expired; state may have changed, rerun if needed]"},
		{"ls", 1, "[`ls` from 1 turn ago expired; state may have changed, rerun if needed]"},
		{"ls\n  -la\u2028x", 0, "[`ls -la x` from the latest turn expired; state may have changed, rerun if needed]"},
		{strings.Repeat("é", 130), 2, "[`" + strings.Repeat("é", maxNoteCommand) + "...` from 2 turns ago expired; state may have changed, rerun if needed]"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, expiredNote(noteCommand(tt.cmd), tt.ago)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpiredNoteShape: the note stays one line, ASCII but for the command,
// and within its budget however long or odd the command, so that expiring
// a short result costs little.
func TestExpiredNoteShape(t *testing.T) {
	// noteBudget is the longest note: the fixed text, a command cut to
	// maxNoteCommand plus "...", and a turn count of up to 6 digits.
	const noteBudget = 72 + maxNoteCommand + 3 + 6
	for _, cmd := range []string{"", "ls", strings.Repeat("x ", 500), "cat \"a\nb\"\r\n", "echo \u2029\u0085done", "git status -s && git log --oneline -10"} {
		for _, ago := range []int{0, 1, 7, 999999} {
			note := expiredNote(noteCommand(cmd), ago)
			if strings.ContainsAny(note, "\n\r\u2028\u2029\u0085") {
				t.Errorf("note for %q spans lines: %q", cmd, note)
			}
			if n := len([]rune(note)); n > noteBudget {
				t.Errorf("note for %q is %d characters, over %d: %q", cmd, n, noteBudget, note)
			}
			rest := strings.Replace(note, strings.Join(strings.Fields(cmd), " "), "", 1)
			for _, r := range rest {
				if r >= utf8.RuneSelf {
					t.Errorf("note for %q is not ASCII outside the command: %q", cmd, note)
					break
				}
			}
		}
	}
}

func TestResolve(t *testing.T) {
	p := &plan{}
	p.dropped = map[string]string{"b": "a", "c": "b", "r": "", "x": "y", "y": "x"}
	tests := map[string]string{"a": "a", "b": "a", "c": "a", "r": "", "x": "", "z": "z"}
	for in, want := range tests {
		if got := p.resolve(in); got != want {
			t.Errorf("resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSetSessionID(t *testing.T) {
	const oldID, newID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	tests := []struct{ name, in, want string }{
		{"in place", `{"type":"x","sessionId":"` + oldID + `","a":1}`, `{"type":"x","sessionId":"` + newID + `","a":1}`},
		{"nested", `{"type":"x","data":{"sessionId":"` + oldID + `"}}`, `{"type":"x","data":{"sessionId":"` + newID + `"}}`},
		{"both", `{"type":"x","sessionId":"` + oldID + `","session_id":"` + oldID + `"}`, `{"type":"x","sessionId":"` + newID + `","session_id":"` + newID + `"}`},
		{"snake case first", `{"session_id":"` + oldID + `","type":"x","sessionId":"` + oldID + `"}`, `{"session_id":"` + newID + `","type":"x","sessionId":"` + newID + `"}`},
		{"snake case of another session", `{"type":"x","sessionId":"` + oldID + `","session_id":"abc"}`, `{"type":"x","sessionId":"` + newID + `","session_id":"abc"}`},
		{"a tool's output", `{"type":"user","sessionId":"` + oldID + `","toolUseResult":{"stdout":"{\"session_id\":\"` + oldID + `\"}","session_id":"` + oldID + `"}}`,
			`{"type":"user","sessionId":"` + newID + `","toolUseResult":{"stdout":"{\"session_id\":\"` + oldID + `\"}","session_id":"` + newID + `"}}`},
		{"deep", `{"type":"attachment","attachment":{"hookInput":[{"session_id":"` + oldID + `","parentSessionId":"` + oldID + `","other":"` + oldID + `"}]}}`,
			`{"type":"attachment","attachment":{"hookInput":[{"session_id":"` + newID + `","parentSessionId":"` + newID + `","other":"` + oldID + `"}]}}`},
		{"another session's", `{"type":"x","bridgeSessionId":"abc","data":{"session_id":"abc"}}`, `{"type":"x","bridgeSessionId":"abc","data":{"session_id":"abc"}}`},
		{"a key to escape", `{"type":"x","a.b":{"*session":"` + oldID + `"}}`, `{"type":"x","a.b":{"*session":"` + newID + `"}}`},
		{"what the model reads", `{"type":"user","message":{"content":[{"type":"tool_use","input":{"session_id":"` + oldID + `"}}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_use","input":{"session_id":"` + oldID + `"}}]}}`},
		{"other id", `{"type":"x","sessionId":"abc"}`, `{"type":"x","sessionId":"` + newID + `"}`},
		{"escaped", `{"type":"x","sessionId":"11111111-1111-4111-8111-11111111111\u0031"}`, `{"type":"x","sessionId":"` + newID + `"}`},
		{"none", `{"type":"x"}`, `{"type":"x"}`},
		// Keys that mean something in a gjson or sjson path.
		{"odd keys", `{"type":"x","a":{":session":"` + oldID + `","":{"session":"` + oldID + `"},"0":{"session":"` + oldID + `"},"a\\b":{"|session#@":"` + oldID + `"},"snapshot":{"session.ex":"` + oldID + `"}}}`,
			`{"type":"x","a":{":session":"` + newID + `","":{"session":"` + newID + `"},"0":{"session":"` + newID + `"},"a\\b":{"|session#@":"` + newID + `"},"snapshot":{"session.ex":"` + newID + `"}}}`},
		{"escaped key", `{"type":"x","a":{"sess\u0069on":"` + oldID + `"}}`, `{"type":"x","a":{"sess\u0069on":"` + newID + `"}}`},
		// JSON.parse takes the last of a key written twice, gjson and sjson the first.
		{"key twice", `{"type":"x","a":{"session":"` + oldID + `"},"a":{"session":"` + oldID + `"}}`, `{"type":"x","a":{"session":"` + newID + `"},"a":{"session":"` + newID + `"}}`},
		// A copy named after no session: the line's own id is the session's.
		{"renamed copy", `{"type":"x","sessionId":"33333333-3333-4333-8333-333333333333","session_id":"33333333-3333-4333-8333-333333333333","a":{"hookInput":{"session_id":"33333333-3333-4333-8333-333333333333"}},"b":{"session_id":"` + oldID + `"}}`,
			`{"type":"x","sessionId":"` + newID + `","session_id":"` + newID + `","a":{"hookInput":{"session_id":"` + newID + `"}},"b":{"session_id":"` + newID + `"}}`},
		{"array of ids", `{"type":"x","sessions":["` + oldID + `",{"session":"` + oldID + `"}]}`, `{"type":"x","sessions":["` + oldID + `",{"session":"` + newID + `"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := setSessionID(nil, []byte(tt.in), oldID, newID)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetSessionIDBounded: a line of a hostile copy with the id at every
// level of 100,000 nested objects, or in 100,000 fields side by side, is
// rewritten in time and memory about the line's. A walk by paths took
// minutes and gigabytes for the first (the path of each level built anew)
// and one sjson copy of the line per field for the second; the deep one
// ran out of memory and exited 2.
func TestSetSessionIDBounded(t *testing.T) {
	const oldID, newID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	const n = 100_000
	field := `{"sessionId":"` + oldID + `","a":`
	tests := []struct {
		name, in string
		want     int // fields of the fork holding newID
	}{
		{"deep", `{"type":"x","data":` + strings.Repeat(field, n) + `1` + strings.Repeat("}", n) + `}`, maxSessionDepth - 1},
		{"wide", `{"type":"x","data":[` + strings.Repeat(`{"session_id":"`+oldID+`"},`, n) + `1]}`, n},
	}
	for _, tt := range tests {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var got []byte
		took := cputime.Of(func() { got = setSessionID(nil, []byte(tt.in), oldID, newID) })
		runtime.ReadMemStats(&after)
		if n := bytes.Count(got, []byte(newID)); n != tt.want {
			t.Errorf("%s: %d fields rewritten, want %d", tt.name, n, tt.want)
		}
		if len(got) != len(tt.in) || !gjson.ValidBytes(got) {
			t.Errorf("%s: the fork's line is not the original with the id changed", tt.name)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: allocated %d MB, want a few", tt.name, alloc>>20)
		}
		if took > 2*time.Second {
			t.Errorf("%s: took %v, want well under a second", tt.name, took)
		}
	}
}

func TestNewSessionID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id, err := newSessionID()
		if err != nil {
			t.Fatal(err)
		}
		if !uuidShape.MatchString(id) || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("%q is not a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("%q twice", id)
		}
		seen[id] = true
	}
}

// fuzzSeeds are transcripts in the shapes the golden cases use.
var fuzzSeeds = []string{
	`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"a","cwd":"/w","sessionId":"s"}
{"parentUuid":"a","isSidechain":false,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"git status"}}]},"type":"assistant","uuid":"b","sessionId":"s"}
{"parentUuid":"b","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"clean"}]},"uuid":"c","toolUseResult":{"stdout":"clean","stderr":""},"sessionId":"s"}
`,
	`{"parentUuid":null,"type":"user","message":{"content":"x"},"uuid":"a"}
{"parentUuid":"a","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"rm x"}},{"type":"tool_use","id":"u","name":"Bash","input":{"command":"ls"}}]},"type":"assistant","uuid":"b"}
{"parentUuid":"b","type":"user","message":{"content":[{"tool_use_id":"t","type":"tool_result","content":"no"}]},"uuid":"c","toolUseResult":"Error: no","toolDenialKind":"permission-rule"}
{"parentUuid":"c","type":"user","message":{"content":[{"tool_use_id":"u","type":"tool_result","content":"x"}]},"uuid":"d","toolDenialKind":"interrupted"}
{"parentUuid":"d","type":"assistant","uuid":"e","message":{"content":[{"type":"text","text":"API Error"}]},"isApiErrorMessage":true}
{"type":"last-prompt","leafUuid":"e"}
`,
}

// FuzzPrune: a transcript is refused or pruned, never a panic; a pruned one
// is rewritten without error, every output line parses, a whole input (one
// that passes Verify) gives a whole fork, and a broken one a fork broken in
// no new way: what was broken is carried over, nothing more.
func FuzzPrune(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, keep uint8) {
		o := options{keepRecent: int(keep % 3), keepDenials: int(keep % 2), trim: true, trimMin: 3, trimKeep: int(keep % 2), spillDir: t.TempDir()}
		p, err := readPlan(bytes.NewReader(in), o)
		if err != nil {
			return
		}
		// The new id is a UUID, as Main checks: a spill file's name takes its
		// first eight characters.
		rw := &rewriter{p: p, oldID: "s", newID: "22222222-2222-4222-8222-222222222222", writeSpills: false}
		var out bytes.Buffer
		if err := rw.rewrite(bytes.NewReader(in), &out); err != nil {
			t.Fatalf("planned but not rewritten: %v", err)
		}
		rd := transcript.NewReader(bytes.NewReader(out.Bytes()))
		for {
			line, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if _, err := transcript.Parse(line); err != nil {
				t.Fatalf("output line %d does not parse: %v\n%s", rd.Line(), err, line)
			}
		}
		was := map[string]bool{}
		for _, p := range support.Verify(bytes.NewReader(in)) {
			was[problemKind(p)] = true
		}
		for _, p := range support.Verify(bytes.NewReader(out.Bytes())) {
			if !was[problemKind(p)] {
				t.Fatalf("the fork is broken in a new way: %s (the input: %v)\n--- in\n%s--- out\n%s", p, was, in, out.Bytes())
			}
		}
		inLoops := onLoops(t, in)
		for u := range onLoops(t, out.Bytes()) {
			if !inLoops[u] {
				t.Fatalf("the fork's parentUuid chains loop through %s, the input's do not\n--- in\n%s--- out\n%s", u, in, out.Bytes())
			}
		}
	})
}

// onLoops is the set of uuids that lie on a loop of parentUuid links, an
// entry's uuid naming its last entry as Claude Code reads it (a map).
func onLoops(t *testing.T, b []byte) map[string]bool {
	parent := map[string]string{}
	rd := transcript.NewReader(bytes.NewReader(b))
	for {
		line, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if e, err := transcript.Parse(line); err == nil && e.UUID != "" {
			parent[e.UUID] = e.ParentUUID
		}
	}
	on := map[string]bool{}
	for start := range parent {
		// A walk up that comes back to where it started is a loop through it.
		for u, n := parent[start], 0; u != "" && n <= len(parent); u, n = parent[u], n+1 {
			if u == start {
				on[start] = true
				break
			}
		}
	}
	return on
}

// problemKind is a problem support.Verify finds, without what differs
// between a transcript and its fork for the same breakage: line numbers,
// which entry is the newest leaf (removing entries can make another one
// the newest, whose chain meets the same gap or loop), and which field
// names a missing entry (a removed entry's children point at what it
// pointed at).
// Which entry a loop is said to loop at depends on where the walk started:
// the entries on loops are compared apart (onLoops).
var (
	lineNumber = regexp.MustCompile(`^line \d+: `)
	leafChain  = regexp.MustCompile(`^the chain (?:from the newest leaf .*?|of parentUuid) (breaks|loops) at (.*)$`)
	missing    = regexp.MustCompile(`^(?:parentUuid|logicalParentUuid|leafUuid) (.*) names no entry$`)
)

func problemKind(p string) string {
	p = lineNumber.ReplaceAllString(p, "")
	if m := leafChain.FindStringSubmatch(p); m != nil {
		if m[1] == "loops" {
			return "a loop"
		}
		return m[2] + " names no entry" // a chain breaks where a parentUuid names none
	}
	return missing.ReplaceAllString(p, "$1 names no entry")
}

// TestCopySessionDirModes: each folder of the copy has its source folder's
// permission bits, a read-only one included; files are written 0o600.
func TestCopySessionDirModes(t *testing.T) {
	const oldID, newID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	root := t.TempDir()
	src := filepath.Join(root, oldID)
	want := map[string]fs.FileMode{
		".":                             0o750,
		"subagents":                     0o711,
		"subagents/agent-a.jsonl":       0o600,
		"tool-results":                  0o555,
		"tool-results/toolu_1.txt":      0o600,
		"tool-results/deeper":           0o700,
		"tool-results/deeper/notes.txt": 0o600,
		transcript.ForkMarker:           0o600,
	}
	files := map[string]string{
		// src is a fork itself: its marker is replaced, not copied.
		transcript.ForkMarker:           `{"forkedFrom":"00000000-0000-4000-8000-000000000000"}`,
		"subagents/agent-a.jsonl":       `{"type":"user","sessionId":"` + oldID + `","message":{"role":"user","content":"hi"}}` + "\n",
		"tool-results/toolu_1.txt":      "output\n",
		"tool-results/deeper/notes.txt": "n\n",
	}
	for rel, body := range files {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Modes set after the fact, deepest first, so the umask plays no part
	// and the read-only folder could be filled.
	for _, rel := range []string{"tool-results/deeper", "tool-results", "subagents", "."} {
		if err := os.Chmod(filepath.Join(src, rel), want[rel]); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "tool-results"), 0o700) })
	dst := filepath.Join(root, newID)
	if err := copySessionDir(context.Background(), src, dst, nil, oldID, newID, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dst, "tool-results"), 0o700) })
	got := map[string]fs.FileMode{}
	err := filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, path)
		got[filepath.ToSlash(rel)] = info.Mode().Perm()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("modes of the copy (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "subagents", "agent-a.jsonl")); !strings.Contains(string(b), newID) {
		t.Errorf("the subagent transcript was not given the new id: %s", b)
	}
}

// TestCopySessionDirMarker: the fork's folder names the session it came
// from, also when that session had no folder; a dry run writes nothing.
func TestCopySessionDirMarker(t *testing.T) {
	const oldID, newID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	root := t.TempDir()
	src, dst := filepath.Join(root, oldID), filepath.Join(root, newID)
	if err := copySessionDir(context.Background(), src, "", nil, oldID, newID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dst); !os.IsNotExist(err) {
		t.Fatalf("a dry run left %s (%v)", dst, err)
	}
	if err := copySessionDir(context.Background(), src, dst, nil, oldID, newID, true); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != transcript.ForkMarker {
		t.Errorf("the fork's folder holds %v, want the marker alone", entries)
	}
	if diff := cmp.Diff(oldID, transcript.ForkedFrom(dst+".jsonl")); diff != "" {
		t.Errorf("ForkedFrom (-want +got):\n%s", diff)
	}
}

// TestLongTranscript prunes a transcript of many batches, so that pass one
// reuses its line buffers many times over: whatever the plan keeps from a
// line (a glance's command, ids, the session id) must be its own copy, or
// a later line overwrites it. Each expiry note must quote the command of
// its own call, each trimmed result's spill file must be named after its
// own call, and every line must carry the fork's id.
func TestLongTranscript(t *testing.T) {
	const oldID, newID = "0b0b0b0b-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	dir := t.TempDir()
	src := filepath.Join(dir, oldID+".jsonl")
	// A one-word glance too: the plan's quoting of it could be the line's
	// own bytes.
	in := strings.ReplaceAll(string(benchTranscript(8<<20)), `"command":"ls -la"`, `"command":"pwd"`)
	if err := os.WriteFile(src, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--session-id", newID, "--trim", "--trim-min", "1000", "--trim-keep", "0", "--spill-dir", filepath.Join(dir, "spill"), src}
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out, err := os.ReadFile(filepath.Join(dir, newID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{}
	notes, trims := 0, 0
	for i, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if sid := gjson.Get(line, "sessionId").Str; sid != newID {
			t.Fatalf("line %d: sessionId %q, want %q", i+1, sid, newID)
		}
		for _, b := range gjson.Get(line, "message.content").Array() {
			switch b.Get("type").Str {
			case "tool_use":
				commands[b.Get("id").Str] = b.Get("input.command").Str
			case "tool_result":
				body := b.Get("content").Str
				if strings.HasPrefix(body, "[Spilled") {
					trims++
					if name := "/prune-22222222-" + b.Get("tool_use_id").Str + ".txt."; !strings.Contains(body, name) {
						t.Fatalf("line %d: the pointer %.300q names another file than %q", i+1, body, name)
					}
				}
				if !strings.Contains(body, " expired; state may have changed") {
					continue
				}
				notes++
				if cmd := commands[b.Get("tool_use_id").Str]; !strings.HasPrefix(body, "[`"+cmd+"` from ") {
					t.Fatalf("line %d: the note %q is for another command than %q", i+1, body, cmd)
				}
			}
		}
	}
	if notes < 500 || trims < 300 {
		t.Fatalf("%d expiry notes and %d trimmed results, want the transcript's hundreds of each", notes, trims)
	}
}

// The id to resume comes before the report, for a reader of both streams
// merged (prune-session ID 2>&1).
func TestIDBeforeReport(t *testing.T) {
	const oldID, newID = "0b0b0b0b-1111-4111-8111-111111111111", "33333333-3333-4333-8333-333333333333"
	dir := t.TempDir()
	src := filepath.Join(dir, oldID+".jsonl")
	if err := os.WriteFile(src, benchTranscript(64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	var both bytes.Buffer
	if code := Main([]string{"--session-id", newID, "--keep-recent", "0", src}, strings.NewReader(""), &both, &both); code != 0 {
		t.Fatalf("exit %d: %s", code, both.String())
	}
	if first, rest, _ := strings.Cut(both.String(), "\n"); first != newID || rest == "" {
		t.Errorf("merged output starts %q, want the id %s and then the report:\n%s", first, newID, both.String())
	}
}
