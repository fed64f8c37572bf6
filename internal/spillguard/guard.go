package spillguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

const name = "spill-guard"

// DefaultThreshold and DefaultHead are the design's defaults
// (context-economics, "Layer three: spill on the spot").
const (
	DefaultThreshold = 4000
	DefaultHead      = 400
)

// editTools echo the files they wrote, which the model is not shown:
// spilling them would only copy files into spill/.
var editTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// objectTools always answer with an object (claude-code-hooks.md,
// "tool_response shapes"): Claude Code drops a replacement of another type,
// so anything else is malformed input. MCP tools may answer with anything.
var objectTools = map[string]bool{"Bash": true, "Read": true, "Grep": true, "Glob": true, "WebFetch": true, "WebSearch": true}

const usage = `Usage: spill-guard [flags] < payload.json

PostToolUse hook (layer three). Every string field of the tool's result longer
than --threshold characters is written whole to <workbench>/spill/ and replaced
by a pointer line to that file and the field's first --head characters.
Wire it on PostToolUse with the matcher "^(Bash|Read|Grep|Glob|WebFetch|WebSearch|mcp__.*)$".`

// Main runs spill-guard and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	g := guard{c: c}
	c.Flags.IntVar(&g.threshold, "threshold", DefaultThreshold, "spill string fields longer than this many characters")
	c.Flags.IntVar(&g.head, "head", DefaultHead, "characters of a spilled field kept after the pointer")
	c.Flags.BoolVar(&g.mainOnly, "main-only", false, "spill main-thread results only (by default subagents' too)")
	wb := hook.WorkbenchFlag(c.Flags)
	p, cfg, code, done := config.ForHook(c, args)
	if done {
		return code
	}
	switch {
	case g.threshold < 1:
		return c.Fail(fmt.Errorf("--threshold must be at least 1, got %d", g.threshold))
	case g.head < 0 || g.head >= g.threshold:
		return c.Fail(fmt.Errorf("--head must be from 0 to --threshold-1 (%d), got %d", g.threshold-1, g.head))
	}
	g.p, g.cfg, g.wbFlag = p, cfg, *wb
	did, err := g.run()
	if err != nil {
		return c.Fail(err)
	}
	if did.verdict != "" {
		decisionlog.New(cfg.Log(), c, p).Record(did.verdict, did.reason, did.sizes)
	}
	return hook.ExitOK
}

// guard is one call of the hook.
type guard struct {
	c               *hook.CLI
	p               *hook.Payload
	cfg             *config.Config
	threshold, head int
	mainOnly        bool
	wbFlag          string
}

// outcome is what run did, for the decision log: nothing when verdict is "".
type outcome struct {
	verdict, reason string
	sizes           decisionlog.Sizes
}

func pass(reason, resp string) outcome {
	return outcome{"pass", reason, decisionlog.Sizes{Result: len(resp)}}
}

// run handles the payload and prints the replacement, if any.
func (g *guard) run() (outcome, error) {
	event, tool, cwd := g.p.Event(), g.p.ToolName(), g.p.Cwd()
	resp, _ := g.p.Member("tool_response") // as written: gjson would decode a string result whole
	// Shown even with the layer off: the model would otherwise see only the marker.
	if m, ok := capture.Detect(event, tool, resp, g.p.Get("error").String(), g.p.SessionID()); ok {
		return g.showCaptured(m, cwd)
	}
	switch {
	case event != "PostToolUse":
		return outcome{}, nil
	case !g.cfg.Enabled(name):
		return outcome{"off", "spill-guard.enabled is false", decisionlog.Sizes{}}, nil
	case objectTools[tool] && !strings.HasPrefix(resp, "{"):
		// Before --main-only: a malformed payload is reported whoever made the call.
		return outcome{}, fmt.Errorf("tool_response of %s is %s, want an object", tool, jsonkind.Of(gjson.Parse(resp)))
	case g.mainOnly && !g.p.IsMainThread():
		return pass("a subagent's result, and main-only is set", resp), nil
	}
	if why := keptWhole(tool, resp); why != "" {
		return pass(why, resp), nil
	}
	todo, err := overThreshold(tool, resp, cwd, g.threshold)
	if err != nil || len(todo) == 0 {
		return pass(fmt.Sprintf("no field over %d characters", g.threshold), resp), err
	}
	root, err := hook.WorkbenchRoot(g.wbFlag, cwd)
	if err != nil {
		return outcome{}, err
	}
	if g.readsSpill(tool, root) {
		return pass("reads a spill file back", resp), nil
	}
	if nowhere(g.c.Stdout) {
		return outcome{}, errNowhere
	}
	folder, err := spill.Open(spill.Dir(root))
	if err != nil {
		return outcome{}, fmt.Errorf("cannot use the spill folder: %v", err)
	}
	defer folder.Close()
	return g.spill(folder, tool, resp, todo)
}

