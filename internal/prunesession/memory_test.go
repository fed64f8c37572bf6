package prunesession

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemoryOfManySmallLines: the plan keeps nothing for most lines, and
// little for the few a rule acts on, so prune-session's memory stays far
// below the file's size however many lines it has. Here two million small
// lines in the mix of a session (issue 20: the plan of commit 2342113 kept
// about 210 bytes a line, 590 MB for 2.8 million). Measured as the whole
// process's peak RSS, with prune-session built as it ships (a test binary
// built with -race would measure the race detector).
func TestMemoryOfManySmallLines(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a transcript of 500 MB")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("reads a process's peak memory from /proc (Linux)")
	}
	const lines = 2_000_000
	dir := t.TempDir()
	bin := filepath.Join(dir, "prune-session")
	build := exec.Command("go", "build", "-o", bin, "github.com/flowerhooks/flower/cmd/prune-session")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := filepath.Join(dir, oldForkSource+".jsonl")
	size := writeSmallLines(t, src, lines)

	cmd := exec.Command(bin, src)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The peak is read from the child's own VmHWM, as long as it runs:
	// its rusage would count the test process's memory too (Go starts
	// children with vfork, and Linux carries the parent's peak into the
	// child's), and a test binary built with -race holds a lot of it.
	var peak int64
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			waiting = false
		case <-time.After(5 * time.Millisecond):
			peak = max(peak, highWater(cmd.Process.Pid))
		}
	}
	for _, rule := range []string{"expired", "removed", "dropped"} {
		if !strings.Contains(stderr.String(), rule+"   ") || strings.Contains(stderr.String(), rule+"   0 ") {
			t.Fatalf("nothing %s; the test does not exercise the plan:\n%s", rule, stderr.String())
		}
	}
	if peak == 0 {
		t.Fatal("could not read the child's peak memory from /proc")
	}
	t.Logf("%d lines, %d MB: peak RSS %d MB", lines, size>>20, peak>>20)
	if peak > size/4 {
		t.Errorf("peak RSS %d MB for a transcript of %d MB: want under a quarter of it", peak>>20, size>>20)
	}
}

// highWater is the peak resident memory of process pid so far (VmHWM), 0
// when it cannot be read.
func highWater(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// writeSmallLines writes n lines in the shapes and the mix Claude Code
// writes them (a response's text and tool_use, the hook's progress, the
// result, a bookkeeping line; glances a third of the calls, a denial now
// and then, an API error), each as small as such a line gets, and returns
// the file's size.
func writeSmallLines(t *testing.T, path string, n int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	cmds := []string{"git status", "make test", "go build ./...", "ls -la", "go vet ./...", "cat go.mod", "make lint", "go test ./pkg/...", "git diff --stat"}
	parent := "null"
	for i, group := 0, 0; i < n; group++ {
		uuid := func(k int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", group, k) }
		tool := fmt.Sprintf("toolu_%020d", group)
		cmd, denial := cmds[group%len(cmds)], ""
		if group%50 == 49 {
			cmd, denial = "rm -rf build", `,"toolDenialKind":"permission-rule"`
		}
		fmt.Fprintf(w, `{"parentUuid":%s,"isSidechain":false,"type":"assistant","uuid":"%s","sessionId":"%s","message":{"id":"msg_%d","role":"assistant","content":[{"type":"text","text":"Next."}]}}`+"\n",
			parent, uuid(1), oldForkSource, group)
		fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"assistant","uuid":"%s","sessionId":"%s","message":{"id":"msg_%d","role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"%s"}}]}}`+"\n",
			uuid(1), uuid(2), oldForkSource, group, tool, cmd)
		fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"progress","data":{"type":"hook_progress"},"toolUseID":"%s","parentToolUseID":"%s","uuid":"%s","sessionId":"%s"}`+"\n",
			uuid(2), tool, tool, uuid(3), oldForkSource)
		fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"user","uuid":"%s","sessionId":"%s","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"ok"}]}%s}`+"\n",
			uuid(3), uuid(4), oldForkSource, tool, denial)
		fmt.Fprintf(w, `{"type":"file-history-snapshot","messageId":"%s","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}`+"\n", uuid(4))
		parent, i = fmt.Sprintf("%q", uuid(4)), i+5
		if group%200 == 0 {
			fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"assistant","uuid":"%s","sessionId":"%s","message":{"id":"err","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error"}]},"isApiErrorMessage":true}`+"\n",
				uuid(4), uuid(5), oldForkSource)
			parent, i = fmt.Sprintf("%q", uuid(5)), i+1
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
