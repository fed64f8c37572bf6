// Package glancecheck is glance-check, the glance table of package ephemeral
// as a command. It has three modes:
//
//	glance-check 'CMD'   prints the verdict on CMD and each segment's reason;
//	                     exit 0 for a glance, 1 for not a glance.
//	glance-check --jsonl stdin is JSON Lines, each line a JSON string (one
//	                     command, possibly multi-line); stdout is one line per
//	                     input line, in order: {"glance":true|false,"reason":"…"}.
//	                     Exit 0. A line that is not a JSON string is an input
//	                     error: nothing on stdout, one stderr line naming it.
//	glance-check --list  prints the table: each command, what it does, and the
//	                     rules for its options and operands. Exit 0.
//
// The table is the one delegate-guard uses in the folder glance-check runs
// in ($CLAUDE_PROJECT_DIR, else the working folder): the built-in table
// with the configuration's extra entries (package config). A hands-on
// entry's segments are marked "main": the main thread may run them, but
// they are not glances.
//
// A usage or input error exits 3 with one stderr line, so that it differs
// from "not a glance" (1); never 2. --help and --version exit 0.
//
// glance-check is not a hook. It once had a --hook mode that answered
// "allow" for glances; an allow skips Claude Code's own permission checks,
// which ask about commands the table called glances (a redirection to
// /dev/tcp, test -v with a subscript), so the mode was retired: a glance passes
// delegate-guard by its printing nothing, and Claude Code decides. --hook now
// says so (exit 3), for settings that still wire it.
package glancecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"

	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

const name = "glance-check"

// Exit codes.
const (
	exitGlance    = 0
	exitNotGlance = 1
	exitUsage     = 3
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

// retiredHook is the message for the --hook flag of earlier versions, which
// a settings file may still wire.
const retiredHook = "--hook was retired: glance-check no longer approves commands, Claude Code's own " +
	"permission check decides; remove this hook from your settings (./install.sh does it)"

// Main runs glance-check and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	jsonl := c.Flags.Bool("jsonl", false, "classify stdin's JSON Lines, one JSON string per line")
	list := c.Flags.Bool("list", false, "print the glance table")
	if retired(args) {
		c.Fail(errors.New(retiredHook))
		return exitUsage
	}
	if code, done := c.Parse(args); done {
		// Parse already printed the one line; 1 means "not a glance" here.
		if code != hook.ExitOK {
			return exitUsage
		}
		return code
	}
	// The table of the folder it runs in, with that configuration's extra
	// entries: the one delegate-guard uses there.
	wd, _ := os.Getwd()
	g, err := ephemeral.NewGlances(config.ForCommand(c, hook.ProjectDir(wd)).Extras())
	config.Warn(c, err)
	modes := 0
	for _, on := range []bool{*jsonl, *list, c.Flags.NArg() > 0} {
		if on {
			modes++
		}
	}
	switch {
	case modes == 0:
		return usageError(c, "give a command to check, or --jsonl or --list")
	case modes > 1:
		return usageError(c, "give one mode: a command, --jsonl or --list")
	case c.Flags.NArg() > 1:
		return usageError(c, fmt.Sprintf("%d arguments: quote the command as one argument", c.Flags.NArg()))
	case *jsonl:
		return runJSONL(c, g)
	case *list:
		return printList(c, g)
	}
	return checkOne(c, g, c.Flags.Arg(0))
}

// retired reports whether args ask for the retired --hook mode (before the
// flags, as a settings file wires it).
func retired(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-hook", "--hook", "-hook=true", "--hook=true":
			return true
		}
	}
	return false
}

func usageError(c *hook.CLI, msg string) int {
	c.Fail(errors.New(msg + " (see " + name + " --help)"))
	return exitUsage
}

