package prunesession

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMemoryOfManySmallLines: the plan keeps little per line whatever the
// shape of the transcript, so prune-session's memory stays far below the
// file's size. Here two million small lines, every other one a glance
// result to expire, with progress entries, denials and API errors between:
// about the most the plan keeps per byte read (it keeps nothing for most
// lines, 32 bytes for a glance result, a few hundred for a denied call it
// removes: the plan of commit 2342113 took 1.25 times the file's size on a
// transcript of this shape, this one a third). Measured as
// the whole process's peak RSS, with prune-session built as it ships (a
// test binary built with -race would measure the race detector).
func TestMemoryOfManySmallLines(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a transcript of 600 MB")
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
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "expired   ") || strings.Contains(stderr.String(), "expired   0 ") {
		t.Fatalf("nothing expired; the test prunes nothing:\n%s", stderr.String())
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // Linux reports KiB
	t.Logf("%d lines, %d MB: peak RSS %d MB", lines, size>>20, peak>>20)
	if peak > size/2 {
		t.Errorf("peak RSS %d MB for a transcript of %d MB: want under half of it", peak>>20, size>>20)
	}
}

// writeSmallLines writes n lines in the shapes Claude Code writes, each as
// small as such a line gets, and returns the file's size.
func writeSmallLines(t *testing.T, path string, n int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	// Glances but one in ten, which a hook denies.
	cmds := []string{"git status", "ls -la", "cat a.go", "git log --oneline -3", "pwd", "git status -s", "ls", "cat go.mod", "git diff --stat", "rm -rf build"}
	parent := "null"
	for i, group := 0, 0; i < n; group++ {
		uuid := func(k int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", group, k) }
		tool := fmt.Sprintf("toolu_%020d", i)
		cmd := cmds[group%len(cmds)]
		fmt.Fprintf(w, `{"parentUuid":%s,"isSidechain":false,"type":"assistant","uuid":"%s","sessionId":"%s","message":{"id":"msg_%d","role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"%s"}}]}}`+"\n",
			parent, uuid(1), oldForkSource, i, tool, cmd)
		fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"progress","data":{"type":"hook_progress"},"toolUseID":"%s","parentToolUseID":"%s","uuid":"%s","sessionId":"%s"}`+"\n",
			uuid(1), tool, tool, uuid(2), oldForkSource)
		denial := ""
		if strings.HasPrefix(cmd, "rm") {
			denial = `,"toolDenialKind":"permission-rule"`
		}
		fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"user","uuid":"%s","sessionId":"%s","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"ok"}]}%s}`+"\n",
			uuid(2), uuid(3), oldForkSource, tool, denial)
		if group%100 == 0 {
			fmt.Fprintf(w, `{"parentUuid":"%s","isSidechain":false,"type":"assistant","uuid":"%s","sessionId":"%s","message":{"id":"err","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error"}]},"isApiErrorMessage":true}`+"\n",
				uuid(3), uuid(4), oldForkSource)
			parent = fmt.Sprintf("%q", uuid(4))
			i += 4
			continue
		}
		parent = fmt.Sprintf("%q", uuid(3))
		i += 3
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
