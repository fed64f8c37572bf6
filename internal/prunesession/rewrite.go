package prunesession

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// rewriter is pass two: it streams the transcript again and writes every
// kept line, changed where the plan says, with the fork's session id.
type rewriter struct {
	p            *plan
	oldID, newID string
	writeSpills  bool  // false on a dry run
	sync         bool  // fsync the spill files
	prepared     bool  // the spill folder is ready
	delta        int64 // body characters added (negative: removed) by replacements
	// spilled are the spill files written for --trim, removed again when
	// the fork cannot be written: they would only copy results of a fork
	// that does not exist.
	spilled []string
}

// lineRewriter is the state of one goroutine of pass two.
type lineRewriter struct {
	*rewriter
	scratch []byte
	splices []splice // spliced's, kept for their capacity
	delta   int64    // this goroutine's share of rewriter.delta
	spilled []string // this goroutine's share of rewriter.spilled
}

// rewrite copies src to dst following the plan.
//
// The lines are rewritten on every CPU (transcript.Transform) and written in
// order. On one goroutine pass two was as long as pass one: measured on the
// bench's 200 MB transcript, 320 ms, most of it the edits of the 19,000
// lines whose results expire or whose calls go.
func (rw *rewriter) rewrite(src io.Reader, dst io.Writer) error {
	workers := runtime.GOMAXPROCS(0)
	if rw.writeSpills && rw.p.trimmed > 0 {
		// Spill files are named in the order they are written (a second
		// body with the same name hint gets -2): one goroutine keeps that
		// order the file's.
		workers = 1
	}
	var lrs []*lineRewriter
	// Pass two reads what pass one read and no more: a live session may
	// have appended lines since, which pass one has not checked.
	lines, err := transcript.Transform(io.LimitReader(src, rw.p.size), dst, workers, func() transcript.LineFunc {
		lr := &lineRewriter{rewriter: rw}
		lrs = append(lrs, lr)
		return lr.write
	})
	// Transform has waited for its workers: their files are all named.
	for _, lr := range lrs {
		rw.spilled = append(rw.spilled, lr.spilled...)
	}
	if err != nil {
		return err
	}
	if lines != rw.p.lines {
		return errChanged
	}
	for _, lr := range lrs {
		rw.delta += lr.delta
	}
	return nil
}

// errChanged is the error of a transcript whose lines pass one read are no
// longer as it read them.
var errChanged = errors.New("the transcript changed while it was read: run again")

// write appends line n as the fork holds it to out, if the fork keeps it.
func (lr *lineRewriter) write(n int, raw, out []byte) ([]byte, error) {
	if n > lr.p.lines || int(lr.p.length[n-1]) != len(raw) {
		return out, errChanged
	}
	flags := lr.p.flags[n-1]
	if flags&lineDropped != 0 {
		return out, nil
	}
	at := int(lr.p.sid[n-1])
	if at >= 0 && !sessionIDIsAt(raw, at, lr.p.sessionID) {
		return out, errChanged
	}
	if at >= 0 && len(lr.newID) == uuidLen && flags&lineEdited == 0 && !lr.relinks(n, raw) {
		// Most lines: as they stand but for the session id, written
		// around it instead of copied and patched.
		out = append(out, raw[:at+1]...)
		out = append(out, lr.newID...)
		out = append(out, raw[at+1+uuidLen:]...)
		return append(out, '\n'), nil
	}
	// Lines with edits or references to relink: in one copy where the
	// splices can make the changes, else through sjson.
	spliced, ok, err := lr.spliced(n, raw, out)
	if !ok && err == nil {
		var line []byte
		line, err = lr.line(n, raw)
		spliced = append(out, line...)
	}
	if err != nil {
		return out, &transcript.LineError{Line: n, Err: err}
	}
	return append(spliced, '\n'), nil
}

// relinks reports whether line n names a dropped entry, so that relink has
// work to do.
func (lr *lineRewriter) relinks(n int, raw []byte) bool {
	refs := lr.p.flags[n-1] & refBits
	if refs == 0 || len(lr.p.dropped) == 0 {
		return false
	}
	line := unsafe.String(unsafe.SliceData(raw), len(raw))
	var keys [len(relinkFields)]string
	for i, f := range relinkFields {
		if refs&(1<<i) != 0 {
			keys[i] = f
		}
	}
	var vals [len(relinkFields)]span
	members(line, jsonscan.SkipSpace(line, 0), keys[:], vals[:])
	for _, v := range vals {
		if isString(line, v) {
			if _, gone := lr.p.dropped[stringValue(line, v)]; gone {
				return true
			}
		}
	}
	return false
}

