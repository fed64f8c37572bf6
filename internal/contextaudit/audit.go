package contextaudit

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// Options are what the flags set for an audit.
type Options struct {
	Workbench string // the workbench root; "" for <the session's first cwd>/.flower
	Window    int64  // the model's context window, in tokens
	WhatIf    *WhatIfOptions
	// Glances is the glance table delegate-guard used in the session's
	// project: the built-in one (nil) with the extras of its configuration.
	Glances *ephemeral.Glances
}

// handsOnTools are the tools that change things: the ones layer one keeps
// off the main thread (delegate-guard's matcher, plus MultiEdit).
var handsOnTools = map[string]bool{"Bash": true, "Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// writers are the tools that write a file: the inputs of its path and of
// the text written.
var writers = map[string][2]string{"Write": {"file_path", "content"}, "Edit": {"file_path", "new_string"},
	"MultiEdit": {"file_path", "edits.#.new_string"}, "NotebookEdit": {"notebook_path", "new_source"}}

// briefTools dispatch a subagent; their prompt is the brief. Agent is the
// tool's name in Claude Code 2.1; Task is its older name.
var briefTools = map[string]bool{"Agent": true, "Task": true}

// pointerMark starts a spill pointer; with no character JSON escapes, it
// is found in the raw line, so results without one are not unescaped.
const pointerMark = "[Spilled to a file"

// warmupPrompt is the whole first prompt of the runs Claude Code (2.0 to
// 2.1.4 at least) starts to fill the prompt cache: no subagent's work.
const warmupPrompt = "Warmup"

// session is one report in the making, a method for each kind of entry
// and block.
type session struct {
	r          *Report
	o          Options
	root       string          // workbench root; "" until the first cwd is read
	calls      map[string]call // the tool calls whose result is still to come, by id
	main, side *thread         // the threads of the transcript being read
	// mainTurnsWithUsage counts the main-thread turns whose usage gave a
	// context size, for the growth per turn.
	mainTurnsWithUsage int64
	restate            *restater
	whatIf             *whatIf
}

// call is a tool call until its result shows whether it ran: a call
// denied or interrupted did nothing to the scripts.
type call struct {
	chars        int64
	writes, runs []string // the workbench scripts it writes and runs
	// texts are the scripts whose text it writes, and names the file names
	// that text names.
	texts, names []string
}

// thread is one thread of a transcript: the main thread, or a subagent's
// (a transcript of its own, or the isSidechain entries of the main one).
type thread struct {
	t       *Thread
	main    bool
	lastMsg string // message.id of the previous assistant entry
	// entries counts its user and assistant entries, counted or not.
	entries int64
	// What a transcript that is no subagent's work is told apart by: the
	// tokens of a compaction run, the first prompt of a warmup.
	tokensIn, tokensOut int64
	prompted, warmup    bool
	// first is the context of its first request and prompt the characters
	// of its first prompt: what a subagent starts with (--what-if).
	first, prompt int64
}

func newSession(path string, o Options) *session {
	s := &session{r: newReport(path), o: o, calls: map[string]call{}}
	if o.Workbench != "" {
		s.root = filepath.Clean(o.Workbench)
	}
	return s
}

// open starts a transcript: the main one, or a subagent's (sub).
func (s *session) open(sub bool) {
	s.side = &thread{t: &Thread{}}
	s.main = s.side
	if !sub {
		s.main = &thread{t: &s.r.Main, main: true}
	}
}

// Audit reads the session whose main transcript is at path, with its
// subagent transcripts, and returns its report. workbenchRoot is the
// workbench the scripts live in; "" takes <first cwd of the session>/.flower,
// the root the hooks use by default. Bad lines are counted, not fatal; the
// error is for a main transcript with nothing readable. Warnings are about
// transcripts that were read in part or not at all.
func Audit(path, workbenchRoot string) (r *Report, warnings []string, err error) {
	r, _, warnings, err = audit(path, Options{Workbench: workbenchRoot, Window: DefaultWindow}, nil)
	return r, warnings, err
}

// reader reads a session's transcripts once into its report and, for the
// totals t, into part: the report of the entries t has not counted yet.
type reader struct {
	full, part *session
	t          *totals
	mine       map[string]bool // the keys of the entries read, for t
	// sessionOf is the first sessionId read: for a subagent's transcript
	// given alone, the session it belongs to.
	sessionOf, firstBad string
}

// audit is Audit with every option, and the totals t (nil for none) the
// session's part of them is made for.
func audit(path string, o Options, t *totals) (r, part *Report, warnings []string, err error) {
	a := &reader{full: newSession(path, o), t: t}
	if o.WhatIf != nil {
		a.full.whatIf = newWhatIf(a.full, *o.WhatIf)
	}
	all := []*session{a.full}
	if t != nil {
		a.part, a.mine = newSession(path, o), map[string]bool{}
		all = append(all, a.part)
	}
	r = a.full.r
	good, err := a.read(path, false)
	switch {
	case err != nil:
		return nil, nil, nil, err
	case good == 0 && r.BadLines == 0:
		return nil, nil, nil, fmt.Errorf("%s: no entries", path)
	case good == 0:
		return nil, nil, nil, fmt.Errorf("%s: nothing readable: %d bad lines (first: %s)", path, r.BadLines, a.firstBad)
	}
	inline := a.full.side // the main transcript's subagent thread (CLI 1.0)
	if a.full.main.entries == 0 && inline.entries > 0 {
		// Subagent entries alone: a subagent's transcript (CLI 2.0 and
		// 2.1 name it agent-<id>.jsonl), not a session.
		r.inlineRuns = 0 // its root is the run's start, not one inline
		for _, s := range all {
			s.r.SubagentOf = &a.sessionOf
			s.addSubagent(path, s.side)
		}
	} else {
		for _, s := range all {
			addCounts(&s.r.Subagents, s.side.t)
		}
		subs, err := transcript.Subagents(path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: subagents: %v", path, err))
		}
		for _, p := range subs {
			if _, err := a.read(p, true); err != nil {
				warnings = append(warnings, err.Error())
				continue
			}
			for _, s := range all {
				s.addSubagent(p, s.side)
			}
		}
	}
	if from := transcript.ForkedFrom(path); from != "" {
		r.ForkedFrom = &from
	}
	if r.BadLines > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %d bad lines skipped (first: %s)", path, r.BadLines, a.firstBad))
	}
	for _, s := range all {
		s.r.finish(o.Window, s.mainTurnsWithUsage)
	}
	if a.full.whatIf != nil {
		r.WhatIf = a.full.whatIf.finish(inline)
	}
	if t == nil {
		return r, nil, warnings, nil
	}
	for key := range a.mine {
		t.seen[key] = true
	}
	return r, a.part.r, warnings, nil
}

