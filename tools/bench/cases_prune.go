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
)

// pruneTranscriptBytes is the size of the benchmarked transcript, the one
// the issue names: a long session, far over what fits in memory comfortably.
const pruneTranscriptBytes = 200 << 20

const pruneSessionID = "0b0b0b0b-1111-4111-8111-111111111111"

// prunePaths are the transcript and its project folder under dir.
func prunePaths(dir string) (project, transcript string) {
	project = filepath.Join(dir, "projects", "-home-u-ws")
	return project, filepath.Join(project, pruneSessionID+".jsonl")
}

func init() {
	transcriptArg := filepath.Join("$DIR", "projects", "-home-u-ws", pruneSessionID+".jsonl")
	register(Case{
		Name:   "prune-session: 200 MB transcript (defaults)",
		Tool:   "prune-session",
		Args:   []string{transcriptArg},
		Target: "≤ 2x cp, RSS well below the file",
		// cp's time moved from 100 to 142 ms between runs of the bench:
		// more runs steady the medians.
		Runs:  9,
		Setup: writePruneTranscript,
		After: removeFork,
		Baseline: func(dir, _ string) *exec.Cmd {
			_, src := prunePaths(dir)
			return exec.Command("cp", src, filepath.Join(dir, "copy.jsonl"))
		},
		BaselineName: "cp",
	})
	// With --sync the fork is on disk before its id is printed: compared
	// with a copy that is too.
	register(Case{
		Name:   "prune-session: 200 MB transcript --sync",
		Tool:   "prune-session",
		Args:   []string{"--sync", transcriptArg},
		Target: "(context)",
		Runs:   5,
		Setup:  writePruneTranscript,
		After:  removeFork,
		Baseline: func(dir, _ string) *exec.Cmd {
			_, src := prunePaths(dir)
			return exec.Command("dd", "if="+src, "of="+filepath.Join(dir, "copy.jsonl"), "bs=1M", "conv=fsync", "status=none")
		},
		BaselineName: "dd conv=fsync",
	})
}

// removeFork removes the 200 MB fork a run wrote beside the original,
// untimed. No fork means the run failed (the harness takes exit 1 for a
// hook's "could not"), which must not pass for a fast run.
func removeFork(dir string) error {
	project, _ := prunePaths(dir)
	forks, _ := filepath.Glob(filepath.Join(project, "*.jsonl"))
	n := 0
	for _, f := range forks {
		if filepath.Base(f) != pruneSessionID+".jsonl" {
			n++
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	if n != 1 {
		return fmt.Errorf("the run wrote %d forks, want 1", n)
	}
	return nil
}

// writePruneTranscript writes a transcript in the shapes Claude Code 2.1.328
// writes (one entry per content block, each tool_result its own entry with
// toolUseResult beside it, api-request and attachment lines between), with
// glances, denials and API errors for the rules to act on, until it reaches
// pruneTranscriptBytes.
func writePruneTranscript(dir string) (string, error) {
	project, path := prunePaths(dir)
	if err := os.MkdirAll(project, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(4, 2))
	commands := []string{"git status", "ls -la", "cat README.md", "make test", "go build ./...", "rm -rf build"}
	filler := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 1000)
	n, written, parent := 0, 0, "null"
	emit := func(line string) {
		w.WriteString(line)
		w.WriteByte('\n')
		written += len(line) + 1
	}
	entry := func(body string) {
		n++
		uuid := fmt.Sprintf("%08d-0000-4000-8000-000000000000", n)
		emit(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,%s,"uuid":%q,"timestamp":"2026-11-30T02:44:58.423Z","cwd":"/home/u/ws","sessionId":%q,"version":"2.1.328","gitBranch":"main"}`,
			parent, body, uuid, pruneSessionID))
		parent = strconv.Quote(uuid)
	}
	for turn := 0; written < pruneTranscriptBytes; turn++ {
		if turn%40 == 0 {
			entry(`"type":"user","message":{"role":"user","content":"next step of the plan"}`)
		}
		emit(fmt.Sprintf(`{"type":"api-request","sessionId":%q,"id":"req-%d","params":{"model":"claude-opus-5-5","max_tokens":128000},"tail":%q}`, pruneSessionID, turn, filler[:1500]))
		msg := fmt.Sprintf(`"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-opus-5-5","content":[%%s],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_creation_input_tokens":500,"cache_read_input_tokens":90000,"output_tokens":200}},"type":"assistant"`, turn)
		entry(fmt.Sprintf(msg, fmt.Sprintf(`{"type":"text","text":%q}`, filler[:200+r.IntN(400)])))
		cmd := commands[r.IntN(len(commands))]
		id := fmt.Sprintf("toolu_%08d", turn)
		entry(fmt.Sprintf(msg, fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Bash","input":{"command":%q,"description":"step"}}`, id, cmd)))
		if strings.HasPrefix(cmd, "rm") {
			text := "Permission to use Bash with command " + cmd + " has been denied."
			entry(fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":%q,"is_error":true,"tool_use_id":%q}]},"toolUseResult":%q,"toolDenialKind":"permission-rule"`, text, id, "Error: "+text))
			continue
		}
		// Glances print a screenful; builds and tests print more, and one
		// in ten prints as much as Claude Code keeps of a Bash output.
		size := 100 + r.IntN(1500)
		if cmd == "make test" || cmd == "go build ./..." {
			size = 100 + r.IntN(3000)
			if r.IntN(5) == 0 {
				size = 30000
			}
		}
		out := filler[:size%len(filler)]
		entry(fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q,"is_error":false}]},"toolUseResult":{"stdout":%q,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`, id, out, out))
		if turn%500 == 499 {
			entry(`"type":"assistant","message":{"id":"err","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Connection error."}]},"isApiErrorMessage":true`)
		}
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return "", f.Close()
}
