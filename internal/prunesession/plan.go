package prunesession

import (
	"errors"
	"hash/crc32"
	"hash/maphash"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/ephemeral"
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
	spillDir    string // "" means spill/ of workbench
	workbench   string // the session's workbench; "" when unknown
	sync        bool   // fsync what is written
	// glances is the glance table with the configuration's extra entries:
	// the one delegate-guard lets through on the session's project.
	glances *ephemeral.Glances
}

// The plan keeps little per line, so that its memory stays well below the
// transcript's whatever the transcript's shape: a call is kept only until
// its result is read (unless it is denied), and a result only when a rule
// may act on it. Line numbers and counts are int32: 2^31 lines would make
// a transcript of tens of gigabytes, and transcript.MaxLineBytes bounds a
// block's characters.

// call is a main-thread tool_use whose result has not been read yet, or
// whose result was denied.
type call struct {
	line, block, blocks, chars, turn int32
	note                             int32  // a glance's: its expiry note's command (plan.notes), else noNote
	uuid, parent                     string // its entry's, to remove it
	refs                             []toolRef
	// ambiguous is set when its id does not tie it to one result: another
	// call open under the same id, or a second result. Removing it could
	// leave a half pair, so it stays.
	ambiguous bool
}

// same is s, as the string c already holds when it is the uuid of c or of
// one of its entries (the parent of the next one, most often), else as a
// copy: a removed call's entries name each other.
func (c *call) same(s string) string {
	if s == c.uuid {
		return c.uuid
	}
	for _, rf := range c.refs {
		if s == rf.uuid {
			return rf.uuid
		}
	}
	return strings.Clone(s)
}

// noNote is the note of a call that is no glance.
const noNote = -1

// toolRef is an entry that belongs to a call without being its tool_use or
// tool_result: hook progress and hook attachments (toolUseID,
// parentToolUseID). It goes when its call goes.
type toolRef struct {
	line         int32
	uuid, parent string
}

// result is a main-thread tool_result that a rule may act on: a denied or
// interrupted one, the result of a glance, or with --trim a large one. A
// session can hold hundreds of thousands of glance results, so a result
// is 32 bytes, and what only a few need is in more.
type result struct {
	line, block, chars int32
	turn               int32 // a glance's: the turn its call was made in
	note               int32 // a glance's: its call's note, else noNote
	denial             denial
	single             bool // the entry's only tool_result, so toolUseResult is its own
	textOnly           bool // content is a string or text blocks only
	handled            bool // a rule has dealt with it (set by decide)
	// more is set on denied and large results only: what removing or
	// trimming them needs.
	more *more
}

type more struct {
	id           string // tool_use_id
	uuid, parent string
	blocks       int32
	call         *call // denied results: their call, nil when it was not read before them
}

// denial is what a result's toolDenialKind says the rules need.
type denial uint8

const (
	notDenied    denial = iota
	deniedByRule        // denialRule
	neverRan            // denialInterrupted or denialCancelled
)

