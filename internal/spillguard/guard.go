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
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/spill"
)

const name = "spill-guard"

// DefaultThreshold and DefaultHead are the design's defaults
// (context-economics, "Layer three: spill on the spot"): a field over 4000
// characters is spilled, and the model keeps its first 400.
const (
	DefaultThreshold = 4000
	DefaultHead      = 400
)

// editTools echo the file contents they wrote in their result; the model is
// not shown those, so spilling them would only copy files into spill/.
var editTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// objectTools are the built-in tools the hook is wired for whose
// tool_response is always an object (claude-code-hooks.md, "tool_response
// shapes"). Anything else there is malformed input: Claude Code checks a
// replacement against the tool's output schema and drops one of another type,
// so spilling it would write a file the model never hears of. MCP tools may
// answer with a string or an array, and are not listed.
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
	var o options
	c.Flags.IntVar(&o.threshold, "threshold", DefaultThreshold, "spill string fields longer than this many characters")
	c.Flags.IntVar(&o.head, "head", DefaultHead, "characters of a spilled field kept after the pointer")
	c.Flags.BoolVar(&o.mainOnly, "main-only", false, "spill main-thread results only (by default subagents' too)")
	wb := hook.WorkbenchFlag(c.Flags)
	p, cfg, code, done := config.ForHook(c, args)
	if done {
		return code
	}
	switch {
	case o.threshold < 1:
		return c.Fail(fmt.Errorf("--threshold must be at least 1, got %d", o.threshold))
	case o.head < 0 || o.head >= o.threshold:
		return c.Fail(fmt.Errorf("--head must be from 0 to --threshold-1 (%d), got %d", o.threshold-1, o.head))
	}
	o.off = !cfg.Enabled(name)
	// Made only when a Bash command is asked about (readsSpill): most
	// results are under the threshold.
	o.glances = sync.OnceValue(func() *ephemeral.Glances {
		g, err := ephemeral.NewGlances(cfg.Extras())
		config.Warn(c, err)
		return g
	})
	did, err := run(c, p, o, *wb)
	if err != nil {
		return c.Fail(err)
	}
	if did.verdict != "" {
		decisionlog.New(cfg.Log(), c, p).Record(did.verdict, did.reason, did.sizes)
	}
	return hook.ExitOK
}

type options struct {
	threshold, head int
	mainOnly        bool
	glances         func() *ephemeral.Glances // the table readsSpill asks about a Bash command
	off             bool                      // spill-guard.enabled is false: captured outputs only
}

// outcome is what run did, for the decision log: nothing to log when its
// verdict is "".
type outcome struct {
	verdict, reason string
	sizes           decisionlog.Sizes
}

func pass(reason, resp string) outcome {
	return outcome{"pass", reason, decisionlog.Sizes{Result: len(resp)}}
}

// run handles the payload and prints the replacement, if any.
func run(c *hook.CLI, p *hook.Payload, o options, wbFlag string) (outcome, error) {
	event, tool, cwd, id := p.Event(), p.ToolName(), p.Cwd(), p.Get("tool_use_id").String()
	resp, _ := p.Member("tool_response") // as written: gjson would decode a string result whole
	// Shown even with the layer off: the model would otherwise see only the
	// capture layer's marker.
	if m, ok := capture.Detect(event, tool, resp, p.Get("error").String(), p.SessionID()); ok {
		return showCaptured(c, p, m, o, wbFlag, cwd)
	}
	if event != "PostToolUse" {
		return outcome{}, nil
	}
	if o.off {
		return outcome{"off", "spill-guard.enabled is false", decisionlog.Sizes{}}, nil
	}
	if objectTools[tool] && !strings.HasPrefix(resp, "{") {
		// Before --main-only: a malformed payload is reported whoever made the call.
		return outcome{}, fmt.Errorf("tool_response of %s is %s, want an object", tool, jsonkind.Of(gjson.Parse(resp)))
	}
	if o.mainOnly && !p.IsMainThread() {
		return pass("a subagent's result, and main-only is set", resp), nil
	}
	if why := keptWhole(tool, resp); why != "" {
		return pass(why, resp), nil
	}
	todo, err := overThreshold(tool, resp, cwd, o.threshold)
	if err != nil || len(todo) == 0 {
		return pass(fmt.Sprintf("no field over %d characters", o.threshold), resp), err
	}
	if err := repeatedKey(resp); err != nil {
		return outcome{}, err
	}
	root, err := hook.WorkbenchRoot(wbFlag, cwd)
	if err != nil {
		return outcome{}, err
	}
	dir := spill.Dir(root)
	if readsSpill(p, o.glances(), tool, root, dir) {
		return pass("reads a spill file back", resp), nil
	}
	if nowhere(c.Stdout) {
		return outcome{}, errNowhere
	}
	folder, err := spill.Open(dir)
	if err != nil {
		return outcome{}, fmt.Errorf("cannot use the spill folder: %v", err)
	}
	defer folder.Close()
	return spillAll(c, folder, tool, id, resp, todo, o)
}

