package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// spillPayload returns a Setup writing a PostToolUse payload whose Bash
// stdout is size bytes of numbered lines, like the output of seq: the shape
// of the output the design measured (one pytest run, a long log). It
// streams the payload to the file: a 50 MB string in the bench process
// would show in the hook's peak RSS, since the child shares the parent's
// memory until it execs.
func spillPayload(size int) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		return writePayload(dir, func(w *bufio.Writer) {
			w.WriteString(`{"stdout":"`)
			writeLines(w, size, true)
			w.WriteString(`","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`)
		})
	}
}

// spillPersisted returns a Setup for Bash output over 30,000 characters as
// Claude Code delivers it: stdout cut to 30,000 characters and the whole
// output, size bytes, in the file persistedOutputPath names.
func spillPersisted(size int) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		path := filepath.Join(dir, "tool-results", "b1.txt")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		f, err := os.Create(path)
		if err != nil {
			return "", err
		}
		w := bufio.NewWriter(f)
		writeLines(w, size, false)
		if err := errors.Join(w.Flush(), f.Close()); err != nil {
			return "", err
		}
		return writePayload(dir, func(w *bufio.Writer) {
			w.WriteString(`{"stdout":"`)
			writeLines(w, bashInlineLimit, true)
			fmt.Fprintf(w, `","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false,"persistedOutputPath":%q,"persistedOutputSize":%d}`, path, size)
		})
	}
}

// bashInlineLimit is how much of a Bash output Claude Code 2.1.328 puts in
// stdout before persisting the rest (BASH_MAX_OUTPUT_LENGTH's default).
const bashInlineLimit = 30000

func writePayload(dir string, resp func(*bufio.Writer)) (string, error) {
	p := filepath.Join(dir, "stdin.json")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"session_id":"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10","transcript_path":"/home/u/.claude/projects/-tmp-ws/06407937.jsonl",` +
		`"cwd":"/tmp/ws","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"./run-tests.sh","description":"tests"},"tool_response":`)
	resp(w)
	w.WriteString(`,"tool_use_id":"toolu_bench","duration_ms":1234}`)
	return p, errors.Join(w.Flush(), f.Close())
}

// writeLines writes the first size bytes of "1\n2\n3\n…", with each
// newline escaped for a JSON string when escaped is set.
func writeLines(w *bufio.Writer, size int, escaped bool) {
	for i, n := 1, 0; n < size; i++ {
		line := strconv.Itoa(i) + "\n"
		if len(line) > size-n {
			line = line[:size-n]
		}
		n += len(line)
		if escaped {
			line = strings.ReplaceAll(line, "\n", `\n`)
		}
		w.WriteString(line)
	}
}

// copyStdin is the baseline of the large cases: copying the payload to a
// file, the least any hook that keeps the whole output must do.
func copyStdin(dir, stdin string) *exec.Cmd {
	return exec.Command("cp", stdin, filepath.Join(dir, "copy"))
}

// syncedCopy copies the payload and flushes it to disk, as spill-guard must
// before it prints a pointer to it (package atomicfile syncs every file).
func syncedCopy(dir, stdin string) *exec.Cmd {
	return exec.Command("dd", "if="+stdin, "of="+filepath.Join(dir, "copy"), "bs=1M", "conv=fsync", "status=none")
}

// clearSpill removes the files a run spilled. Every call Claude Code makes
// has its own tool_use_id, so the name spill-guard picks is always free; a
// payload replayed a hundred times would otherwise find it taken and try
// "-2", "-3", … up to the run's number, a cost no real call pays.
func clearSpill(dir string) error {
	spillDir := filepath.Join(dir, "wb", "spill")
	entries, err := os.ReadDir(spillDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(spillDir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	args := []string{"--workbench", "$DIR/wb"}
	// The common case: most tool results are under the threshold and pass.
	register(Case{Name: "spill-guard: 2 KB stdout (pass)", Tool: "spill-guard", Args: args,
		Setup: spillPayload(2 << 10), Target: "≤ 1.5x floor"})
	register(Case{Name: "spill-guard: 10 KB stdout (spill)", Tool: "spill-guard", Args: args,
		Setup: spillPayload(10 << 10), After: clearSpill, Target: "≤ 1.5x floor"})
	register(Case{Name: "spill-guard: 1 MB stdout (spill)", Tool: "spill-guard", Args: args, Runs: 31,
		Setup: spillPayload(1 << 20), After: clearSpill, Baseline: copyStdin, BaselineName: "cp payload", Target: "(none set)"})
	register(Case{Name: "spill-guard: 50 MB stdout (spill)", Tool: "spill-guard", Args: args, Runs: 11,
		Setup: spillPayload(50 << 20), After: clearSpill, Baseline: copyStdin, BaselineName: "cp payload", Target: "≤ 3x cp, RSS ≤ 4x payload"})
	register(Case{Name: "spill-guard: 50 MB stdout vs a synced copy", Tool: "spill-guard", Args: args, Runs: 11,
		Setup: spillPayload(50 << 20), After: clearSpill, Baseline: syncedCopy, BaselineName: "dd conv=fsync", Target: "(context)"})
	register(Case{Name: "spill-guard: 50 MB Bash output via persistedOutputPath", Tool: "spill-guard", Args: args, Runs: 11,
		Setup: spillPersisted(50 << 20), After: clearSpill, Baseline: func(dir, _ string) *exec.Cmd {
			return exec.Command("cp", filepath.Join(dir, "tool-results", "b1.txt"), filepath.Join(dir, "copy"))
		}, BaselineName: "cp output", Target: "(context)"})
}
