// Package delegateguard is delegate-guard, the PreToolUse hook of layer
// one: on the main thread it denies the hands-on tools and tells the model
// to dispatch a subagent, and lets glances (package ephemeral) through.
// docs/REFERENCE.md ("Layer one") says what it prints and takes.
package delegateguard

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
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
	var guarded []string
	for _, t := range strings.Split(*tools, ",") {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(guarded, t) {
			guarded = append(guarded, t)
		}
	}
	if len(guarded) == 0 {
		return c.Fail(errors.New("--tools names no tool"))
	}
	g := guard{c: c, p: p, cfg: cfg, tools: guarded, glance: !*noGlance}
	switch {
	case !cfg.Enabled(name):
		if p.Event() == "PreToolUse" && slices.Contains(guarded, p.ToolName()) {
			decisionlog.New(cfg.Log(), c, p).Record("off", "delegate-guard.enabled is false ("+cfg.Value("delegate-guard.enabled").From+")", decisionlog.Sizes{})
		}
		return hook.ExitOK
	case p.Event() == "PreToolUse" && slices.Contains(guarded, p.ToolName()):
		return g.preToolUse(*wb)
	case p.Event() == "SessionStart" && p.IsMainThread() && !teammate():
		return g.sessionStart()
	}
	return hook.ExitOK
}

type guard struct {
	c      *hook.CLI
	p      *hook.Payload
	cfg    *config.Config
	tools  []string // the guarded tools
	glance bool     // glances pass
}

// preToolUse denies the main thread's call of a guarded tool, but a glance
// (or a hands-on command of the configuration's).
func (g *guard) preToolUse(wbFlag string) int {
	c, p, tool := g.c, g.p, g.p.ToolName()
	log := decisionlog.New(g.cfg.Log(), c, p)
	switch {
	case !p.IsMainThread():
		log.Record("pass", "a subagent's call", decisionlog.Sizes{})
		return hook.ExitOK
	case teammate():
		log.Record("pass", "an agent team's teammate: a worker, in a session of its own", decisionlog.Sizes{})
		return hook.ExitOK
	}
	why := tool + " on the main thread"
	if tool == "Bash" {
		cmd, ok, err := p.ToolInputString("command")
		if err != nil {
			return c.Fail(err)
		}
		glances, err := ephemeral.NewGlances(g.cfg.Extras())
		config.Warn(c, err)
		handsOn := len(g.cfg.Value("delegate-guard.main-thread").Extras) > 0
		pass, reason := letThrough(glances, cmd, g.glance, handsOn, log != nil)
		if ok && pass {
			log.Record("pass", reason, decisionlog.Sizes{})
			return hook.ExitOK
		}
		why = reason
	}
	artifacts := filepath.Join(hook.WorkbenchDirName, "artifacts")
	if root, err := hook.WorkbenchRoot(wbFlag, p.Cwd()); err == nil {
		artifacts = Artifacts(p.Cwd(), root)
	}
	if err := c.Print(hook.Decision("deny", Reason(tool, artifacts, g.glance))); err != nil {
		return c.Fail(err)
	}
	log.Record("deny", why, decisionlog.Sizes{})
	return hook.ExitOK
}

// sessionStart gives the main thread the coordinator's rules before it
// works, and again after each compaction (SessionStart fires then too): a
// model that learns them from its first denial pays a round trip for it.
func (g *guard) sessionStart() int {
	if err := g.c.Print(hook.NewOutput("SessionStart").Set("additionalContext", Rules(g.tools, g.glance))); err != nil {
		return g.c.Fail(err)
	}
	return hook.ExitOK
}

// Rules are the coordinator's rules as the main thread gets them at the
// start: the design's (decompose, delegate, read reports, decide; a brief
// states only what is specific to its task), with the tools this session
// denies it. They stay in the context for good: as short as they can be.
func Rules(tools []string, glance bool) string {
	r := "You coordinate this session (flower): decompose the work, delegate it, read the reports, decide. " +
		joinTools(tools) + " run in subagents you dispatch with the Agent tool"
	if glance && slices.Contains(tools, "Bash") {
		r += "; glances (git status, ls, cat) run here"
	}
	return r + ". A brief states only what is specific to its task."
}

// joinTools writes tools as "Bash, Write, Edit and NotebookEdit".
func joinTools(tools []string) string {
	if len(tools) == 1 {
		return tools[0]
	}
	return strings.Join(tools[:len(tools)-1], ", ") + " and " + tools[len(tools)-1]
}

// teammate reports whether the hook runs for a teammate of an agent team
// that runs in a terminal pane of its own: a Claude Code process of its
// own, whose payloads carry no agent_id, as the lead's do (Claude Code
// 2.1.328), but which was started with --agent-id. Its transcript says so
// too, but only once written, after its first calls. The hook's parent is
// that process, or the sh -c between them. A teammate is a worker: the lead
// coordinates.
func teammate() bool {
	pid := os.Getppid()
	for range 2 {
		args, parent, ok := process(pid)
		if !ok {
			return false
		}
		if slices.Contains(args, "--agent-id") {
			return true
		}
		pid = parent
	}
	return false
}

// process is the command line and the parent of the process pid.
func process(pid int) (args []string, parent int, ok bool) {
	if runtime.GOOS != "linux" {
		out, err := exec.Command("ps", "-o", "ppid=,args=", "-p", strconv.Itoa(pid)).Output()
		fields := strings.Fields(string(out))
		if err != nil || len(fields) < 2 {
			return nil, 0, false
		}
		parent, err = strconv.Atoi(fields[0])
		return fields[1:], parent, err == nil
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, 0, false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(stat, ')')
	if err != nil || i < 0 {
		return nil, 0, false
	}
	fields := strings.Fields(string(stat[i+1:])) // state, ppid, …
	if len(fields) < 2 {
		return nil, 0, false
	}
	parent, err = strconv.Atoi(fields[1])
	return strings.Split(string(cmdline), "\x00"), parent, err == nil
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
