//go:build unix

package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLowFileLimit runs every command as a process under a hard open-file
// limit of 6 and 7, where the Go runtime's poller cannot start: each must
// refuse with exit 1 (glance-check 3) and one line before its first open, not die with a
// trace and exit 2 (which Claude Code reads as "block"). At the limit it
// names, the commands do their work.
func TestLowFileLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command; not in -short")
	}
	t.Parallel()
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/...")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	transcript := filepath.Join(work, "11111111-1111-4111-8111-111111111111.jsonl")
	line := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"e1","sessionId":"11111111-1111-4111-8111-111111111111","cwd":"` + work + `"}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789", 600)
	// Each command on an input that makes it open files.
	runs := map[string]struct {
		args  []string
		stdin string
	}{
		"index-guard":     {nil, `{"session_id":"s","cwd":"` + work + `","hook_event_name":"UserPromptSubmit","prompt":"hi"}`},
		"spill-guard":     {nil, `{"session_id":"s","cwd":"` + work + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"seq 1 3000"},"tool_use_id":"t1","tool_response":{"stdout":"` + big + `","stderr":"","interrupted":false}}`},
		"delegate-guard":  {nil, `{"session_id":"s","cwd":"` + work + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -f x"}}`},
		"prune-session":   {[]string{"--dry-run", transcript}, ""},
		"context-audit":   {[]string{transcript}, ""},
		"glance-check":    {[]string{"ls"}, ""},
		"flower-settings": {[]string{"--settings", filepath.Join(work, "settings.json"), "--check"}, ""},
		"flower-config":   {[]string{work}, ""},
		"flower-status":   {nil, `{"transcript_path":"` + transcript + `"}`},
	}
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(runs) {
		t.Fatalf("%d commands built, %d in this test", len(entries), len(runs))
	}
	run := func(limit, name string) (int, string, string) {
		r, ok := runs[name]
		if !ok {
			t.Fatalf("no run for the command %s", name)
		}
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, limit, filepath.Join(bin, name)}, r.args...)...)
		cmd.Dir = work
		cmd.Stdin = strings.NewReader(r.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	for _, d := range entries {
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// glance-check's "could not do it" is 3: its 1 means "not a glance".
			wantCode := 1
			if name == "glance-check" {
				wantCode = 3
			}
			for _, limit := range []string{"6", "7"} {
				code, stdout, stderr := run(limit, name)
				want := name + ": the open-file limit is " + limit + " (ulimit -n); it needs at least 16\n"
				if diff := cmp.Diff(want, stderr); code != wantCode || stdout != "" || diff != "" {
					t.Errorf("ulimit -n %s: exit %d, stdout %q, stderr (-want +got):\n%s", limit, code, stdout, diff)
				}
			}
			if code, _, stderr := run("16", name); code != 0 {
				t.Errorf("ulimit -n 16: exit %d: %s", code, stderr)
			}
		})
	}
}
