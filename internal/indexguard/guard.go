package indexguard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/workbench"
)

const name = "index-guard"

const usage = `Usage: index-guard [flags] < payload.json

Hook of layer two, for SessionStart, SubagentStart, UserPromptSubmit and
PostToolUse (Write|Edit|MultiEdit|NotebookEdit). It keeps the workbench's
INDEX.md current and shows the model where the workbench is, its rules and its
index: at session start (and after each compaction), to each subagent, and on
a prompt when the index changed since it was last shown.`

// writeTools are the tools whose PostToolUse may change the index.
var writeTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// Main runs index-guard and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	wb := hook.WorkbenchFlag(c.Flags)
	maxEntries := c.Flags.Int("max-entries", workbench.DefaultMaxEntries, "the most files INDEX.md lists")
	if code, done := c.Parse(args); done {
		return code
	}
	if c.Flags.NArg() > 0 {
		return c.Fail(fmt.Errorf("unexpected argument %q: the payload comes on stdin", c.Flags.Arg(0)))
	}
	if *maxEntries < 0 {
		return c.Fail(fmt.Errorf("--max-entries is %d, want 0 or more", *maxEntries))
	}

	p, err := hook.ReadPayload(stdin)
	if err != nil {
		return c.Fail(err)
	}
	g := guard{cli: c, p: p, max: *maxEntries}
	switch p.Event() {
	case "SessionStart", "SubagentStart", "UserPromptSubmit":
	case "PostToolUse":
		if !writeTools[p.ToolName()] {
			return hook.ExitOK
		}
	default:
		return hook.ExitOK
	}
	if g.root, err = hook.WorkbenchRoot(*wb, p.Cwd()); err != nil {
		return c.Fail(err)
	}
	switch p.Event() {
	case "SessionStart":
		return g.sessionStart()
	case "SubagentStart":
		return g.subagentStart()
	case "UserPromptSubmit":
		return g.userPrompt()
	}
	return g.postToolUse()
}

type guard struct {
	cli  *hook.CLI
	p    *hook.Payload
	root string
	max  int
}

func (g *guard) sessionStart() int {
	if g.p.Get("source").String() == "startup" {
		g.pruneState(time.Now())
	}
	ix, md, err := workbench.Refresh(g.root, g.max)
	if err != nil {
		return g.cli.Fail(err)
	}
	block, err := workbench.Block(g.root, ix, workbench.Coordinator)
	if err != nil {
		return g.cli.Fail(err)
	}
	if !g.seen(md) {
		// A failed record costs one repeated block on the first prompt,
		// which is better than no block at all: the error is not fatal.
		_ = g.record(md)
	}
	return g.answer(block)
}

func (g *guard) subagentStart() int {
	ix, _, err := workbench.Refresh(g.root, g.max)
	if err != nil {
		return g.cli.Fail(err)
	}
	block, err := workbench.Block(g.root, ix, workbench.Worker)
	if err != nil {
		return g.cli.Fail(err)
	}
	return g.answer(block)
}

func (g *guard) userPrompt() int {
	ix, md, err := workbench.Refresh(g.root, g.max)
	if err != nil {
		return g.cli.Fail(err)
	}
	if g.seen(md) {
		return hook.ExitOK
	}
	block, err := workbench.Block(g.root, ix, workbench.Coordinator)
	if err != nil {
		return g.cli.Fail(err)
	}
	_ = g.record(md) // as in sessionStart: failing to record only repeats the block
	return g.answer(block)
}

func (g *guard) postToolUse() int {
	field := "file_path"
	if g.p.ToolName() == "NotebookEdit" {
		field = "notebook_path"
	}
	path, ok, err := g.p.ToolInputString(field)
	if err != nil {
		return g.cli.Fail(err)
	}
	if !ok && field == "notebook_path" {
		// NotebookEdit's input names its file notebook_path; take file_path,
		// the name every other writing tool uses, if that is what came.
		if path, ok, err = g.p.ToolInputString("file_path"); err != nil {
			return g.cli.Fail(err)
		}
	}
	if !ok || path == "" {
		return hook.ExitOK
	}
	if !filepath.IsAbs(path) {
		// Tools take absolute paths; a relative one is taken as the model
		// meant it, from the session's current folder.
		path = filepath.Join(g.p.Cwd(), path)
	}
	if !workbench.Indexed(g.root, path) {
		return hook.ExitOK
	}
	if _, _, err := workbench.Refresh(g.root, g.max); err != nil {
		return g.cli.Fail(err)
	}
	return hook.ExitOK
}

func (g *guard) answer(block string) int {
	if _, err := hook.NewOutput(g.p.Event()).Set("additionalContext", block).WriteTo(g.cli.Stdout); err != nil {
		return g.cli.Fail(err)
	}
	return hook.ExitOK
}

// digest names an index's content. The index holds only relative paths, so
// it is the same wherever the workbench sits.
func digest(md []byte) string {
	sum := sha256.Sum256(md)
	return hex.EncodeToString(sum[:]) + "\n"
}

// seen reports whether this session was last shown the index md.
func (g *guard) seen(md []byte) bool {
	old, err := os.ReadFile(g.statePath())
	return err == nil && string(old) == digest(md)
}

// record notes that this session was shown the index md.
func (g *guard) record(md []byte) error {
	path := g.statePath()
	if err := os.MkdirAll(filepath.Dir(path), workbench.DirPerm); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(digest(md)), workbench.FilePerm)
}

// maxSessionName is the longest session id used as a file name as it is.
const maxSessionName = 128

// safeSession reports whether a session id is usable as a file name as it
// is: 1 to maxSessionName letters, digits, '_' and '-' (Claude Code's ids
// are UUIDs). A loop, not the regexp it once was: compiling
// ^[A-Za-z0-9_-]{1,128}$ unrolls the repeat 128 times, 1,695 allocations
// that cost every index-guard run 2.5 to 3.5 ms at start (GODEBUG=inittrace).
func safeSession(id string) bool {
	if id == "" || len(id) > maxSessionName {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// statePath is where the session's digest lives. An id that is not a safe
// file name (empty, a path, too long) is replaced by its hash, so no payload
// can make index-guard write outside .state/.
func (g *guard) statePath() string {
	id := g.p.SessionID()
	if !safeSession(id) {
		sum := sha256.Sum256([]byte(id))
		id = "h-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(g.root, workbench.StateDir, id+".digest")
}

// stateMaxAge is how long a session's digest outlives its last change. A
// session resumed later than that sees the block once more on its first
// prompt; keeping digests forever would add a file per session for good.
const stateMaxAge = 30 * 24 * time.Hour

// pruneState removes the digests of sessions idle for over stateMaxAge. It
// runs when a new session starts, and any error only leaves a file behind.
func (g *guard) pruneState(now time.Time) {
	dir := filepath.Join(g.root, workbench.StateDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".digest") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > stateMaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