// showCaptured prints the view of a Bash output the capture layer kept, as
// the flags say (capture.Options); --main-only does not apply, since the
// model would otherwise see only the marker. A call that reads a spill file
// back is shown whole, as any such result is.
func showCaptured(c *hook.CLI, p *hook.Payload, m capture.Marked, o options, wbFlag, cwd string) (outcome, error) {
	root, err := hook.WorkbenchRoot(wbFlag, cwd)
	if err != nil {
		return outcome{}, err
	}
	dir := spill.Dir(root)
	view := capture.Options{
		Threshold: o.threshold,
		Head:      o.head,
		Tail:      min(2*o.head, o.threshold-o.head),
		Whole:     readsSpill(p, o.glances(), "Bash", root, dir),
	}
	if nowhere(c.Stdout) {
		return outcome{}, errNowhere
	}
	if err := capture.Show(m, dir, view, c.Print); err != nil {
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

// overThreshold returns the fields of resp over threshold characters.
func overThreshold(tool, resp, cwd string, threshold int) ([]spillable, error) {
	var todo []spillable
	for _, f := range longFields(resp, threshold) {
		s := spillable{field: f}
		over, err := false, error(nil)
		if path := copyOf(tool, f, resp); path != "" {
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
// characters, decoding it only when its length leaves the answer open: a
// character takes at most 12 bytes, a surrogate pair as two \u escapes.
func overText(raw string, threshold int) bool {
	if len(raw)-2 > 12*threshold {
		return true
	}
	c := spill.NewCounter(io.Discard, 0)
	writeText(c, raw)
	return c.File("").Chars > int64(threshold)
}

// copyOf names Claude Code's copy of the whole output when f is the stdout
// of a Bash result that reached the hook cut, as output over 30,000
// characters does, with persistedOutputPath naming the copy.
func copyOf(tool string, f field, resp string) string {
	if tool != "Bash" || !slices.Equal(f.keys, []string{"stdout"}) {
		return ""
	}
	return gjson.Get(resp, "persistedOutputPath").Str
}

// fromCopy points s at Claude Code's copy of the output, path, and reports
// whether the whole output is over the threshold. When the copy cannot be
// read, s keeps the cut stdout and a note saying so.
func (s *spillable) fromCopy(cwd, path string, size gjson.Result, threshold int) (bool, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	reported := "size not reported"
	if size.Type == gjson.Number {
		reported = fmt.Sprintf("%d bytes", size.Int())
	}
	f, fi, err := openRegular(path)
	if err != nil {
		s.note = fmt.Sprintf("This is only the part of the output that reached the hook: "+
			"Claude Code's copy of the whole output (%s) could not be read: %v.", reported, err)
		return overText(s.raw, threshold), nil
	}
	defer f.Close()
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

// repeatedKey refuses a resp whose objects hold a key twice: gjson reads the
// first, Claude Code's JSON.parse the last, so the field replaced would not
// be the one the model is shown. hook.ReadPayload checks only the payload's
// top level and tool_input.
func repeatedKey(resp string) error {
	if !strings.HasPrefix(resp, "{") {
		return nil
	}
	var e *jsoncheck.Error
	if err := jsoncheck.Check(resp, len(resp)); !errors.As(err, &e) || !e.Repeated {
		return err
	}
	path := "tool_response"
	if e.Path != "" {
		path += "." + e.Path
	}
	return fmt.Errorf("payload field %q has the key %q twice", path, e.Key)
}

// spillAll writes the spill files of todo and prints the replacement that
// points at them. A spill file nothing points at would only hold a second
// copy of an output the model got whole, so every way out but printing the
// pointer removes the files: an error, a stdout that cannot be written
// (closed, or a pipe nobody reads), and SIGTERM, SIGINT or SIGHUP (Claude
// Code's at its timeout or on Esc) during a copy of Claude Code's file.
func spillAll(c *hook.CLI, folder *spill.Folder, tool, toolUseID, resp string, todo []spillable, o options) (did outcome, err error) {
	// SIGPIPE on fd 1 would kill the process at the write of the pointer,
	// after the files were made; ignored, the write fails instead.
	signal.Ignore(syscall.SIGPIPE)
	ctx := context.Background()
	copied := slices.ContainsFunc(todo, func(s spillable) bool { return s.file != "" })
	if copied {
		// Claude Code's copy may be of any size. Listening costs the Go
		// runtime a thread, which a spill of the payload's few milliseconds
		// does without: a signal then leaves at most a temporary file,
		// which the next spill removes (RemoveStale).
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
	folder.RemoveStale()
	updated := make([]byte, 0, len(resp))
	last := 0
	for _, s := range todo {
		f, err := folder.Write(hint(tool, toolUseID, s.keys), o.head, false, func(w io.Writer) error { return s.fill(ctx, w) })
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
	if err := c.Print(hook.NewOutput("PostToolUse").SetRaw("updatedToolOutput", updated)); err != nil {
		return did, fmt.Errorf("writing the pointer: %v", err)
	}
	did.verdict, did.reason = "spill", fmt.Sprintf("%d field(s) over %d characters", len(todo), o.threshold)
	did.sizes.Result, did.sizes.Files = len(resp), len(written)
	return did, nil
}

// fill writes the whole text of s.
func (s spillable) fill(ctx context.Context, w io.Writer) error {
	if s.file == "" {
		return writeText(w, s.raw)
	}
	f, _, err := openRegular(s.file)
	if err != nil {
		return fmt.Errorf("reading Claude Code's copy of the output: %v", err)
	}
	defer f.Close()
	if _, err := io.Copy(stopWriter{ctx, w}, f); err != nil {
		return fmt.Errorf("copying Claude Code's copy of the output: %v", err)
	}
	return nil
}

// stopWriter fails once its context is done: a signal stops the copy at its
// next write.
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
// Bash result spilled from Claude Code's copy, the one field change beyond
// the spilled ones: with them Claude Code 2.1.328 wraps stdout in its own
// "Output too large … Full output saved to <its copy>" header, a second path
// to the same output (959 characters shown instead of 665 for seq 1 20000,
// tests/e2e TestLayer3SubagentSeqSpilled); both are optional in the Bash
// output schema.
func dropPersisted(resp []byte) ([]byte, error) {
	resp, err := sjson.DeleteBytes(resp, "persistedOutputPath")
	if err != nil {
		return nil, err
	}
	return sjson.DeleteBytes(resp, "persistedOutputSize")
}

var errNowhere = errors.New("stdout is closed or /dev/null: no pointer to a spill file could reach the model")

// nowhere reports whether w is closed or /dev/null, where a stdout closed
// when the process starts ends up (the Go runtime opens /dev/null on a
// closed standard descriptor): a pointer printed there reaches nobody.
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

// hint names a spill file: the tool, the tool_use_id (unique per call, so
// parallel calls never pick the same name) and the field.
func hint(tool, toolUseID string, keys []string) string {
	field := "output"
	if len(keys) > 0 {
		field = strings.Join(keys, ".")
	}
	return tool + "-" + toolUseID + "-" + field
}
