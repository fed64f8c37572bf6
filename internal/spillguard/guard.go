package spillguard

import (
	"context"
	"encoding/json"
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

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
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

// maxEscapedBytesPerChar is the longest a JSON string spends on one
// character: a surrogate pair written as two \uXXXX escapes. A field whose
// escaped body is longer than this many times the threshold is over it
// without counting.
const maxEscapedBytesPerChar = 12

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
	did, err := run(p, o, *wb, stdout)
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

// pass is the outcome of a result left as it came.
func pass(reason, resp string) outcome {
	return outcome{"pass", reason, decisionlog.Sizes{Result: len(resp)}}
}

// spillable is a field over the threshold and where its whole text is.
type spillable struct {
	field
	file string // Claude Code's copy of the whole Bash output; "" for the field itself
	note string // for the pointer
}

// run decides and does the work, and prints the replacement, if any.
func run(p *hook.Payload, o options, wbFlag string, stdout io.Writer) (outcome, error) {
	// A captured output is shown even with the layer off: the model
	// would otherwise see only the capture layer's marker.
	if out, shown, ok, err := captured(p, o, wbFlag); ok {
		if err != nil {
			return outcome{}, err
		}
		if nowhere(stdout) {
			return outcome{}, errNowhere
		}
		if _, err := out.WriteTo(stdout); err != nil {
			return outcome{}, fmt.Errorf("writing the view of the captured output: %v", err)
		}
		shown()
		return outcome{"capture", "the view of the output the capture layer kept", decisionlog.Sizes{}}, nil
	}
	if p.Event() != "PostToolUse" {
		return outcome{}, nil
	}
	if o.off {
		return outcome{"off", "spill-guard.enabled is false", decisionlog.Sizes{}}, nil
	}
	tool := p.ToolName()
	// As written: an MCP tool's result may be a string of a megabyte,
	// which gjson would decode to answer for it.
	resp, _ := p.Member("tool_response")
	kind := gjson.Result{Type: gjson.String} // its type, for a string without decoding it
	if !strings.HasPrefix(resp, `"`) {
		kind = gjson.Parse(resp)
	}
	if objectTools[tool] && !kind.IsObject() {
		// Checked before --main-only: a malformed payload is reported
		// whoever made the call.
		return outcome{}, fmt.Errorf("tool_response of %s is %s, want an object", tool, jsonkind.Of(kind))
	}
	if o.mainOnly && !p.IsMainThread() {
		return pass("a subagent's result, and main-only is set", resp), nil
	}
	if why := keptWhole(tool, resp, kind); why != "" {
		return pass(why, resp), nil
	}
	todo, err := overThreshold(p, tool, resp, o.threshold)
	if err != nil || len(todo) == 0 {
		return pass(fmt.Sprintf("no field over %d characters", o.threshold), resp), err
	}
	root, err := hook.WorkbenchRoot(wbFlag, p.Cwd())
	if err != nil {
		return outcome{}, err
	}
	dir := spill.Dir(root)
	if readsSpill(p, o.glances(), tool, root, dir) {
		return pass("reads a spill file back", resp), nil
	}
	if nowhere(stdout) {
		return outcome{}, errNowhere
	}
	folder, err := spill.Open(dir)
	if err != nil {
		return outcome{}, fmt.Errorf("cannot use the spill folder: %v", err)
	}
	defer folder.Close()
	return spillAll(p, o, tool, resp, folder, todo, stdout)
}

// keptWhole says why the result resp (as written; kind its type) of tool
// is left as it came whatever its size, or "" when its long fields are
// spilled. context-audit's estimate (Estimate) asks it too.
func keptWhole(tool, resp string, kind gjson.Result) string {
	switch {
	case editTools[tool]:
		return "the result of a tool that edits files"
	case resp == "":
		return "no tool_response"
	case tool == "Read" && kind.IsObject() && gjson.Get(resp, "type").String() != "text":
		return "an image, PDF or notebook: not text to spill"
	case tool == "Bash" && gjson.Get(resp, "isImage").Bool():
		return "an image (stdout is a data: URL)"
	}
	return ""
}

// spillAll writes the spill files of todo and prints the replacement that
// points at them. A spill file nothing points at would only hold a second
// copy of an output the model got whole, so every way out but printing
// the pointer removes the files: an error, a stdout that cannot be written
// (closed, or a pipe nobody reads), and, during a long spill, SIGTERM,
// SIGINT or SIGHUP, which Claude Code sends a hook at its timeout or when
// the user presses Esc. (SIGKILL, or a signal during a short spill, leaves
// a temporary file, which the next spill removes: Folder.RemoveStale.)
func spillAll(p *hook.Payload, o options, tool, resp string, folder *spill.Folder, todo []spillable, stdout io.Writer) (did outcome, err error) {
	// SIGPIPE on fd 1 would kill the process at the write of the pointer,
	// after the files were made; ignored, the write fails instead.
	signal.Ignore(syscall.SIGPIPE)
	ctx := context.Background()
	if long(todo) {
		// Listening for a signal costs a thread of the Go runtime, about
		// 0.5 ms a run: a sixth of a 10 KB spill's time. A short spill
		// ends within milliseconds, and a signal in that window leaves at
		// most a temporary file, which the next spill removes as after a
		// SIGKILL; a long copy listens.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		defer stop()
	}
	var written []string
	defer func() {
		if err != nil {
			for _, path := range written {
				os.Remove(path)
			}
		}
	}()
	folder.RemoveStale()
	reps := make([]string, len(todo))
	for i, s := range todo {
		f, err := folder.Write(hint(tool, p.Get("tool_use_id").String(), s.keys), o.head, false, func(w io.Writer) error {
			return s.fill(stopWriter{ctx, w})
		})
		if err != nil {
			return did, fmt.Errorf("cannot write the spill file: %v", err)
		}
		written = append(written, f.Path)
		did.sizes.Spilled += f.Chars
		f.Note = s.note
		rep, err := json.Marshal(f.Text())
		if err != nil {
			return did, err
		}
		reps[i] = string(rep)
	}
	updated := splice(resp, todo, reps)
	if slices.ContainsFunc(todo, func(s spillable) bool { return s.file != "" }) {
		if updated, err = dropPersisted(updated); err != nil {
			return did, err
		}
	}
	out := hook.NewOutput("PostToolUse").SetRaw("updatedToolOutput", updated)
	if ctx.Err() != nil {
		return did, errors.New("stopped by a signal")
	}
	if _, err := out.WriteTo(stdout); err != nil {
		return did, fmt.Errorf("writing the pointer: %v", err)
	}
	did.verdict, did.reason = "spill", fmt.Sprintf("%d field(s) over %d characters", len(todo), o.threshold)
	did.sizes.Result, did.sizes.Files = len(resp), len(written)
	return did, nil
}

// longSpill is the size, in bytes of the payload, past which a spill
// listens for SIGTERM, SIGINT and SIGHUP to remove what it wrote: copying
// a megabyte takes a few milliseconds.
const longSpill = 1 << 20

// long reports whether writing todo may take long enough for a signal to
// stop it midway: a copy of Claude Code's file of a Bash output (up to
// gigabytes), or fields of longSpill bytes in all.
func long(todo []spillable) bool {
	n := 0
	for _, s := range todo {
		if s.file != "" {
			return true
		}
		n += len(s.raw)
	}
	return n >= longSpill
}

// errNowhere refuses a stdout that reaches nobody (see nowhere).
var errNowhere = errors.New("stdout is closed or /dev/null: no pointer to a spill file could reach the model")

// nowhere reports whether w is /dev/null, where a stdout closed when the
// process starts ends up too (the Go runtime opens /dev/null on a closed
// standard descriptor), or is closed: a pointer printed there reaches
// nobody, and the spill file would be one that nothing points at.
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

// stopWriter is a Writer that fails once its context is done: a signal
// stops the copy into a spill file at its next write.
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

// persistedFields name Claude Code's own copy of a Bash output over 30,000
// characters.
var persistedFields = []string{"persistedOutputPath", "persistedOutputSize"}

// dropPersisted removes persistedFields from a Bash result whose stdout was
// spilled from Claude Code's copy: the one deliberate exception to keeping
// every field of tool_response as it came.
//
// While persistedOutputPath is set, Claude Code 2.1.328 renders stdout as
// "<persisted-output>\nOutput too large (106.3KB). Full output saved to:
// <its copy>\n\nPreview (first 2KB):\n<stdout>\n</persisted-output>", so
// the model is shown two paths to the same output. Without the two fields
// it shows stdout alone, and it accepts the replacement: both fields are
// optional in the Bash output schema. Measured in the real client (seq 1
// 20000, tests/e2e TestLayer3SubagentSeqSpilled): 959 characters shown with
// the fields, 665 without, the pointer and head in both. The spill file
// holds everything the copy holds, so the model loses nothing. When the
// copy could not be read the spill holds only the cut stdout: the fields
// then stay, and Claude Code's header still names the copy.
func dropPersisted(resp []byte) ([]byte, error) {
	for _, key := range persistedFields {
		// Once: a repeated key was refused (longFields).
		var err error
		if resp, err = sjson.DeleteBytes(resp, key); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// splice returns resp with the token of each field in todo replaced by the
// matching JSON value of reps, every other byte as it was: what
// sjson.SetRaw does at each field's path, without looking for the path
// again (and decoding the string there) when the walk knows where it is.
func splice(resp string, todo []spillable, reps []string) []byte {
	var out []byte
	last := 0
	for i, s := range todo {
		out = append(out, resp[last:s.off]...)
		out = append(out, reps[i]...)
		last = s.off + len(s.raw)
	}
	return append(out, resp[last:]...)
}

// overThreshold returns the fields of resp to spill.
func overThreshold(p *hook.Payload, tool, resp string, threshold int) ([]spillable, error) {
	fields, err := longFields(resp, threshold)
	if err != nil {
		return nil, err
	}
	var todo []spillable
	for _, f := range fields {
		s := spillable{field: f}
		if tool == "Bash" && len(f.keys) == 1 && f.keys[0] == "stdout" {
			if persisted := gjson.Get(resp, "persistedOutputPath"); persisted.Type == gjson.String && persisted.Str != "" {
				over, err := s.fromPersisted(p, persisted.Str, gjson.Get(resp, "persistedOutputSize"), threshold)
				if err != nil {
					return nil, err
				}
				if over {
					todo = append(todo, s)
				}
				continue
			}
		}
		if over(f.raw, threshold) {
			todo = append(todo, s)
		}
	}
	return todo, nil
}

// over reports whether the string token raw has more than threshold
// characters once decoded, decoding it only when its length leaves the
// answer open.
func over(raw string, threshold int) bool {
	if len(raw)-2 > maxEscapedBytesPerChar*threshold {
		return true
	}
	return utf8.RuneCountInString(gjson.Parse(raw).Str) > threshold
}

// fromPersisted points s at Claude Code's copy of a cut Bash output and
// reports whether the whole output is over the threshold. When the copy
// cannot be read, s keeps the cut stdout and a note saying so: what reached
// the hook is still kept out of context, and the pointer names the copy.
func (s *spillable) fromPersisted(p *hook.Payload, path string, size gjson.Result, threshold int) (bool, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Cwd(), path)
	}
	f, fi, err := openRegular(path)
	if err != nil {
		s.note = fmt.Sprintf("This is only the part of the output that reached the hook: "+
			"Claude Code's copy of the whole output (%s) could not be read: %v.", sizeText(size), err)
		return over(s.raw, threshold), nil
	}
	defer f.Close()
	s.file = path
	if size.Type == gjson.Number && size.Int() != fi.Size() {
		s.note = fmt.Sprintf("Claude Code reported %s of output; its copy held %d bytes.", sizeText(size), fi.Size())
	}
	switch {
	case fi.Size() <= int64(threshold):
		return false, nil
	case fi.Size() > int64(4*threshold): // at most 4 bytes per character in UTF-8
		return true, nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return false, fmt.Errorf("reading Claude Code's copy of the output: %v", err)
	}
	return utf8.RuneCount(b) > threshold, nil
}

func sizeText(size gjson.Result) string {
	if size.Type != gjson.Number {
		return "size not reported"
	}
	return fmt.Sprintf("%d bytes", size.Int())
}

// fill writes the whole text of s.
func (s spillable) fill(w io.Writer) error {
	if s.file == "" {
		return writeText(w, s.body())
	}
	f, _, err := openRegular(s.file)
	if err != nil {
		return fmt.Errorf("reading Claude Code's copy of the output: %v", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("copying Claude Code's copy of the output: %v", err)
	}
	return nil
}

// hint names a spill file: the tool, the tool_use_id (unique per call, so
// parallel calls never pick the same name) and the field.
func hint(tool, toolUseID string, keys []string) string {
	fieldName := "output"
	if len(keys) > 0 {
		fieldName = strings.Join(keys, ".")
	}
	return strings.Join([]string{tool, toolUseID, fieldName}, "-")
}
