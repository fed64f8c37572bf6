package hook

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Exit codes of a flower command.
const (
	ExitOK   = 0
	ExitFail = 1
)

// CLI carries what one invocation of a command needs: its name, its streams and
// its flag set. It is built by NewCLI at the top of a command's Main.
type CLI struct {
	Name   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Flags  *flag.FlagSet

	usage   string
	version *bool
}

// NewCLI returns a CLI whose flag set reports errors instead of exiting: Go's
// default flag handling exits 2, which Claude Code would read as "block".
// usage is the text printed by --help before the flag defaults.
func NewCLI(name, usage string, stdin io.Reader, stdout, stderr io.Writer) *CLI {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := &CLI{Name: name, Stdin: stdin, Stdout: stdout, Stderr: stderr, Flags: fs, usage: usage}
	c.version = fs.Bool("version", false, "print the version and exit")
	return c
}

// Parse parses args. When it returns done, the command must return code at
// once: --help and --version were answered (code 0), or the flags were wrong
// (code 1, one line on stderr).
func (c *CLI) Parse(args []string) (code int, done bool) {
	err := c.Flags.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.printHelp()
		return ExitOK, true
	case err != nil:
		return c.Fail(fmt.Errorf("%v (see %s --help)", err, c.Name)), true
	case *c.version:
		fmt.Fprintf(c.Stdout, "%s %s\n", c.Name, Version())
		return ExitOK, true
	}
	return ExitOK, false
}

func (c *CLI) printHelp() {
	fmt.Fprint(c.Stdout, strings.TrimRight(c.usage, "\n")+"\n\nFlags:\n")
	c.Flags.SetOutput(c.Stdout)
	c.Flags.PrintDefaults()
	c.Flags.SetOutput(io.Discard)
}

// Fail prints err as one stderr line prefixed with the command name and
// returns ExitFail.
func (c *CLI) Fail(err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Name, msg)
	return ExitFail
}

// Recover turns a panic into exit 1 with one stderr line. Use it as
//
//	defer c.Recover(&code)
//
// in a Main with a named result, so no panic ever reaches the runtime's
// default handler (which exits 2).
func (c *CLI) Recover(code *int) {
	if r := recover(); r != nil {
		*code = c.Fail(fmt.Errorf("internal error: %v", r))
	}
}

// Release is flower's version: every command's --version, the plugin's
// .claude-plugin/plugin.json and its marketplace entry say it, and a test
// (tests/version_test.go) fails when they differ. Tag a release "v"+Release.
const Release = "0.1.0"

// Version is Release, followed by the module version the binary was built
// from when that is another one: a `go install …@latest` of a commit after
// the tag reports its pseudo-version there. A build from a checkout says
// Release alone.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" || bi.Main.Version == "v"+Release {
		return Release
	}
	return Release + " (module " + bi.Main.Version + ")"
}
