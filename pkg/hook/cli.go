package hook

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
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
	// Notice is a line the person is to be told once, with the hook's
	// output (Print), or alone when the hook prints nothing (Recover).
	Notice string

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

// minOpenFiles is the lowest open-file limit (ulimit -n) a command runs
// under: prune-session needs 10 in all (measured); under 6 or 7 the Go
// runtime's poller cannot start, and the process exits 2 ("block").
const minOpenFiles = 16

// Parse parses args. When it returns done, the command must return code at
// once: --help and --version were answered (code 0), or the flags were wrong
// or the open-file limit too low to run (code 1, one line on stderr). It
// runs before the command opens anything.
func (c *CLI) Parse(args []string) (code int, done bool) {
	// Go raises the soft limit to the hard one at start-up: this is what
	// the command has.
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur < minOpenFiles {
		return c.Fail(fmt.Errorf("the open-file limit is %d (ulimit -n); it needs at least %d", rl.Cur, minOpenFiles)), true
	}
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

// printHelp prints the usage and the flags, spelled --flag as the README
// and the usage texts spell them (the flag package accepts both).
func (c *CLI) printHelp() {
	var b strings.Builder
	b.WriteString(strings.TrimRight(c.usage, "\n") + "\n\nFlags:\n")
	c.Flags.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		switch {
		case strings.Contains(f.Usage, "`"): // named in the usage: --settings `file`
		case arg == "int" || arg == "uint":
			arg = "N"
		case arg == "string":
			arg = f.Name
		}
		b.WriteString("  --" + f.Name)
		if arg != "" {
			b.WriteString(" " + strings.ToUpper(arg))
		}
		b.WriteString("\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t"))
		if def := f.DefValue; def != "" && def != "false" && def != "0" {
			if _, isString := f.Value.(flag.Getter).Get().(string); isString {
				def = strconv.Quote(def)
			}
			b.WriteString(" (default " + def + ")")
		}
		b.WriteString("\n")
	})
	io.WriteString(c.Stdout, b.String())
}

// Fail prints err as one stderr line prefixed with the command name and
// returns ExitFail.
func (c *CLI) Fail(err error) int {
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Name, strings.ReplaceAll(err.Error(), "\n", " "))
	return ExitFail
}

// Recover turns a panic into exit 1 with one stderr line. Use it as
//
//	defer c.Recover(&code)
//
// in a Main with a named result, so no panic ever reaches the runtime's
// default handler (which exits 2).
//
// A Notice not yet printed goes out then, alone: a hook that has nothing to
// say still brings it to the person.
func (c *CLI) Recover(code *int) {
	if r := recover(); r != nil {
		*code = c.Fail(fmt.Errorf("internal error: %v", r))
	}
	if *code == ExitOK && c.Notice != "" {
		msg, _ := json.Marshal(c.Notice)
		c.Notice = ""
		fmt.Fprintf(c.Stdout, "{\"systemMessage\":%s}\n", msg)
	}
}

// Print writes the hook's output, with the Notice if there is one.
func (c *CLI) Print(o *Output) error {
	if c.Notice != "" {
		o.SystemMessage(c.Notice)
		c.Notice = ""
	}
	_, err := o.WriteTo(c.Stdout)
	return err
}

// Release is flower's version: every command's --version, the plugin's
// .claude-plugin/plugin.json and its marketplace entry say it, and a test
// (tests/version_test.go) fails when they differ. Tag a release "v"+Release.
const Release = "0.2.0"

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
