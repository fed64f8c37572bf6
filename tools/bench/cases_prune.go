package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The transcript cases of prune-session and context-audit: real transcripts
// (../shared/transcripts, the folder the tests read; the cases are left out
// when it is absent), real ones grown to the 4 MB of a long session and the
// 50 MB of a very long one, and a generated 200 MB one as a stress case,
// with no speed target, only a memory bound.

// realTranscripts is where the real transcripts are, from the repository's
// root, where make bench runs.
const realTranscripts = "../shared/transcripts"

// realCases are the real transcripts benchmarked: the four largest, each
// from another CLI version, spotter's with its subagent transcripts.
var realCases = []struct{ name, path string }{
	{"entire-cli 3.1 MB", "entire-cli/b00b80af-879f-4265-b95b-48db0938673c.jsonl"},
	{"spotter 2.8 MB", "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl"},
	{"cctrace 1.5 MB", "cctrace/132b2f66-ee5f-46f6-8904-32d9dc4d36c3.jsonl"},
	{"entire-sem 1.3 MB", "entire-sem/0f469ab8-bece-40b3-b3b8-c37e9ea7bc4b.jsonl"},
}

// Sizes of the grown transcripts: the largest real one in a sample of 33
// was 4.2 MB; long sessions reach tens of MB (issue 16).
const (
	grownBytes = 4 << 20
	longBytes  = 50 << 20
)

// grownCases are the grown transcripts' cases; issue 25 bounds memory for
// the 50 MB one only (a quarter of 4 MB is less than a Go process takes).
var grownCases = []struct {
	name   string
	size   int
	target string
	cpu    time.Duration
	rss    int64
	runs   int
}{{"4 MB", grownBytes, "≤ 50 ms", 50 * time.Millisecond, 0, 31}, {"50 MB", longBytes, "≤ 1.5 s, RSS under a quarter of the file", 1500 * time.Millisecond, longBytes / 4, 11}}

// pruneTranscriptBytes is the size of the stress case.
const pruneTranscriptBytes = 200 << 20

const pruneSessionID = "0b0b0b0b-1111-4111-8111-111111111111"

// prunePaths are the transcript and its project folder under dir.
func prunePaths(dir string) (project, transcript string) {
	project = filepath.Join(dir, "projects", "-home-u-ws")
	return project, filepath.Join(project, pruneSessionID+".jsonl")
}