// showCaptured prints the view of a Bash output the capture layer kept;
// --main-only does not apply, and a read of a spill file is shown whole.
func (g *guard) showCaptured(m capture.Marked, cwd string) (outcome, error) {
	root, err := hook.WorkbenchRoot(g.wbFlag, cwd)
	if err != nil {
		return outcome{}, err
	}
	view := capture.Options{
		Threshold: g.threshold,
		Head:      g.head,
		Tail:      min(2*g.head, g.threshold-g.head),
		Whole:     g.readsSpill("Bash", root),
	}
	if nowhere(g.c.Stdout) {
		return outcome{}, errNowhere
	}
	if err := capture.Show(m, spill.Dir(root), view, g.c.Print); err != nil {
		return outcome{}, err
	}
	return outcome{"capture", "the view of the output the capture layer kept", decisionlog.Sizes{}}, nil
}

// keptWhole says why the result resp (as written) of tool is left as it
// came whatever its size, or "" when its long fields are spilled.
func keptWhole(tool, resp string) string {
	switch {
	case editTools[tool]:
		return "the result of a tool that edits files"
	case resp == "":
		return "no tool_response"
	case tool == "Read" && gjson.Get(resp, "type").String() != "text":
		return "an image, PDF or notebook: not text to spill"
	case tool == "Bash" && gjson.Get(resp, "isImage").Bool():
		return "an image (stdout is a data: URL)"
	}
	return ""
}

// spillable is a field over the threshold and where its whole text is.
type spillable struct {
	field
	file string // Claude Code's copy of the whole Bash output; "" for the field itself
	note string // one more sentence for the pointer
}

// overThreshold returns the fields of resp over threshold characters. A
// Bash stdout Claude Code cut (over 30,000 characters) is judged, and
// spilled, from its copy of the whole, persistedOutputPath.
func overThreshold(tool, resp, cwd string, threshold int) ([]spillable, error) {
	var todo []spillable
	for _, f := range longFields(resp, threshold) {
		s := spillable{field: f}
		over, err, path := false, error(nil), ""
		if tool == "Bash" && slices.Equal(f.keys, []string{"stdout"}) {
			path = gjson.Get(resp, "persistedOutputPath").Str
		}
		if path != "" {
			over, err = s.fromCopy(cwd, path, gjson.Get(resp, "persistedOutputSize"), threshold)
		} else {
			over = overText(f.raw, threshold)
		}
		if err != nil {
			return nil, err
		}
		if over {
			todo = append(todo, s)
		}
	}
	return todo, nil
}

// overText reports whether the string token raw holds more than threshold
// characters, decoding it only when its length leaves that open (a
// character takes at most 12 bytes, as two \u escapes).
func overText(raw string, threshold int) bool {
	if len(raw)-2 > 12*threshold {
		return true
	}
	c := spill.NewCounter(io.Discard, 0)
	writeText(c, raw)
	return c.File("").Chars > int64(threshold)
}

// fromCopy points s at Claude Code's copy of the output, path, and reports
// whether it is over the threshold; an unreadable copy leaves s the cut
// stdout and a note.
func (s *spillable) fromCopy(cwd, path string, size gjson.Result, threshold int) (bool, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	reported := "size not reported"
	if size.Type == gjson.Number {
		reported = fmt.Sprintf("%d bytes", size.Int())
	}
	f, err := transcript.Open(path)
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
		defer f.Close()
	}
	if err != nil {
		s.note = fmt.Sprintf("This is only the part of the output that reached the hook: "+
			"Claude Code's copy of the whole output (%s) could not be read: %v.", reported, err)
		return overText(s.raw, threshold), nil
	}
	s.file = path
	if size.Type == gjson.Number && size.Int() != fi.Size() {
		s.note = fmt.Sprintf("Claude Code reported %s of output; its copy held %d bytes.", reported, fi.Size())
	}
	if fi.Size() <= int64(threshold) || fi.Size() > int64(utf8.UTFMax*threshold) {
		return fi.Size() > int64(threshold), nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return false, fmt.Errorf("reading Claude Code's copy of the output: %v", err)
	}
	return utf8.RuneCount(b) > threshold, nil
}

