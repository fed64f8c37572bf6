package prunesession

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// trimmable writes a transcript of n calls whose results --trim moves to
// the spill folder, each a few KB, into project, and returns its path.
func trimmable(t *testing.T, project string, n int) string {
	t.Helper()
	var b strings.Builder
	parent := "null"
	body := strings.Repeat("build output line\n", 200)
	for i := range n {
		tool := fmt.Sprintf("toolu_%d", i)
		command := "make"
		if i == 0 {
			command = "git status" // a glance: --keep-recent 0 has a change to make
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"type":"assistant","cwd":"/w","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":%q}}]},"uuid":"a%d","sessionId":"s"}`+"\n", parent, i, tool, command, i)
		fmt.Fprintf(&b, `{"parentUuid":"a%d","type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q}]},"uuid":"b%d","sessionId":"s"}`+"\n", i, tool, body, i)
		parent = strconv.Quote(fmt.Sprintf("b%d", i))
	}
	src := filepath.Join(project, oldForkSource+".jsonl")
	if err := os.WriteFile(src, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return src
}

const oldForkSource = "0b0b0b0b-1111-4111-8111-111111111111"

// startTrim starts prune-session --trim on src in a child process and
// returns it once it has written its first spill files: it is then in
// pass two, with a fork folder and a temporary transcript on disk.
func startTrim(t *testing.T, src, spillDir string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "--trim", "--trim-min", "100", "--trim-keep", "0", "--spill-dir", spillDir, src)
	cmd.Env = append(os.Environ(), childRun+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if files := spilled(spillDir); len(files) >= 20 {
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no spill files after a minute; stderr %q", stderr.String())
		}
	}
}

// TestSignalLeavesNothing: prune-session stopped by SIGTERM, SIGINT or
// SIGHUP in the middle of writing a fork removes what it wrote (the fork's
// folder, its temporary transcript, the spill files of --trim) and exits 1
// with one line on stderr.
func TestSignalLeavesNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			project, spillDir := t.TempDir(), t.TempDir()
			src := trimmable(t, project, 20000)
			cmd, stderr := startTrim(t, src, spillDir)
			cmd.Process.Signal(sig)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "interrupted") {
				t.Fatalf("exit %d, stderr %q; want 1 and one line saying it was interrupted", code, stderr.String())
			}
			if left := spilled(spillDir); len(left) != 0 {
				t.Errorf("spill files left, want none: %v", left)
			}
			if left, _ := os.ReadDir(project); len(left) != 1 {
				t.Errorf("the project folder holds %v, want only the original", names(left))
			}
		})
	}
}

