package ephemeral_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
)

// TestSidesAgree runs every command of the table through both layers that
// depend on the glance decision, as whole commands: delegate-guard (does the
// main thread get to run it?) and prune-session (does its result expire?).
// The two must agree with each other and with the table on every command;
// a second classifier anywhere on either path would show up here.
func TestSidesAgree(t *testing.T) {
	cases := ephemeral.TableCases()
	if len(cases) < 150 {
		t.Fatalf("the table has %d commands, want at least 150", len(cases))
	}
	// A payload is JSON, which cannot carry bytes that are not UTF-8:
	// json.Marshal turns them into U+FFFD, a different command.
	cases = slices.DeleteFunc(cases, func(tc ephemeral.TableCase) bool { return !utf8.ValidString(tc.Cmd) })
	expired := expiredByPrune(t, cases)
	for i, tc := range cases {
		let := letThrough(t, tc.Cmd)
		if let != expired[i] || let != tc.Glance {
			t.Errorf("%q: delegate-guard lets it through = %v, prune-session expires it = %v, table says glance = %v",
				tc.Cmd, let, expired[i], tc.Glance)
		}
	}
}

// letThrough reports whether delegate-guard passes cmd as a main-thread Bash call.
func letThrough(t *testing.T, cmd string) bool {
	payload, _ := json.Marshal(map[string]any{
		"session_id": "s", "cwd": "/tmp/ws", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": cmd}, "tool_use_id": "toolu_x",
	})
	var stdout, stderr bytes.Buffer
	if code := delegateguard.Main(nil, bytes.NewReader(payload), &stdout, &stderr); code != 0 {
		t.Fatalf("delegate-guard on %q: exit %d: %s", cmd, code, stderr.String())
	}
	switch out := stdout.String(); {
	case out == "":
		return true
	case gjson.Get(out, "hookSpecificOutput.permissionDecision").String() == "deny":
		return false
	default:
		t.Fatalf("delegate-guard on %q: unexpected output %s", cmd, out)
		return false
	}
}

// expiredByPrune writes one main-thread session that runs every command as
// a Bash call, prunes it keeping no glance result, and reports for each
// command whether its result was expired.
func expiredByPrune(t *testing.T, cases []ephemeral.TableCase) []bool {
	dir := t.TempDir()
	const session, fork = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	path := filepath.Join(dir, session+".jsonl")
	var b bytes.Buffer
	line := func(v map[string]any) {
		v["sessionId"], v["cwd"], v["isSidechain"], v["timestamp"] = session, "/tmp/ws", false, "2026-11-30T02:00:00.000Z"
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(raw, '\n'))
	}
	line(map[string]any{"type": "user", "uuid": "u0", "parentUuid": nil,
		"message": map[string]any{"role": "user", "content": "look around"}})
	parent := "u0"
	for i, tc := range cases {
		id, a, u := fmt.Sprintf("toolu_%04d", i), fmt.Sprintf("a%04d", i), fmt.Sprintf("r%04d", i)
		line(map[string]any{"type": "assistant", "uuid": a, "parentUuid": parent,
			"message": map[string]any{"id": "msg_" + a, "role": "assistant", "type": "message", "stop_reason": "tool_use",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]string{"command": tc.Cmd}}}}})
		line(map[string]any{"type": "user", "uuid": u, "parentUuid": a,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{
				"type": "tool_result", "tool_use_id": id, "content": "output " + id, "is_error": false}}}})
		parent = u
	}
	line(map[string]any{"type": "assistant", "uuid": "end", "parentUuid": parent,
		"message": map[string]any{"id": "msg_end", "role": "assistant", "type": "message", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "done"}}}})
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	args := []string{"--keep-recent", "0", "--session-id", fork, path}
	if code := prunesession.Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("prune-session: exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(filepath.Join(dir, fork+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results := map[string]string{}
	r := bufio.NewReader(f)
	for {
		raw, err := r.ReadBytes('\n')
		gjson.GetBytes(raw, "message.content").ForEach(func(_, blk gjson.Result) bool {
			if blk.Get("type").String() == "tool_result" {
				results[blk.Get("tool_use_id").String()] = blk.Get("content").String()
			}
			return true
		})
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	expired := make([]bool, len(cases))
	for i := range cases {
		id := fmt.Sprintf("toolu_%04d", i)
		got, ok := results[id]
		if !ok {
			t.Fatalf("the fork lost the result of %s (%q)", id, cases[i].Cmd)
		}
		expired[i] = got != "output "+id
	}
	return expired
}

// TestSidesAgreeWithExtras is TestSidesAgree with a user file that adds
// glance entries and hands-on commands: the two sides read the same
// configuration, delegate-guard lets a command through exactly when the
// extended table says the main thread may run it, and prune-session
// expires its result exactly when the table calls it a glance. A
// hands-on command is let through and never expired.
func TestSidesAgreeWithExtras(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	user := `{
		"glances": [
			{"command": "docker ps", "options": ["-a", "--format=X"], "operands": 0},
			{"command": "kubectl get", "options": ["-o X"]},
			{"command": "make -n"}
		],
		"delegate-guard": {"main-thread": [
			{"command": "make test", "operands": 0},
			{"command": "git commit", "options": ["-m X"], "operands": 0}
		]}
	}`
	if err := os.MkdirAll(filepath.Join(xdg, "flower"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "flower", "config.json"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Load("/tmp/ws")
	if cfg.Problems() != nil {
		t.Fatal(cfg.Problems())
	}
	table, err := ephemeral.NewGlances(cfg.Extras())
	if err != nil {
		t.Fatal(err)
	}
	cases := ephemeral.TableCases()
	for _, cmd := range []string{
		"docker ps", "docker ps -a --format '{{.ID}}' | head -3", "docker ps x", "docker ps > out", "docker rm x",
		"kubectl get pods -o wide && git status -s", "kubectl delete pod x", "make -n all", "make all",
		"make test", "make test 2>&1 | tail -5", "make test; rm -rf x", "git commit -m 'x'", "git commit --amend",
		"cd /tmp && docker ps", "docker ps $(touch x)", "FOO=1 docker ps",
	} {
		cases = append(cases, ephemeral.TableCase{Cmd: cmd})
	}
	cases = slices.DeleteFunc(cases, func(tc ephemeral.TableCase) bool { return !utf8.ValidString(tc.Cmd) })
	expired := expiredByPrune(t, cases)
	handsOn, glances := 0, 0
	for i, tc := range cases {
		v := table.Classify(tc.Cmd)
		let := letThrough(t, tc.Cmd)
		if let != v.MainThread || expired[i] != v.Glance {
			t.Errorf("%q: delegate-guard lets it through = %v, prune-session expires it = %v; the table says main thread %v, glance %v",
				tc.Cmd, let, expired[i], v.MainThread, v.Glance)
		}
		if expired[i] && !let {
			t.Errorf("%q: expired but not let through", tc.Cmd)
		}
		if v.MainThread && !v.Glance {
			handsOn++
		}
		if v.Glance && !ephemeral.IsEphemeral(tc.Cmd) {
			glances++
		}
	}
	if handsOn < 4 || glances < 4 {
		t.Errorf("%d hands-on lines and %d extra glances among the cases: the entries were not read", handsOn, glances)
	}
}
