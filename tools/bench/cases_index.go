package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// indexFiles is the workbench size the layer-two issue asks to measure: far
// more than the 61 scripts of the design's 10-hour run, so that listing and
// sorting, not process start, would show if they cost anything.
const indexFiles = 1000

// indexWorkbench returns a Setup that fills $DIR/wb with indexFiles files
// (seven in ten scripts in a few subfolders, the rest artifacts), each with
// a header and a distinct mtime, and writes payload as the stdin file.
func indexWorkbench(payload string) func(dir string) (string, error) {
	return indexWorkbenchOf(indexFiles, payload)
}

// indexWorkbenchOf is indexWorkbench with n files.
func indexWorkbenchOf(n int, payload string) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		wb := filepath.Join(dir, "wb")
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			var rel, body string
			switch {
			case i%10 < 4:
				rel = fmt.Sprintf("scripts/s%04d.sh", i)
				body = fmt.Sprintf("#!/usr/bin/env bash\n# Step %d of the survey: count, filter and sort the rows\nset -euo pipefail\n", i)
			case i%10 < 7:
				rel = fmt.Sprintf("scripts/py/m%d/s%04d.py", i%5, i)
				body = fmt.Sprintf("#!/usr/bin/env python3\n\"\"\"Parser number %d for the raw logs.\n\nLonger notes.\n\"\"\"\nimport sys\n", i)
			default:
				rel = fmt.Sprintf("artifacts/run-%04d.md", i)
				body = fmt.Sprintf("# Report %d\n\n%s", i, strings.Repeat("| a | b |\n", 200))
			}
			p := filepath.Join(wb, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return "", err
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				return "", err
			}
			mt := base.Add(time.Duration(i*7919%n) * time.Second)
			if err := os.Chtimes(p, mt, mt); err != nil {
				return "", err
			}
		}
		// Folders as old as their files: index-guard saves no record of a
		// scan that saw an mtime of the last two seconds, and a workbench
		// in use was filled before the prompt that reads it.
		err := filepath.WalkDir(wb, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				err = os.Chtimes(p, base, base)
			}
			return err
		})
		if err != nil {
			return "", err
		}
		p := filepath.Join(dir, "stdin.json")
		return p, os.WriteFile(p, []byte(strings.ReplaceAll(payload, "$WB", wb)), 0o644)
	}
}

const (
	indexSessionStart = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","hook_event_name":"SessionStart","source":"startup"}`
	indexPrompt       = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","prompt_id":"6e53","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"go on"}`
	indexWriteIn      = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","hook_event_name":"PostToolUse","agent_id":"a928725ede41badcf","agent_type":"general-purpose","tool_name":"Write","tool_input":{"file_path":"$WB/scripts/s0000.sh","content":"…"},"tool_response":{"type":"create","filePath":"$WB/scripts/s0000.sh"},"tool_use_id":"toolu_04"}`
	indexWriteOut     = `{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl","cwd":"/tmp/ws","hook_event_name":"PostToolUse","agent_id":"a928725ede41badcf","agent_type":"general-purpose","tool_name":"Write","tool_input":{"file_path":"/tmp/ws/src/main.go","content":"…"},"tool_response":{"type":"create","filePath":"/tmp/ws/src/main.go"},"tool_use_id":"toolu_05"}`
)

func init() {
	wb := []string{"--workbench", "$DIR/wb"}
	register(Case{Name: "index-guard: SessionStart, 1,000 files", Tool: "index-guard", Args: wb, Setup: indexWorkbench(indexSessionStart), Target: "none set (issue 5); 1,000 lstat calls", Runs: 51})
	register(Case{Name: "index-guard: UserPromptSubmit unchanged, 1,000 files", Tool: "index-guard", Args: wb, Setup: indexWorkbench(indexPrompt), Target: "none set (issue 5); 1,000 lstat calls", Runs: 51})
	// The design's workbench: the index lists at most 40 files.
	register(Case{Name: "index-guard: UserPromptSubmit unchanged, 40 files", Tool: "index-guard", Args: wb, Setup: indexWorkbenchOf(40, indexPrompt), MaxRatio: 1.4, Target: "≤ 1.4x floor"})
	register(Case{Name: "index-guard: PostToolUse Write in scripts/, 1,000 files", Tool: "index-guard", Args: wb, Setup: indexWorkbench(indexWriteIn), Target: "none set (issue 5); 1,000 lstat calls", Runs: 51})
	register(Case{Name: "index-guard: PostToolUse Write outside (pass)", Tool: "index-guard", Args: wb, Setup: indexWorkbench(indexWriteOut), MaxRatio: passTarget, Target: "≤ 1.3x floor", Runs: 51})
	// The Write's content rides in the payload twice (input and result).
	register(Case{Name: "index-guard: PostToolUse Write outside, 1 MB payload (pass)", Tool: "index-guard", Args: wb, Runs: 101,
		Setup: hookWrite("PostToolUse", "a928725ede41badcf", 500<<10), MaxRatio: mbTarget, Target: "≤ 3x floor"})
}
