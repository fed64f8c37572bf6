// Package delegateguard is delegate-guard, the PreToolUse hook of layer
// one: on the main thread it denies the hands-on tools and tells the model
// to dispatch a subagent, and lets glances (package ephemeral) through.
// docs/REFERENCE.md ("Layer one") says what it prints and takes.
package delegateguard

import (
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
)

const name = "delegate-guard"

// DefaultTools are the hands-on tools the design takes from the coordinator.
const DefaultTools = "Bash,Write,Edit,NotebookEdit"

const usage = `Usage: delegate-guard [flags] < payload.json

PreToolUse hook (layer one). On the main thread it denies the hands-on tools and
tells the model to dispatch a subagent; glances (read-only Bash such as git
status, ls, cat) pass. Subagent calls always pass.`

// Main runs delegate-guard and returns its exit code. It never approves a
// call: passing is printing nothing, so that Claude Code's own permission
// checks and the user's settings still decide.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	tools := c.Flags.String("tools", DefaultTools, "comma-separated tool names to deny on the main thread")
	noGlance := c.Flags.Bool("no-glance", false, "deny glances too (by default a main-thread Bash glance passes)")
	wb := hook.WorkbenchFlag(c.Flags)
	p, cfg, code, done := config.ForHook(c, args)
	if done {
		return code
	}
	guarded := map[string]bool{}
	for _, t := range strings.Split(*tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			guarded[t] = true
		}
	}
	if len(guarded) == 0 {
		return c.Fail(errors.New("--tools names no tool"))
	}
	tool := p.ToolName()
	if p.Event() != "PreToolUse" || !guarded[tool] {
		return hook.ExitOK
	}
	log := decisionlog.New(cfg.Log(), c, p)
	switch {
	case !cfg.Enabled(name):
		log.Record("off", "delegate-guard.enabled is false ("+cfg.Value("delegate-guard.enabled").From+")", decisionlog.Sizes{})
		return hook.ExitOK
	case !p.IsMainThread():
		log.Record("pass", "a subagent's call", decisionlog.Sizes{})
		return hook.ExitOK
	}
	why := tool + " on the main thread"
	if tool == "Bash" {
		cmd, ok, err := p.ToolInputString("command")
		if err != nil {
			return c.Fail(err)
		}
		glances, err := ephemeral.NewGlances(cfg.Extras())
		config.Warn(c, err)
		handsOn := len(cfg.Value("delegate-guard.main-thread").Extras) > 0
		pass, reason := letThrough(glances, cmd, !*noGlance, handsOn, log != nil)
		if ok && pass {
			log.Record("pass", reason, decisionlog.Sizes{})
			return hook.ExitOK
		}
		why = reason
	}
	artifacts := filepath.Join(hook.WorkbenchDirName, "artifacts")
	if root, err := hook.WorkbenchRoot(*wb, p.Cwd()); err == nil {
		artifacts = Artifacts(p.Cwd(), root)
	}
	if err := c.Print(hook.Decision("deny", Reason(tool, artifacts, !*noGlance))); err != nil {
		return c.Fail(err)
	}
	log.Record("deny", why, decisionlog.Sizes{})
	return hook.ExitOK
}

// letThrough reports whether the main thread may run cmd: a glance or a
// line of the configuration's hands-on commands and glances, or, with
// glances off, a line of hands-on commands only. The reason is the
// classifier's when explain asks for it (the decision log); without it, a
// line whose first word rules both out is answered without the parser.
func letThrough(g *ephemeral.Glances, cmd string, glance, handsOn, explain bool) (bool, string) {
	switch {
	case !explain && glance:
		return g.MainThread(cmd), ""
	case !explain && !handsOn:
		return false, ""
	}
	v := g.Classify(cmd)
	if glance {
		return v.MainThread, v.Reason
	}
	for _, s := range v.Segments {
		if !s.MainThread {
			return false, "delegate-guard.glance is false: " + s.Reason
		}
	}
	return len(v.Segments) > 0, v.Reason
}

// Reason is the denial, as the model gets it after Claude Code's
// "PreToolUse:<tool> hook error: ". It stays in the main context for good,
// so it says no more than the model needs to do the right thing next: the
// tool is off limits here, a subagent dispatched with the Agent tool does
// it, long output goes to the workbench's artifacts/, and, for Bash,
// glances still run. context-audit --what-if prices denials with it.
func Reason(tool, artifacts string, glance bool) string {
	r := tool + " runs in subagents only: dispatch one with the Agent tool and have it write long output to " +
		artifacts + string(filepath.Separator) + "."
	if glance && tool == "Bash" {
		r += " Glances (git status, ls, cat) may run here."
	}
	return r
}

// Artifacts is the artifacts folder of the workbench at root as the reason
// names it: relative to cwd when it lies under it (the subagent starts in
// the same folder), else absolute. A workbench other than flower's default
// is not named: its path is someone's text, not flower's words, and the
// session was shown it, quoted, at its start.
func Artifacts(cwd, root string) string {
	if root != hook.DefaultWorkbench(cwd) {
		return "the workbench's artifacts"
	}
	path := filepath.Join(root, "artifacts")
	if !filepath.IsAbs(cwd) {
		return path
	}
	rel, err := filepath.Rel(cwd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}
