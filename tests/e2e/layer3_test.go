package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Layer three: spill-guard writes long tool results to the workbench's
// spill/ folder and leaves the model a pointer and the first characters;
// a Read of a spill file is never spilled again.

// seqCmd is the design's example of a long output. The CLI cuts Bash
// output over 30,000 characters and persists the whole of it; spill-guard
// must spill the whole, not the cut.
const (
	seqCmd   = "seq 1 20000"
	seqChars = 108894 // len of the output of seq 1 20000
)

// spillPointer finds the spill file a pointer names.
var spillPointer = regexp.MustCompile(`\[Spilled to a file to keep it out of context: (\d+) characters, (\d+) lines, in full at (\S+\.txt)\. Use Read`)

// TestLayer3SubagentSeqSpilled: a subagent runs seq 1 20000; it is shown a
// pointer and the first 400 characters, the spill file holds the whole
// output, and reading that file back (with offset/limit, as the pointer
// says, more than the threshold) is shown in full, not spilled again.
func TestLayer3SubagentSeqSpilled(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const task = "Run seq 1 20000 and read its output back. Reply with the last number."
	s.API.Main(Steps(
		Call(Agent("dispatch", task)),
		Say("The last number is 20000."),
	))
	var spillPath string
	s.API.Agent(task, func(r *Request) Reply {
		switch r.Step() {
		case 0:
			return Call(Bash("seq", seqCmd))
		case 1:
			var ok bool
			if spillPath, ok = pointedFile(t, r, "seq", seqCmd); !ok {
				return Say("no pointer")
			}
			return Call(ToolUse{ID: "readback", Name: "Read", Input: map[string]any{"file_path": spillPath, "offset": 1, "limit": 2000}})
		default:
			return Say("20000")
		}
	})
	s.Run(Options{Prompt: "run the numbers", Settings: Settings(LayerHooks(t, "1", "3")...), AllowedTools: handsOn})

	seq, ok := s.API.ToolResult("seq")
	if !ok {
		t.Fatal("no request carried the result of seq")
	}
	m := spillPointer.FindStringSubmatch(seq.Text)
	if m == nil {
		t.Fatalf("the result of %s is not a pointer: %.600q", seqCmd, seq.Text)
	}
	if want := fmt.Sprintf("%d", seqChars); m[1] != want || m[2] != "20000" {
		t.Errorf("the pointer says %s characters, %s lines; want %s, 20000", m[1], m[2], want)
	}
	if !strings.HasPrefix(m[3], s.Path(".flower/spill")+"/") {
		t.Errorf("spill file %s is not in %s", m[3], s.Path(".flower/spill"))
	}
	var want strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if want.Len() != seqChars {
		t.Fatalf("expected output has %d characters, want %d", want.Len(), seqChars)
	}
	// Exactly what the model is shown: the pointer and the first 400
	// characters, trimmed at the end as the CLI trims every Bash output.
	// spill-guard drops persistedOutputPath and persistedOutputSize; with
	// them, the CLI 2.1.328 would wrap this in its own "<persisted-output>
	// Output too large (106.3KB). Full output saved to: <its copy> …
	// Preview (first 2KB):" header (959 characters shown instead of 665).
	wantShown := "[Spilled to a file to keep it out of context: 108894 characters, 20000 lines, in full at " +
		s.Path(".flower/spill/Bash-seq-stdout.txt") +
		". Use Read on that file with offset/limit to see the rest. The first 400 characters follow.]\n" +
		strings.TrimRight(want.String()[:400], "\n")
	if diff := cmp.Diff(wantShown, seq.Text); diff != "" {
		t.Errorf("what the model was shown of %s (-want +got):\n%s", seqCmd, diff)
	}

	got, err := os.ReadFile(m[3])
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("the spill file holds %d bytes, not the whole output of %s (%d)", len(got), seqCmd, seqChars)
	}
	if fi, err := os.Stat(m[3]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("spill file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}

	back, ok := s.API.ToolResult("readback")
	if !ok {
		t.Fatal("no request carried the result of the Read of the spill file")
	}
	if back.IsError || strings.Contains(back.Text, "[Spilled") || !strings.Contains(back.Text, "1999") || len(back.Text) < 4000 {
		t.Errorf("the Read of the spill file was not shown whole (is_error %v, %d characters): %.400q", back.IsError, len(back.Text), back.Text)
	}
	if entries, _ := filepath.Glob(s.Path(".flower/spill/*.txt")); len(entries) != 1 {
		t.Errorf("%d files in spill/, want 1 (the read-back was spilled again?)", len(entries))
	}
}

// TestLayer3GlancesAtSpillFilesShownWhole: a subagent's seq 1 2000 is
// spilled (delegate-guard keeps seq off the main thread); two glances that read the spill file back through the shell,
// one by a glob (cat .flower/spill/*) and one after a cd (cd .flower && cat
// spill/<file>), reach the model whole, byte for byte what the file holds;
// and a later seq 1 2000 | cat, which reads no spill file, is still spilled.
func TestLayer3GlancesAtSpillFilesShownWhole(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	const (
		first = "seq 1 2000"
		glob  = "cat .flower/spill/*"
		later = "seq 1 2000 | cat"
		task  = "Count to 2000, then read the count back from its spill file."
	)
	s.API.Main(Steps(
		Call(Agent("dispatch", task)),
		Say("Counted to 2000."),
	))
	var spilled string // the path of the file first was spilled to
	s.API.Agent(task, func(r *Request) Reply {
		switch r.Step() {
		case 0:
			return Call(Bash("first", first))
		case 1:
			var ok bool
			if spilled, ok = pointedFile(t, r, "first", first); !ok {
				return Say("no pointer")
			}
			return Call(Bash("glob", glob))
		case 2:
			return Call(Bash("cd", "cd .flower && cat spill/"+filepath.Base(spilled)))
		case 3:
			return Call(Bash("later", later))
		default:
			return Say("2000")
		}
	})
	s.Run(Options{Prompt: "count to 2000", Settings: Settings(LayerHooks(t, "1", "3")...), AllowedTools: handsOn})
	if spilled == "" {
		t.Fatal("the first seq was not spilled")
	}

	// seqOut is what spill-guard is given of seq 1 2000: its output less
	// the last newline, which the CLI trims from every Bash output before
	// the hook sees it (a longer output, cut and persisted by the CLI, is
	// spilled from the CLI's copy and keeps it: TestLayer3SubagentSeqSpilled).
	// 8,892 characters: over spill-guard's default threshold of 4,000,
	// under the CLI's cut at 30,000.
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	seqOut := strings.TrimSuffix(b.String(), "\n")
	file, err := os.ReadFile(spilled)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(seqOut, string(file)); diff != "" {
		t.Fatalf("spill file %s (-want +got):\n%s", spilled, diff)
	}

	// Each glance's output is the file itself, so the model must be shown
	// exactly what the file holds: no pointer, nothing cut.
	for _, id := range []string{"glob", "cd"} {
		got, ok := s.API.ToolResult(id)
		if !ok {
			t.Errorf("no request carried the result of %s", id)
			continue
		}
		if got.IsError {
			t.Errorf("%s failed: %.400q", id, got.Text)
		}
		if spillPointer.MatchString(got.Text) {
			t.Errorf("the %s glance at the spill file was spilled again: %.300q", id, got.Text)
		} else if diff := cmp.Diff(string(file), got.Text); diff != "" {
			t.Errorf("what the subagent was shown of the %s glance at the spill file (-want +got):\n%s", id, diff)
		}
	}

	got, ok := s.API.ToolResult("later")
	if !ok {
		t.Fatalf("no request carried the result of %s", later)
	}
	m := spillPointer.FindStringSubmatch(got.Text)
	if m == nil {
		t.Fatalf("%s, which reads no spill file, was not spilled: %.600q", later, got.Text)
	}
	if m[1] != fmt.Sprint(len(seqOut)) || m[2] != "2000" || filepath.Dir(m[3]) != s.Path(".flower/spill") {
		t.Errorf("the pointer for %s says %s characters, %s lines, in %s; want %d, 2000, in %s", later, m[1], m[2], m[3], len(seqOut), s.Path(".flower/spill"))
	}
	if again, err := os.ReadFile(m[3]); err != nil || string(again) != seqOut {
		t.Errorf("the spill file of %s does not hold its output (%d bytes, %v)", later, len(again), err)
	}
	if entries, _ := filepath.Glob(s.Path(".flower/spill/*.txt")); len(entries) != 2 {
		t.Errorf("%d files in spill/, want 2 (the two seqs; a glance at a spill file spilled again?)", len(entries))
	}
}

// pointedFile is the spill file the pointer in the result of the call id
// (the command cmd) names; false, after reporting it, when there is none.
func pointedFile(t *testing.T, r *Request, id, cmd string) (string, bool) {
	t.Helper()
	got, _ := r.ToolResult(id)
	m := spillPointer.FindStringSubmatch(got.Text)
	if m == nil {
		t.Errorf("the subagent was shown no spill pointer for %s: %.600q", cmd, got.Text)
		return "", false
	}
	return m[3], true
}
