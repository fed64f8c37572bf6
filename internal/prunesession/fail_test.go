package prunesession

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// childFileSize, in the environment, makes the test binary run Main on its
// arguments after "--" with files capped at that many bytes
// (RLIMIT_FSIZE), as if the disk filled up while the fork was written.
const childFileSize = "FLOWER_PRUNE_TEST_FSIZE"

// childRun, in the environment, makes the test binary run Main on its
// arguments after "--", as prune-session would: for tests that signal it.
const childRun = "FLOWER_PRUNE_TEST_RUN"

func TestMain(m *testing.M) {
	limit := os.Getenv(childFileSize)
	if limit != "" || os.Getenv(childRun) != "" {
		if limit != "" {
			n, _ := strconv.ParseUint(limit, 10, 64)
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
	}
	// The machine's flower configuration stays out of these tests.
	os.Setenv("XDG_CONFIG_HOME", "/nonexistent/flower-tests")
	os.Exit(m.Run())
}

// TestFailedForkLeavesNoSpills: when the fork cannot be written (here the
// file size limit stops it halfway, a full disk would do the same), the
// spill files --trim wrote for it go too, with the fork's temporary file and
// folder: the report says "nothing written", and nothing is.
func TestFailedForkLeavesNoSpills(t *testing.T) {
	project, spillDir := t.TempDir(), t.TempDir()
	var b strings.Builder
	parent := "null"
	for i := range 40 {
		id := fmt.Sprintf("u%d", i)
		tool := fmt.Sprintf("t%d", i)
		fmt.Fprintf(&b, `{"parentUuid":%s,"type":"assistant","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"make"}}]},"uuid":"%sa","sessionId":"s"}`+"\n", parent, i, tool, id)
		fmt.Fprintf(&b, `{"parentUuid":"%sa","type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q}]},"uuid":"%sb","sessionId":"s"}`+"\n", id, tool, strings.Repeat("build output ", 300), id)
		fmt.Fprintf(&b, `{"parentUuid":"%sb","type":"user","message":{"role":"user","content":%q},"uuid":"%sc","sessionId":"s"}`+"\n", id, strings.Repeat("a long prompt ", 1000), id)
		parent = strconv.Quote(id + "c")
	}
	src := filepath.Join(project, "0b0b0b0b-1111-4111-8111-111111111111.jsonl")
	if err := os.WriteFile(src, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "--trim", "--trim-min", "100", "--trim-keep", "0", "--spill-dir", spillDir, src)
	// Big enough for every spill file (4 KB each), too small for the fork.
	cmd.Env = append(os.Environ(), childFileSize+"=100000")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d (%v), want 1; stderr %q", code, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "nothing written") || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want nothing, and one line saying nothing was written", stdout.String(), stderr.String())
	}
	left, _ := filepath.Glob(filepath.Join(spillDir, "*.txt"))
	temps, _ := filepath.Glob(filepath.Join(spillDir, ".tmp", "*")) // where spill files are written first
	if left = append(left, temps...); len(left) != 0 {
		t.Errorf("%d spill files left, want none", len(left))
	}
	if left, _ := os.ReadDir(project); len(left) != 1 {
		t.Errorf("the project folder holds %d entries, want only the original", len(left))
	}
}
