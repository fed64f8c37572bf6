package tests

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/indexguard"
	"github.com/flowerhooks/flower/internal/spillguard"
	"github.com/flowerhooks/flower/pkg/hook"
)

// hugeGarbage is the size of the largest bad payload: far beyond any real
// hook payload, to show a command neither panics nor prints half an answer.
const hugeGarbage = 100 << 20

// badPayloads are inputs every hook must refuse with exit 1 and one stderr line.
func badPayloads() map[string][]byte {
	binary := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range binary {
		binary[i] = byte(r.UintN(256))
	}
	huge := bytes.Repeat([]byte("{garbage"), hugeGarbage/8)
	// Valid JSON nested past hook.MaxNesting: 8 million levels ran
	// gjson's recursion past Go's stack limit, a fatal error (exit 2).
	deep := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -f x","x":` +
		strings.Repeat("[", hook.MaxNesting+1) + strings.Repeat("]", hook.MaxNesting+1) + `}}`
	return map[string][]byte{
		"empty":                  nil,
		"whitespace":             []byte(" \n\t\n"),
		"truncated":              []byte(`{"hook_event_name":"PreToolUse","tool_name":"Ba`),
		"not an object":          []byte(`["PreToolUse","Bash"]`),
		"a string":               []byte(`"PreToolUse"`),
		"trailing garbage":       []byte(`{"hook_event_name":"PreToolUse"} x`),
		"invalid utf-8":          []byte("{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xff\"}}"),
		"binary":                 binary,
		"huge garbage":           huge,
		"nested too deep":        []byte(deep),
		"no event":               []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`),
		"null event":             []byte(`{"hook_event_name":null,"tool_name":"Bash"}`),
		"event is a number":      []byte(`{"hook_event_name":7,"tool_name":"Bash"}`),
		"tool_name is an object": []byte(`{"hook_event_name":"PreToolUse","tool_name":{"x":1},"tool_input":{}}`),
		"tool_input is a string": []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}`),
		"agent_id is a number":   []byte(`{"hook_event_name":"PreToolUse","agent_id":5,"tool_name":"Bash","tool_input":{"command":"ls"}}`),
		"cwd is a boolean":       []byte(`{"hook_event_name":"PreToolUse","cwd":true,"tool_name":"Bash","tool_input":{"command":"ls"}}`),
		"session_id is an array": []byte(`{"hook_event_name":"SessionStart","session_id":[1]}`),
		"nested truncation":      []byte(`{"hook_event_name":"PostToolUse","tool_response":{"stdout":"abc`),
		"two objects":            []byte(`{"hook_event_name":"PreToolUse"}{"hook_event_name":"PreToolUse"}`),
		// gjson reads the first of two keys, Claude Code's JSON.parse the
		// last: a hook would judge another value than the one that counts.
		"event twice":        []byte(`{"hook_event_name":"SessionStart","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`),
		"tool_name twice":    []byte(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`),
		"agent_id twice":     []byte(`{"hook_event_name":"PreToolUse","agent_id":"a1","agent_id":"","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`),
		"cwd twice, escaped": []byte(`{"hook_event_name":"SessionStart","cwd":"/a","c\u0077d":"/b"}`),
		"tool_input twice":   []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_input":{"command":"rm -rf x"}}`),
	}
}

// checkBadStdin asserts the bad-input contract of a hook command: exit 1,
// nothing on stdout, exactly one stderr line naming the command.
func checkBadStdin(t *testing.T, name string, main mainFunc, args ...string) {
	t.Helper()
	for label, in := range badPayloads() {
		t.Run(label, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := main(args, bytes.NewReader(in), &stdout, &stderr)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout not empty: %.200q", stdout.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") || !strings.HasPrefix(msg, name+": ") {
				t.Errorf("stderr is not one line starting %q: %.300q", name+": ", msg)
			}
		})
	}
}

// TestDuplicateReadFields: a key repeated inside an object a hook reads
// from is refused by the hooks that read it, with exit 1 and one line.
func TestDuplicateReadFields(t *testing.T) {
	wb := t.TempDir()
	tests := []struct {
		name    string
		main    mainFunc
		args    []string
		payload string
	}{
		{"delegate-guard: tool_input.command", delegateguard.Main, nil,
			`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf x"}}`},
		{"spill-guard: tool_input.command", spillguard.Main, []string{"--workbench", wb},
			`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"cat .flower/spill/x.txt","command":"cat big.log"},"tool_response":{"stdout":"` + strings.Repeat("x", 5000) + `"}}`},
		{"spill-guard: tool_response.stdout", spillguard.Main, []string{"--workbench", wb},
			`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t2","tool_input":{"command":"x"},"tool_response":{"stdout":"short","stdout":"` + strings.Repeat("x", 5000) + `"}}`},
		{"spill-guard: a nested MCP field", spillguard.Main, []string{"--workbench", wb},
			`{"hook_event_name":"PostToolUse","tool_name":"mcp__s__t","tool_use_id":"t3","tool_response":{"a":{"b":"` + strings.Repeat("x", 5000) + `","b":"y"}}}`},
		{"index-guard: tool_input.file_path", indexguard.Main, []string{"--workbench", wb},
			`{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/elsewhere/a.sh","file_path":"` + wb + `/scripts/a.sh"},"tool_response":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := tt.main(tt.args, strings.NewReader(tt.payload), &stdout, &stderr)
			if code != 1 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "twice") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line about a key given twice", code, stdout.String(), stderr.String())
			}
		})
	}
	if left, _ := filepath.Glob(filepath.Join(wb, "spill", "*.txt")); len(left) != 0 {
		t.Errorf("spilled %q", left)
	}
}
