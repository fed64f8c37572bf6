// Package indexguard is index-guard, the hook of layer two: it keeps the
// workbench's INDEX.md current and puts the workbench, its rules and its
// index in front of the model (package workbench), at a session's start,
// to each subagent, and on a prompt when the index changed. It never
// creates the workbench. docs/REFERENCE.md ("Layer two") says what each
// event does.
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
	root, err := hook.WorkbenchRoot(*wb, p.Cwd())
	if err != nil {
		return c.Fail(err)
	}
	g.root = root
	if event == "PostToolUse" {
		return g.postToolUse()
	}
	if g.wb, err = open(root); err != nil {
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
// index-guard never creates it, so a session that saves nothing leaves no
// trace. A part of it that is a symlink, or not what it should be (a FIFO
// for INDEX.md), is refused.
func open(root string) (*workbench.Workbench, error) {
	w, err := workbench.Open(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := w.Check(workbench.ScriptsDir, workbench.ArtifactsDir, workbench.StateDir, workbench.IndexFile); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// sessionStart shows the whole block: at the start of a session, and after
// a compaction, which leaves the model only a summary of what it was shown.
// It rescans in full, so whatever the cheap check of Current could miss is
// caught at least once a session.
func (g *guard) sessionStart() int {
	ix := &workbench.Index{}
	if g.wb != nil {
		// A new session (a fork is one, with an id of its own since Claude
		// Code 2.1.214) prunes the records of sessions long idle.
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
		// A failed record costs the first prompt an update it did not
		// need, which is better than no block at all.
		_ = g.record(shown)
	}
	return g.answer(block)
}

func (g *guard) subagentStart() int {
	ix, err := g.current()
	if err != nil {
		return g.cli.Fail(err)
	}
	block, _, err := workbench.Block(g.root, g.quoted(), ix, workbench.Worker)
	if err != nil {
		return g.cli.Fail(err)
	}
	return g.answer(block)
}

// userPrompt brings the session up to date with the index: nothing when it
// is what the session was last shown, else the entries that changed, or the
// whole block when that is shorter.
func (g *guard) userPrompt() int {
	if g.wb == nil {
		g.log.Record("pass", "no workbench: nothing to show beyond the empty index", decisionlog.Sizes{})
		return hook.ExitOK
	}
	ix, err := g.current()
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
	field := "file_path"
	if g.p.ToolName() == "NotebookEdit" {
		field = "notebook_path"
	}
	path, ok, err := g.p.ToolInputString(field)
	if err == nil && !ok && field == "notebook_path" {
		// file_path, the name every other writing tool uses, if that is
		// what came.
		path, ok, err = g.p.ToolInputString("file_path")
	}
	if err != nil {
		return g.cli.Fail(err)
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

// current is the index as it is now, without a rescan when nothing changed.
func (g *guard) current() (*workbench.Index, error) {
	if g.wb == nil {
		return &workbench.Index{}, nil
	}
	return g.wb.Current(g.max)
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

// A session's state file is named after it and holds what it was last
// shown of the index (workbench.Shown, as JSON). The .digest files of an
// older index-guard are removed.
const (
	shownSuffix = ".shown"
	oldSuffix   = ".digest"
)

// shown returns what this session was last shown. A session without a
// record was shown the block of an empty workbench (SessionStart records
// nothing where there is no workbench). ok is false when the record cannot
// be read: the caller then shows the whole block.
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

// record notes what this session has now been shown.
func (g *guard) record(s workbench.Shown) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return g.wb.WriteState(g.stateName(), b)
}

// maxSessionName is the longest session id used as a file name as it is.
const maxSessionName = 128

// safeSession reports whether a session id is usable as a file name as it
// is: 1 to maxSessionName letters, digits, '_' and '-' (Claude Code's ids
// are UUIDs).
func safeSession(id string) bool {
	return id != "" && len(id) <= maxSessionName &&
		strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// stateName names the session's state file. An id that is not a safe file
// name (empty, a path, too long) is replaced by its hash, so no payload can
// make index-guard write outside .state/.
func (g *guard) stateName() string {
	id := g.p.SessionID()
	if !safeSession(id) {
		h := fnv.New128a()
		h.Write([]byte(id))
		id = "h-" + hex.EncodeToString(h.Sum(nil))
	}
	return id + shownSuffix
}

// stateMaxAge is how long a session's record outlives its last change. A
// session resumed later is shown the whole block at its start as any other
// (SessionStart fires on a resume) and recorded again.
const stateMaxAge = 30 * 24 * time.Hour

// pruneState removes the records of sessions idle for over stateMaxAge,
// and the digests of an older index-guard, when a new session starts. An
// error only leaves a file behind.
func (g *guard) pruneState(now time.Time) {
	entries, err := g.wb.States()
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		if strings.HasSuffix(name, oldSuffix) {
			g.wb.RemoveState(name)
		} else if info, err := e.Info(); err == nil && strings.HasSuffix(name, shownSuffix) && now.Sub(info.ModTime()) > stateMaxAge {
			g.wb.RemoveState(name)
		}
	}
}