// isString reports whether v is a string (the whole of one: on a line that
// is not JSON, it may be cut short).
func isString(line string, v span) bool {
	return v.end-v.start >= 2 && line[v.start] == '"' && line[v.end-1] == '"'
}

// stringValue is the string at v, unescaped; one without a backslash is not
// copied.
func stringValue(line string, v span) string {
	return jsonscan.Result(line[v.start:v.end], v.start).Str
}

// The top-level members spliced looks for, in one walk of the line.
const (
	topMessage = iota
	topToolUseResult
	topSessionID
	topRefs // the relinkFields, in their order
	topKeys = topRefs + len(relinkFields)
)

// spliced appends line n as the fork holds it to out, its changes made as
// splices of raw in one copy. It makes the changes line makes, found with
// the walks of splice.go instead of gjson's scans: ok is false, with
// nothing done, when a change is not one a splice makes as sjson does (a
// value missing or of another type, two changes of the same bytes), and
// line makes it.
func (lr *lineRewriter) spliced(n int, raw, out []byte) (_ []byte, ok bool, err error) {
	line := unsafe.String(unsafe.SliceData(raw), len(raw))
	e := lr.p.edits[n]
	refs := lr.p.flags[n-1] & refBits
	if len(lr.p.dropped) == 0 {
		refs = 0
	}
	inPlace := lr.p.sid[n-1] >= 0 && len(lr.newID) == uuidLen

	var keys [topKeys]string
	if e != nil {
		keys[topMessage] = "message"
		for _, r := range e.replace {
			if r.single {
				keys[topToolUseResult] = "toolUseResult"
			}
		}
	}
	if !inPlace {
		keys[topSessionID] = "sessionId"
	}
	for i, f := range relinkFields {
		if refs&(1<<i) != 0 {
			keys[topRefs+i] = f
		}
	}
	var top [topKeys]span
	if !members(line, jsonscan.SkipSpace(line, 0), keys[:], top[:]) {
		return out, false, nil
	}

	ss := lr.splices[:0]
	defer func() { lr.splices = ss[:0] }()
	if inPlace {
		at := int(lr.p.sid[n-1]) + 1
		ss = append(ss, splice{span: span{at, at + uuidLen}, text: lr.newID})
	}
	var bodies []span // the content of each replacement's block
	if e != nil {
		if !top[topMessage].found() {
			return out, false, nil
		}
		msg := top[topMessage].start
		for i, r := range e.replace {
			c, ok := blockContent(line, msg, r.block)
			if !ok || line[c.start] == '"' && !isString(line, c) {
				return out, false, nil
			}
			bodies = append(bodies, c)
			ss = append(ss, splice{span: c, body: i + 1})
			if r.single {
				ss = toolUseResultSplices(line, top[topToolUseResult], ss, i+1)
			}
		}
		if len(e.remove) > 0 {
			gone, ok := removal(line, msg, e.remove)
			if !ok {
				return out, false, nil
			}
			for _, g := range gone {
				ss = append(ss, splice{span: g})
			}
		}
	}
	for _, v := range top[topRefs:] {
		if !isString(line, v) {
			continue
		}
		uuid := stringValue(line, v)
		if _, gone := lr.p.dropped[uuid]; !gone {
			continue
		}
		to := "null"
		if u := lr.p.resolve(uuid); u != "" {
			b, _ := json.Marshal(u)
			to = string(b)
		}
		ss = append(ss, splice{span: v, text: to})
	}
	if v := top[topSessionID]; v.found() && line[v.start] == '"' {
		to := `"` + lr.newID + `"` // setSessionID's copy where the old id stands
		if len(lr.oldID) != len(lr.newID) || line[v.start:v.end] != strconv.Quote(lr.oldID) {
			b, _ := json.Marshal(lr.newID)
			to = string(b)
		}
		ss = append(ss, splice{span: v, text: to})
	}
	if !ordered(ss) {
		return out, false, nil
	}
	// The splices fit: now the bodies, in the order apply makes them, spill
	// files included.
	if e != nil && len(e.replace) > 0 {
		texts := make([]string, len(e.replace))
		for i, r := range e.replace {
			text := r.text
			if r.trim != "" {
				if text, err = lr.spill(bodyText(jsonscan.Result(line[bodies[i].start:bodies[i].end], bodies[i].start)), r.trim); err != nil {
					return out, true, err
				}
			}
			raw, _ := json.Marshal(text)
			texts[i] = string(raw)
			lr.delta += int64(utf8.RuneCountInString(text) - r.oldChars)
		}
		for i := range ss {
			if ss[i].body > 0 {
				ss[i].text = texts[ss[i].body-1]
			}
		}
	}
	return spliceLine(out, line, ss), true, nil
}

