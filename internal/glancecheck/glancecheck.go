// Package glancecheck is glance-check, the glance table of package
// ephemeral as a command: the verdict on one command line, on JSON Lines
// of them (--jsonl), or the table itself (--list), with the extra entries
// of the configuration of the folder it runs in, as delegate-guard reads
// them there (docs/REFERENCE.md, "What is a glance"). Exit 0 for a glance
// or done, 1 for not a glance, 3 for a usage or input error, never 2.
package glancecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

const name = "glance-check"

// maxDepth bounds a line's nesting: a command is a string, and an array or
// object around it is refused whatever its depth.
const maxDepth = 64

const (
	exitGlance    = 0
	exitNotGlance = 1
	exitUsage     = 3 // apart from "not a glance" (1)
)

const usage = `Usage: glance-check 'CMD' | --jsonl < lines | --list

Decides whether a bash command is a glance: read-only, with output that goes
stale (git status, ls, cat and compounds of them), from the one table that
both lets glances through and expires their results.

  glance-check 'CMD'  the verdict and each segment's reason; exit 0 glance, 1 not
  --jsonl             stdin: one JSON string per line; stdout: one
                      {"glance":…,"reason":…} per line, in order
  --list              print the table

Exit codes: 0 glance or done, 1 not a glance, 3 usage or input error.`

// retiredHook answers the --hook mode of earlier versions, which approved
// glances: an allow skips Claude Code's own permission checks, which ask
// about commands the table once called glances. A settings file may still
// wire it.
const retiredHook = "--hook was retired: glance-check no longer approves commands, Claude Code's own " +
	"permission check decides; remove this hook from your settings (./install.sh does it)"

// Main runs glance-check and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	jsonl := c.Flags.Bool("jsonl", false, "classify stdin's JSON Lines, one JSON string per line")
	list := c.Flags.Bool("list", false, "print the glance table")
	for _, a := range args {
		if a == "--" {
			break
		}
		if slices.Contains([]string{"-hook", "--hook", "-hook=true", "--hook=true"}, a) {
			return fail(c, retiredHook)
		}
	}
	if code, done := c.Parse(args); done {
		if code != hook.ExitOK {
			return exitUsage // Parse printed the line; 1 would mean "not a glance"
		}
		return code
	}
	wd, _ := os.Getwd()
	g, err := ephemeral.NewGlances(config.ForCommand(c, hook.ProjectDir(wd)).Extras())
	config.Warn(c, err)
	modes := 0
	for _, on := range []bool{*jsonl, *list, c.Flags.NArg() > 0} {
		if on {
			modes++
		}
	}
	var out bytes.Buffer
	switch {
	case modes == 0:
		return fail(c, "give a command to check, or --jsonl or --list (see "+name+" --help)")
	case modes > 1:
		return fail(c, "give one mode: a command, --jsonl or --list (see "+name+" --help)")
	case c.Flags.NArg() > 1:
		return fail(c, fmt.Sprintf("%d arguments: quote the command as one argument (see %s --help)", c.Flags.NArg(), name))
	case *jsonl:
		// Built whole before it is written: a bad line leaves stdout empty.
		if msg := classifyLines(c.Stdin, &out, g); msg != "" {
			return fail(c, msg)
		}
		code = exitGlance
	case *list:
		printList(&out, g)
	default:
		code = printVerdict(&out, g.Classify(c.Flags.Arg(0)))
	}
	if _, err := out.WriteTo(c.Stdout); err != nil {
		return fail(c, err.Error())
	}
	return code
}

func fail(c *hook.CLI, msg string) int {
	c.Fail(errors.New(msg))
	return exitUsage
}

// printVerdict prints v and each segment's reason; a segment holding a
// control character (a newline) is quoted, to keep it on one line.
func printVerdict(out *bytes.Buffer, v ephemeral.Verdict) int {
	verdict, code := "not a glance", exitNotGlance
	if v.Glance {
		verdict, code = "glance", exitGlance
	}
	fmt.Fprintf(out, "%s: %s\n", verdict, v.Reason)
	for _, s := range v.Segments {
		mark, cmd := "no    ", s.Command
		switch {
		case s.Glance:
			mark = "glance"
		case s.MainThread:
			mark = "main  "
		}
		if strings.ContainsFunc(cmd, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			cmd = strconv.Quote(cmd)
		}
		fmt.Fprintf(out, "  %s  %s\n          %s\n", mark, cmd, s.Reason)
	}
	return code
}

// classifyLines answers each line of in, a JSON string, with a
// {"glance":…,"reason":…} line on out, or returns why a line is refused.
func classifyLines(in io.Reader, out *bytes.Buffer, g *ephemeral.Glances) string {
	r := bufio.NewReader(in)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // reasons quote shell text such as "> out.txt"
	for n := 1; ; n++ {
		raw, err := r.ReadBytes('\n')
		if len(raw) == 0 && err == io.EOF {
			return ""
		}
		if err != nil && err != io.EOF {
			return "reading stdin: " + err.Error() + " (see " + name + " --help)"
		}
		raw = bytes.TrimSuffix(raw, []byte("\n"))
		v := gjson.ParseBytes(raw)
		why := ""
		switch {
		case !utf8.Valid(raw):
			why = "not valid UTF-8"
		case len(bytes.TrimSpace(raw)) == 0:
			why = "empty line, want a JSON string"
		case jsoncheck.Check(string(raw), maxDepth) != nil:
			why = "not valid JSON, want a JSON string"
		case v.Type != gjson.String:
			why = jsonkind.Of(v) + ", want a JSON string"
		}
		if why != "" {
			return fmt.Sprintf("stdin line %d: %s", n, why)
		}
		verdict := g.Classify(v.Str)
		enc.Encode(struct {
			Glance bool   `json:"glance"`
			Reason string `json:"reason"`
		}{verdict.Glance, verdict.Reason})
		if err == io.EOF {
			return ""
		}
	}
}

// printList prints the table: the glances with their rules, the commands
// that are never a glance, then the configuration's extra entries.
func printList(out *bytes.Buffer, g *ephemeral.Glances) {
	out.WriteString("Glances: commands the main thread may run itself, and whose results expire.\n" +
		"Every segment of a line (&&, ||, ;, |, newline) must be one of them.\n\n")
	entries := g.Table()
	width := 0
	for _, e := range entries {
		if e.Glance || e.MainThread {
			width = max(width, len(e.Command))
		}
	}
	never, extra := false, false
	for _, e := range entries {
		if e.Extra && !extra {
			out.WriteString("\nExtra entries of the configuration (flower-config):\n")
			extra = true
		}
		if !e.Glance && !e.MainThread {
			if !never {
				out.WriteString("\nNever a glance:\n")
				never = true
			}
			fmt.Fprintf(out, "  %s: %s\n", e.About, e.Command)
			continue
		}
		fmt.Fprintf(out, "%-*s  %s\n", width, e.Command, e.About)
		for _, r := range e.Rules {
			fmt.Fprintf(out, "%-*s    %s\n", width, "", r)
		}
	}
	out.WriteString("\nAlso never a glance: a parse error; output redirected to a file (only\n" +
		"/dev/null and descriptors such as 2>&1); here-documents and here-strings;\n" +
		"command or process substitution; parameter expansion; subshells, groups,\n" +
		"functions, loops, conditionals; background &; environment assignments; a\n" +
		"command name that is quoted, escaped or a path.\n")
}
