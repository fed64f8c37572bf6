package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// auditMainBytes and auditSubBytes size the stress case's session: a long
// main thread and far more in its subagents, as the design measured (most
// of a long run lands in subagents), 200 MB in all.
const (
	auditMainBytes = 40 << 20
	auditSubBytes  = 40 << 20 // each of four subagent transcripts
	auditSubagents = 4
)

const auditSessionID = "0a0a0a0a-2222-4222-8222-222222222222"

func auditPath(dir string) string {
	return filepath.Join(dir, "projects", "-home-u-ws", auditSessionID+".jsonl")
}

func init() {
	transcriptArg := filepath.Join("$DIR", "projects", "-home-u-ws", pruneSessionID+".jsonl")
	// cat reads what context-audit reads: the main transcript and the
	// subagents'.
	cat := func(main string) *exec.Cmd {
		subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(main, ".jsonl"), "subagents", "*.jsonl"))
		return exec.Command("cat", append([]string{main}, subs...)...)
	}
	catCase := func(dir, _ string) *exec.Cmd {
		_, main := prunePaths(dir)
		return cat(main)
	}
	if _, err := os.Stat(realTranscripts); err == nil {
		for _, rc := range realCases {
			register(Case{
				Name:         "context-audit: real transcript, " + rc.name,
				Tool:         "context-audit",
				Args:         []string{"--json", transcriptArg},
				Target:       "≤ 50 ms",
				MaxCPU:       50 * time.Millisecond,
				Runs:         31,
				Setup:        func(dir string) (string, error) { return "", copyReal(dir, rc.path) },
				Baseline:     catCase,
				BaselineName: "cat",
			})
		}
		for _, g := range grownCases {
			register(Case{
				Name:   "context-audit: real transcripts grown to " + g.name + ", with subagents",
				Tool:   "context-audit",
				Args:   []string{"--json", transcriptArg},
				Target: g.target,
				MaxCPU: g.cpu,
				MaxRSS: g.rss,
				Runs:   g.runs,
				Setup: func(dir string) (string, error) {
					if err := writeGrown(dir, g.size); err != nil {
						return "", err
					}
					// spotter's subagent transcripts, as the grown
					// session's.
					_, main := prunePaths(dir)
					subs, _ := filepath.Glob(filepath.Join(realTranscripts, strings.TrimSuffix(realCases[1].path, ".jsonl"), "subagents", "*.jsonl"))
					for _, s := range subs {
						if err := copyFile(s, filepath.Join(strings.TrimSuffix(main, ".jsonl"), "subagents", filepath.Base(s))); err != nil {
							return "", err
						}
					}
					return "", nil
				},
				Baseline:     catCase,
				BaselineName: "cat",
			})
		}
	}
	register(Case{
		Name:   "context-audit: 200 MB session, main + 4 subagents (stress)",
		Tool:   "context-audit",
		Args:   []string{"--json", auditPath("$DIR")},
		Target: "no speed target; streams: RSS well below the 200 MB read",
		Runs:   5,
		Setup:  writeAuditSession,
		Baseline: func(dir, _ string) *exec.Cmd {
			return cat(auditPath(dir))
		},
		BaselineName: "cat",
	})
}

// writeAuditSession writes the session in the shapes Claude Code 2.1.328
// writes (one entry per content block, tool results with toolUseResult
// beside them, attachment and api-request lines between): glances,
// denials, briefs and Agent results on the main thread; script writes and
// runs, spilled results and long outputs in the subagents.
func writeAuditSession(dir string) (string, error) {
	main := auditPath(dir)
	if err := writeAuditFile(main, auditMainBytes, true, 1); err != nil {
		return "", err
	}
	subs := filepath.Join(strings.TrimSuffix(main, ".jsonl"), "subagents")
	if err := os.MkdirAll(subs, 0o755); err != nil {
		return "", err
	}
	for i := range auditSubagents {
		if err := writeAuditFile(filepath.Join(subs, fmt.Sprintf("agent-a%d.jsonl", i)), auditSubBytes, false, uint64(i+2)); err != nil {
			return "", err
		}
	}
	return "", nil
}

