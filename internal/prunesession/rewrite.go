package prunesession

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// rewriter is pass two: it streams the transcript again and writes every
// kept line, changed where the plan says, with the fork's session id.
type rewriter struct {
	p            *plan
	oldID, newID string
	writeSpills  bool          // false on a dry run
	sync         bool          // fsync the spill files
	folder       *spill.Folder // the spill folder, opened at the first spill
	delta        int64         // body characters added (negative: removed) by replacements
	// spilled are the spill files written for --trim, removed again when
	// the fork cannot be written: they would only copy results of a fork
	// that does not exist.
	spilled []string
	// list is the fork's spill list (leftovers.go), opened at the first
	// spill file.
	list     string
	listFile *os.File
	scratch  []byte // the line being rewritten, kept for its capacity
	// kept is what a resume sends of the part before the last compaction.
	kept *kept
}

// writeBufferSize batches the fork into large writes.
const writeBufferSize = 64 << 10

// rewrite copies src to dst following the plan. It reads what pass one read
// and no more: a live session may have appended lines since, which pass one
// has not checked. When those bytes are no longer the ones pass one read,
// it returns errChanged.
func (rw *rewriter) rewrite(src io.Reader, dst io.Writer) error {
	var read digest
	rd := transcript.NewReader(io.TeeReader(io.LimitReader(src, rw.p.size), &read))
	w := bufio.NewWriterSize(dst, writeBufferSize)
	gone, edits, far := rw.p.gone, rw.p.edits, rw.p.farRefs
	rw.kept = newKept(rw.p.keeps)
	written := 0
	for {
		raw, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *transcript.LineError
		if errors.As(err, &le) {
			return errChanged // pass one read no such line
		}
		if err != nil {
			return err
		}
		n := int32(rd.Line())
		var mine []edit
		for len(edits) > 0 && edits[0].line <= n {
			if edits[0].line == n {
				mine = append(mine, edits[0])
			}
			edits = edits[1:]
		}
		for len(gone) > 0 && gone[0] < n {
			gone = gone[1:]
		}
		for len(far) > 0 && far[0] < n {
			far = far[1:]
		}
		if len(gone) > 0 && gone[0] == n {
			continue
		}
		if n < rw.p.cut {
			rw.kept.see(raw)
		}
		line, err := rw.line(raw, mine, len(far) > 0 && far[0] == n)
		if err != nil {
			return &transcript.LineError{Line: int(n), Err: err}
		}
		// Lines are joined by newlines, and the fork ends in one only when
		// the original does.
		if written > 0 {
			w.WriteByte('\n')
		}
		written++
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	if rd.Line() != rw.p.lines || read.n != rw.p.size || read.sum != rw.p.sum {
		return errChanged
	}
	if written > 0 && rw.p.newline {
		w.WriteByte('\n')
	}
	return w.Flush()
}

// errChanged is the error of a transcript whose lines pass one read are no
// longer as it read them.
var errChanged = errors.New("the transcript changed while it was read: run again")

// line returns a kept line as the fork holds it: its edits made (bodies
// replaced first, while the block indexes still hold, then blocks removed
// from the last to the first), references to dropped entries relinked, and
// the fork's session id. far says whether the line sets logicalParentUuid
// or leafUuid.
func (rw *rewriter) line(raw []byte, edits []edit, far bool) ([]byte, error) {
	out := append(rw.scratch[:0], raw...)
	var err error
	var remove []int
	for _, e := range edits {
		if e.kind == removeBlock {
			remove = append(remove, int(e.block))
			continue
		}
		path := fmt.Sprintf("message.content.%d.content", e.block)
		var text string
		switch e.kind {
		case noteInterrupted:
			text = interruptedNote
		case noteExpired:
			text = expiredNote(rw.p.notes[e.text], int(e.turnsAgo))
		case trimBody:
			if text, err = rw.spill(bodyText(gjson.GetBytes(out, path)), spillHint(rw.newID, rw.p.hints[e.text])); err != nil {
				return nil, err
			}
		}
		body, _ := json.Marshal(text)
		if out, err = sjson.SetRawBytes(out, path, body); err != nil {
			return nil, err
		}
		rw.delta += int64(utf8.RuneCountInString(text) - int(e.oldChars))
		if e.single {
			if out, err = patchToolUseResult(out, body); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(remove)
	for i := len(remove) - 1; i >= 0; i-- {
		if out, err = sjson.DeleteBytes(out, fmt.Sprintf("message.content.%d", remove[i])); err != nil {
			return nil, err
		}
	}
	if len(rw.p.dropped) > 0 {
		if out, err = rw.relink(out, far); err != nil {
			return nil, err
		}
	}
	out, err = setSessionID(out, rw.oldID, rw.newID)
	// The edits return new slices; the scratch buffer keeps the largest
	// line's capacity.
	if cap(out) > cap(rw.scratch) {
		rw.scratch = out[:0]
	}
	return out, err
}

// relinkFields are the fields that name another entry by uuid, parentUuid
// first.
var relinkFields = [...]string{"parentUuid", "logicalParentUuid", "leafUuid"}

// relink points references to dropped entries at their nearest kept
// ancestor (null when there is none).
func (rw *rewriter) relink(out []byte, far bool) ([]byte, error) {
	fields := relinkFields[:]
	if !far {
		fields = fields[:1]
	}
	for _, f := range fields {
		v := gjson.GetBytes(out, f)
		if v.Type != gjson.String {
			continue
		}
		if _, gone := rw.p.dropped[v.Str]; !gone {
			continue
		}
		to := []byte("null")
		if u := rw.p.resolve(v.Str); u != "" {
			to, _ = json.Marshal(u)
		}
		var err error
		if out, err = sjson.SetRawBytes(out, f, to); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setSessionID gives a line the fork's session id: in the top-level
// sessionId, whatever it held (an entry of the fork is the fork's), and
// wherever else the original's id stands as the value of a field whose name
// holds "session": session_id beside sessionId (CLI 2.1.2xx), a hook
// payload an attachment carries, a tool's structured output, a field of a
// later version. What the model read (message) is left as it was: a fork
// changes what it says only where a rule does. sessionId is on every line, so it
// is overwritten where it stands when both ids are UUIDs written without
// escapes; the rest is looked for only in the lines that still hold the id
// (a search costs a tenth of a walk), down to maxSessionDepth, and replaced
// where it stands: sjson's paths name some keys wrongly (it read a
// leading ':' as its own mark and added a field "key" beside ":key", and
// missed a key holding a backslash), it finds only the first of a key
// written twice (JSON.parse takes the last), and each of its edits copies
// the line.
//
// oldID is the session's by its file's name. A copy another tool renamed
// (full.jsonl, raw_messages.jsonl) or named after another session carries
// the session's id in its lines only: a line's own sessionId, when it is
// another UUID found elsewhere in the line, is replaced as oldID is.
func setSessionID(out []byte, oldID, newID string) ([]byte, error) {
	own := gjson.GetBytes(out, "sessionId")
	if own.Type != gjson.String {
		return replaceSessionFields(out, oldID, newID)
	}
	renamed := "" // gjson.GetBytes copies what it returns: out may change below
	if own.Str != oldID && own.Str != newID && uuidShape.MatchString(own.Str) {
		renamed = own.Str
	}
	out, err := setTopString(out, "sessionId", own, newID)
	if err != nil {
		return nil, err
	}
	if out, err = replaceSessionFields(out, oldID, newID); err != nil || renamed == "" {
		return out, err
	}
	return replaceSessionFields(out, renamed, newID)
}

// replaceSessionFields replaces oldID, where setSessionID looks for it
// beside the top-level sessionId: session_id, and the fields below.
func replaceSessionFields(out []byte, oldID, newID string) ([]byte, error) {
	if !bytes.Contains(out, []byte(oldID)) {
		return out, nil
	}
	if v := gjson.GetBytes(out, "session_id"); v.Type == gjson.String && v.Str == oldID {
		var err error
		if out, err = setTopString(out, "session_id", v, newID); err != nil || !bytes.Contains(out, []byte(oldID)) {
			return out, err
		}
	}
	var at []gjson.Result
	gjson.ParseBytes(out).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "message", "sessionId", "session_id":
		default:
			if (v.IsObject() || v.IsArray()) && strings.Contains(v.Raw, oldID) {
				at = sessionValues(at, v, oldID, 2)
			}
		}
		return true
	})
	if len(at) == 0 {
		return out, nil
	}
	id, _ := json.Marshal(newID)
	fork := make([]byte, 0, len(out)+len(at)*(len(id)-len(oldID)))
	end := 0
	for _, v := range at { // in the order of the line
		fork = append(append(fork, out[end:v.Index]...), id...)
		end = v.Index + len(v.Raw)
	}
	return append(fork, out[end:]...), nil
}

// maxSessionDepth is the deepest level setSessionID looks at (the line is
// level 0, its fields level 1). Claude Code's deepest session id field is
// at level 3 or 4 (attachment.hookInput.session_id); a walk down to any
// depth costs the depth times the line, and 100,000 levels, each holding
// the id, took minutes and gigabytes.
const maxSessionDepth = 32

// setTopString sets the top-level field key, the string v, to newID: in
// place when both are written without escapes and as long (session ids
// are UUIDs), else through sjson.
func setTopString(out []byte, key string, v gjson.Result, newID string) ([]byte, error) {
	if len(v.Str) == len(newID) && v.Raw == `"`+v.Str+`"` && v.Index > 0 {
		copy(out[v.Index+1:], newID)
		return out, nil
	}
	return sjson.SetBytes(out, key, newID)
}

// sessionValues adds to at every value within v, itself at level depth,
// that is the string id in a field whose name holds "session".
func sessionValues(at []gjson.Result, v gjson.Result, id string, depth int) []gjson.Result {
	obj := v.IsObject()
	v.ForEach(func(k, f gjson.Result) bool {
		switch {
		case f.Type == gjson.String && f.Str == id && obj && strings.Contains(strings.ToLower(k.Str), "session"):
			at = append(at, f)
		case (f.IsObject() || f.IsArray()) && depth < maxSessionDepth && strings.Contains(f.Raw, id):
			at = sessionValues(at, f, id, depth+1) // only where the id is
		}
		return true
	})
	return at
}

// patchToolUseResult keeps toolUseResult, the structured output Claude Code
// shows in its own interface, telling the same story as the content the
// model reads: a string (how Claude Code stores errors) becomes text, a Bash
// output object gets text as its stdout. Other tools' objects are left as
// they are: their schema is the tool's, Claude Code does not send them to
// the model, and a hand-made one could break the interface's renderer.
//
// raw is the text as a JSON string.
func patchToolUseResult(out []byte, raw []byte) ([]byte, error) {
	v := gjson.GetBytes(out, "toolUseResult")
	switch {
	case v.Type == gjson.String:
		return sjson.SetRawBytes(out, "toolUseResult", raw)
	case v.IsObject() && v.Get("stdout").Type == gjson.String:
		out, err := sjson.SetRawBytes(out, "toolUseResult.stdout", raw)
		if err != nil {
			return nil, err
		}
		return sjson.SetRawBytes(out, "toolUseResult.stderr", []byte(`""`))
	}
	return out, nil
}

// previewChars is how much of a trimmed body stays in context, as layer
// three's spill pointer keeps it (the design: "a one-line pointer plus the
// first 400 characters").
const previewChars = 400

// spill writes the body of a trimmed tool_result to a new file of the spill
// folder (package spill, as layer three does), named after hint, and returns
// the text that replaces it. On a dry run nothing is written and the pointer
// names the file the body would get.
func (rw *rewriter) spill(body, hint string) (string, error) {
	if !rw.writeSpills {
		return dryPointer(rw.p.spillDir, hint, body), nil
	}
	if rw.folder == nil {
		folder, err := spill.Open(rw.p.spillDir)
		if err != nil {
			return "", err
		}
		rw.folder = folder
		if err := rw.listSpill(rw.p.spillDir + string(filepath.Separator)); err != nil {
			return "", err
		}
	}
	f, err := rw.folder.Write(hint, previewChars, rw.sync, func(w io.Writer) error {
		_, err := io.WriteString(w, body)
		return err
	})
	if err != nil {
		return "", err
	}
	rw.spilled = append(rw.spilled, f.Path)
	return f.Text(), nil
}

// spillHint is the name --trim gives the spill file of the tool_use call
// (spill.Write adds .txt, and -2, -3 … when taken): it carries the first
// eight characters of the fork's id, so that a later run can tell the
// files of a fork killed before it was whole from anyone else's without a
// record written after each file (a kill between the file and the record
// would leave one nobody names).
func spillHint(forkID, call string) string { return "prune-" + forkID[:8] + "-" + call }

// listSpill adds path to the fork's spill list, which a later run reads if
// this one is killed before the fork is whole: the spill folder, written
// before the first spill file, where that run then looks for the fork's
// files (spillHint) and the temporary ones of a file cut short.
func (rw *rewriter) listSpill(path string) error {
	if rw.listFile == nil {
		f, err := os.OpenFile(rw.list, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		rw.listFile = f
	}
	_, err := io.WriteString(rw.listFile, path+"\n")
	return err
}

// closeList closes the spill list, if one was opened.
func (rw *rewriter) closeList() error {
	if rw.listFile == nil {
		return nil
	}
	return rw.listFile.Close()
}

// removeSpilled removes the spill files written, through the folder's
// handle, and releases it.
func (rw *rewriter) removeSpilled() {
	if rw.folder == nil {
		return
	}
	for _, path := range rw.spilled {
		rw.folder.Root().Remove(filepath.Base(path))
	}
	rw.folder.Close()
}

// dryPointer is the pointer a spill of body would give, without the file.
func dryPointer(dir, hint, body string) string {
	head := body
	if r := []rune(body); len(r) > previewChars {
		head = string(r[:previewChars])
	}
	lines := int64(strings.Count(body, "\n"))
	if body != "" && !strings.HasSuffix(body, "\n") {
		lines++
	}
	return spill.File{Path: filepath.Join(dir, hint+".txt"), Chars: int64(utf8.RuneCountInString(body)), Lines: lines, Head: head}.Text()
}

// bodyText is a tool_result's content as text: the string, or its text
// blocks joined by newlines.
func bodyText(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var parts []string
	v.ForEach(func(_, b gjson.Result) bool {
		parts = append(parts, b.Get("text").Str)
		return true
	})
	return strings.Join(parts, "\n")
}

// kept finds, as pass two copies the part before the last compaction, the
// entries that compaction kept verbatim, and counts what a resume sends of
// them: a resume loads those too (transcript.Compaction). They are copied
// as they are, like everything before the cut.
type kept struct {
	uuids   map[string]bool
	tail    string // of a segment: where it ends
	done    bool
	chars   int64
	turns   int
	lastMsg string
}

// newKept is the kept of a compaction, nil when it kept nothing.
func newKept(c transcript.Compaction) *kept {
	if !c.Keeps() {
		return nil
	}
	k := &kept{uuids: map[string]bool{}}
	for _, u := range c.Preserved {
		k.uuids[u] = true
	}
	if len(c.Preserved) == 0 {
		// A segment: its head, then each entry whose parent is in it, down
		// to its tail (entries come after their parents).
		k.uuids[c.PreservedHead], k.tail = true, c.PreservedTail
	}
	return k
}

// see looks at one line before the cut.
func (k *kept) see(raw []byte) {
	if k == nil || k.done {
		return
	}
	ids := gjson.GetManyBytes(raw, "uuid", "parentUuid")
	u := ids[0].Str
	if u == "" {
		return
	}
	if !k.uuids[u] {
		if k.tail == "" || !k.uuids[ids[1].Str] {
			return
		}
		k.uuids[strings.Clone(u)] = true
	}
	k.done = k.tail != "" && u == k.tail
	e, err := transcript.Parse(raw)
	if err != nil || e.Message == nil || e.IsSidechain || e.IsAPIError || (e.Type != "user" && e.Type != "assistant") {
		return
	}
	k.chars += int64(e.Chars())
	if id := e.Message.ID; e.Type == "assistant" && !e.IsAPIError && id != "" && id != k.lastMsg {
		k.lastMsg = strings.Clone(id)
		k.turns++
	}
}

// turnsOrZero is k's turns, 0 for no k.
func (k *kept) turnsOrZero() int {
	if k == nil {
		return 0
	}
	return k.turns
}
