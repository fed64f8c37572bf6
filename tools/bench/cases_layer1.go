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
	register(Case{Name: "delegate-guard: main-thread rm (deny)", Tool: "delegate-guard", Setup: payloadCase(mainRm), MaxRatio: passTarget, Target: "≤ 1.3x floor"})
	register(Case{Name: "delegate-guard: main-thread glance compound (pass)", Tool: "delegate-guard", Setup: payloadCase(mainGlance), MaxRatio: passTarget, Target: "≤ 1.3x floor"})
	register(Case{Name: "delegate-guard: subagent Write (pass)", Tool: "delegate-guard", Setup: payloadCase(subWrite), MaxRatio: passTarget, Target: "≤ 1.3x floor"})
	// A Write of a large file: the whole content rides in the payload.
	register(Case{Name: "delegate-guard: subagent Write, 1 MB payload (pass)", Tool: "delegate-guard", Runs: 101,
		Setup: hookWrite("PreToolUse", "a928725ede41badcf", 1000<<10), MaxRatio: mbTarget, Target: "≤ 3x floor"})
	register(Case{Name: "delegate-guard: main-thread Write, 100 KB payload (deny)", Tool: "delegate-guard",
		Setup: hookWrite("PreToolUse", "", 97<<10), MaxRatio: 1.6, Target: "≤ 1.6x floor (as a 100 KB spill)"})
}

// hookWrite returns a Setup writing a payload of event for a Write of size
// bytes of text, from the subagent agentID ("" for the main thread).
func hookWrite(event, agentID string, size int) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		agent := ""
		if agentID != "" {
			agent = `"agent_id":"` + agentID + `","agent_type":"general-purpose",`
		}
		content := jsonString(logText(size))
		payload := `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl",` +
			`"cwd":"/tmp/ws","permission_mode":"default","hook_event_name":"` + event + `",` + agent +
			`"tool_name":"Write","tool_input":{"file_path":"/tmp/ws/src/big.txt","content":` + content + `},`
		if event == "PostToolUse" {
			payload += `"tool_response":{"type":"create","filePath":"/tmp/ws/src/big.txt","content":` + content + `,"structuredPatch":[],"originalFile":null},`
		}
		payload += `"tool_use_id":"toolu_06"}`
		p := filepath.Join(dir, "stdin.json")
		return p, os.WriteFile(p, []byte(payload), 0o644)
	}
}
