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

// rewriter is pass two: it reads the transcript again and writes every kept
// line, changed where the plan says, with the fork's session id.
type rewriter struct {
	p            *plan
	oldID, newID string
	writeSpills  bool          // false on a dry run
	folder       *spill.Folder // opened at the first spill
	spilled      []string      // spill files written, removed if the fork fails
	list         string        // the fork's spill list (leftovers.go)
	listFile     *os.File      // opened at the first spill
	delta        int64         // body characters added (negative: removed)
	kept         *kept         // what a resume sends from before the last compaction
	buf          []byte        // the line written, kept for its capacity
}

// rewrite copies src to dst as the plan says. It reads what pass one read
// and no more (a live session may have appended lines since), and returns
// errChanged when those bytes differ.
func (rw *rewriter) rewrite(src io.Reader, dst io.Writer) error {
	var read tally
	rd := transcript.NewReader(io.TeeReader(io.LimitReader(src, rw.p.size), &read))
	w := bufio.NewWriterSize(dst, 64<<10)
	edits, far := rw.p.edits, rw.p.far
	rw.kept = newKept(rw.p.keeps)
	written := 0
	for {
		raw, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.As(err, new(*transcript.LineError)) {
			return errChanged // pass one read no such line
		}
		if err != nil {
			return err
		}
		n := int32(rd.Line())
		i := 0
		for i < len(edits) && edits[i].line == n {
			i++ // edits are sorted by line, and every line is read
		}
		mine := edits[:i]
		edits = edits[i:]
		for len(far) > 0 && far[0] < n {
			far = far[1:]
		}
		if slices.ContainsFunc(mine, func(e edit) bool { return e.kind == dropLine }) {
			continue
		}
		if n < rw.p.cut {
			rw.kept.see(raw)
		}
		line, err := rw.line(raw, mine, len(far) > 0 && far[0] == n)
		if err != nil {
			return &transcript.LineError{Line: int(n), Err: err}
		}
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

var errChanged = errors.New("the transcript changed while it was read: run again")

// line returns a kept line as the fork holds it: bodies replaced while the
// block indexes hold, blocks removed last first, references to dropped
// entries relinked (far: also logicalParentUuid and leafUuid), and the
// fork's session id.
func (rw *rewriter) line(out []byte, edits []edit, far bool) ([]byte, error) {
	var err error
	var remove []int
	for _, e := range edits {
		if e.kind == removeBlock {
			remove = append(remove, int(e.block))
		} else if out, err = rw.replace(out, e); err != nil {
			return nil, err
		}
	}
	slices.Sort(remove)
	for _, b := range slices.Backward(remove) {
		if out, err = sjson.DeleteBytes(out, fmt.Sprintf("message.content.%d", b)); err != nil {
			return nil, err
		}
	}
	if len(rw.p.dropped) > 0 {
		if out, err = rw.relink(out, far); err != nil {
			return nil, err
		}
	}
	rw.buf = setSessionID(rw.buf[:0], out, rw.oldID, rw.newID)
	return rw.buf, nil
}

// replace replaces the body of a tool_result as e says.
func (rw *rewriter) replace(out []byte, e edit) ([]byte, error) {
	path := fmt.Sprintf("message.content.%d.content", e.block)
	var text string
	switch e.kind {
	case noteInterrupted:
		text = InterruptedNote
	case noteExpired:
		text = expiredNote(e.text, int(e.turnsAgo))
	case trimBody:
		var err error
		if text, err = rw.spill(bodyText(gjson.GetBytes(out, path)), spillHint(rw.newID, e.text)); err != nil {
			return nil, err
		}
	}
	rw.delta += int64(utf8.RuneCountInString(text) - int(e.oldChars))
	body, _ := json.Marshal(text)
	out, err := sjson.SetRawBytes(out, path, body)
	if err != nil || !e.single {
		return out, err
	}
	// toolUseResult, which Claude Code shows in its interface, tells the
	// same story: a string (an error) becomes the text, a Bash output gets
	// it as stdout. Other tools' objects stay: the model never reads them
	// and a hand-made one could break the renderer.
	switch v := gjson.GetBytes(out, "toolUseResult"); {
	case v.Type == gjson.String:
		return sjson.SetRawBytes(out, "toolUseResult", body)
	case v.IsObject() && v.Get("stdout").Type == gjson.String:
		if out, err = sjson.SetRawBytes(out, "toolUseResult.stdout", body); err != nil {
			return nil, err
		}
		return sjson.SetRawBytes(out, "toolUseResult.stderr", []byte(`""`))
	}
	return out, nil
}

// relink points references to dropped entries at their nearest kept
// ancestor (null when there is none).
func (rw *rewriter) relink(out []byte, far bool) ([]byte, error) {
	fields := []string{"parentUuid", "logicalParentUuid", "leafUuid"}
	if !far {
		fields = fields[:1]
	}
	for _, f := range fields {
		v := gjson.GetBytes(out, f)
		if _, gone := rw.p.dropped[v.Str]; v.Type != gjson.String || !gone {
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

// setSessionID appends to dst the line with the fork's session id in the
// top-level sessionId and wherever else oldID (or the line's own sessionId,
// when another UUID: a renamed copy of a transcript) is the value of a
// field whose name holds "session", but in message, which the model read.
// Values are replaced where they stand: sjson's paths misname some keys
// and find only the first of a key written twice.
func setSessionID(dst, line []byte, oldID, newID string) []byte {
	own := gjson.GetBytes(line, "sessionId")
	ids := []string{oldID}
	if own.Type == gjson.String && own.Str != oldID && own.Str != newID && uuidShape.MatchString(own.Str) {
		ids = append(ids, own.Str)
	}
	var at []span
	if own.Type == gjson.String {
		at = append(at, spanOf(own))
	}
	if slices.ContainsFunc(ids, func(id string) bool { return bytes.Count(line, []byte(id)) > strings.Count(own.Raw, id) }) {
		gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
			switch {
			case k.Str == "message" || k.Str == "sessionId":
			case k.Str == "session_id":
				if v.Type == gjson.String && slices.Contains(ids, v.Str) {
					at = append(at, spanOf(v))
				}
			case v.IsObject() || v.IsArray():
				at = sessionValues(at, v, ids, 2)
			}
			return true
		})
		slices.SortFunc(at, func(a, b span) int { return a.start - b.start })
	}
	id, _ := json.Marshal(newID)
	dst = slices.Grow(dst, len(line)+len(at)*len(id))
	end := 0
	for _, v := range at {
		dst = append(append(dst, line[end:v.start]...), id...)
		end = v.end
	}
	return append(dst, line[end:]...)
}

// span is where a value stands in a line.
type span struct{ start, end int }

func spanOf(v gjson.Result) span { return span{v.Index, v.Index + len(v.Raw)} }

// maxSessionDepth is the deepest level setSessionID looks at: Claude
// Code's deepest session id is at level 3 or 4, and a walk costs the depth
// times the line.
const maxSessionDepth = 32

// sessionValues adds to at the session ids within v, at level depth,
// going down only where one of them is.
func sessionValues(at []span, v gjson.Result, ids []string, depth int) []span {
	holds := func(s string) bool {
		return slices.ContainsFunc(ids, func(id string) bool { return strings.Contains(s, id) })
	}
	if !holds(v.Raw) {
		return at
	}
	obj := v.IsObject()
	v.ForEach(func(k, f gjson.Result) bool {
		switch {
		case f.Type == gjson.String && obj && slices.Contains(ids, f.Str) && strings.Contains(strings.ToLower(k.Str), "session"):
			at = append(at, spanOf(f))
		case (f.IsObject() || f.IsArray()) && depth < maxSessionDepth:
			at = sessionValues(at, f, ids, depth+1)
		}
		return true
	})
	return at
}

// previewChars is how much of a trimmed body stays, as in layer three's
// spill pointer.
const previewChars = 400

// spill writes a trimmed body to a new file of the spill folder, named
// after hint, and returns the pointer that replaces it; a dry run only
// names the file it would write.
func (rw *rewriter) spill(body, hint string) (string, error) {
	if !rw.writeSpills {
		c := spill.NewCounter(io.Discard, previewChars)
		io.WriteString(c, body)
		return c.File(filepath.Join(rw.p.spillDir, hint+".txt")).Text(), nil
	}
	if rw.folder == nil {
		folder, err := spill.Open(rw.p.spillDir)
		if err != nil {
			return "", err
		}
		rw.folder = folder
		// The list names the folder before the first file is in it.
		if rw.listFile, err = os.OpenFile(rw.list, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
			return "", err
		}
		if _, err := io.WriteString(rw.listFile, rw.p.spillDir+string(filepath.Separator)+"\n"); err != nil {
			return "", err
		}
	}
	f, err := rw.folder.Write(hint, previewChars, rw.p.o.sync, func(w io.Writer) error {
		_, err := io.WriteString(w, body)
		return err
	})
	if err != nil {
		return "", err
	}
	rw.spilled = append(rw.spilled, f.Path)
	return f.Text(), nil
}

// spillHint names the spill file of the tool_use call (spill.Write adds
// .txt): the fork's id's first eight characters tell a later run the files
// of a fork killed before it was whole, with no record per file.
func spillHint(forkID, call string) string { return "prune-" + forkID[:8] + "-" + call }

func (rw *rewriter) closeList() error {
	if rw.listFile == nil {
		return nil
	}
	return rw.listFile.Close()
}

// removeSpilled removes the spill files written and releases the folder.
func (rw *rewriter) removeSpilled() {
	if rw.folder == nil {
		return
	}
	for _, path := range rw.spilled {
		rw.folder.Root().Remove(filepath.Base(path))
	}
	rw.folder.Close()
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
// entries it kept verbatim, and counts what a resume sends of them.
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
		// A segment: its head, then each entry whose parent is in it.
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
	if id := e.Message.ID; e.Type == "assistant" && id != "" && id != k.lastMsg {
		k.lastMsg = strings.Clone(id)
		k.turns++
	}
}
