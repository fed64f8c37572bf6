package contextaudit

import (
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

// handsOnTools are the tools that change things: the ones layer one keeps
// off the main thread (delegate-guard's matcher, plus MultiEdit).
var handsOnTools = map[string]bool{"Bash": true, "Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// briefTools dispatch a subagent; their prompt is the brief. Agent is the
// tool's name in Claude Code 2.1; Task is its older name.
var briefTools = map[string]bool{"Agent": true, "Task": true}

// pointerMark is the start of a spill pointer, to skip the tool results
// that cannot hold one without unescaping them. It has no character JSON
// escapes, so it reads the same in the raw line.
const pointerMark = "[Spilled to a file"

// session accumulates one session's figures over its transcripts.
type session struct {
	r       *Report
	root    string // workbench root; "" until the first cwd is read
	scripts map[string]*scriptUse
	spilled map[string]bool
	// sessionOf is the first sessionId read: for a subagent's transcript
	// given alone, the session it belongs to.
	sessionOf string
	// inlineRuns counts the subagent runs inline in the main transcript
	// (CLI 1.0): isSidechain user entries without a parent.
	inlineRuns int
	// files are the transcripts added by addSubagent, for the totals,
	// which count each file once however many sessions name it.
	files []subFile
	// firstBad is the first bad line, for the warning.
	firstBad string
	// mainTurnsWithUsage counts the main-thread turns whose usage gave a
	// context size, for the growth per turn.
	mainTurnsWithUsage int64
	// glances is the session's glance table (Options.Glances).
	glances *ephemeral.Glances
	// more gathers the figures of figures.go and the what-if; total, when
	// set, is the running total of several sessions (totals.go).
	more  *figures
	total *totals
}

type scriptUse struct{ writes, runs int64 }

// subFile is a transcript addSubagent added: a subagent's, a compaction
// run's (with its tokens) or a warmup's.
type subFile struct {
	path                string
	run, warmup         bool
	tokensIn, tokensOut int64
}

// thread reads one thread of a transcript into the session: the main
// thread, or a subagent's (a transcript of its own, or the isSidechain
// entries of the main one).
type thread struct {
	s       *session
	t       *Thread
	main    bool
	lastMsg string            // message.id of the previous assistant entry
	pending map[string]effect // tool_use_id → what the call does to scripts
	// What a transcript that is no subagent's work is told apart by: the
	// tokens of a compaction run, the first prompt of a warmup.
	tokensIn, tokensOut int64
	prompted, warmup    bool
	// total is the totals' reader of the same thread, nil without totals.
	total *thread
}

// newThread is a thread adding into t, with its reader into the totals
// when there are totals: the main thread's adds into the totals' main
// thread, a subagent's into a Thread of its own that addSubagent adds
// where it belongs.
func (s *session) newThread(t *Thread, main bool) *thread {
	th := &thread{s: s, t: t, main: main, pending: map[string]effect{}}
	if s.total != nil {
		tt := &Thread{}
		if main {
			tt = &s.total.s.r.Main
		}
		th.total = &thread{s: s.total.s, t: tt, main: main, pending: map[string]effect{}}
	}
	return th
}

// warmupPrompt is the whole first prompt of the runs Claude Code (2.0 to
// 2.1.4 at least) starts on its own at the start of a session to fill the
// prompt cache, each in a subagent transcript: no subagent's work.
const warmupPrompt = "Warmup"

// effect is what one tool call does to workbench scripts, counted once its
// result shows it ran (a denied or interrupted call did nothing).
type effect struct{ writes, runs []string }

// Audit reads the session whose main transcript is at path, with its
// subagent transcripts, and returns its report. workbenchRoot is the
// workbench the scripts live in; "" takes <first cwd of the session>/.flower,
// the root the hooks use by default ($CLAUDE_PROJECT_DIR/.flower: the cwd
// the session started in). Bad lines are counted, not fatal; the error is
// for a main transcript with nothing readable. Warnings are about
// transcripts that were read in part or not at all.
//
// A subagent's transcript given as path is reported as one: its figures in
// Subagents (or, for a compaction run or a warmup, where those go), and
// SubagentOf naming its session.
func Audit(path, workbenchRoot string) (r *Report, warnings []string, err error) {
	return audit(path, Options{Workbench: workbenchRoot, Window: DefaultWindow}, nil)
}

// audit is Audit with every option, adding the session to tot unless nil.
func audit(path string, o Options, tot *totals) (r *Report, warnings []string, err error) {
	s := newSession(path, o.Workbench)
	s.more, s.total, s.glances = newFigures(s, o), tot, o.Glances
	main := s.newThread(&s.r.Main, true)
	var side Thread
	sub := s.newThread(&side, false)
	good, err := s.readFile(path, main, sub)
	if err != nil {
		return nil, nil, err
	}
	if good == 0 {
		if s.r.BadLines == 0 {
			return nil, nil, fmt.Errorf("%s: no entries", path)
		}
		return nil, nil, fmt.Errorf("%s: nothing readable: %d bad lines (first: %s)", path, s.r.BadLines, s.firstBad)
	}
	if s.r.Main.Entries == 0 && side.Entries > 0 {
		// Subagent entries alone: a subagent's transcript (CLI 2.0 and
		// 2.1 name it agent-<id>.jsonl), not a session.
		of := s.sessionOf
		s.r.SubagentOf = &of
		s.inlineRuns = 0 // its root is the run's start, not one inline
		s.addSubagent(path, sub)
	} else {
		// Inline subagent work (CLI 1.0): each run starts at a root.
		s.r.Subagents.add(side)
		s.r.SubagentTranscripts += s.inlineRuns
		if sub.total != nil {
			sub.total.s.r.Subagents.add(*sub.total.t)
		}
		subs, err := transcript.Subagents(path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: subagents: %v", path, err))
		}
		for _, p := range subs {
			var t Thread
			th := s.newThread(&t, false)
			if _, err := s.readFile(p, th, th); err != nil {
				warnings = append(warnings, err.Error())
				continue
			}
			s.addSubagent(p, th)
		}
	}
	if from := transcript.ForkedFrom(path); from != "" {
		s.r.ForkedFrom = &from
	}
	if s.r.BadLines > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %d bad lines skipped (first: %s)", path, s.r.BadLines, s.firstBad))
	}
	s.finish()
	s.more.finish()
	tot.add(s)
	return s.r, warnings, nil
}

func newSession(path, workbenchRoot string) *session {
	s := &session{
		r:       &Report{Session: transcript.SessionID(path), Path: path},
		scripts: map[string]*scriptUse{},
		spilled: map[string]bool{},
	}
	s.r.Compactions.AfterTurns = []int64{}
	if workbenchRoot != "" {
		s.root = filepath.Clean(workbenchRoot)
	}
	return s
}

// addSubagent adds the subagent transcript at path, read into th: a
// compaction's summarising run to the compactions, a cache warmup to the
// warmups, a subagent's work to Subagents (and to the totals' subagents,
// which count the runs and warmups from each session: totals.add).
func (s *session) addSubagent(path string, th *thread) {
	r := s.r
	run := transcript.IsCompactionRun(path)
	s.files = append(s.files, subFile{path, run, th.warmup && !run, th.tokensIn, th.tokensOut})
	switch {
	case run:
		r.Compactions.Runs++
		r.Compactions.RunInputTokens += th.tokensIn
		r.Compactions.RunOutputTokens += th.tokensOut
	case th.warmup:
		r.Warmups++
	default:
		r.Subagents.add(*th.t)
		r.SubagentTranscripts++
		if tt := th.total; tt != nil {
			tt.s.r.Subagents.add(*tt.t)
		}
	}
}

// add adds the figures of o.
func (t *Thread) add(o Thread) {
	t.Entries += o.Entries
	t.Turns += o.Turns
	t.Chars += o.Chars
	t.ToolCalls += o.ToolCalls
	t.HandsOn += o.HandsOn
}

// readFile streams one transcript and returns how many lines parsed: the
// main thread's entries go to main, isSidechain entries to side.
func (s *session) readFile(path string, main, side *thread) (int64, error) {
	f, err := transcript.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var good int64
	err = transcript.Scan(f, func(_ int, e *transcript.Entry, err error) error {
		if err != nil {
			s.bad(path, err) // a *transcript.LineError: counted, not fatal
			return nil
		}
		good++
		if s.sessionOf == "" && e.SessionID != "" {
			s.sessionOf = strings.Clone(e.SessionID)
		}
		th := main
		if e.IsSidechain {
			if main != side && e.Type == "user" && e.IsConversation() && e.ParentUUID == "" {
				s.inlineRuns++
			}
			th = side
		}
		th.entry(e)
		s.more.entry(th, e)
		if tt := th.total; tt != nil && s.total.fresh(e) {
			tt.s.root, tt.s.glances = s.root, s.glances
			tt.entry(e)
			tt.s.more.entry(tt, e)
		}
		return nil
	})
	if err != nil {
		return good, fmt.Errorf("%s: %v", path, err)
	}
	return good, nil
}

func (s *session) bad(path string, err error) {
	s.r.BadLines++
	if s.firstBad == "" {
		s.firstBad = fmt.Sprintf("%s: %v", filepath.Base(path), err)
	}
}

// entry adds one parsed line.
func (th *thread) entry(e *transcript.Entry) {
	s := th.s
	if s.root == "" && e.Cwd != "" {
		s.root = filepath.Join(e.Cwd, hook.WorkbenchDirName)
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
		th.prompted = true
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
	switch e.Type {
	case "assistant":
		th.assistant(e)
	case "user":
		th.user(e)
	}
}

func (th *thread) assistant(e *transcript.Entry) {
	m := e.Message
	// Claude Code writes the entries of one response one after another, so a
	// new message.id starts a turn; memory stays constant however long the
	// transcript. A synthetic API-error entry is no response of the model.
	if !e.IsAPIError && (m.ID == "" || m.ID != th.lastMsg) {
		th.lastMsg = strings.Clone(m.ID) // a view of the line
		th.t.Turns++
		th.usage(m.Usage)
	}
	for _, b := range e.ToolUses() {
		th.toolUse(b, e.Cwd)
	}
}

// usage adds a turn's usage, once per turn: every entry of a response
// repeats it.
func (th *thread) usage(u transcript.Usage) {
	r := th.s.r
	r.Cache.Read += u.CacheReadInputTokens
	r.Cache.Creation += u.CacheCreationInputTokens
	r.Cache.Input += u.InputTokens
	size := u.ContextTokens()
	th.tokensIn += size
	th.tokensOut += u.OutputTokens
	if !th.main || size == 0 {
		return
	}
	if th.s.mainTurnsWithUsage == 0 {
		r.Context.First = size
	}
	r.Context.Last = size
	th.s.mainTurnsWithUsage++
}

func (th *thread) toolUse(b transcript.Block, cwd string) {
	r := th.s.r
	th.t.ToolCalls++
	if handsOnTools[b.Name] {
		th.t.HandsOn++
	}
	var eff effect
	switch b.Name {
	case "Bash":
		cmd := b.Input.Get("command").Str
		if th.main && th.s.glances.IsEphemeral(cmd) {
			r.GlancesMain++
		}
		eff = th.s.bashScripts(cmd, cwd)
	case "Write", "Edit", "MultiEdit":
		eff.writes = th.s.scriptNames(cwd, b.Input.Get("file_path").Str)
	case "NotebookEdit":
		eff.writes = th.s.scriptNames(cwd, b.Input.Get("notebook_path").Str)
	}
	if th.main && briefTools[b.Name] {
		r.Briefs.Count++
		r.Briefs.Chars += int64(utf8.RuneCountInString(b.Input.Get("prompt").Str))
	}
	if len(eff.writes)+len(eff.runs) > 0 {
		th.pending[strings.Clone(b.ID)] = eff // a view of its line, which it would keep
	}
}

func (th *thread) user(e *transcript.Entry) {
	r := th.s.r
	if e.ToolDenialKind == "permission-rule" {
		if e.DenialSource == "hook" {
			r.Denials.Hook++
		} else {
			r.Denials.Rule++
		}
	}
	for _, b := range e.ToolResults() {
		if eff, ok := th.pending[b.ToolUseID]; ok {
			delete(th.pending, b.ToolUseID)
			if e.ToolDenialKind == "" {
				th.s.commit(eff)
			}
		}
		if strings.Contains(b.ContentRaw(), pointerMark) {
			th.s.spills(contentText(b.Content()))
		}
	}
}

// spills counts the spill pointers of a tool result that name a file in a
// spill folder, each file once.
func (s *session) spills(text string) {
	for _, f := range spill.ParsePointers(text) {
		if filepath.Base(filepath.Dir(f.Path)) != workbench.SpillDir || s.spilled[f.Path] {
			continue
		}
		s.spilled[strings.Clone(f.Path)] = true // f.Path may point into the reader's buffer
		s.r.Spills.Count++
		s.r.Spills.CharsMoved += f.Chars
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

func (s *session) commit(eff effect) {
	use := func(name string) *scriptUse {
		u := s.scripts[name]
		if u == nil {
			u = &scriptUse{}
			s.scripts[name] = u
		}
		return u
	}
	for _, name := range eff.writes {
		use(name).writes++
	}
	for _, name := range eff.runs {
		use(name).runs++
	}
}

// finish derives the figures that need the whole session.
func (s *session) finish() {
	r := s.r
	for _, u := range s.scripts {
		r.Scripts.Writes += u.writes
		r.Scripts.Runs += u.runs
		if u.writes > 0 {
			r.Scripts.Written++
			if u.runs == 0 {
				r.Scripts.WrittenNotRun++
			}
		}
		if u.runs > 1 {
			r.Scripts.RunMoreThanOnce++
		}
	}
	r.SubagentShare.Turns = share(r.Subagents.Turns, r.Main.Turns+r.Subagents.Turns)
	r.SubagentShare.Chars = share(r.Subagents.Chars, r.Main.Chars+r.Subagents.Chars)
	r.HandsOnRatio = ratio(r.Subagents.HandsOn, r.Main.HandsOn)
	if n := s.mainTurnsWithUsage; n > 1 {
		r.Context.GrowthPerTurn = ratio(r.Context.Last-r.Context.First, n-1)
	}
	r.Cache.HitRate = share(r.Cache.Read, r.Cache.Read+r.Cache.Creation+r.Cache.Input)
}
