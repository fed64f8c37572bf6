package prunesession

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/transcript"
)

const name = "prune-session"

// Defaults, from the design. The latest glances are what the model works
// from; the latest denial stops it retrying the blocked command.
const (
	DefaultKeepRecent  = 6
	DefaultKeepDenials = 1
	DefaultTrimMin     = 2000
	DefaultTrimKeep    = 20
)

const usage = `Usage: prune-session [flags] SESSION

Writes a pruned fork of a Claude Code session (layer four) and prints its id,
so that  claude --resume "$(prune-session SESSION)"  resumes the fork. SESSION
is a transcript path or a session id under $CLAUDE_CONFIG_DIR (~/.claude)
/projects/*/. The original is never modified; a report goes to stderr.`

// Main runs prune-session and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	var o options
	c.Flags.IntVar(&o.keepRecent, "keep-recent", DefaultKeepRecent, "glance results kept verbatim (the most recent)")
	c.Flags.IntVar(&o.keepDenials, "keep-denials", DefaultKeepDenials, "denied calls kept (the most recent)")
	c.Flags.BoolVar(&o.trim, "trim", false, "move large tool_result bodies to the spill folder")
	c.Flags.IntVar(&o.trimMin, "trim-min", DefaultTrimMin, "with --trim: smallest body trimmed, in characters")
	c.Flags.IntVar(&o.trimKeep, "trim-keep", DefaultTrimKeep, "with --trim: large bodies kept verbatim (the most recent)")
	c.Flags.StringVar(&o.spillDir, "spill-dir", "", "with --trim: the spill folder (default: spill/ in the session's workbench)")
	newID := c.Flags.String("session-id", "", "the fork's session id (default: a random UUID)")
	dry := c.Flags.Bool("dry-run", false, "report what would change; write nothing")
	c.Flags.BoolVar(&o.sync, "sync", false, "fsync the fork (and spill files) before printing its id")
	// Flags may come after SESSION too (prune-session ID --dry-run): parse
	// again after each argument that is not a flag.
	var sessions []string
	for rest := args; ; {
		if code, done := c.Parse(rest); done {
			return code
		}
		if c.Flags.NArg() == 0 {
			break
		}
		sessions = append(sessions, c.Flags.Arg(0))
		rest = c.Flags.Args()[1:]
	}
	if len(sessions) != 1 {
		return c.Fail(fmt.Errorf("want one SESSION (a transcript path or a session id), got %d", len(sessions)))
	}
	for flag, v := range map[string]int{"keep-recent": o.keepRecent, "keep-denials": o.keepDenials, "trim-min": o.trimMin, "trim-keep": o.trimKeep} {
		if v < 0 {
			return c.Fail(fmt.Errorf("--%s is %d, want 0 or more", flag, v))
		}
	}
	if *newID == "" {
		id, err := newSessionID()
		if err != nil {
			return c.Fail(err)
		}
		*newID = id
	} else if !uuidShape.MatchString(*newID) {
		return c.Fail(fmt.Errorf("--session-id %q is not a lowercase UUID", *newID))
	}
	src, err := transcript.Locate(sessions[0])
	if err != nil {
		return c.Fail(err)
	}
	// The configuration of the folder the session started in, when the
	// transcript's place confirms it: the glance table, the keys of flags
	// not given, and the workbench --trim spills into.
	origin := transcript.Origin(src)
	cfg := config.ForCommand(c, origin)
	o.glances, err = ephemeral.NewGlances(cfg.Extras())
	config.Warn(c, err)
	o.workbench = workbenchOf(cfg, origin)
	// A signal stops the run at its next read (leftovers.go).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	var rep bytes.Buffer // after the id, for a reader of both streams merged
	resume, err := prune(ctx, src, *newID, o, *dry, &rep)
	if err != nil {
		stderr.Write(rep.Bytes())
		return c.Fail(err)
	}
	if !*dry {
		fmt.Fprintln(stdout, resume)
	}
	stderr.Write(rep.Bytes())
	return hook.ExitOK
}

