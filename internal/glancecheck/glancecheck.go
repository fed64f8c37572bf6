// Package glancecheck is glance-check, the glance table of package
// ephemeral as a command: the verdict on one command line, on JSON Lines
// of them (--jsonl), or the table itself (--list), with the extra entries
// of the configuration of the folder it runs in, as delegate-guard reads
// them there. Exit 0 for a glance or done, 1 for not a glance, 3 for a
// usage or input error, never 2.
package glancecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

const name = "glance-check"

const exitUsage = 3 // 1 is "not a glance"

const usage = `Usage: glance-check 'CMD' | --jsonl < lines | --list

Decides whether a bash command is a glance: read-only, with output that goes
stale (git status, ls, cat and compounds of them), from the one table that
both lets glances through and expires their results.

  glance-check 'CMD'  the verdict and each segment's reason; exit 0 glance, 1 not
  --jsonl             stdin: one JSON string per line; stdout: one
                      {"glance":…,"reason":…} per line, in order
  --list              print the table

Exit codes: 0 glance or done, 1 not a glance, 3 usage or input error.`

// retiredHook answers the --hook mode of earlier versions, which a
// settings file may still wire: its allow skipped Claude Code's own
// permission checks.
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
			return exitUsage // Parse printed the line
		}
		return code
	}
	wd, _ := os.Getwd()
	g, err := ephemeral.NewGlances(config.ForCommand(c, hook.ProjectDir(wd)).Extras())
	config.Warn(c, err)
	var out bytes.Buffer
	switch n := c.Flags.NArg(); {
	case !*jsonl && !*list && n == 0:
		return fail(c, "give a command to check, or --jsonl or --list (see "+name+" --help)")
	case *jsonl && *list, (*jsonl || *list) && n > 0:
		return fail(c, "give one mode: a command, --jsonl or --list (see "+name+" --help)")
	case n > 1:
		return fail(c, fmt.Sprintf("%d arguments: quote the command as one argument (see %s --help)", n, name))
	case *jsonl:
		// Built whole before it is written: a bad line leaves stdout empty.
		if msg := classifyLines(c.Stdin, &out, g); msg != "" {
			return fail(c, msg)
		}
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
	verdict, code := "not a glance", 1
	if v.Glance {
		verdict, code = "glance", 0
	}
	fmt.Fprintf(out, "%s: %s\n", verdict, v.Reason)
	for _, s := range v.Segments {
		mark, cmd := "no    ", s.Command
		if s.Glance {
			mark = "glance"
		} else if s.MainThread {
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
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // reasons quote shell text such as "> out.txt"
	lines := bufio.NewScanner(in)
	lines.Buffer(nil, math.MaxInt)
	for n := 1; lines.Scan(); n++ {
		raw := lines.Text()
		v, why := gjson.Parse(raw), ""
		switch {
		case strings.TrimSpace(raw) == "":
			why = "empty line, want a JSON string"
		case jsoncheck.Check(raw, 64) != nil: // a command is a string: any depth is refused
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
	}
	if err := lines.Err(); err != nil {
		return "reading stdin: " + err.Error() + " (see " + name + " --help)"
	}
	return ""
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
	header := ""
	for _, e := range entries {
		switch {
		case e.Extra && header != "extra":
			header = "extra"
			out.WriteString("\nExtra entries of the configuration (flower-config):\n")
		case !e.Glance && !e.MainThread && header == "":
			header = "never"
			out.WriteString("\nNever a glance:\n")
		}
		if !e.Glance && !e.MainThread {
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
