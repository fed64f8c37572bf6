package tests

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
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