// workbenchOf is the workbench of the project folder origin as its hooks
// place it, "" when the folder is not known.
func workbenchOf(cfg *config.Config, origin string) string {
	if dir := os.Getenv("FLOWER_WORKBENCH"); filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	if v := cfg.Value("workbench"); v.Path != "" {
		return v.Path
	}
	if origin == "" {
		return ""
	}
	return filepath.Join(origin, hook.WorkbenchDirName)
}

// prune does the work of Main once the flags are read, on the transcript
// at src: it reports on stderr and returns the id of the session to resume.
func prune(ctx context.Context, src, newID string, o options, dry bool, stderr io.Writer) (string, error) {
	if transcript.IsSubagentFile(src) {
		return "", fmt.Errorf("%s: %w (nothing written)", src, errSubagent)
	}
	r, closeSrc, err := openInterruptible(ctx, src)
	var p *plan
	if err == nil {
		p, err = readPlan(r, o)
		closeSrc()
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w (nothing written)", src, err)
	}
	oldID := transcript.SessionID(src)
	dst := filepath.Join(filepath.Dir(src), newID+".jsonl")
	dstDir := transcript.SessionDir(dst)
	if _, err := os.Lstat(dst); err == nil {
		return "", fmt.Errorf("%s already exists", dst)
	}
	// Subagent transcripts beside the session's (CLI 2.0) go into the
	// fork's subagents/ folder (2.1).
	var beside []string
	subs, err := transcript.Subagents(src)
	if err != nil {
		return "", fmt.Errorf("%s: subagents: %w (nothing written)", src, err)
	}
	for _, sub := range subs {
		if filepath.Dir(sub) == filepath.Dir(src) {
			beside = append(beside, sub)
		}
	}
	rw := &rewriter{p: p, oldID: oldID, newID: newID, writeSpills: !dry, list: filepath.Join(dstDir, spillList)}
	run := func(w io.Writer) error {
		r, closeSrc, err := openInterruptible(ctx, src)
		if err != nil {
			return err
		}
		defer closeSrc()
		err = rw.rewrite(r, w)
		if cerr := rw.closeList(); err == nil {
			err = cerr
		}
		return err
	}
	if dry || !p.changes() {
		// Read through all the same, for rw.kept and to check what a fork
		// would copy.
		if dry {
			if err := copySessionDir(ctx, transcript.SessionDir(src), "", beside, oldID, newID, false); err != nil {
				return "", fmt.Errorf("session folder: %w (nothing written)", err)
			}
		}
		if err := run(io.Discard); err != nil {
			return "", fmt.Errorf("%s: %w (nothing written)", src, err)
		}
		report(stderr, src, "", p, rw, dry)
		return oldID, nil
	}
	removeStale(filepath.Dir(dst), time.Now())
	// The folder first: when the transcript appears, all it refers to is there.
	if err := copySessionDir(ctx, transcript.SessionDir(src), dstDir, beside, oldID, newID, o.sync); err != nil {
		return "", fmt.Errorf("session folder: %w (nothing written)", err)
	}
	err = atomicfile.WriteNew(dst, 0o600, o.sync, run)
	if err == nil && o.sync {
		// The files' names are entries of folders, synced on their own.
		if err = syncDir(filepath.Dir(dst)); err == nil && len(rw.spilled) > 0 {
			err = syncDir(p.spillDir)
		}
		if err != nil {
			os.Remove(dst)
		}
	}
	if err != nil {
		removeTree(dstDir)
		rw.removeSpilled()
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("%s already exists", dst)
		}
		return "", fmt.Errorf("writing %s: %w (nothing written)", dst, err)
	}
	// The fork is whole: its spill files are its own now.
	os.Remove(rw.list)
	report(stderr, src, dst, p, rw, false)
	return newID, nil
}

// syncDir fsyncs the folder dir, so its entries reach the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
