package prunesession

import (
	"cmp"
	"errors"
	"hash/crc32"
	"io"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// options are the rules' settings, from the flags and the configuration.
type options struct {
	keepRecent, keepDenials int
	trim                    bool
	trimMin, trimKeep       int
	spillDir                string // "" for spill/ of the workbench
	workbench               string // the session's workbench; "" when unknown
	sync                    bool
	glances                 *ephemeral.Glances // delegate-guard's, in the session's project
}

// plan is pass one: it reads the transcript once, checking every line, and
// decides every change for pass two (rewrite.go) and the report. It keeps a
// call until its result is read and a result only when a rule may act on
// it, so its memory stays well below the transcript's (int32: a session can
// hold hundreds of thousands of glance results).
type plan struct {
	o       options
	lines   int
	size    int64  // bytes read: pass two reads as many
	sum     uint32 // and checks they are the same
	newline bool   // the transcript ends in one: the fork does too
	// far are the lines that set logicalParentUuid or leafUuid: looking for
	// them in every line made a 17 MB transcript take 80 ms more.
	far []int32
	// main and side count conversation entries: subagent ones alone are
	// no session.
	main, side  int
	compactions int
	turnsBefore int                   // turns before the last compaction
	cut         int32                 // the last compaction's line, 0 for none
	keeps       transcript.Compaction // what it kept from before it
	spillDir    string
	resolved    map[string]string // resolve's answers
	segment
}

// segment is what the plan holds after the last compaction, the only part
// a resume loads: what comes before is copied as it is.
type segment struct {
	open          map[string]*call  // calls whose result is still to come, by id
	denied        map[string]*call  // denied calls not removed yet, by id
	gone          map[string]bool   // the ids of the calls removed
	queue         []denial          // denials not removed yet, oldest first
	results       []result          // the results a rule may act on
	apiErrs       []piece           // API-error entries, dropped at the end
	edits         []edit            // the changes, sorted by line once decided
	dropped       map[string]string // uuid of a dropped entry -> its parentUuid
	removedBlocks map[int32]int32   // per line, the blocks removed so far

	// turns counts responses: a new message id starts one.
	turns   int
	lastMsg string
	// charsBefore counts the body characters a resume sends (user and
	// assistant entries but API errors); charsGone those removed.
	charsBefore, charsGone int64

	removed, deniedSeen, apiErrors  int
	expired, glancesSeen            int
	interrupted, trimmed, largeSeen int
}

func newSegment() segment {
	return segment{open: map[string]*call{}, denied: map[string]*call{}, gone: map[string]bool{},
		dropped: map[string]string{}, removedBlocks: map[int32]int32{}}
}

// piece is an entry, or a block of one, that a rule may remove (blocks 0:
// an entry tied to a call).
type piece struct {
	line, block, blocks, chars int32
	uuid, parent               string
}

// call is a tool_use whose result is still to come, or was a denial not
// removed yet.
type call struct {
	piece
	turn int32  // the turn it was made in
	note string // a glance's command as its expiry note quotes it, else ""
	refs []piece
	// ambiguous: its id does not tie it to one result, so removing it could
	// leave a half pair.
	ambiguous bool
}

// result is a tool_result a rule may act on: denied, interrupted, a
// glance's, or with --trim a large one.
type result struct {
	line, block, chars, turn int32
	note                     string // its call's note
	id                       string // of a large one: its spill file's name
	denied, interrupted      bool   // toolDenialKind, of an entry's only result
	single                   bool   // the entry's only tool_result: toolUseResult is its own
	textOnly                 bool   // content is a string or text blocks only
	handled                  bool   // a rule has acted on it
}

// denial waits until keepDenials newer ones are read.
type denial struct {
	id     string
	call   *call // nil when its tool_use was not read before the result
	result piece
	index  int // in results
}

// edit is one change of a line.
type edit struct {
	line, block int32
	oldChars    int32
	turnsAgo    int32  // noteExpired
	text        string // noteExpired: the command; trimBody: the spill file's name
	kind        editKind
	single      bool // the entry's only tool_result: toolUseResult changes too
}

type editKind uint8

const (
	dropLine editKind = iota
	removeBlock
	noteInterrupted
	noteExpired
	trimBody
)

// errSubagent refuses a subagent's transcript given as the session: it is
// no conversation a resume could continue.
var errSubagent = errors.New("a subagent's transcript, not a session's: prune the session it belongs to")

// checksum is CRC-32C, which the CPU computes.
var checksum = crc32.MakeTable(crc32.Castagnoli)

// tally counts and checksums the bytes a pass reads, and keeps the last.
type tally struct {
	n    int64
	sum  uint32
	last byte
}

func (t *tally) Write(b []byte) (int, error) {
	if len(b) > 0 {
		t.n += int64(len(b))
		t.sum = crc32.Update(t.sum, checksum, b)
		t.last = b[len(b)-1]
	}
	return len(b), nil
}

// readPlan reads the transcript r and decides what the fork changes.
func readPlan(r io.Reader, o options) (*plan, error) {
	p := &plan{o: o, segment: newSegment(), spillDir: o.spillDir}
	var read tally
	if err := transcript.Scan(io.TeeReader(r, &read), p.entry); err != nil {
		return nil, err
	}
	switch {
	case p.lines == 0:
		return nil, errors.New("the transcript is empty")
	case p.main == 0 && p.side > 0:
		return nil, errSubagent
	}
	p.size, p.sum, p.newline = read.n, read.sum, read.last == '\n'
	if p.spillDir == "" && o.trim {
		if o.workbench == "" {
			return nil, errors.New("--trim: the transcript's place does not confirm the folder the session ran in, so its workbench is unknown; pass --spill-dir")
		}
		p.spillDir = spill.Dir(o.workbench)
	}
	p.decide()
	return p, nil
}

func (p *plan) entry(n int, e *transcript.Entry, err error) error {
	if err != nil {
		return err
	}
	line := int32(n)
	p.lines = n
	if e.LogicalParentUUID != "" || e.LeafUUID != "" {
		p.far = append(p.far, line)
	}
	if e.IsSidechain {
		if e.IsConversation() {
			p.side++
		}
		return nil
	}
	if e.IsConversation() {
		p.main++
	}
	switch {
	case e.IsCompactBoundary():
		p.compaction(line, e)
	case e.Message == nil:
		p.toolRef(line, e)
	case e.IsAPIError && len(e.ToolUses())+len(e.ToolResults()) == 0:
		p.apiError(line, e)
	default:
		p.message(line, e)
	}
	return nil
}

// compaction starts the plan again: a resume loads only what follows it,
// and what it kept from before.
func (p *plan) compaction(line int32, e *transcript.Entry) {
	p.turnsBefore += p.turns
	p.segment = newSegment()
	p.cut, p.keeps = line, transcript.CompactionOf(e)
	p.compactions++
}

// toolRef reads an entry without a message: one tied to a call (by
// toolUseID or parentToolUseID) goes when its call goes.
func (p *plan) toolRef(line int32, e *transcript.Entry) {
	if e.UUID == "" {
		return
	}
	ids := []string{e.ToolUseID}
	if e.ParentToolUseID != e.ToolUseID {
		ids = append(ids, e.ParentToolUseID)
	}
	for _, id := range ids {
		c := cmp.Or(p.open[id], p.denied[id])
		if id == "" || c == nil && !p.gone[id] {
			continue
		}
		ref := piece{line: line, uuid: strings.Clone(e.UUID), parent: strings.Clone(e.ParentUUID)}
		if p.gone[id] {
			p.remove(ref)
		} else {
			c.refs = append(c.refs, ref)
		}
	}
}

// apiError reads an API-error entry of text alone: a resume does not send
// it (2.1.328), so it is dropped. One holding a call or a result stays, or
// its pair would break.
func (p *plan) apiError(line int32, e *transcript.Entry) {
	p.apiErrs = append(p.apiErrs, piece{line: line, uuid: strings.Clone(e.UUID), parent: strings.Clone(e.ParentUUID)})
}

func (p *plan) message(line int32, e *transcript.Entry) {
	if e.Type == "user" || e.Type == "assistant" {
		p.charsBefore += int64(e.Chars())
	}
	if id := e.Message.ID; e.Type == "assistant" && id != "" && id != p.lastMsg {
		p.lastMsg = strings.Clone(id)
		p.turns++
	}
	single := len(e.ToolResults()) == 1
	for _, b := range e.Message.Blocks {
		switch b.Type {
		case "tool_use":
			p.toolUse(line, e, b)
		case "tool_result":
			p.toolResult(line, e, b, single)
		}
	}
}

func pieceOf(line int32, e *transcript.Entry, b transcript.Block) piece {
	return piece{line: line, block: int32(b.Index), blocks: int32(len(e.Message.Blocks)), chars: int32(b.Chars),
		uuid: strings.Clone(e.UUID), parent: strings.Clone(e.ParentUUID)}
}

func (p *plan) toolUse(line int32, e *transcript.Entry, b transcript.Block) {
	if b.ID == "" {
		return // no result can name it
	}
	c := &call{piece: pieceOf(line, e, b), turn: int32(p.turns)}
	if b.Name == "Bash" {
		if cmd := b.Input.Get("command"); cmd.Type == gjson.String && p.o.glances.IsEphemeral(cmd.Str) {
			c.note = strings.Clone(noteCommand(cmd.Str)) // noteCommand may return cmd, a view of the line
		}
	}
	if prev := p.open[b.ID]; prev != nil {
		prev.ambiguous, c.ambiguous = true, true
	}
	p.open[strings.Clone(b.ID)] = c
}

func (p *plan) toolResult(line int32, e *transcript.Entry, b transcript.Block, single bool) {
	id := b.ToolUseID
	if p.gone[id] {
		p.remove(pieceOf(line, e, b)) // a second result of a call removed: it goes too
		return
	}
	if c := p.denied[id]; c != nil {
		c.ambiguous = true // a second result of a denied call
	}
	c := p.open[id]
	delete(p.open, id)
	r := result{line: line, block: int32(b.Index), chars: int32(b.Chars), single: single, textOnly: textOnly(b)}
	if single {
		r.denied, r.interrupted = Removed(e.ToolDenialKind), Interrupted(e.ToolDenialKind)
	}
	if c != nil {
		r.note, r.turn = c.note, c.turn
	}
	if p.large(&r) {
		r.id = strings.Clone(safeName(id)) // safeName may return id, a view of the line
	}
	if !r.denied && !r.interrupted && r.note == "" && r.id == "" {
		return
	}
	p.results = append(p.results, r)
	if r.denied {
		p.deny(denial{id: strings.Clone(id), call: c, result: pieceOf(line, e, b), index: len(p.results) - 1})
	}
}

// deny applies rule 2 as the transcript is read: the oldest denied call
// goes, with its result, as soon as keepDenials newer ones are read.
func (p *plan) deny(d denial) {
	p.deniedSeen++
	if d.call != nil {
		p.denied[d.id] = d.call
	}
	if p.queue = append(p.queue, d); len(p.queue) <= p.o.keepDenials {
		return
	}
	d = p.queue[0]
	p.queue = p.queue[1:]
	if d.call == nil || d.call.ambiguous {
		return // its tool_use is not in this file, or not its alone: both stay
	}
	delete(p.denied, d.id)
	p.remove(d.call.piece)
	p.remove(d.result)
	for _, ref := range d.call.refs {
		p.remove(ref)
	}
	p.gone[d.id] = true
	p.results[d.index].handled = true
	p.removed++
}

// decide applies the rules that replace a result's body, in order of
// precedence: interrupted, expired glance, then trimmed. Then the API-error
// entries go.
func (p *plan) decide() {
	p.interrupted, _ = p.replace(0, noteInterrupted, func(r *result) bool { return r.interrupted })
	p.expired, p.glancesSeen = p.replace(p.o.keepRecent, noteExpired, func(r *result) bool { return r.note != "" })
	if p.o.trim {
		p.trimmed, p.largeSeen = p.replace(p.o.trimKeep, trimBody, p.large)
	}
	for _, a := range p.apiErrs {
		p.remove(a)
		p.apiErrors++
	}
	slices.SortStableFunc(p.edits, func(a, b edit) int { return cmp.Compare(a.line, b.line) })
	p.open, p.denied, p.gone, p.queue, p.results, p.apiErrs, p.removedBlocks = nil, nil, nil, nil, nil, nil, nil
}

// large reports whether r is a result --trim moves.
func (p *plan) large(r *result) bool {
	return p.o.trim && r.textOnly && int(r.chars) >= p.o.trimMin
}

// replace gives the body kind says to every result takes takes that no rule
// has handled, but the most recent keep; it returns replaced of took.
func (p *plan) replace(keep int, kind editKind, takes func(*result) bool) (replaced, took int) {
	var rs []*result
	for i := range p.results {
		if r := &p.results[i]; !r.handled && takes(r) {
			rs = append(rs, r)
		}
	}
	replaced = max(len(rs)-keep, 0)
	for _, r := range rs[:replaced] {
		r.handled = true
		e := edit{line: r.line, block: r.block, kind: kind, oldChars: r.chars, single: r.single}
		switch kind {
		case noteExpired:
			e.text, e.turnsAgo = r.note, int32(p.turns)-r.turn
		case trimBody:
			e.text = r.id
		}
		p.edits = append(p.edits, e)
	}
	return replaced, len(rs)
}

// remove drops a block of a line, and the line when no block is left.
func (p *plan) remove(pc piece) {
	p.charsGone += int64(pc.chars)
	n := p.removedBlocks[pc.line] + 1
	if n < pc.blocks {
		p.removedBlocks[pc.line] = n
		p.edits = append(p.edits, edit{line: pc.line, block: pc.block, kind: removeBlock})
		return
	}
	delete(p.removedBlocks, pc.line)
	p.edits = append(p.edits, edit{line: pc.line, kind: dropLine})
	if pc.uuid != "" {
		p.dropped[pc.uuid] = pc.parent
	}
}

func (p *plan) changes() bool { return len(p.edits) > 0 }

// resolve maps a uuid to itself or, if its entry was dropped, to the
// nearest ancestor that stays ("" for none, or a cycle). Answers are kept,
// so a chain is walked once.
func (p *plan) resolve(uuid string) string {
	if p.resolved == nil {
		p.resolved = map[string]string{}
	}
	var path []string
	for {
		parent, gone := p.dropped[uuid]
		if !gone {
			break
		}
		if to, ok := p.resolved[uuid]; ok {
			uuid = to // an answer, or "" when the walk comes back here: a cycle
			break
		}
		p.resolved[uuid] = ""
		path = append(path, uuid)
		uuid = parent
	}
	for _, u := range path {
		p.resolved[u] = uuid
	}
	return uuid
}

// textOnly reports whether a tool_result's content is what --trim can move
// to a file: a string or text blocks only.
func textOnly(b transcript.Block) bool {
	if strings.HasPrefix(b.ContentRaw(), `"`) {
		return true
	}
	c := b.Content()
	ok := c.IsArray()
	c.ForEach(func(_, v gjson.Result) bool {
		ok = ok && v.Get("type").Str == "text"
		return ok
	})
	return ok
}

// safeName makes a tool_use id usable as a file name.
func safeName(id string) string {
	if id == "" {
		return "unknown"
	}
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, id)
}