// spill writes the spill files of todo and prints the replacement that
// points at them. A spill file nothing points at is a useless copy, so every
// way out but printing the pointer removes them: an error, a stdout that
// cannot be written, and SIGTERM, SIGINT or SIGHUP (Claude Code's at its
// timeout or on Esc) during a copy of Claude Code's file.
func (g *guard) spill(folder *spill.Folder, tool, resp string, todo []spillable) (did outcome, err error) {
	// SIGPIPE would kill the process at the pointer's write, after the
	// files were made; ignored, the write fails instead.
	signal.Ignore(syscall.SIGPIPE)
	ctx := context.Background()
	copied := slices.ContainsFunc(todo, func(s spillable) bool { return s.file != "" })
	if copied {
		// Only for a copy of any size: listening costs the runtime a thread,
		// and a signal during a spill of the payload leaves at most a
		// temporary file, which the next spill removes.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		defer stop()
	}
	var written []string
	defer func() {
		for _, name := range written {
			if err != nil {
				folder.Root().Remove(name)
			}
		}
	}()
	atomicfile.RemoveStale(folder.Root(), spill.TmpDir)
	updated := make([]byte, 0, len(resp))
	last := 0
	for _, s := range todo {
		f, err := folder.Write(hint(tool, g.p.Get("tool_use_id").String(), s.keys), g.head, false, func(w io.Writer) error { return s.fill(ctx, w) })
		if err != nil {
			return did, fmt.Errorf("cannot write the spill file: %v", err)
		}
		written = append(written, filepath.Base(f.Path))
		did.sizes.Spilled += f.Chars
		f.Note = s.note
		updated = gjson.AppendJSONString(append(updated, resp[last:s.at]...), f.Text())
		last = s.at + len(s.raw)
	}
	updated = append(updated, resp[last:]...)
	if copied {
		if updated, err = dropPersisted(updated); err != nil {
			return did, err
		}
	}
	if ctx.Err() != nil {
		return did, errors.New("stopped by a signal")
	}
	if err := g.c.Print(hook.NewOutput("PostToolUse").SetRaw("updatedToolOutput", updated)); err != nil {
		return did, fmt.Errorf("writing the pointer: %v", err)
	}
	did.verdict, did.reason = "spill", fmt.Sprintf("%d field(s) over %d characters", len(todo), g.threshold)
	did.sizes.Result, did.sizes.Files = len(resp), len(written)
	return did, nil
}

// fill writes the whole text of s.
func (s spillable) fill(ctx context.Context, w io.Writer) error {
	if s.file == "" {
		return writeText(w, s.raw)
	}
	f, err := transcript.Open(s.file)
	if err != nil {
		return fmt.Errorf("reading Claude Code's copy of the output: %v", err)
	}
	defer f.Close()
	if _, err := io.Copy(stopWriter{ctx, w}, f); err != nil {
		return fmt.Errorf("copying Claude Code's copy of the output: %v", err)
	}
	return nil
}

// stopWriter fails once its context is done: a signal stops the copy.
type stopWriter struct {
	ctx context.Context
	w   io.Writer
}

func (s stopWriter) Write(b []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, errors.New("stopped by a signal")
	}
	return s.w.Write(b)
}

// dropPersisted removes persistedOutputPath and persistedOutputSize from a
// Bash result spilled from Claude Code's copy: with them Claude Code wraps
// stdout in its own "Output too large" header, a second path to the same
// output (tests/e2e TestLayer3SubagentSeqSpilled); both are optional.
func dropPersisted(resp []byte) ([]byte, error) {
	resp, err := sjson.DeleteBytes(resp, "persistedOutputPath")
	if err != nil {
		return nil, err
	}
	return sjson.DeleteBytes(resp, "persistedOutputSize")
}

var errNowhere = errors.New("stdout is closed or /dev/null: no pointer to a spill file could reach the model")

// nowhere reports whether w is closed or /dev/null, where the Go runtime
// puts a stdout closed at start: a pointer printed there reaches nobody.
func nowhere(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// hint names a spill file by tool, tool_use_id (unique: parallel calls
// never clash) and field.
func hint(tool, toolUseID string, keys []string) string {
	field := "output"
	if len(keys) > 0 {
		field = strings.Join(keys, ".")
	}
	return tool + "-" + toolUseID + "-" + field
}
