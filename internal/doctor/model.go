package doctor

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/transcript"
)

// ModelPrompt asks the main thread for a harmless hands-on command; with Bash
// allowed, only a hook can refuse it.
const ModelPrompt = "Use the Bash tool to run: rm -f flower-check.txt"

// modelTimeout bounds the session: an unreachable API is retried for
// minutes by default, which is shortened by the environment Model sets.
const modelTimeout = 3 * time.Minute

// denialStart begins the tool result of a call a PreToolUse hook denied.
const denialStart = "PreToolUse:Bash hook error: "

// Model runs one short session of Claude Code with the user's own model in a
// new empty folder, asking for ModelPrompt, and says what happened:
// delegate-guard's denial (layer one works in this Claude Code), the model
// call failing (Claude Code's connection to the model, not flower), or no
// denial (flower did not run). The folder and the session Claude Code
// recorded for it are removed. It reports whether the denial came.
func Model(o Options, w io.Writer) bool {
	dir, err := os.MkdirTemp("", "flower-check-")
	if err != nil {
		fmt.Fprintf(w, "cannot make a folder for the check: %v\n", err)
		return false
	}
	defer os.RemoveAll(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		// Claude Code records the session under projects/, named after the
		// folder: removed with the folder, if this run made it.
		if projects, err := transcript.ProjectDir(real); err == nil {
			if _, err := os.Lstat(projects); errors.Is(err, fs.ErrNotExist) {
				defer os.RemoveAll(projects)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), modelTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.claude(), "-p", ModelPrompt, "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose")
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for _, kv := range []string{"CLAUDE_CODE_MAX_RETRIES=1", "API_TIMEOUT_MS=60000"} {
		if k, _, _ := strings.Cut(kv, "="); os.Getenv(k) == "" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()

	denial, failure := readStream(out)
	switch {
	case denial != "":
		fmt.Fprintln(w, denial)
		fmt.Fprintln(w, "ok: flower's delegate-guard denied the main thread's command, as layer one should")
		return true
	case failure == "" && runErr != nil:
		failure = strings.TrimSpace(firstLine(stderr.String()))
		if failure == "" {
			failure = runErr.Error()
		}
	}
	if failure != "" {
		fmt.Fprintf(w, "the model call failed: %s\nThat is Claude Code's connection to the model (API key, network, login), not flower: `claude -p hi` fails the same way.\n", failure)
		return false
	}
	fmt.Fprintln(w, "no denial: the session ran the command itself, so flower's delegate-guard did not run (see Troubleshooting)")
	return false
}

// readStream finds, in claude -p's stream-json output, the denial of a Bash
// call and why the session failed, if it did.
func readStream(out []byte) (denial, failure string) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch gjson.GetBytes(line, "type").String() {
		case "user":
			gjson.GetBytes(line, "message.content").ForEach(func(_, b gjson.Result) bool {
				text := b.Get("content")
				if text.IsArray() {
					text = text.Get("0.text")
				}
				if b.Get("type").String() == "tool_result" && strings.HasPrefix(text.String(), denialStart) && denial == "" {
					denial = text.String()
				}
				return true
			})
		case "result":
			if r := gjson.GetBytes(line, "is_error"); r.Bool() {
				failure = firstLine(gjson.GetBytes(line, "result").String())
				if failure == "" {
					failure = gjson.GetBytes(line, "subtype").String()
				}
			}
		}
	}
	return denial, failure
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
