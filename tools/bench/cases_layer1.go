package main

import (
	"os"
	"path/filepath"
)

// payloadCase returns a Setup that writes payload as the stdin file.
func payloadCase(payload string) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		p := filepath.Join(dir, "stdin.json")
		return p, os.WriteFile(p, []byte(payload), 0o644)
	}
}

const (
	mainRm     = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","prompt_id":"6e53","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -f nothing","description":"remove"},"tool_use_id":"toolu_01"}`
	mainGlance = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","prompt_id":"6e53","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status -s && echo \"--- LOG ---\" && git log --oneline -10","description":"look"},"tool_use_id":"toolu_02"}`
	subWrite   = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","prompt_id":"6e53","permission_mode":"default","hook_event_name":"PreToolUse","agent_id":"a928725ede41badcf","agent_type":"general-purpose","tool_name":"Write","tool_input":{"file_path":"/tmp/ws/a.txt","content":"hello\n"},"tool_use_id":"toolu_03"}`
)

func init() {
	register(Case{Name: "delegate-guard: main-thread rm (deny)", Tool: "delegate-guard", Setup: payloadCase(mainRm), Target: "≤ 1.5x floor"})
	register(Case{Name: "delegate-guard: main-thread glance compound (pass)", Tool: "delegate-guard", Setup: payloadCase(mainGlance), Target: "≤ 1.5x floor"})
	register(Case{Name: "delegate-guard: subagent Write (pass)", Tool: "delegate-guard", Setup: payloadCase(subWrite), Target: "≤ 1.5x floor"})
}
