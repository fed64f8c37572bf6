package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/flowerconfig"
	"github.com/flowerhooks/flower/internal/indexguard"
	"github.com/flowerhooks/flower/internal/spillguard"
	"github.com/flowerhooks/flower/pkg/decisionlog"
)

// logSandbox switches the decision log on in a fresh user file and
// returns the project folder and the log's path.
func logSandbox(t *testing.T, extra string) (project, log string) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "cfg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	t.Setenv("FLOWER_WORKBENCH", "")
	if err := os.MkdirAll(filepath.Join(root, "cfg", "flower"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := `{"log": {"enabled": true` + extra + `}}`
	if err := os.WriteFile(filepath.Join(root, "cfg", "flower", "config.json"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	project = filepath.Join(root, "proj")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	return project, filepath.Join(root, "state", "flower", "decisions.jsonl")
}

func hookRun(t *testing.T, main mainFunc, payload map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := main(nil, bytes.NewReader(raw), &stdout, &stderr); code != 0 || stderr.Len() > 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	return stdout.String()
}

// TestDecisionLogRecords: with the log on, a denial, a glance let through,
// a subagent's call, a spill, a result left alone and the index shown are
// each one line, with the verdict and the sizes, and no tool output.
func TestDecisionLogRecords(t *testing.T) {
	project, log := logSandbox(t, "")
	bash := func(id, cmd string, agent string) map[string]any {
		p := map[string]any{"session_id": "s1", "cwd": project, "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": cmd}, "tool_use_id": id}
		if agent != "" {
			p["agent_id"] = agent
		}
		return p
	}
	if out := hookRun(t, delegateguard.Main, bash("t1", "rm -rf build", "")); !strings.Contains(out, `"deny"`) {
		t.Fatalf("rm was not denied: %s", out)
	}
	hookRun(t, delegateguard.Main, bash("t2", "git status -s", ""))
	hookRun(t, delegateguard.Main, bash("t3", "make", "a1"))
	secret := strings.Repeat("tool output that must not be logged ", 200)
	post := func(id, stdout string) map[string]any {
		return map[string]any{"session_id": "s1", "cwd": project, "hook_event_name": "PostToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": "./report.sh"}, "tool_use_id": id,
			"tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false}}
	}
	if out := hookRun(t, spillguard.Main, post("t4", secret)); !strings.Contains(out, "Spilled") {
		t.Fatalf("no spill: %s", out)
	}
	hookRun(t, spillguard.Main, post("t5", "short"))
	hookRun(t, indexguard.Main, map[string]any{"session_id": "s1", "cwd": project, "hook_event_name": "SessionStart", "source": "startup"})

	var got []string
	var entries []decisionlog.Entry
	bad, err := decisionlog.Read(log, func(e decisionlog.Entry) {
		entries = append(entries, e)
		got = append(got, fmt.Sprintf("%s %s %s %s: %s", e.Hook, e.Event, e.Tool, e.Verdict, e.Reason))
	})
	if err != nil || bad != 0 {
		t.Fatalf("reading the log: %v, %d bad lines", err, bad)
	}
	want := []string{
		"delegate-guard PreToolUse Bash deny: rm: writes or removes files",
		"delegate-guard PreToolUse Bash pass: git status: read-only git subcommand",
		"delegate-guard PreToolUse Bash pass: a subagent's call",
		"spill-guard PostToolUse Bash spill: 1 field(s) over 4000 characters",
		"spill-guard PostToolUse Bash pass: no field over 4000 characters",
		"index-guard SessionStart  index: the workbench block shown to the model",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the log (-want +got):\n%s", diff)
	}
	if e := entries[3]; e.Sizes.Spilled != int64(len(secret)) || e.Sizes.Files != 1 || e.Sizes.Result == 0 || e.Session != "s1" || e.Project != project {
		t.Errorf("the spill's entry: %+v", e)
	}
	if e := entries[0]; e.Input != "rm -rf build" || e.Sizes.Input != len("rm -rf build") || e.Agent != "" {
		t.Errorf("the denial's entry: %+v", e)
	}
	if e := entries[2]; e.Agent != "a1" {
		t.Errorf("the subagent's entry: %+v", e)
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "tool output") {
		t.Error("the log holds tool output")
	}
	// flower-config --log prints it.
	var stdout, stderr bytes.Buffer
	if code := flowerconfig.Main([]string{"--log", project}, nil, &stdout, &stderr); code != 0 || strings.Count(stdout.String(), "\n") != len(want) {
		t.Errorf("flower-config --log: exit %d, %d lines, stderr %s", code, strings.Count(stdout.String(), "\n"), stderr.String())
	}
}

// TestDecisionLogParallel: hooks running at once (parallel tool calls)
// each append a whole line, with the log rotating under them.
func TestDecisionLogParallel(t *testing.T) {
	project, log := logSandbox(t, `, "max-bytes": 8192`)
	const calls = 64
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("s%02d", i), "cwd": project, "hook_event_name": "PreToolUse",
				"tool_name": "Bash", "tool_input": map[string]string{"command": "rm -f x"}, "tool_use_id": "t"})
			var stdout, stderr bytes.Buffer
			if code := delegateguard.Main(nil, bytes.NewReader(raw), &stdout, &stderr); code != 0 || stderr.Len() > 0 {
				t.Errorf("exit %d: %s", code, stderr.String())
			}
		}()
	}
	wg.Wait()
	n := 0
	bad, err := decisionlog.Read(log, func(decisionlog.Entry) { n++ })
	if err != nil || bad != 0 || n == 0 {
		t.Fatalf("%d entries, %d bad lines, %v", n, bad, err)
	}
	for _, p := range []string{log, log + ".1"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 8192+calls*400 {
			t.Errorf("%s: %v", p, err)
		}
	}
}
