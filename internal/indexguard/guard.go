// Package indexguard is index-guard, the hook of layer two: it keeps the
// workbench's INDEX.md current and shows the model the workbench, its rules
// and its index (docs/REFERENCE.md, "Layer two"). It never creates the
// workbench.
package indexguard

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/decisionlog"
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

// Main runs index-guard and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	wb := hook.WorkbenchFlag(c.Flags)
	maxEntries := c.Flags.Int("max-entries", workbench.DefaultMaxEntries, "the most files INDEX.md lists")
	p, cfg, code, done := config.ForHook(c, args)
	if done {
		return code
	}
	if *maxEntries < 0 {
		return c.Fail(fmt.Errorf("--max-entries is %d, want 0 or more", *maxEntries))
	}
	event := p.Event()
	switch tool := p.ToolName(); {
	case event == "PostToolUse" && tool != "Write" && tool != "Edit" && tool != "MultiEdit" && tool != "NotebookEdit":
		return hook.ExitOK // no write of a tool that may change the index
	case event != "PostToolUse" && event != "SessionStart" && event != "SubagentStart" && event != "UserPromptSubmit":
		return hook.ExitOK
	}
	g := guard{cli: c, p: p, max: *maxEntries, log: decisionlog.New(cfg.Log(), c, p)}
	if !cfg.Enabled(name) {
		g.log.Record("off", "index-guard.enabled is false ("+cfg.Value("index-guard.enabled").From+")", decisionlog.Sizes{})
		return hook.ExitOK
	}
	var err error
	if g.root, err = hook.WorkbenchRoot(*wb, p.Cwd()); err != nil {
		return c.Fail(err)
	}
	if event == "PostToolUse" {
		return g.postToolUse()
	}
	if g.wb, err = open(g.root); err != nil {
		return c.Fail(err)
	}
	if g.wb != nil {
		defer g.wb.Close()
	}
	switch event {
	case "SessionStart":
		return g.sessionStart()
	case "SubagentStart":
		return g.subagentStart()
	}
	return g.userPrompt()
}

type guard struct {
	cli  *hook.CLI
	p    *hook.Payload
	root string
	wb   *workbench.Workbench // nil while the workbench does not exist
	max  int
	log  *decisionlog.Recorder
}

