package prunesession

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/arena"
	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// Tool denial kinds, as Claude Code writes them in toolDenialKind.
const (
	// denialRule marks a call a hook or a settings rule denied: the structural
	// marker, stable where the denial's wording is not.
	denialRule = "permission-rule"
	// denialInterrupted and denialCancelled mark a call whose result was never
	// produced: the user interrupted it, or a sibling's failure cancelled it.
	denialInterrupted = "interrupted"
	denialCancelled   = "cancelled"
)

// options are the rules' settings, from the flags.
type options struct {
	keepRecent  int    // glance results kept verbatim
	keepDenials int    // denied calls kept
	trim        bool   // rule 4 on
	trimMin     int    // smallest body trimmed, in characters
	trimKeep    int    // large bodies kept verbatim
	spillDir    string // "" means <session cwd>/.flower/spill
	sync        bool   // fsync what is written
	// glances is the glance table with the configuration's extra entries:
	// the one delegate-guard lets through on the session's project.
	glances *ephemeral.Glances
}

// call is a tool_use seen in pass one.
type call struct {
	line         int
	uuid, parent string
	block        int // index in message.content
	blocks       int // blocks of the entry
	chars        int
	cmd          string // a glance's command as its expiry note quotes it, "" otherwise
	turn         int    // the turn it was made in
}

// result is a main-thread tool_result seen in pass one.
type result struct {
	line         int
	uuid, parent string
	block        int
	blocks       int
	results      int // tool_result blocks of the entry
	toolUseID    string
	denial       string
	chars        int
	textOnly     bool  // content is a string or text blocks only
	call         *call // its tool_use, nil when not in the file (set by decide)
	handled      bool  // a rule has dealt with it (set by decide)
}

// slab hands out pointers to values allocated a chunk at a time: a
// transcript of 200 MB has some 30,000 calls and as many results, and one
// allocation each was a tenth of the first pass (with the GC it fed).
type slab[T any] struct{ chunk []T }

// slabChunk is how many values one allocation of a slab holds.
const slabChunk = 1024

func (s *slab[T]) new() *T {
	if len(s.chunk) == cap(s.chunk) {
		s.chunk = make([]T, 0, slabChunk)
	}
	s.chunk = s.chunk[:len(s.chunk)+1]
	return &s.chunk[len(s.chunk)-1]
}

// toolRef is an entry that belongs to a call without being its tool_use or
// tool_result: hook progress and hook attachments (toolUseID,
// parentToolUseID). It goes when its call goes.
type toolRef struct {
	line         int
	uuid, parent string
	ids          [2]string
}

// plan is what pass one decided: the lines to drop, the edits per line, and
// what the report says.
type plan struct {
	lines   int
	size    int64             // bytes read: pass two copies these and no more
	cwd     string            // the session's cwd, from its first entry that has one
	dropped map[string]string // uuid of a dropped entry -> its parentUuid
	edits   map[int]*lineEdit
	// flags holds, per line (index line-1), which of relinkFields the entry
	// sets (bit i for relinkFields[i]) and whether the line is dropped or
	// edited: a byte a line, so that pass two looks for references only
	// where they are instead of searching every line for three keys, and
	// finds a line's fate without a map lookup.
	flags []uint8
	// sessionID is the first sessionId of the transcript. sid holds, per
	// line, where the line's sessionId value starts when it is that one,
	// written so that pass two can overwrite it where it stands, else -1.
	sessionID string
	sid       []int32
	// length holds each line's length, for pass two to check that the line
	// it reads is the one pass one checked.
	length   []int32
	turns    int
	spillDir string

	charsBefore int64
	charsGone   int64 // body characters of dropped blocks and entries

	expired, removed, apiErrors, interrupted, trimmed int
	deniedSeen, glancesSeen, largeSeen                int
}

// Bits of plan.flags beside the relinkFields ones.
const (
	refBits     = 1<<len(relinkFields) - 1
	lineDropped = 1 << len(relinkFields)
	lineEdited  = 1 << (len(relinkFields) + 1)
)

// lineEdit is what changes in one kept line.
type lineEdit struct {
	remove  []int         // message.content indexes dropped
	replace []replacement // tool_result bodies replaced
}

// replacement replaces the content of one tool_result block.
type replacement struct {
	block    int
	text     string // the new content; for a trim, built in pass two
	trim     string // the spill file's name hint, "" for a note
	oldChars int
	single   bool // the entry's only tool_result, so toolUseResult is its own
}