// toolUseResultSplices appends to ss the splices patchToolUseResult makes,
// v being toolUseResult, for a body that replacement body-1 gives.
func toolUseResultSplices(line string, v span, ss []splice, body int) []splice {
	if !v.found() {
		return ss // neither a string nor an object: left as it is
	}
	switch line[v.start] {
	case '"':
		return append(ss, splice{span: v, body: body})
	case '{':
		var out [2]span // stdout, stderr
		members(line, v.start, []string{"stdout", "stderr"}, out[:])
		if !out[0].found() || line[out[0].start] != '"' {
			return ss
		}
		ss = append(ss, splice{span: out[0], body: body})
		if out[1].found() {
			return append(ss, splice{span: out[1], text: `""`})
		}
		// sjson adds a missing stderr last, after a comma (the object
		// holds stdout), before the closing brace.
		brace := v.end - 1
		return append(ss, splice{span: span{brace, brace}, text: `,"stderr":""`})
	}
	return ss
}

// line returns line n as the fork holds it, made with sjson: spliced's
// fallback for the lines it leaves (a value missing or of another type,
// where sjson adds members; two changes of the same bytes), and what the
// tests hold spliced to.
func (lr *lineRewriter) line(n int, raw []byte) ([]byte, error) {
	out := append(lr.scratch[:0], raw...)
	// The edits return new slices; the scratch buffer keeps the largest
	// line's capacity instead of becoming the last edit's output.
	lr.scratch = out[:0]
	// The common case first: overwrite the id where pass one found it,
	// before the edits move it. Done last, it needed a walk of the edited
	// line to find the id again: measured, a seventh of the edits' time.
	inPlace := lr.p.sid[n-1] >= 0 && len(lr.newID) == uuidLen
	if inPlace {
		copy(out[lr.p.sid[n-1]+1:], lr.newID)
	}
	var err error
	if e := lr.p.edits[n]; e != nil {
		if out, err = lr.apply(out, e); err != nil {
			return nil, err
		}
	}
	if refs := lr.p.flags[n-1] & refBits; refs != 0 && len(lr.p.dropped) > 0 {
		if out, err = lr.relink(out, refs); err != nil {
			return nil, err
		}
	}
	if !inPlace {
		if out, err = setSessionID(out, lr.oldID, lr.newID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// relinkFields are the fields that name another entry by uuid, in the order
// of the bits of plan.flags.
var relinkFields = [...]string{"parentUuid", "logicalParentUuid", "leafUuid"}

// relink points references to dropped entries at their nearest kept
// ancestor (null when there is none).
func (lr *lineRewriter) relink(out []byte, refs uint8) ([]byte, error) {
	for i, f := range relinkFields {
		if refs&(1<<i) == 0 {
			continue
		}
		v := gjson.GetBytes(out, f)
		if v.Type != gjson.String {
			continue
		}
		if _, gone := lr.p.dropped[v.Str]; !gone {
			continue
		}
		to := []byte("null")
		if u := lr.p.resolve(v.Str); u != "" {
			to, _ = json.Marshal(u)
		}
		var err error
		if out, err = sjson.SetRawBytes(out, f, to); err != nil {
			return nil, err
		}
	}
	return out, nil
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
func (lr *lineRewriter) apply(out []byte, e *lineEdit) ([]byte, error) {
	var err error
	for _, r := range e.replace {
		text := r.text
		if r.trim != "" {
			body := bodyText(gjson.GetBytes(out, fmt.Sprintf("message.content.%d.content", r.block)))
			if text, err = lr.spill(body, r.trim); err != nil {
				return nil, err
			}
		}
		raw, _ := json.Marshal(text)
		if out, err = sjson.SetRawBytes(out, fmt.Sprintf("message.content.%d.content", r.block), raw); err != nil {
			return nil, err
		}
		lr.delta += int64(utf8.RuneCountInString(text) - r.oldChars)
		if r.single {
			if out, err = patchToolUseResult(out, raw); err != nil {
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
func (lr *lineRewriter) spill(body, hint string) (string, error) {
	if !lr.writeSpills {
		return dryPointer(lr.p.spillDir, hint, body), nil
	}
	if !lr.prepared {
		if err := spill.Prepare(lr.p.spillDir); err != nil {
			return "", err
		}
		lr.prepared = true
	}
	write := spill.WriteUnsynced
	if lr.sync {
		write = spill.Write
	}
	f, err := write(lr.p.spillDir, hint, previewChars, func(w io.Writer) error {
		_, err := io.WriteString(w, body)
		return err
	})
	if err != nil {
		return "", err
	}
	lr.spilled = append(lr.spilled, f.Path)
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