func writeAuditFile(path string, size int, main bool, seed uint64) error {
	return createFile(path, func(w *bufio.Writer) error {
		r := rand.New(rand.NewPCG(seed, 7))
		written, n := 0, 0
		emit := func(line string) {
			w.WriteString(line)
			w.WriteByte('\n')
			written += len(line) + 1
		}
		side := ""
		if !main {
			side = `"isSidechain":true,"agentId":"a` + strconv.FormatUint(seed, 10) + `",`
		}
		filler := strings.Repeat("compiled module pkg in 40ms; ", 400)
		call := func(name, input, result, extra string) {
			n++
			id := "toolu_" + strconv.Itoa(n)
			usage := fmt.Sprintf(`"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d,"output_tokens":50}`, 3+r.IntN(9), 20000+n*7, r.IntN(900))
			emit(`{"parentUuid":"p","isSidechain":false,` + side + `"type":"assistant","uuid":"a` + strconv.Itoa(n) + `","cwd":"/home/u/ws","message":{"id":"msg_` + strconv.Itoa(n) + `","role":"assistant",` + usage + `,"content":[{"type":"text","text":"Next step."}]}}`)
			emit(`{"parentUuid":"p","isSidechain":false,` + side + `"type":"assistant","uuid":"b` + strconv.Itoa(n) + `","cwd":"/home/u/ws","message":{"id":"msg_` + strconv.Itoa(n) + `","role":"assistant",` + usage + `,"content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}]}}`)
			emit(`{"type":"api-request","requestId":"req_` + strconv.Itoa(n) + `"}`)
			emit(`{"parentUuid":"b` + strconv.Itoa(n) + `",` + side + `"type":"user","uuid":"r` + strconv.Itoa(n) + `","cwd":"/home/u/ws"` + extra + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + strconv.Quote(result) + `}]},"toolUseResult":{"stdout":` + strconv.Quote(result) + `}}`)
		}
		for written < size {
			k := r.IntN(10)
			switch {
			case main && k < 4:
				call("Bash", `{"command":"git status -s && git log --oneline -5"}`, " M a.go\n?? b.go", "")
			case main && k < 6:
				call("Bash", `{"command":"rm -rf build"}`, "PreToolUse:Bash hook error: The main thread does not run Bash.",
					`,"toolDenialKind":"permission-rule","permissionDecision":{"decision":"reject","source":"hook"}`)
			case main:
				call("Agent", `{"description":"work","prompt":"Build the report; write long outputs to .flower/artifacts/ and reply with paths only.","subagent_type":"general-purpose"}`,
					"Done: .flower/artifacts/report.md", "")
				emit(`{"type":"attachment","uuid":"t` + strconv.Itoa(n) + `","cwd":"/home/u/ws","attachment":{"type":"hook_success","content":""}}`)
			case k < 3:
				call("Write", `{"file_path":"/home/u/ws/.flower/scripts/s`+strconv.Itoa(r.IntN(60))+`.sh","content":"#!/bin/sh\n# a script\nmake test\n"}`, "File created successfully", "")
			case k < 6:
				call("Bash", `{"command":"sh .flower/scripts/s`+strconv.Itoa(r.IntN(60))+`.sh | tail -n 20"}`, filler[:1+r.IntN(3900)], "")
			case k < 8:
				p := fmt.Sprintf("/home/u/ws/.flower/spill/Bash-toolu_%d-stdout.txt", n+1)
				call("Bash", `{"command":"make test"}`, fmt.Sprintf("[Spilled to a file to keep it out of context: %d characters, %d lines, in full at %s. Use Read on that file with offset/limit to see the rest. The first 400 characters follow.]\n%s", 40000+r.IntN(90000), 900, p, filler[:400]), "")
			default:
				call("Read", `{"file_path":"/home/u/ws/main.go"}`, filler[:1+r.IntN(len(filler)-1)], "")
			}
		}
		return nil
	})
}