// TestKilledRunCleanedByNextRun: a SIGKILL leaves the fork's folder, its
// temporary transcript and spill files; the next run in the project
// removes them once they are older than staleAfter, and keeps younger ones,
// which may be a live run's.
func TestKilledRunCleanedByNextRun(t *testing.T) {
	project, spillDir := t.TempDir(), t.TempDir()
	src := trimmable(t, project, 20000)
	cmd, _ := startTrim(t, src, spillDir)
	cmd.Process.Kill()
	cmd.Wait()
	killed, _ := os.ReadDir(project)
	before := spilled(spillDir)
	if len(killed) < 3 || len(before) == 0 {
		t.Fatalf("the kill left %v and %d spill files: nothing to clean", names(killed), len(before))
	}

	// Younger than staleAfter: kept.
	run := func() {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"--keep-recent", "0", src}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		fork := filepath.Join(project, strings.TrimSpace(stdout.String()))
		if err := os.Remove(fork + ".jsonl"); err != nil {
			t.Fatal(err)
		}
		removeTree(fork)
	}
	run()
	if left, _ := os.ReadDir(project); len(left) != len(killed) {
		t.Fatalf("a run removed young leftovers: %v, was %v", names(left), names(killed))
	}
	if left := spilled(spillDir); len(left) != len(before) {
		t.Fatalf("a run removed young spill files: %d, was %d", len(left), len(before))
	}

	// Older: removed, every one.
	old := time.Now().Add(-2 * staleAfter)
	for _, dir := range []string{project, spillDir} {
		filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			if err == nil && p != dir {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	run()
	if left, _ := os.ReadDir(project); len(left) != 1 {
		t.Errorf("the project folder holds %v, want only the original", names(left))
	}
	if left := spilled(spillDir); len(left) != 0 {
		t.Errorf("spill files of the killed run left, want none: %v", left)
	}
}

// TestRemoveStale: what a run removes, and what it leaves: other
// sessions' folders, forks that are whole, files a list names outside a
// file --trim would write, anything young.
func TestRemoveStale(t *testing.T) {
	root := t.TempDir()
	project, spillDir, other := filepath.Join(root, "project"), filepath.Join(root, "ws", ".flower", "spill"), filepath.Join(root, "other")
	const (
		gone  = "33333333-3333-4333-8333-333333333333" // a fork killed before its transcript
		whole = "44444444-4444-4444-8444-444444444444" // a fork killed after it
		young = "55555555-5555-4555-8555-555555555555"
		plain = "66666666-6666-4666-8666-666666666666" // a session of Claude Code's, no transcript
	)
	files := map[string]string{
		"project/." + gone + ".jsonl.tmp-123":                        "partial",
		"project/." + gone + ".tmp-456/subagents/a.txt":              "x",
		"project/" + gone + "/" + transcript.ForkMarker:              "{}",
		"project/" + gone + "/" + spillList:                          spillDir + "/\n" + other + "\n" + "relative/dir\n",
		"project/" + whole + ".jsonl":                                "{}",
		"project/" + whole + "/" + transcript.ForkMarker:             "{}",
		"project/" + whole + "/" + spillList:                         spillDir + "/\n",
		"project/" + plain + "/subagents/agent-a.jsonl":              "{}",
		"project/" + young + "/" + transcript.ForkMarker:             "{}",
		"ws/.flower/spill/prune-33333333-toolu_1.txt":                "body", // the killed fork's
		"ws/.flower/spill/prune-33333333-toolu_1-2.txt":              "body",
		"ws/.flower/spill/prune-44444444-toolu_1.txt":                "body", // another fork's
		"other/prune-33333333-toolu_5.txt":                           "body", // a folder the list names, not its spill folder: a file named after the fork goes too
		"ws/.flower/spill/.tmp/.prune-33333333-toolu_9.txt.tmp-77-1": "partial",
		"ws/.flower/spill/prune-44444444-toolu_3.txt":                "body",
		"ws/.flower/spill/notes.txt":                                 "mine",
		"other/notes.txt":                                            "not a spill file",
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleAfter)
	filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err == nil && !strings.Contains(p, young) {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	removeStale(project, time.Now())
	var left []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			left = append(left, rel)
		}
		return nil
	})
	want := []string{
		"other/notes.txt",
		"project/" + plain + "/subagents/agent-a.jsonl",
		"project/" + young + "/" + transcript.ForkMarker,
		"project/" + whole + ".jsonl",
		"project/" + whole + "/" + transcript.ForkMarker,
		"ws/.flower/spill/notes.txt",
		"ws/.flower/spill/prune-44444444-toolu_1.txt",
		"ws/.flower/spill/prune-44444444-toolu_3.txt",
	}
	slices.Sort(left)
	slices.Sort(want)
	if strings.Join(left, "\n") != strings.Join(want, "\n") {
		t.Errorf("left:\n%s\nwant:\n%s", strings.Join(left, "\n"), strings.Join(want, "\n"))
	}
}

// spilled lists the files under the spill folder dir, its temporary
// folder's included (pkg/spill writes there first), by path from dir.
// spilled lists the files in the spill folder dir but its ignore rule,
// which is the folder's own.
func spilled(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != filepath.Join(dir, spill.IgnoreFile) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