func init() {
	transcriptArg := filepath.Join("$DIR", "projects", "-home-u-ws", pruneSessionID+".jsonl")
	cp := func(dir, _ string) *exec.Cmd {
		_, src := prunePaths(dir)
		return exec.Command("cp", src, filepath.Join(dir, "copy.jsonl"))
	}
	if _, err := os.Stat(realTranscripts); err == nil {
		for _, rc := range realCases {
			register(Case{
				Name: "prune-session: real transcript, " + rc.name,
				Tool: "prune-session",
				// Every glance result expired: after its last compaction
				// entire-cli holds one glance, which the default keeps, and
				// a session with nothing to prune gets no fork to time.
				Args:         []string{"--keep-recent", "0", transcriptArg},
				Target:       "≤ 50 ms",
				MaxCPU:       50 * time.Millisecond,
				Runs:         31,
				Setup:        func(dir string) (string, error) { return "", copyReal(dir, rc.path) },
				After:        removeFork,
				Baseline:     cp,
				BaselineName: "cp",
			})
		}
		for _, g := range grownCases {
			register(Case{
				Name:         "prune-session: real transcripts grown to " + g.name,
				Tool:         "prune-session",
				Args:         []string{transcriptArg},
				Target:       g.target,
				MaxCPU:       g.cpu,
				MaxRSS:       g.rss,
				Runs:         g.runs,
				Setup:        func(dir string) (string, error) { return "", writeGrown(dir, g.size) },
				After:        removeFork,
				Baseline:     cp,
				BaselineName: "cp",
			})
		}
	}
	register(Case{
		Name:         "prune-session: 200 MB transcript (stress)",
		Tool:         "prune-session",
		Args:         []string{transcriptArg},
		Target:       "no speed target; RSS well below the file",
		Runs:         5,
		Setup:        writePruneTranscript,
		After:        removeFork,
		Baseline:     cp,
		BaselineName: "cp",
	})
	// With --sync the fork is on disk before its id is printed: compared
	// with a copy that is too.
	register(Case{
		Name:   "prune-session: 200 MB transcript --sync (stress)",
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

// removeFork removes, untimed, the fork a run wrote beside the original
// (its transcript and its folder) and the copy the baseline made, so that
// each run of either writes a new file, as the other does. No fork means
// the run failed (the harness takes exit 1 for a hook's "could not"),
// which must not pass for a fast run.
func removeFork(dir string) error {
	project, _ := prunePaths(dir)
	if err := os.RemoveAll(filepath.Join(dir, "copy.jsonl")); err != nil {
		return err
	}
	forks, _ := filepath.Glob(filepath.Join(project, "*.jsonl"))
	n := 0
	for _, f := range forks {
		if filepath.Base(f) != pruneSessionID+".jsonl" {
			n++
			if err := os.Remove(f); err != nil {
				return err
			}
			if err := os.RemoveAll(strings.TrimSuffix(f, ".jsonl")); err != nil {
				return err
			}
		}
	}
	if n != 1 {
		return fmt.Errorf("the run wrote %d forks, want 1", n)
	}
	return nil
}

// copyReal copies the real transcript at rel (under realTranscripts), and
// its session folder when it has one, to the case's transcript.
func copyReal(dir, rel string) error {
	_, dst := prunePaths(dir)
	src := filepath.Join(realTranscripts, rel)
	if err := copyFile(src, dst); err != nil {
		return err
	}
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(src, ".jsonl"), "subagents", "*.jsonl"))
	for _, s := range subs {
		if err := copyFile(s, filepath.Join(strings.TrimSuffix(dst, ".jsonl"), "subagents", filepath.Base(s))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return createFile(dst, func(w *bufio.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// createFile writes the file at path, its folder made first, through a
// buffered writer that fill fills: every case's Setup writes its inputs so.
func createFile(path string, fill func(w *bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err = fill(w); err == nil {
		err = w.Flush()
	}
	return errors.Join(err, f.Close())
}

// uuidPattern matches the uuids of a transcript: entries', sessions', ….
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// writeGrown writes the case's transcript as a session grows to size bytes:
// the real main transcripts one after another, again and again, each line
// as it was but for its ids: the session's id is the case's, and from the
// second round on every other uuid, tool_use id and message id is made new,
// so that no two entries or calls share one.
func writeGrown(dir string, size int) error {
	_, dst := prunePaths(dir)
	return createFile(dst, func(w *bufio.Writer) error {
		written := 0
		for round := 0; written < size; round++ {
			rc := realCases[round%len(realCases)]
			data, err := os.ReadFile(filepath.Join(realTranscripts, rc.path))
			if err != nil {
				return err
			}
			copyN := round / len(realCases)
			srcID := []byte(strings.TrimSuffix(filepath.Base(rc.path), ".jsonl"))
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				if len(line) == 0 || written >= size {
					continue
				}
				line = uuidPattern.ReplaceAllFunc(line, func(u []byte) []byte {
					switch {
					case bytes.Equal(u, srcID):
						return []byte(pruneSessionID)
					case copyN == 0:
						return u
					}
					return append(fmt.Appendf(nil, "%08x", copyN), u[8:]...)
				})
				if copyN > 0 {
					line = bytes.ReplaceAll(line, []byte("toolu_"), fmt.Appendf(nil, "toolu_%d", copyN))
					line = bytes.ReplaceAll(line, []byte(`"msg_`), fmt.Appendf(nil, `"msg_%d`, copyN))
				}
				if line[len(line)-1] != '\n' { // a file's last line may have none
					line = append(line, '\n')
				}
				w.Write(line)
				written += len(line)
			}
		}
		return nil
	})
}

// writePruneTranscript writes a transcript in the shapes Claude Code 2.1.328
// writes (one entry per content block, each tool_result its own entry with
// toolUseResult beside it, api-request and attachment lines between), with
// glances, denials and API errors for the rules to act on, until it reaches
// pruneTranscriptBytes.
func writePruneTranscript(dir string) (string, error) {
	_, path := prunePaths(dir)
	return "", createFile(path, func(w *bufio.Writer) error {
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
		return nil
	})
}
