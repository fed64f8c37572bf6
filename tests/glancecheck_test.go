package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/glancecheck"
	"github.com/flowerhooks/flower/pkg/ephemeral"
)

func TestGlanceCheckGolden(t *testing.T) { runGolden(t, "glance-check", glancecheck.Main) }

// TestGlanceCheckArgs covers what a golden case cannot hold: an argument
// with a newline in it, printed segment by segment on one line each.
func TestGlanceCheckArgs(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := glancecheck.Main([]string{"ls -l\\\n  -a\nrm -rf x"}, nil, &stdout, &stderr)
	want := "not a glance: rm: writes or removes files\n" +
		"  glance  \"ls -l\\\\\\n  -a\"\n          ls: lists directory contents\n" +
		"  no      rm -rf x\n          rm: writes or removes files\n"
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(1, code); diff != "" {
		t.Errorf("exit (-want +got):\n%s", diff)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// TestGlanceCheckJSONLDeep: a line nested deep is not valid JSON there: 9
// million brackets once ran gjson's check past Go's stack, a fatal error
// (exit 2).
func TestGlanceCheckJSONLDeep(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 9_000_000) + strings.Repeat("]", 9_000_000)
	var stdout, stderr bytes.Buffer
	code := glancecheck.Main([]string{"--jsonl"}, strings.NewReader("\"ls\"\n"+deep+"\n"), &stdout, &stderr)
	if code != 3 || stdout.Len() != 0 || stderr.String() != "glance-check: stdin line 2: not valid JSON, want a JSON string\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 and line 2 named", code, stdout.String(), stderr.String())
	}
}

// TestGlanceCheckJSONLLastLine: the last line may come without a newline.
func TestGlanceCheckJSONLLastLine(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := glancecheck.Main([]string{"--jsonl"}, strings.NewReader(`"ls"`+"\n"+`"rm x"`), &stdout, &stderr)
	want := `{"glance":true,"reason":"ls: lists directory contents"}` + "\n" +
		`{"glance":false,"reason":"rm: writes or removes files"}` + "\n"
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if code != 0 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// agreementCommands are checked on every let-through path at once.
var agreementCommands = []string{
	"git status", "git status -s && echo \"--- LOG ---\" && git log --oneline -10", "ls -la", "cat go.mod",
	"git status && rm -rf x", "ls\nrm -rf x", "git -c core.pager=sh log", "find . -delete",
	"sed -n '1w out' f", "sort -o f f", "git log --output=x", "tail -f x", "'rm' x", "\\rm x", "l\"s\"",
	"ls > out.txt", "ls 2>/dev/null", "PAGER=x git log", "echo $(id)", "git branch -a", "git branch new",
	"ls 'unterminated", "", "cat <<EOF\nx\nEOF",
}

// TestGlanceCheckSidesAgree: delegate-guard lets the main thread run exactly
// the commands whose results expire (ephemeral.IsEphemeral), and glance-check
// --jsonl says the same. Every path goes through the one table.
func TestGlanceCheckSidesAgree(t *testing.T) {
	t.Parallel()
	var lines strings.Builder
	for _, cmd := range agreementCommands {
		b, _ := json.Marshal(cmd)
		lines.Write(append(b, '\n'))
	}
	var jsonlOut, jsonlErr bytes.Buffer
	if code := glancecheck.Main([]string{"--jsonl"}, strings.NewReader(lines.String()), &jsonlOut, &jsonlErr); code != 0 {
		t.Fatalf("--jsonl exit %d: %s", code, jsonlErr.String())
	}
	answers := strings.Split(strings.TrimSuffix(jsonlOut.String(), "\n"), "\n")
	if len(answers) != len(agreementCommands) {
		t.Fatalf("--jsonl gave %d answers for %d lines", len(answers), len(agreementCommands))
	}
	for i, cmd := range agreementCommands {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			payload, _ := json.Marshal(map[string]any{
				"session_id": "s", "cwd": "/tmp/ws", "hook_event_name": "PreToolUse",
				"tool_name": "Bash", "tool_input": map[string]string{"command": cmd},
			})
			var guardOut, stderr bytes.Buffer
			if code := delegateguard.Main([]string{"--workbench", "/tmp/wb"}, bytes.NewReader(payload), &guardOut, &stderr); code != 0 {
				t.Fatalf("delegate-guard exit %d: %s", code, stderr.String())
			}
			var line struct{ Glance bool }
			if err := json.Unmarshal([]byte(answers[i]), &line); err != nil {
				t.Fatal(err)
			}
			want := ephemeral.IsEphemeral(cmd)
			got := map[string]bool{
				"delegate-guard lets it through":   guardOut.Len() == 0,
				"glance-check --jsonl says glance": line.Glance,
			}
			for side, v := range got {
				if v != want {
					t.Errorf("%q: %s = %v, IsEphemeral = %v", cmd, side, v, want)
				}
			}
		})
	}
}
