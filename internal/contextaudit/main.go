package contextaudit

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/transcript"
)

const name = "context-audit"

const usage = `Usage: context-audit [flags] SESSION...
       context-audit [flags] --project DIR

Measures the context economics of Claude Code sessions: how the turns,
characters and hands-on tool calls split between the main thread and its
subagents, denials, glances, spills, workbench scripts, briefs, the main
thread's context growth against the model's window and the prompt cache;
with --what-if, what the main thread and its subagents would have held with
flower's layers.
SESSION is a transcript path (.jsonl) or a session id under
$CLAUDE_CONFIG_DIR (default ~/.claude)
/projects/*/; --project DIR takes every session of the project whose
working directory (or folder under projects/) is DIR.`

// Main runs context-audit and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	fs := c.Flags
	asJSON := fs.Bool("json", false, "print one JSON object per session (JSON Lines) instead of a table")
	project := fs.String("project", "", "audit every session of the project whose working directory (or projects/ folder) is `DIR`")
	root := fs.String("workbench", "", "the workbench root whose scripts/ are counted (default: <the session's first cwd>/.flower)")
	window := fs.Int64("window", DefaultWindow, "the model's context window in `tokens` (1000000 for a 1M model); --what-if reads it from the session unless given")
	whatIf := fs.Bool("what-if", false, "estimate what the main thread would have held with every layer of flower")
	cpt := fs.Float64("chars-per-token", DefaultCharsPerToken, "with --what-if: characters a token holds")
	delegation := fs.Int64("delegation-chars", 0, "with --what-if: what one delegation costs the main thread, in `characters` (default: the mean of the session's own general-purpose ones, else "+fmt.Sprint(DefaultDelegation)+")")
	if code, done := c.Parse(args); done {
		return code
	}
	switch {
	case *window < 1:
		return c.Fail(fmt.Errorf("--window must be at least 1 token, got %d", *window))
	case !(*cpt > 0 && *cpt < 100):
		return c.Fail(fmt.Errorf("--chars-per-token must be over 0 and under 100, got %g", *cpt))
	case *delegation < 0:
		return c.Fail(fmt.Errorf("--delegation-chars must be 0 or more, got %d", *delegation))
	case fs.NArg() == 0 && *project == "":
		return c.Fail(errors.New("want SESSION... or --project DIR (see context-audit --help)"))
	}
	opts := Options{Window: *window}
	if *whatIf {
		opts.WhatIf = &WhatIfOptions{CharsPerToken: *cpt, Delegation: *delegation}
		fs.Visit(func(f *flag.Flag) { // --window given: else the session's model says
			if f.Name == "window" {
				opts.WhatIf.Window = *window
			}
		})
	}
	if *root != "" {
		abs, err := filepath.Abs(*root)
		if err != nil {
			return c.Fail(err)
		}
		opts.Workbench = abs
	}

	var problems, paths []string
	if *project != "" {
		_, found, err := transcript.ProjectSessions(*project)
		if err != nil {
			problems = append(problems, err.Error())
		}
		paths = append(paths, found...)
	}
	for _, arg := range fs.Args() {
		p, err := transcript.Locate(arg)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		paths = append(paths, p)
	}
	paths = distinct(paths)
	var tot *totals // nil for one session: no totals, and no entries held to count once
	if len(paths) > 1 {
		tot = newTotals()
	}
	write := writeTable
	if *asJSON {
		write = writeJSON
	}
	printed, tables := 0, glanceTables{}
	for _, p := range paths {
		opts.Glances = tables.of(c, transcript.FirstCwd(p))
		r, part, warnings, err := audit(p, opts, tot)
		problems = append(problems, warnings...)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if tot != nil {
			tot.add(r, part)
		}
		if err := write(stdout, r, printed > 0); err != nil {
			return c.Fail(err)
		}
		printed++
	}
	if printed == 0 {
		// Nothing to show: one line saying why, however many reasons.
		msg := "nothing could be read"
		if len(problems) > 0 {
			msg = strings.Join(problems, "; ")
		}
		return c.Fail(errors.New(msg))
	}
	if printed > 1 {
		if err := write(stdout, tot.report(), true); err != nil {
			return c.Fail(err)
		}
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s: warning: %s\n", name, strings.ReplaceAll(p, "\n", " "))
	}
	return hook.ExitOK
}

// distinct is paths with each file once, in their order: a session named
// twice (by its id and its path, or in --project and by name) is one
// report, its subagent transcripts counted once in the totals.
func distinct(paths []string) []string {
	var out []string
	var seen []os.FileInfo
	for _, p := range paths {
		info, err := os.Stat(p)
		if err == nil && slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(s, info) }) {
			continue
		}
		if err == nil {
			seen = append(seen, info)
		}
		out = append(out, p)
	}
	return out
}

// glanceTables are the glance tables of the projects audited, by folder:
// what delegate-guard took for a glance there (config.Load). What a
// configuration could not give is said once per folder on stderr.
type glanceTables map[string]*ephemeral.Glances

func (t glanceTables) of(c *hook.CLI, dir string) *ephemeral.Glances {
	g, ok := t[dir]
	if !ok {
		cfg := config.Load(dir)
		var err error
		g, err = ephemeral.NewGlances(cfg.Extras())
		config.Warn(c, append(cfg.Problems(), err)...)
		t[dir] = g
	}
	return g
}