// open opens the workbench at root, or returns nil if it does not exist:
// index-guard never creates it. A part of it that is a symlink, or not what
// it should be, is refused.
func open(root string) (*workbench.Workbench, error) {
	w, err := workbench.Open(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil {
		if err = w.Check(workbench.ScriptsDir, workbench.ArtifactsDir, workbench.StateDir, workbench.IndexFile); err != nil {
			w.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// sessionStart shows the whole block, also after a compaction, which leaves
// the model only a summary. Its full rescan catches once a session what
// Current's cheap check could miss.
func (g *guard) sessionStart() int {
	ix := &workbench.Index{}
	if g.wb != nil {
		// A fork is a new session, with an id of its own.
		if source := g.p.Get("source").String(); source == "startup" || source == "fork" || source == "clear" {
			g.pruneState(time.Now())
		}
		var err error
		if ix, err = g.wb.Refresh(g.max); err != nil {
			return g.cli.Fail(err)
		}
	}
	block, shown, err := workbench.Block(g.root, g.quoted(), ix, workbench.Coordinator)
	if err != nil {
		return g.cli.Fail(err)
	}
	if g.wb != nil {
		_ = g.record(shown) // failing costs the first prompt a needless update
	}
	return g.answer(block)
}

func (g *guard) subagentStart() int {
	ix := &workbench.Index{}
	var err error
	if g.wb != nil {
		if ix, err = g.wb.Current(g.max); err != nil {
			return g.cli.Fail(err)
		}
	}
	block, _, err := workbench.Block(g.root, g.quoted(), ix, workbench.Worker)
	if err != nil {
		return g.cli.Fail(err)
	}
	return g.answer(block)
}

// userPrompt shows nothing when the index is what the session last saw,
// else the entries that changed, or the whole block when that is shorter.
func (g *guard) userPrompt() int {
	if g.wb == nil {
		g.log.Record("pass", "no workbench: nothing to show beyond the empty index", decisionlog.Sizes{})
		return hook.ExitOK
	}
	ix, err := g.wb.Current(g.max)
	if err != nil {
		return g.cli.Fail(err)
	}
	block, shown, err := workbench.Block(g.root, g.quoted(), ix, workbench.Coordinator)
	if err != nil {
		return g.cli.Fail(err)
	}
	if prev, known := g.shown(); known {
		update := workbench.Update(prev, shown)
		if update == "" {
			g.log.Record("pass", "the index is as this session last saw it", decisionlog.Sizes{})
			return hook.ExitOK
		}
		if workbench.BlockLen(update) < workbench.BlockLen(block) {
			block = update
		}
	}
	_ = g.record(shown) // failing to record only repeats a line
	return g.answer(block)
}

// postToolUse regenerates INDEX.md after a write under scripts/ or
// artifacts/, and prints nothing.
func (g *guard) postToolUse() int {
	path, ok, err := g.p.ToolInputString("file_path")
	if g.p.ToolName() == "NotebookEdit" {
		// notebook_path, else file_path if that is what came.
		if path, ok, err = g.p.ToolInputString("notebook_path"); err == nil && !ok {
			path, ok, err = g.p.ToolInputString("file_path")
		}
	}
	if err != nil {
		return g.cli.Fail(err)
	}
	if !ok || path == "" {
		return hook.ExitOK
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(g.p.Cwd(), path) // as the model meant it
	}
	if !workbench.Indexed(g.root, path) {
		g.log.Record("pass", "written outside the workbench's scripts/ and artifacts/", decisionlog.Sizes{})
		return hook.ExitOK
	}
	w, err := open(g.root)
	if err != nil || w == nil {
		return g.cli.Fail(cmp.Or(err, fmt.Errorf("workbench %s is gone", g.root)))
	}
	defer w.Close()
	ix, err := w.Refresh(g.max)
	if err != nil {
		return g.cli.Fail(err)
	}
	g.log.Record("index", fmt.Sprintf("INDEX.md regenerated: %d entries", len(ix.Entries)), decisionlog.Sizes{})
	return hook.ExitOK
}

// quoted reports whether the workbench is shown quoted: any but flower's
// default (see workbench.Block).
func (g *guard) quoted() bool { return g.root != hook.DefaultWorkbench(g.p.Cwd()) }

func (g *guard) answer(block string) int {
	if err := g.cli.Print(hook.NewOutput(g.p.Event()).Set("additionalContext", block)); err != nil {
		return g.cli.Fail(err)
	}
	verdict, why := "index", "the workbench block shown to the model"
	if g.p.Event() == "UserPromptSubmit" {
		verdict, why = "update", "what changed in the index since this session last saw it"
	}
	g.log.Record(verdict, why, decisionlog.Sizes{Shown: utf8.RuneCountInString(block)})
	return hook.ExitOK
}

// A session's state file holds what it was last shown (workbench.Shown as
// JSON); an older index-guard left .digest files.
const (
	shownSuffix = ".shown"
	oldSuffix   = ".digest"
)

// shown returns what this session was last shown: the empty block when it
// has no record; ok is false when the record cannot be read.
func (g *guard) shown() (workbench.Shown, bool) {
	b, err := g.wb.ReadState(g.stateName())
	if errors.Is(err, fs.ErrNotExist) {
		return workbench.EmptyShown(), true
	}
	if err != nil {
		return workbench.Shown{}, false
	}
	return workbench.ParseShown(b)
}

func (g *guard) record(s workbench.Shown) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return g.wb.WriteState(g.stateName(), b)
}

// maxSessionName is the longest session id used as a file name as it is.
const maxSessionName = 128

// safeSession reports whether a session id is a file name as it is (Claude
// Code's are UUIDs).
func safeSession(id string) bool {
	return id != "" && len(id) <= maxSessionName &&
		strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// stateName names the session's state file; an id that is no safe file name
// is hashed, so that no payload makes index-guard write outside .state/.
func (g *guard) stateName() string {
	id := g.p.SessionID()
	if !safeSession(id) {
		h := fnv.New128a()
		h.Write([]byte(id))
		id = "h-" + hex.EncodeToString(h.Sum(nil))
	}
	return id + shownSuffix
}

// stateMaxAge is how long a session's record outlives its last change; a
// session resumed later is shown the whole block at its start anyway.
const stateMaxAge = 30 * 24 * time.Hour

// pruneState removes, when a session starts, the records of sessions idle
// for over stateMaxAge and the digests of an older index-guard. An error
// only leaves a file behind.
func (g *guard) pruneState(now time.Time) {
	entries, _ := g.wb.States()
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); strings.HasSuffix(name, oldSuffix) ||
			err == nil && strings.HasSuffix(name, shownSuffix) && now.Sub(info.ModTime()) > stateMaxAge {
			g.wb.RemoveState(name)
		}
	}
}