// plan is what pass one decided: the lines to drop, the edits of the lines
// kept, and what the report says.
type plan struct {
	lines int
	// size and sum are the bytes pass one read and their checksum: pass two
	// reads as many and checks that they are the same.
	size    int64
	sum     uint32
	cwd     string            // the session's cwd, from its first entry that has one
	dropped map[string]string // uuid of a dropped entry -> its parentUuid
	// glances is the glance table that decides what expires (options.glances).
	glances *ephemeral.Glances
	// resolved caches resolve's answers, for pass two.
	resolved map[string]string
	// notes are the commands glance notes quote, each once (a session runs
	// the same few again and again), and noteOf their indexes.
	notes  []string
	noteOf map[string]int32
	hints  []string // the tool_use ids of trimBody edits, as spill file names take them (spillHint)
	gone   []int32  // the lines dropped, sorted once decided
	// farRefs are the lines that set logicalParentUuid or leafUuid, in
	// order: the few that pass two looks in for them (parentUuid, on nearly
	// every line, is its first member and found at once).
	farRefs []int32
	edits   []edit // the changes of kept lines, sorted by line once decided
	// turns counts the responses after the last compaction, the ones the
	// rules act on.
	turns int
	// removedBlocks counts, per line, the blocks removed so far.
	removedBlocks map[int32]int32
	spillDir      string
	// newline says whether the transcript ends in one: the fork ends as the
	// original does.
	newline bool

	// cut is the line of the last compaction (0 for none): a resume loads
	// what follows it, and the rules act on that alone (see compact.go).
	cut         int32
	compactions int
	turnsBefore int                   // responses before the cut
	keeps       transcript.Compaction // what the last compaction kept from before it
	// main and side count the conversation entries of the main thread and
	// of subagents: a transcript of subagent entries alone is not a session.
	main, side int

	// charsBefore counts the body characters a resume sends of the part
	// after the cut: user and assistant entries but API errors.
	charsBefore int64
	charsGone   int64 // body characters of blocks and entries removed

	expired, removed, apiErrors, interrupted, trimmed int
	deniedSeen, glancesSeen, largeSeen                int
}

// edit is one change of a kept line: a block removed, or a tool_result's
// body replaced. Every expired glance result is one, so it is 24 bytes.
type edit struct {
	line, block int32
	oldChars    int32
	turnsAgo    int32 // noteExpired: how many turns ago the call was made
	text        int32 // noteExpired: its note's command (plan.notes); trimBody: the spill file's name hint (plan.hints)
	kind        editKind
	single      bool // the entry's only tool_result: toolUseResult changes too
}

type editKind uint8

const (
	removeBlock editKind = iota
	noteInterrupted
	noteExpired
	trimBody
)

// checksum is the table of plan.sum: CRC-32C, which the CPU computes.
var checksum = crc32.MakeTable(crc32.Castagnoli)

// digest counts and checksums the bytes a pass reads, and keeps the last.
type digest struct {
	n    int64
	sum  uint32
	last byte
}

func (d *digest) Write(b []byte) (int, error) {
	d.n += int64(len(b))
	d.sum = crc32.Update(d.sum, checksum, b)
	if len(b) > 0 {
		d.last = b[len(b)-1]
	}
	return len(b), nil
}

