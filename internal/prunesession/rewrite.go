package prunesession

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
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
	writeSpills  bool  // false on a dry run
	prepared     bool  // the spill folder is ready
	delta        int64 // body characters added (negative: removed) by replacements
	scratch      []byte
}

// rewrite copies src to dst following the plan.
func (rw *rewriter) rewrite(src io.Reader, dst io.Writer) (err error) {
	w := newChunkWriter(dst)
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	// Pass two reads what pass one read and no more: a live session may
	// have appended lines since, which pass one has not checked.
	rd := transcript.NewReader(io.LimitReader(src, rw.p.size))
	for {
		raw, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n := rd.Line()
		if n > rw.p.lines || int(rw.p.length[n-1]) != len(raw) {
			return errChanged
		}
		if rw.p.flags[n-1]&lineDropped != 0 {
			continue
		}
		if err := rw.write(w, n, raw); err != nil {
			return err
		}
	}
	if rd.Line() != rw.p.lines {
		return errChanged
	}
	return nil
}

// errChanged is the error of a transcript whose lines pass one read are no
// longer as it read them.
var errChanged = errors.New("the transcript changed while it was read: run again")

// write writes line n as the fork holds it.
func (rw *rewriter) write(w *chunkWriter, n int, raw []byte) error {
	at := int(rw.p.sid[n-1])
	if at >= 0 && !sessionIDIsAt(raw, at, rw.p.sessionID) {
		return errChanged
	}
	if at >= 0 && len(rw.newID) == uuidLen && rw.p.flags[n-1]&lineEdited == 0 && !rw.relinks(n, raw) {
		// Most lines: as they stand but for the session id, written
		// around it instead of copied and patched.
		w.Write(raw[:at+1])
		w.WriteString(rw.newID)
		w.Write(raw[at+1+uuidLen:])
		w.WriteByte('\n')
		return nil
	}
	out, err := rw.line(n, raw)
	if err != nil {
		return &transcript.LineError{Line: n, Err: err}
	}
	w.Write(out)
	w.WriteByte('\n')
	return nil
}

// relinks reports whether line n names a dropped entry, so that relink has
// work to do.
func (rw *rewriter) relinks(n int, raw []byte) bool {
	refs := rw.p.flags[n-1] & refBits
	if refs == 0 || len(rw.p.dropped) == 0 {
		return false
	}
	for i, f := range relinkFields {
		if refs&(1<<i) != 0 {
			if v := gjson.GetBytes(raw, f); v.Type == gjson.String {
				if _, gone := rw.p.dropped[v.Str]; gone {
					return true
				}
			}
		}
	}
	return false
}

// line returns line n as the fork holds it. Unchanged lines differ from the
// original only in their session id, patched in place.
func (rw *rewriter) line(n int, raw []byte) ([]byte, error) {
	out := append(rw.scratch[:0], raw...)
	var err error
	moved := false // whether bytes shifted since pass one read the line
	if e := rw.p.edits[n]; e != nil {
		if out, err = rw.apply(out, e); err != nil {
			return nil, err
		}
		moved = true
	}
	if refs := rw.p.flags[n-1] & refBits; refs != 0 && len(rw.p.dropped) > 0 {
		var relinked bool
		if out, relinked, err = rw.relink(out, refs); err != nil {
			return nil, err
		}
		moved = moved || relinked
	}
	if at := rw.p.sid[n-1]; at >= 0 && !moved && len(rw.newID) == uuidLen {
		// The common case: overwrite the id where pass one found it.
		copy(out[at+1:], rw.newID)
	} else if out, err = setSessionID(out, rw.oldID, rw.newID); err != nil {
		return nil, err
	}
	rw.scratch = out
	return out, nil
}

// relinkFields are the fields that name another entry by uuid, in the order
// of the bits of plan.flags.
var relinkFields = [...]string{"parentUuid", "logicalParentUuid", "leafUuid"}

// relink points references to dropped entries at their nearest kept
// ancestor (null when there is none).
func (rw *rewriter) relink(out []byte, refs uint8) ([]byte, bool, error) {
	changed := false
	for i, f := range relinkFields {
		if refs&(1<<i) == 0 {
			continue
		}
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
			return nil, false, err
		}
		changed = true
	}
	return out, changed, nil
}

// setSessionID rewrites the top-level sessionId. Both ids are UUIDs of the
// same length written without escapes, so the common case overwrites the
// bytes of the value where they stand; anything else goes through sjson.
func setSessionID(out []byte, oldID, newID string) ([]byte, error) {
	v := gjson.GetBytes(out, "sessionId")
	if v.Type != gjson.String {
		return out, nil
	}
	if len(oldID) == len(newID) && v.Raw == strconv.Quote(oldID) && v.Index > 0 {
		copy(out[v.Index+1:], newID)
		return out, nil
	}
	raw, _ := json.Marshal(newID)
	return sjson.SetRawBytes(out, "sessionId", raw)
}

// apply makes one line's edits: bodies replaced first, while the block
// indexes still hold, then blocks removed from the last to the first.
func (rw *rewriter) apply(out []byte, e *lineEdit) ([]byte, error) {
	var err error
	for _, r := range e.replace {
		text := r.text
		if r.trim != "" {
			if text, err = rw.spill(out, r); err != nil {
				return nil, err
			}
		}
		raw, _ := json.Marshal(text)
		if out, err = sjson.SetRawBytes(out, fmt.Sprintf("message.content.%d.content", r.block), raw); err != nil {
			return nil, err
		}
		rw.delta += int64(utf8.RuneCountInString(text) - r.oldChars)
		if r.single {
			if out, err = patchToolUseResult(out, text); err != nil {
				return nil, err
			}
		}
	}
	remove := slices.Clone(e.remove)
	slices.Sort(remove)
	for i := len(remove) - 1; i >= 0; i-- {
		if out, err = sjson.DeleteBytes(out, fmt.Sprintf("message.content.%d", remove[i])); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// patchToolUseResult keeps toolUseResult, the structured output Claude Code
// shows in its own interface, telling the same story as the content the
// model reads: a string (how Claude Code stores errors) becomes text, a Bash
// output object gets text as its stdout. Other tools' objects are left as
// they are: their schema is the tool's, Claude Code does not send them to
// the model, and a hand-made one could break the interface's renderer.
func patchToolUseResult(out []byte, text string) ([]byte, error) {
	v := gjson.GetBytes(out, "toolUseResult")
	raw, _ := json.Marshal(text)
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
// folder (package spill, as layer three does) and returns the text that
// replaces it. On a dry run nothing is written and the pointer names the file
// the body would get.
func (rw *rewriter) spill(out []byte, r replacement) (string, error) {
	body := bodyText(gjson.GetBytes(out, fmt.Sprintf("message.content.%d.content", r.block)))
	if !rw.writeSpills {
		return dryPointer(rw.p.spillDir, r.trim, body), nil
	}
	if !rw.prepared {
		if err := spill.Prepare(rw.p.spillDir); err != nil {
			return "", err
		}
		rw.prepared = true
	}
	f, err := spill.WriteString(rw.p.spillDir, r.trim, body, previewChars)
	if err != nil {
		return "", err
	}
	return f.Text(), nil
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