// addSubagent adds the subagent transcript at path, read into th: a
// subagent's work to Subagents; a compaction's summarising run and a cache
// warmup are counted from the files (finish).
func (s *session) addSubagent(path string, th *thread) {
	run := transcript.IsCompactionRun(path)
	s.r.files = append(s.r.files, subFile{path, run, th.warmup && !run, th.tokensIn, th.tokensOut, th.first, th.prompt})
	if !run && !th.warmup {
		addCounts(&s.r.Subagents, th.t)
	}
}

// read streams one transcript, the main one or a subagent's (sub), and
// returns how many lines parsed: the main thread's entries go to main,
// isSidechain entries to side.
func (a *reader) read(path string, sub bool) (int64, error) {
	f, err := transcript.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	a.full.open(sub)
	if a.part != nil {
		a.part.open(sub)
	}
	r := a.full.r
	var good int64
	err = transcript.Scan(f, func(_ int, e *transcript.Entry, err error) error {
		if err != nil {
			r.BadLines++ // a *transcript.LineError: counted, not fatal
			if a.firstBad == "" {
				a.firstBad = fmt.Sprintf("%s: %v", filepath.Base(path), err)
			}
			return nil
		}
		good++
		if a.sessionOf == "" && e.SessionID != "" {
			a.sessionOf = strings.Clone(e.SessionID)
		}
		if e.IsSidechain && !sub && e.Type == "user" && e.IsConversation() && e.ParentUUID == "" {
			r.inlineRuns++
		}
		th := a.full.thread(e)
		if e.Message != nil && (e.Type == "user" || e.Type == "assistant") {
			th.entries++
		}
		a.full.entry(th, e)
		if a.part != nil && a.t.fresh(entryKey(e), a.mine) {
			a.part.entry(a.part.thread(e), e)
		}
		return nil
	})
	if err != nil {
		return good, fmt.Errorf("%s: %v", path, err)
	}
	return good, nil
}

// thread is the thread of s that e belongs to.
func (s *session) thread(e *transcript.Entry) *thread {
	if e.IsSidechain {
		return s.side
	}
	return s.main
}

// entryKey is what tells an entry from a copy of it: its uuid, or the one
// Claude Code's own forks name in forkedFrom.messageUuid (prune-session's
// keep the uuids). "" for bookkeeping lines.
func entryKey(e *transcript.Entry) string {
	if bytes.Contains(e.Raw, []byte(`"forkedFrom"`)) {
		if m := gjson.GetBytes(e.Raw, "forkedFrom.messageUuid").Str; m != "" {
			return m
		}
	}
	return e.UUID
}

// entry adds one parsed line.
func (s *session) entry(th *thread, e *transcript.Entry) {
	if s.root == "" && e.Cwd != "" {
		s.root = filepath.Join(e.Cwd, hook.WorkbenchDirName)
	}
	if th.main && s.whatIf != nil {
		s.whatIf.entry(e)
	}
	if th.main && e.IsCompactBoundary() {
		c := &s.r.Compactions
		c.Count++
		c.AfterTurns = append(c.AfterTurns, th.t.Turns)
		c.PreTokens += transcript.CompactionOf(e).PreTokens
		return
	}
	if e.Message == nil || (e.Type != "user" && e.Type != "assistant") {
		// Other lines (attachments, api-request-blob copies of what was
		// sent, bookkeeping) are not conversation entries.
		return
	}
	if e.Type == "user" && !th.main && !th.prompted {
		th.prompted, th.prompt = true, int64(e.Chars())
		th.warmup = e.Message.StringContent && gjson.GetBytes(e.Raw, "message.content").Str == warmupPrompt
	}
	if th.main && th.t.Entries == 0 && s.r.ForkedFrom == nil {
		// Claude Code's own forks carry their origin on every copied
		// entry, so the first says it.
		if from := transcript.NativeForkedFrom(e); from != "" {
			s.r.ForkedFrom = &from
		}
	}
	th.t.Entries++
	th.t.Chars += int64(e.Chars())
	if e.Type == "assistant" {
		s.assistant(th, e)
	} else {
		s.user(th, e)
	}
}