// buildPlan reads the transcript once, checking every line, and decides
// every change. It keeps a small index: the calls, the main-thread results,
// and the few entries it will drop; never the bodies.
func buildPlan(r io.Reader, o options) (*plan, error) {
	p := &plan{dropped: map[string]string{}, edits: map[int]*lineEdit{}}
	// Sized for the file at the outset: growing them line by line was a
	// tenth of the first pass (rehashing the calls, copying the slices).
	lines, callCount := expected(r)
	calls := make(map[string]*call, callCount)
	results := make([]*result, 0, callCount)
	p.flags, p.sid, p.length = make([]uint8, 0, lines), make([]int32, 0, lines), make([]int32, 0, lines)
	var refs []toolRef
	type apiErr struct {
		line         int
		uuid, parent string
		chars        int
	}
	var apiErrs []apiErr
	seenMsg, lastMsg := make(map[string]bool, callCount), ""
	glance := glances{}
	var callSlab slab[call]
	var resultSlab slab[result]
	// The strings the plan holds on to (ids, uuids) are copied into keep:
	// an entry's strings share chunks with those of the lines around it
	// (transcript.Parse), which a kept uuid would keep alive whole.
	var keep arena.Strings

	counted := &countingReader{r: r}
	// The entry's strings are views of its line (ScanViews): what the plan
	// keeps is copied, into keep or on its own.
	err := transcript.ScanViews(counted, func(n int, e *transcript.Entry, err error) error {
		if err != nil {
			return err
		}
		raw := e.Raw
		p.lines = n
		var set uint8
		for i, v := range [...]string{e.ParentUUID, e.LogicalParentUUID, e.LeafUUID} {
			if v != "" {
				set |= 1 << i
			}
		}
		p.flags = append(p.flags, set)
		if p.sessionID == "" && e.SessionID != "" {
			p.sessionID = strings.Clone(e.SessionID)
		}
		p.sid = append(p.sid, sessionIDAt(raw, e, p.sessionID))
		p.length = append(p.length, int32(len(raw))) // at most transcript.MaxLineBytes
		if p.cwd == "" && e.UUID != "" && e.Cwd != "" {
			p.cwd = strings.Clone(e.Cwd)
		}
		main := !e.IsSidechain
		if e.Message == nil || !main {
			if main && e.UUID != "" && (e.ToolUseID != "" || e.ParentToolUseID != "") {
				refs = append(refs, toolRef{n, keep.Copy(e.UUID), keep.Copy(e.ParentUUID), [2]string{keep.Copy(e.ToolUseID), keep.Copy(e.ParentToolUseID)}})
			}
			return nil
		}
		chars := e.Chars()
		if e.Type == "user" || e.Type == "assistant" {
			p.charsBefore += int64(chars)
		}
		if e.IsAPIError {
			apiErrs = append(apiErrs, apiErr{n, keep.Copy(e.UUID), keep.Copy(e.ParentUUID), chars})
			return nil
		}
		// The entries of one response come one after another: the map is
		// only asked when the id changes.
		if id := e.Message.ID; e.Type == "assistant" && id != "" && id != lastMsg {
			if lastMsg = keep.Copy(id); !seenMsg[lastMsg] {
				seenMsg[lastMsg] = true
				p.turns++
			}
		}
		blocks := len(e.Message.Blocks)
		// The blocks are walked here instead of through ToolUses and
		// ToolResults, which copy them into new slices for every line.
		trs := 0
		for i := range e.Message.Blocks {
			if e.Message.Blocks[i].Type == "tool_result" {
				trs++
			}
		}
		for i := range e.Message.Blocks {
			b := &e.Message.Blocks[i]
			switch b.Type {
			case "tool_use":
				c := callSlab.new()
				*c = call{line: n, uuid: keep.Copy(e.UUID), parent: keep.Copy(e.ParentUUID), block: b.Index, blocks: blocks, chars: b.Chars, turn: p.turns}
				if b.Name == "Bash" {
					if cmd := b.Input.Get("command"); cmd.Type == gjson.String {
						c.cmd = glance.quoted(o.glances, cmd.Str)
					}
				}
				calls[keep.Copy(b.ID)] = c
			case "tool_result":
				denial := ""
				if trs == 1 {
					denial = keep.Copy(e.ToolDenialKind)
				}
				r := resultSlab.new()
				*r = result{line: n, uuid: keep.Copy(e.UUID), parent: keep.Copy(e.ParentUUID), block: b.Index,
					blocks: blocks, results: trs, toolUseID: keep.Copy(b.ToolUseID), denial: denial, chars: b.Chars,
					textOnly: textOnly(*b)}
				results = append(results, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.lines == 0 {
		return nil, errors.New("the transcript is empty")
	}
	p.size = counted.n
	p.spillDir = o.spillDir
	if p.spillDir == "" && o.trim {
		if p.cwd == "" {
			return nil, errors.New("--trim: the transcript names no cwd to spill into; pass --spill-dir")
		}
		p.spillDir = spill.Dir(filepath.Join(p.cwd, hook.WorkbenchDirName))
	}
	p.decide(o, calls, results, refs)
	for _, a := range apiErrs {
		p.dropLine(a.line, a.uuid, a.parent)
		p.charsGone += int64(a.chars)
		p.apiErrors++
	}
	return p, nil
}

// decide applies the rules in order of precedence: a denied call goes
// whole, an interrupted result gets the interruption note, a glance result
// expires, and only what is left may be trimmed.
func (p *plan) decide(o options, calls map[string]*call, results []*result, refs []toolRef) {
	for _, r := range results {
		r.call = calls[r.toolUseID]
	}

	// Rule 2: denied calls, the most recent keepDenials kept.
	var denied []*result
	for _, r := range results {
		if r.denial == denialRule {
			denied = append(denied, r)
		}
	}
	p.deniedSeen = len(denied)
	gone := map[string]bool{}
	for _, r := range older(denied, o.keepDenials) {
		c := r.call
		if c == nil {
			// Its tool_use is not in this file: removing the result alone
			// would leave a half pair, so both stay.
			continue
		}
		p.removeBlock(c.line, c.uuid, c.parent, c.block, c.blocks)
		p.removeBlock(r.line, r.uuid, r.parent, r.block, r.blocks)
		p.charsGone += int64(c.chars + r.chars)
		gone[r.toolUseID] = true
		r.handled = true
		p.removed++
	}
	for _, rf := range refs {
		if gone[rf.ids[0]] || gone[rf.ids[1]] {
			p.dropLine(rf.line, rf.uuid, rf.parent)
		}
	}

	// Rule 3: results an interruption left behind.
	for _, r := range results {
		if !r.handled && (r.denial == denialInterrupted || r.denial == denialCancelled) {
			p.replace(r, interruptedNote)
			r.handled = true
			p.interrupted++
		}
	}

	// Rule 1: glance results but the most recent keepRecent expire.
	var glances []*result
	for _, r := range results {
		if r.call != nil && r.call.cmd != "" && !r.handled {
			glances = append(glances, r)
		}
	}
	p.glancesSeen = len(glances)
	for _, r := range older(glances, o.keepRecent) {
		p.replace(r, expiredNote(r.call.cmd, p.turns-r.call.turn))
		r.handled = true
		p.expired++
	}

	// Rule 4: large bodies but the most recent trimKeep go to the spill folder.
	if !o.trim {
		return
	}
	var large []*result
	for _, r := range results {
		if !r.handled && r.textOnly && r.chars >= o.trimMin {
			large = append(large, r)
		}
	}
	p.largeSeen = len(large)
	for _, r := range older(large, o.trimKeep) {
		e := p.edit(r.line)
		e.replace = append(e.replace, replacement{block: r.block, oldChars: r.chars, single: r.results == 1,
			trim: "prune-" + safeName(r.toolUseID)})
		p.trimmed++
	}
}

// uuidLen is the length of a session id as Claude Code writes it, and of the
// fork's id (checked by --session-id).
const uuidLen = 36

// sessionIDAt is where pass two can overwrite the line's session id in
// place: the offset of its opening quote when the value is id, a UUID-long
// string written without escapes, else -1.
func sessionIDAt(raw []byte, e *transcript.Entry, id string) int32 {
	at := e.SessionIDIndex
	if at <= 0 || at > math.MaxInt32 || e.SessionID != id || !sessionIDIsAt(raw, at, id) {
		return -1
	}
	return int32(at)
}

// sessionIDIsAt reports whether raw holds, from at, the UUID-long id
// quoted and without escapes.
func sessionIDIsAt(raw []byte, at int, id string) bool {
	return len(id) == uuidLen && at >= 0 && at+uuidLen+2 <= len(raw) &&
		raw[at] == '"' && raw[at+uuidLen+1] == '"' && string(raw[at+1:at+1+uuidLen]) == id
}

// Bytes a line and a call take in a long session, on average, give or take:
// the bench's transcript has 2.3 KB a line and 6 KB a call.
const (
	bytesPerLine = 2 << 10
	bytesPerCall = 4 << 10
	// maxExpected bounds what a size alone makes buildPlan reserve.
	maxExpected = 1 << 20
)

// expected guesses how many lines and calls r holds, from its size when
// it knows it (a file, a bytes.Reader), else 0.
func expected(r io.Reader) (lines, calls int) {
	var size int64
	switch r := r.(type) {
	case *os.File:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	case interface{ Len() int }:
		size = int64(r.Len())
	}
	return int(min(size/bytesPerLine, maxExpected)), int(min(size/bytesPerCall, maxExpected))
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// glances memoizes Glances.IsEphemeral: a session runs the same few
// commands (git status, ls) again and again, and parsing each as shell was
// measured at 7% of prune-session's CPU on the bench's 200 MB transcript,
// all of it on the goroutine that builds the plan while the others parse.
type glances map[string]string

// maxMemoCommand bounds the commands glances remembers, so that its memory
// stays small whatever the session: the commands that repeat are short,
// and a long one (a heredoc) is mostly run once.
const maxMemoCommand = 256

// quoted returns cmd as an expiry note quotes it (noteCommand) when cmd is
// a glance, else "".
func (g glances) quoted(t *ephemeral.Glances, cmd string) string {
	if len(cmd) > maxMemoCommand {
		return glanceNote(t, cmd)
	}
	q, ok := g[cmd]
	if !ok {
		q = glanceNote(t, cmd)
		g[strings.Clone(cmd)] = q
	}
	return q
}

func glanceNote(t *ephemeral.Glances, cmd string) string {
	if !t.IsEphemeral(cmd) {
		return ""
	}
	// A copy: cmd is a view of the line, whose buffer pass one reuses,
	// and noteCommand may return it as it is.
	return strings.Clone(noteCommand(cmd))
}

// older returns all of rs but the last keep.
func older(rs []*result, keep int) []*result {
	if keep >= len(rs) {
		return nil
	}
	return rs[:len(rs)-max(keep, 0)]
}

func (p *plan) edit(line int) *lineEdit {
	e := p.edits[line]
	if e == nil {
		e = &lineEdit{}
		p.edits[line] = e
		p.flags[line-1] |= lineEdited
	}
	return e
}

func (p *plan) replace(r *result, text string) {
	e := p.edit(r.line)
	e.replace = append(e.replace, replacement{block: r.block, text: text, oldChars: r.chars, single: r.results == 1})
}

// removeBlock drops one block of a line, and the line when no block is left.
func (p *plan) removeBlock(line int, uuid, parent string, block, blocks int) {
	e := p.edit(line)
	e.remove = append(e.remove, block)
	if len(e.remove) >= blocks {
		p.dropLine(line, uuid, parent)
	}
}

func (p *plan) dropLine(line int, uuid, parent string) {
	p.flags[line-1] |= lineDropped
	p.flags[line-1] &^= lineEdited
	delete(p.edits, line)
	if uuid != "" {
		p.dropped[uuid] = parent
	}
}

// resolve maps a uuid to itself, or, if its entry was dropped, to the
// nearest ancestor that stays ("" for none: the child becomes a root).
func (p *plan) resolve(uuid string) string {
	for range len(p.dropped) + 1 {
		parent, gone := p.dropped[uuid]
		if !gone {
			return uuid
		}
		uuid = parent
	}
	return "" // a cycle among dropped entries: the child becomes a root
}

func textOnly(b transcript.Block) bool {
	// The raw content is enough to tell a string, and reading the content
	// would unescape it.
	raw := b.ContentRaw()
	if strings.HasPrefix(raw, `"`) {
		return true
	}
	c := b.Content()
	if !c.IsArray() {
		return false
	}
	ok := true
	c.ForEach(func(_, v gjson.Result) bool {
		ok = v.Get("type").Str == "text"
		return ok
	})
	return ok
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// safeName makes a tool_use id usable as a file name.
func safeName(id string) string {
	if id == "" {
		return "unknown"
	}
	return unsafeName.ReplaceAllString(id, "_")
}

// Notes. They replace bodies the model reads on resume, so they are short
// and say what to do, in the manner of Claude Code's own notices.
const interruptedNote = "[The previous turn was interrupted here; this tool result was never produced.]"

// maxNoteCommand bounds the command quoted in an expiry note. The note only
// has to tell the model which call it replaces (the whole command is still
// in the tool_use beside it), and a glance is short: 60 characters hold
// "git status -s && git log --oneline -10" with room to spare.
const maxNoteCommand = 60

// expiredNote replaces the body of an expired glance result. Expiry is about
// staleness, not size: a stale `git status` misleads as if it were current,
// so even a result shorter than the note expires. The note is therefore as
// short as it can be while naming the command, how many turns ago it ran,
// that the state may have changed and that rerunning is the remedy (the
// design's "[`git status -s` result expired (7 turns ago); the current
// state may have changed. Rerun it if needed]"): one line, and ASCII apart
// from the command itself. quoted is the command as noteCommand gives it,
// worked out once per command (glances.quoted), not once per result.
func expiredNote(quoted string, turnsAgo int) string {
	when := strconv.Itoa(turnsAgo) + " turns ago"
	switch turnsAgo {
	case 0:
		when = "the latest turn"
	case 1:
		when = "1 turn ago"
	}
	return "[`" + quoted + "` from " + when + " expired; state may have changed, rerun if needed]"
}

// noteCommand is cmd as an expiry note quotes it: on one line, cut to
// maxNoteCommand characters.
func noteCommand(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if r := []rune(cmd); len(r) > maxNoteCommand {
		cmd = string(r[:maxNoteCommand]) + "..."
	}
	return cmd
}
