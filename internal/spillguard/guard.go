package spillguard

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
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
	if code, done := c.Parse(args); done {
		return code
	}
	if c.Flags.NArg() > 0 {
		return c.Fail(fmt.Errorf("unexpected argument %q: the payload comes on stdin", c.Flags.Arg(0)))
	}
	switch {
	case o.threshold < 1:
		return c.Fail(fmt.Errorf("--threshold must be at least 1, got %d", o.threshold))
	case o.head < 0 || o.head >= o.threshold:
		return c.Fail(fmt.Errorf("--head must be from 0 to --threshold-1 (%d), got %d", o.threshold-1, o.head))
	}

	// A large tool result's body is checked on the other core while it is
	// written to the spill file; nothing is printed before the verdict.
	p, wait, err := hook.ReadPayloadLazily(stdin)
	if err != nil {
		return c.Fail(err)
	}
	out, written, err := run(p, o, *wb, wait)
	if werr := wait(); werr != nil {
		// The payload was bad after all: what was spilled from it goes.
		for _, path := range written {
			os.Remove(path)
		}
		return c.Fail(werr)
	}
	if err != nil {
		return c.Fail(err)
	}
	if out == nil {
		return hook.ExitOK
	}
	if _, err := out.WriteTo(stdout); err != nil {
		return c.Fail(err)
	}
	return hook.ExitOK
}

type options struct {
	threshold, head int
	mainOnly        bool
}

// spillable is a field over the threshold and where its whole text is.
type spillable struct {
	field
	file string // Claude Code's copy of the whole Bash output; "" for the field itself
	note string // for the pointer
}

// run decides and does the work; a nil output means "print nothing".
// written names the spill files it wrote for the output; on an error it
// has removed them itself. wait is the verdict on the payload's long
// bodies (hook.ReadPayloadLazily), which Main reports.
func run(p *hook.Payload, o options, wbFlag string, wait func() error) (out *hook.Output, written []string, err error) {
	if out, ok, err := captured(p, o, wbFlag); ok {
		return out, nil, err
	}
	if p.Event() != "PostToolUse" {
		return nil, nil, nil
	}
	tool := p.ToolName()
	// From the members ReadPayload found: a view into the payload, neither
	// copied (gjson.GetBytes would copy 50 MB for a 50 MB stdout) nor
	// found by a second scan past it.
	resp := p.Get("tool_response")
	if objectTools[tool] && !resp.IsObject() {
		// Checked before --main-only: a malformed payload is reported
		// whoever made the call.
		return nil, nil, fmt.Errorf("tool_response of %s is %s, want an object", tool, jsonkind.Of(resp))
	}
	if o.mainOnly && !p.IsMainThread() || editTools[tool] || !resp.Exists() {
		return nil, nil, nil
	}
	in := span{resp.Index, p.Ends()}
	top := members(resp.Raw, in)
	switch {
	case tool == "Read" && resp.IsObject() && lookup(top, "type").String() != "text":
		return nil, nil, nil // an image, PDF or notebook: not text to spill
	case tool == "Bash" && lookup(top, "isImage").Bool():
		return nil, nil, nil // stdout is a data: URL Claude Code turns into an image
	}

	todo, err := overThreshold(p, tool, resp.Raw, in, top, o.threshold)
	if err != nil || len(todo) == 0 {
		return nil, nil, err
	}
	root, err := hook.WorkbenchRoot(wbFlag, p.Cwd())
	if err != nil {
		return nil, nil, err
	}
	dir := spill.Dir(root)
	if readsSpill(p, tool, root, dir) {
		return nil, nil, nil
	}
	if !spill.Ready(dir) {
		if wait() != nil {
			// Prepare would create the spill folder (and the workbench),
			// or change its mode: a bad payload leaves the disk as it was.
			return nil, nil, nil
		}
		if err := spill.Prepare(dir); err != nil {
			return nil, nil, fmt.Errorf("cannot use the spill folder: %v", err)
		}
	}

	fail := func(err error) (*hook.Output, []string, error) {
		// The model gets the original output; files it will never hear of
		// would only hold a second copy of it.
		for _, path := range written {
			os.Remove(path)
		}
		return nil, nil, err
	}
	reps := make([]string, len(todo))
	for i, s := range todo {
		f, err := spill.WriteUnsynced(dir, hint(tool, p.Get("tool_use_id").String(), s.keys), o.head, s.fill)
		if err != nil {
			return fail(fmt.Errorf("cannot write the spill file: %v", err))
		}
		written = append(written, f.Path)
		f.Note = s.note
		// gjson encodes as encoding/json does valid UTF-8, without its
		// first-call cost (see hook.Output.Set).
		reps[i] = string(gjson.AppendJSONString(nil, f.Text()))
	}
	updated := splice(resp.Raw, todo, reps)
	if slices.ContainsFunc(todo, func(s spillable) bool { return s.file != "" }) {
		if updated, err = dropPersisted(updated); err != nil {
			return fail(err)
		}
	}
	return hook.NewOutput("PostToolUse").SetRaw("updatedToolOutput", updated), written, nil
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
		// A repeated key: JSON.parse keeps the last, so remove them all.
		for gjson.GetBytes(resp, key).Exists() {
			var err error
			if resp, err = sjson.DeleteBytes(resp, key); err != nil {
				return nil, err
			}
		}
	}
	return resp, nil
}