// buildPlan reads the transcript once, checking every line, and decides
// every change.
func buildPlan(r io.Reader, o options) (*plan, error) {
	p := &plan{noteOf: map[string]int32{}, glances: o.glances}
	var (
		open    map[string]*call // calls whose result is still to come, by id
		denied  map[string]*call // calls denied and not removed yet, by id
		goneIDs map[string]bool  // the ids of the calls removed
		queue   []int            // indexes in results of the denials not removed yet, oldest first
		results []result
		apiErrs []toolRef
		// Turns are distinct message ids. A hash of each stands for it:
		// a set of the ids themselves was a tenth of the plan's memory on
		// a transcript of small lines. The seed is random, so that no
		// transcript can be written to make two ids collide.
		seed    = maphash.MakeSeed()
		seen    map[uint64]struct{}
		lastMsg string
	)
	// start (re)starts the plan: at the top, and at each compaction, since
	// a resume loads only what follows the last one. What was decided
	// before it is dropped with what it kept: the part before the cut is
	// copied as it is.
	start := func() {
		open, denied, goneIDs, seen = map[string]*call{}, map[string]*call{}, map[string]bool{}, map[uint64]struct{}{}
		queue, results, apiErrs, lastMsg = nil, nil, nil, ""
		p.dropped, p.removedBlocks, p.gone, p.edits = map[string]string{}, map[int32]int32{}, nil, nil
		p.turnsBefore += p.turns
		p.turns, p.charsBefore, p.charsGone, p.removed, p.deniedSeen = 0, 0, 0, 0, 0
	}
	start()
	// Rule 2 is applied as the transcript is read: every denied call but
	// the most recent keepDenials goes, so the oldest of the queue goes as
	// soon as keepDenials newer ones are known, and what removing it needed
	// is freed. A transcript of denials would otherwise make the plan keep
	// a few hundred bytes for each.
	removeOldest := func() {
		r := &results[queue[0]]
		queue = queue[1:]
		c := r.more.call
		if c == nil || c.ambiguous {
			// Its tool_use is not in this file, or not its alone: removing
			// would leave a half pair, so both stay.
			return
		}
		delete(denied, r.more.id)
		p.removeBlock(c.line, c.uuid, c.parent, c.block, c.blocks)
		p.removeBlock(r.line, r.more.uuid, r.more.parent, r.block, r.more.blocks)
		p.charsGone += int64(c.chars + r.chars)
		for _, rf := range c.refs {
			p.dropLine(rf.line, rf.uuid, rf.parent)
		}
		goneIDs[r.more.id] = true
		r.handled, r.more = true, nil
		p.removed++
	}
	var read digest
	err := transcript.Scan(io.TeeReader(r, &read), func(n int, e *transcript.Entry, err error) error {
		if err != nil {
			return err
		}
		line := int32(n)
		p.lines = n
		if p.cwd == "" && e.UUID != "" && e.Cwd != "" {
			p.cwd = strings.Clone(e.Cwd)
		}
		if e.LogicalParentUUID != "" || e.LeafUUID != "" {
			p.farRefs = append(p.farRefs, line)
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
		if e.IsCompactBoundary() {
			start()
			p.cut, p.keeps = line, transcript.CompactionOf(e)
			p.compactions++
			return nil
		}
		if e.Message == nil {
			if e.UUID == "" {
				return nil
			}
			for _, id := range uniqueIDs(e.ToolUseID, e.ParentToolUseID) {
				c := open[id]
				if c == nil {
					c = denied[id]
				}
				switch {
				case goneIDs[id]:
					p.dropLine(line, strings.Clone(e.UUID), strings.Clone(e.ParentUUID))
				case c != nil:
					c.refs = append(c.refs, toolRef{line, strings.Clone(e.UUID), c.same(e.ParentUUID)})
				}
			}
			return nil
		}
		// Claude Code's API-error entries hold text alone, and a resume does
		// not send them (checked with 2.1.328): they count for nothing. One
		// that holds a call or a result is kept, or its pair would break.
		if e.IsAPIError && len(e.ToolUses())+len(e.ToolResults()) == 0 {
			apiErrs = append(apiErrs, toolRef{line, strings.Clone(e.UUID), strings.Clone(e.ParentUUID)})
			return nil
		}
		if e.Type == "user" || e.Type == "assistant" {
			p.charsBefore += int64(e.Chars())
		}
		// The entries of one response come one after another: the set is
		// only asked when the id changes.
		if id := e.Message.ID; e.Type == "assistant" && id != "" && id != lastMsg {
			lastMsg = strings.Clone(id)
			h := maphash.String(seed, id)
			if _, ok := seen[h]; !ok {
				seen[h] = struct{}{}
				p.turns++
			}
		}
		blocks := int32(len(e.Message.Blocks))
		trs := 0
		for _, b := range e.Message.Blocks {
			if b.Type == "tool_result" {
				trs++
			}
		}
		for _, b := range e.Message.Blocks {
			switch b.Type {
			case "tool_use":
				c := &call{line: line, block: int32(b.Index), blocks: blocks, chars: int32(b.Chars), turn: int32(p.turns),
					note: noNote, uuid: strings.Clone(e.UUID), parent: strings.Clone(e.ParentUUID)}
				if b.Name == "Bash" {
					if cmd := b.Input.Get("command"); cmd.Type == gjson.String {
						c.note = p.glanceNote(cmd.Str)
					}
				}
				if b.ID == "" {
					break // no result can name it
				}
				if prev := open[b.ID]; prev != nil {
					prev.ambiguous, c.ambiguous = true, true
				}
				open[strings.Clone(b.ID)] = c
			case "tool_result":
				if goneIDs[b.ToolUseID] {
					// A second result of a call removed: it goes too.
					p.removeBlock(line, strings.Clone(e.UUID), strings.Clone(e.ParentUUID), int32(b.Index), blocks)
					p.charsGone += int64(b.Chars)
					continue
				}
				if dc := denied[b.ToolUseID]; dc != nil {
					dc.ambiguous = true // a second result of a denied call
				}
				r := result{line: line, block: int32(b.Index), chars: int32(b.Chars), note: noNote, single: trs == 1, textOnly: textOnly(b)}
				if trs == 1 {
					r.denial = denialOf(e.ToolDenialKind)
				}
				c := open[b.ToolUseID]
				delete(open, b.ToolUseID)
				if c != nil && c.note != noNote {
					r.note, r.turn = c.note, c.turn
				}
				large := o.trim && r.textOnly && int(r.chars) >= o.trimMin
				if r.denial == deniedByRule || large {
					r.more = &more{id: strings.Clone(b.ToolUseID), blocks: blocks}
				}
				if r.denial == deniedByRule {
					r.more.uuid, r.more.call = strings.Clone(e.UUID), c
					if c != nil {
						r.more.parent = c.same(e.ParentUUID)
						denied[r.more.id] = c
					} else {
						r.more.parent = strings.Clone(e.ParentUUID)
					}
				}
				if r.denial != notDenied || r.note != noNote || large {
					results = append(results, r)
				}
				if r.denial == deniedByRule {
					p.deniedSeen++
					if queue = append(queue, len(results)-1); len(queue) > o.keepDenials {
						removeOldest()
					}
				}
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
	if p.main == 0 && p.side > 0 {
		return nil, errSubagent
	}
	p.size, p.sum, p.newline = read.n, read.sum, read.last == '\n'
	p.spillDir = o.spillDir
	if p.spillDir == "" && o.trim {
		if o.workbench == "" {
			return nil, errors.New("--trim: the transcript's place does not confirm the folder the session ran in, so its workbench is unknown; pass --spill-dir")
		}
		p.spillDir = spill.Dir(o.workbench)
	}
	p.decide(o, results)
	for _, a := range apiErrs {
		p.dropLine(a.line, a.uuid, a.parent)
		p.apiErrors++
	}
	slices.Sort(p.gone)
	p.gone = slices.Compact(p.gone)
	slices.SortStableFunc(p.edits, func(a, b edit) int { return int(a.line - b.line) })
	return p, nil
}

// errSubagent refuses a subagent's transcript given as the session: it is
// no conversation a resume could continue.
var errSubagent = errors.New("a subagent's transcript, not a session's: prune the session it belongs to")

// changes reports whether the plan changes anything.
func (p *plan) changes() bool { return len(p.gone) > 0 || len(p.edits) > 0 }

// uniqueIDs is the non-empty ids among a and b, each once.
func uniqueIDs(a, b string) []string {
	switch {
	case a == "" && b == "":
		return nil
	case a == "" || a == b:
		return []string{b}
	case b == "":
		return []string{a}
	}
	return []string{a, b}
}

// denialOf is what toolDenialKind kind means to the rules.
func denialOf(kind string) denial {
	switch kind {
	case denialRule:
		return deniedByRule
	case denialInterrupted, denialCancelled:
		return neverRan
	}
	return notDenied
}

// decide applies the rules in order of precedence: a denied call goes
// whole (rule 2, done as buildPlan reads), an interrupted result gets the
// interruption note, a glance result expires, and only what is left may be
// trimmed.
func (p *plan) decide(o options, results []result) {
	// Rule 3: results an interruption left behind.
	for i := range results {
		if r := &results[i]; !r.handled && r.denial == neverRan {
			p.replace(r, edit{kind: noteInterrupted})
			r.handled = true
			p.interrupted++
		}
	}

	// Rule 1: glance results but the most recent keepRecent expire.
	var glances []*result
	for i := range results {
		if r := &results[i]; r.note != noNote && !r.handled {
			glances = append(glances, r)
		}
	}
	p.glancesSeen = len(glances)
	for _, r := range older(glances, o.keepRecent) {
		p.replace(r, edit{kind: noteExpired, text: r.note, turnsAgo: int32(p.turns) - r.turn})
		r.handled = true
		p.expired++
	}

	// Rule 4: large bodies but the most recent trimKeep go to the spill folder.
	if !o.trim {
		return
	}
	var large []*result
	for i := range results {
		if r := &results[i]; !r.handled && r.textOnly && int(r.chars) >= o.trimMin {
			large = append(large, r)
		}
	}
	p.largeSeen = len(large)
	for _, r := range older(large, o.trimKeep) {
		p.hints = append(p.hints, safeName(r.more.id))
		p.replace(r, edit{kind: trimBody, text: int32(len(p.hints) - 1)})
		p.trimmed++
	}
}

// glanceNote is the index in p.notes of cmd as an expiry note quotes it
// (noteCommand) when cmd is a glance, else noNote.
func (p *plan) glanceNote(cmd string) int32 {
	if !p.glances.IsEphemeral(cmd) {
		return noNote
	}
	note := noteCommand(cmd)
	i, ok := p.noteOf[note]
	if !ok {
		// A copy: noteCommand may return cmd itself, a view of the line.
		note = strings.Clone(note)
		i = int32(len(p.notes))
		p.notes = append(p.notes, note)
		p.noteOf[note] = i
	}
	return i
}

// older returns all of rs but the last keep.
func older(rs []*result, keep int) []*result {
	if keep >= len(rs) {
		return nil
	}
	return rs[:len(rs)-max(keep, 0)]
}

// replace replaces r's body as e says.
func (p *plan) replace(r *result, e edit) {
	e.line, e.block, e.oldChars, e.single = r.line, r.block, r.chars, r.single
	p.edits = append(p.edits, e)
}

// removeBlock drops one block of a line, and the line when no block is left.
func (p *plan) removeBlock(line int32, uuid, parent string, block, blocks int32) {
	n := p.removedBlocks[line] + 1
	if n >= blocks {
		delete(p.removedBlocks, line)
		p.dropLine(line, uuid, parent)
		return
	}
	p.removedBlocks[line] = n
	p.edits = append(p.edits, edit{line: line, block: block, kind: removeBlock})
}

func (p *plan) dropLine(line int32, uuid, parent string) {
	p.gone = append(p.gone, line)
	if uuid != "" {
		p.dropped[uuid] = parent
	}
}

// resolve maps a uuid to itself, or, if its entry was dropped, to the
// nearest ancestor that stays ("" for none: the child becomes a root, as
// for a cycle among dropped entries). Answers are kept, so that a chain is
// walked once however many entries name it: walking it for each, a
// transcript whose dropped entries form long chains or cycles took time in
// the square of their number.
func (p *plan) resolve(uuid string) string {
	var path []string
	seen := map[string]bool{}
	for {
		parent, gone := p.dropped[uuid]
		if !gone {
			break
		}
		if to, ok := p.resolved[uuid]; ok {
			uuid = to
			break
		}
		if seen[uuid] {
			uuid = ""
			break
		}
		seen[uuid] = true
		path = append(path, uuid)
		uuid = parent
	}
	if p.resolved == nil {
		p.resolved = map[string]string{}
	}
	for _, u := range path {
		p.resolved[u] = uuid
	}
	return uuid
}

func textOnly(b transcript.Block) bool {
	// The raw content is enough to tell a string, and reading the content
	// would unescape it.
	if strings.HasPrefix(b.ContentRaw(), `"`) {
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
// from the command itself. quoted is the command as noteCommand gives it.
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