func (s *session) assistant(th *thread, e *transcript.Entry) {
	m := e.Message
	// Claude Code writes the entries of one response one after another, so
	// a new message.id starts a turn. A synthetic API-error entry is no
	// response of the model.
	if !e.IsAPIError && (m.ID == "" || m.ID != th.lastMsg) {
		th.lastMsg = strings.Clone(m.ID)
		th.t.Turns++
		s.usage(th, m.Usage)
	}
	for _, b := range e.ToolUses() {
		s.toolUse(th, b, e.Cwd)
	}
}

// usage adds a turn's usage, once per turn: every entry of a response
// repeats it.
func (s *session) usage(th *thread, u transcript.Usage) {
	r := s.r
	r.Cache.Read += u.CacheReadInputTokens
	r.Cache.Creation += u.CacheCreationInputTokens
	r.Cache.Input += u.InputTokens
	size := u.ContextTokens()
	if th.tokensIn == 0 {
		th.first = size
	}
	th.tokensIn += size
	th.tokensOut += u.OutputTokens
	if !th.main || size == 0 {
		return
	}
	if s.mainTurnsWithUsage == 0 {
		r.Context.First = size
	}
	r.Context.Last = size
	s.mainTurnsWithUsage++
}

func (s *session) toolUse(th *thread, b transcript.Block, cwd string) {
	r := s.r
	th.t.ToolCalls++
	if handsOnTools[b.Name] {
		th.t.HandsOn++
	}
	c := call{chars: int64(b.Chars)}
	in := b.Input
	var text string
	if b.Name == "Bash" {
		cmd := in.Get("command").Str
		if th.main && s.o.Glances.IsEphemeral(cmd) {
			r.GlancesMain++
		}
		c, text = s.bashScripts(c, cmd, cwd)
	} else if w, ok := writers[b.Name]; ok {
		c.writes = s.scriptNames(cwd, in.Get(w[0]).Str)
		c.texts = c.writes
		for _, t := range in.Get(w[1]).Array() {
			text += t.Str + "\n"
		}
	}
	if len(c.texts) > 0 {
		c.names = namesIn(text)
	}
	if th.main && briefTools[b.Name] {
		prompt := in.Get("prompt").Str
		r.Briefs.Count++
		r.Briefs.Chars += int64(utf8.RuneCountInString(prompt))
		if s.restate == nil {
			s.restate = newRestater(s.root)
		}
		if n := s.restate.restates(prompt); n > 0 {
			r.Briefs.Restating++
			r.Briefs.RestatingChars += n
		}
	}
	s.calls[strings.Clone(b.ID)] = c // a view of its line, which the map would keep
}

func (s *session) user(th *thread, e *transcript.Entry) {
	r := s.r
	denied := e.ToolDenialKind == "permission-rule"
	if denied && e.DenialSource == "hook" {
		r.Denials.Hook++
	} else if denied {
		r.Denials.Rule++
	}
	for _, b := range e.ToolResults() {
		if c, ok := s.calls[b.ToolUseID]; ok {
			delete(s.calls, b.ToolUseID)
			if denied {
				// A denial costs the dead call and the denial together.
				r.Denials.Chars += c.chars + int64(b.Chars)
				if th.main {
					r.Denials.MainChars += c.chars + int64(b.Chars)
				}
			}
			if e.ToolDenialKind == "" {
				r.ran(c)
			}
		}
		if strings.Contains(b.ContentRaw(), pointerMark) {
			s.spills(contentText(b.Content()))
		}
	}
}

// spills notes the spill pointers of a tool result that name a file in a
// spill folder, each file once.
func (s *session) spills(text string) {
	for _, f := range spill.ParsePointers(text) {
		if filepath.Base(filepath.Dir(f.Path)) != workbench.SpillDir {
			continue
		}
		if _, ok := s.r.spilled[f.Path]; !ok {
			s.r.spilled[strings.Clone(f.Path)] = f.Chars // f.Path may point into the reader's buffer
		}
	}
}

// contentText is a tool_result's content as text: the string, or its text
// blocks one after another.
func contentText(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var b strings.Builder
	v.ForEach(func(_, blk gjson.Result) bool {
		if blk.Get("type").Str == "text" {
			b.WriteString(blk.Get("text").Str)
			b.WriteByte('\n')
		}
		return true
	})
	return b.String()
}