// checkOne prints the verdict on cmd and each segment's reason.
func checkOne(c *hook.CLI, g *ephemeral.Glances, cmd string) int {
	v := g.Classify(cmd)
	var b strings.Builder
	verdict, code := "not a glance", exitNotGlance
	if v.Glance {
		verdict, code = "glance", exitGlance
	}
	fmt.Fprintf(&b, "%s: %s\n", verdict, v.Reason)
	for _, s := range v.Segments {
		mark := "no    "
		switch {
		case s.Glance:
			mark = "glance"
		case s.MainThread:
			mark = "main  "
		}
		fmt.Fprintf(&b, "  %s  %s\n          %s\n", mark, printable(s.Command), s.Reason)
	}
	if _, err := io.WriteString(c.Stdout, b.String()); err != nil {
		c.Fail(err)
		return exitUsage
	}
	return code
}

// printable keeps a segment on one line: one holding a newline or another
// control character is printed quoted.
func printable(s string) string {
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// line is the answer for one --jsonl input line.
type line struct {
	Glance bool   `json:"glance"`
	Reason string `json:"reason"`
}

// runJSONL classifies each line of stdin. The output is built whole before
// any of it is written, so a bad line leaves stdout empty rather than half
// answered.
func runJSONL(c *hook.CLI, g *ephemeral.Glances) int {
	in := bufio.NewReader(c.Stdin)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // reasons quote shell text such as "> out.txt"
	for n := 1; ; n++ {
		raw, err := in.ReadBytes('\n')
		if len(raw) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return usageError(c, "reading stdin: "+err.Error())
		}
		cmd, why := jsonString(bytes.TrimSuffix(raw, []byte("\n")))
		if why != "" {
			c.Fail(fmt.Errorf("stdin line %d: %s", n, why))
			return exitUsage
		}
		v := g.Classify(cmd)
		if err := enc.Encode(line{Glance: v.Glance, Reason: v.Reason}); err != nil {
			c.Fail(err)
			return exitUsage
		}
		if err == io.EOF {
			break
		}
	}
	if _, err := out.WriteTo(c.Stdout); err != nil {
		c.Fail(err)
		return exitUsage
	}
	return exitGlance
}

// jsonString decodes one JSON Lines line holding a JSON string.
func jsonString(raw []byte) (string, string) {
	switch {
	case !utf8.Valid(raw):
		return "", "not valid UTF-8"
	case len(bytes.TrimSpace(raw)) == 0:
		return "", "empty line, want a JSON string"
	case !jsonscan.Valid(string(raw)): // gjson.ValidBytes recursed past Go's stack on 9 million brackets
		return "", "not valid JSON, want a JSON string"
	}
	v := gjson.ParseBytes(raw)
	if v.Type != gjson.String {
		return "", jsonkind.Of(v) + ", want a JSON string"
	}
	return v.Str, ""
}

// printList prints the table: the glances with their rules, then the
// commands named as never a glance, then the configuration's extra entries.
func printList(c *hook.CLI, g *ephemeral.Glances) int {
	var b strings.Builder
	b.WriteString("Glances: commands the main thread may run itself, and whose results expire.\n")
	b.WriteString("Every segment of a line (&&, ||, ;, |, newline) must be one of them.\n\n")
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
			b.WriteString("\nExtra entries of the configuration (flower-config):\n")
			extra = true
		}
		if !e.Glance && !e.MainThread {
			if !never {
				b.WriteString("\nNever a glance:\n")
				never = true
			}
			fmt.Fprintf(&b, "  %s: %s\n", e.About, e.Command)
			continue
		}
		fmt.Fprintf(&b, "%-*s  %s\n", width, e.Command, e.About)
		for _, r := range e.Rules {
			fmt.Fprintf(&b, "%-*s    %s\n", width, "", r)
		}
	}
	b.WriteString("\nAlso never a glance: a parse error; output redirected to a file (only\n" +
		"/dev/null and descriptors such as 2>&1); here-documents and here-strings;\n" +
		"command or process substitution; parameter expansion; subshells, groups,\n" +
		"functions, loops, conditionals; background &; environment assignments; a\n" +
		"command name that is quoted, escaped or a path.\n")
	if _, err := io.WriteString(c.Stdout, b.String()); err != nil {
		c.Fail(err)
		return exitUsage
	}
	return exitGlance
}
