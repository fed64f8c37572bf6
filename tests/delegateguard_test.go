package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/tests/cputime"
)

func TestDelegateGuardGolden(t *testing.T) { runGolden(t, "delegate-guard", delegateguard.Main) }

func TestDelegateGuardBadStdin(t *testing.T) {
	checkBadStdin(t, "delegate-guard", delegateguard.Main)
}

// hostileCommands are commands written to get past the glance table: each
// one a glance to the table as it was, each one with a side effect in bash.
var hostileCommands = []string{
	"git status -s # note \\\nrm -f README.md",
	"ls \r# ; touch x",
	"cat .env 0</dev/tcp/127.0.0.1/9 1>&0",
	"ls 3</dev/udp/h/p >&3",
	"test -v 'a[$(touch p)]'",
	"[ -v 'x[$(cmd)]' ]",
	"git -C fixtures/evil.git status",
	"cd fixtures/evil.git && git status",
	"file -z x.gz",
	"cat < /dev/zero",
	"cd /dev && cat zero",
	"grep -r x /dev -D read",
	strings.Repeat("(", 160<<10) + strings.Repeat(")", 160<<10),
}

// TestDelegateGuardNeverAllows: whatever the command, thread, tool and
// flags, delegate-guard answers with a deny or with nothing; it never
// approves a call ("allow", "ask", "defer"), so that a glance still meets
// Claude Code's own permission checks and the user's settings.
func TestDelegateGuardNeverAllows(t *testing.T) {
	t.Parallel()
	cmds := append(slices.Clone(agreementCommands), hostileCommands...)
	cmds = append(cmds, "seq 1 10", "git log --oneline -5 | head -3", "cd src && ls")
	glances := 0
	for _, cmd := range cmds {
		if ephemeral.IsEphemeral(cmd) {
			glances++
		}
	}
	if glances < 8 {
		t.Fatalf("only %d of the commands are glances; the test needs both kinds", glances)
	}
	for _, args := range [][]string{nil, {"--no-glance"}, {"--tools", "Bash"}, {"--tools", "Write"}} {
		for _, agent := range []string{"", "a1"} {
			for _, tool := range []string{"Bash", "Write"} {
				for _, cmd := range cmds {
					p := map[string]any{"session_id": "s", "cwd": "/tmp/ws", "hook_event_name": "PreToolUse", "tool_name": tool,
						"tool_input": map[string]string{"command": cmd, "file_path": "/tmp/ws/x", "content": "x"}}
					if agent != "" {
						p["agent_id"] = agent
					}
					payload, _ := json.Marshal(p)
					var stdout, stderr bytes.Buffer
					if code := delegateguard.Main(args, bytes.NewReader(payload), &stdout, &stderr); code != 0 {
						t.Fatalf("%v %s %q: exit %d: %s", args, tool, cmd, code, stderr.String())
					}
					if out := stdout.String(); out != "" && gjson.Get(out, "hookSpecificOutput.permissionDecision").String() != "deny" {
						t.Fatalf("%v %s %.80q: output %s, want a deny or nothing", args, tool, cmd, out)
					}
				}
			}
		}
	}
}

// TestDelegateGuardHostileCommands: on the main thread each hostile command
// is denied, at once. The 320 KB of nested parentheses overflowed the
// classifier's stack before: exit 2, which Claude Code reads as "block".
func TestDelegateGuardHostileCommands(t *testing.T) {
	t.Parallel()
	for _, cmd := range hostileCommands {
		payload, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/tmp/ws", "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]string{"command": cmd}})
		var stdout, stderr bytes.Buffer
		var code int
		took := cputime.Of(func() { code = delegateguard.Main(nil, bytes.NewReader(payload), &stdout, &stderr) })
		if took > time.Second {
			t.Errorf("%.80q took %v, want well under a second", cmd, took)
		}
		if code != 0 || gjson.Get(stdout.String(), "hookSpecificOutput.permissionDecision").String() != "deny" {
			t.Errorf("%.80q: exit %d, stdout %.200q, stderr %q; want exit 0 and a deny", cmd, code, stdout.String(), stderr.String())
		}
	}
}

// TestDelegateGuardTeammate: a teammate of an agent team in a terminal pane
// of its own is a Claude Code process started with --agent-id, whose
// payloads carry no agent_id, as the lead's do (tests/e2e
// TestCLIAgentTeammates): delegate-guard, run by it (here through sh -c, as
// Claude Code runs hooks), lets its hands-on calls through and gives it no
// coordinator's rules; the same call from a process without it is denied.
func TestDelegateGuardTeammate(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "delegate-guard")
	build := exec.Command("go", "build", "-o", bin, "./cmd/delegate-guard")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	payload := filepath.Join(t.TempDir(), "payload.json")
	for _, tc := range []struct {
		event, parentArgs, want string
	}{
		{`"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch mate.txt"}`, "--agent-id worker@session-1 --agent-name worker", ""},
		{`"SessionStart","source":"startup"`, "--agent-id worker@session-1 --agent-name worker", ""},
		{`"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch mate.txt"}`, "--settings s.json", "deny"},
		{`"SessionStart","source":"startup"`, "--settings s.json", "You coordinate this session"},
	} {
		os.WriteFile(payload, []byte(`{"session_id":"m1","cwd":"/tmp/ws","hook_event_name":`+tc.event+`}`), 0o600)
		// The trailing ":" keeps sh from exec'ing the hook: sh, with the
		// arguments, is its parent.
		cmd := exec.Command("sh", append([]string{"-c", `"$0" < "$1"; :`, bin, payload}, strings.Fields(tc.parentArgs)...)...)
		out, err := cmd.Output()
		if err != nil || (tc.want == "") != (len(out) == 0) || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s under a parent with %q: %v, printed %q; want %q", tc.event, tc.parentArgs, err, out, tc.want)
		}
	}
}