// splice returns resp with the token of each field in todo replaced by the
// matching JSON value of reps, every other byte as it was.
//
// It splices at the byte ranges the walk found, which is what sjson does
// once it has found a path: but sjson finds it with gjson, which decodes the
// string there, 400 ms and 100 MB for a 50 MB stdout. The tests check that
// the result equals sjson.SetRaw at the escaped paths (sjsonPath).
func splice(resp string, todo []spillable, reps []string) []byte {
	n := len(resp)
	for i, s := range todo {
		n += len(reps[i]) - len(s.raw)
	}
	out := make([]byte, 0, n)
	last := 0
	for i, s := range todo {
		out = append(out, resp[last:s.off]...)
		out = append(out, reps[i]...)
		last = s.off + len(s.raw)
	}
	return append(out, resp[last:]...)
}

// lookup is the value of key among ms, parsed by gjson.
func lookup(ms []member, key string) gjson.Result {
	for _, m := range ms {
		if m.key == key {
			return gjson.Parse(m.raw)
		}
	}
	return gjson.Result{}
}

// overThreshold returns the fields of resp to spill.
func overThreshold(p *hook.Payload, tool, resp string, in span, top []member, threshold int) ([]spillable, error) {
	fields := objectFields(top, in)
	if len(top) == 0 {
		fields = stringFields(resp, in) // a string, as MCP tools give, or {}
	}
	var todo []spillable
	for _, f := range fields {
		s := spillable{field: f}
		if tool == "Bash" && len(f.keys) == 1 && f.keys[0] == "stdout" {
			if persisted := lookup(top, "persistedOutputPath"); persisted.Type == gjson.String && persisted.Str != "" {
				over, err := s.fromPersisted(p, persisted.Str, lookup(top, "persistedOutputSize"), threshold)
				if err != nil {
					return nil, err
				}
				if over {
					todo = append(todo, s)
				}
				continue
			}
		}
		if over(f.body(), threshold) {
			todo = append(todo, s)
		}
	}
	return todo, nil
}

// over reports whether the decoded body has more than threshold characters,
// decoding only when its length leaves the answer open.
func over(body string, threshold int) bool {
	switch {
	case len(body) <= threshold: // every character takes at least one byte
		return false
	case len(body) > maxEscapedBytesPerChar*threshold:
		return true
	}
	return jsonscan.Chars(body) > threshold
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
		return over(s.body(), threshold), nil
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
		return writeDecoded(w, s.body())
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
