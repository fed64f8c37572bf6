package contextaudit

import (
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/flowersettings"
	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/internal/spillguard"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// --what-if estimates, from a session recorded without flower (or with
// some of its layers), what the main thread would have held with every
// layer, by the rules the hooks apply:
//
//   - layer one: a run of consecutive main-thread turns that call a tool
//     delegate-guard denies (its default tools; a Bash glance passes) goes,
//     with the results of its calls, and in its place come one denied call
//     (the run's first hands-on call and delegate-guard's reason, as the
//     model receives it) and one delegation (an Agent call and its
//     hand-back). A prompt of the user or a compaction ends a run. Calls a
//     hook or rule denied in the session did nothing and start no run.
//   - layer two: index-guard's block for an empty workbench (what it would
//     have listed is unknown) at the start of the session and after each
//     compaction, unless the session shows the block already.
//   - layer three: every result of a tool spill-guard is wired for whose
//     fields spill-guard would spill (spillguard.Estimate) shows the
//     pointers and heads instead.
//   - layer four: a resume through prune-session, with its default rules,
//     of the session so estimated (prunesession's notes).
//
// Context sizes are tokens from the transcript's usage, less the characters
// the layers keep out divided by the characters a token holds.

// WhatIfOptions are the assumptions of --what-if.
type WhatIfOptions struct {
	Window        int64   // tokens
	CharsPerToken float64 // characters a token holds, to turn characters into tokens
	// Delegation is what one delegation costs the main thread, in
	// characters; 0 for the mean of the session's own delegations, or
	// without any, DefaultDelegation.
	Delegation int64
}

// The defaults of WhatIfOptions.
const (
	// DefaultCharsPerToken is the usual rough figure for English and code;
	// the tokenizer's own count is not at hand.
	DefaultCharsPerToken = 4.0
	// DefaultBriefChars is the design's shortest measured brief (521
	// characters, context-economics "Layer one").
	DefaultBriefChars = 521
	// DefaultReportChars is a report of a path and a conclusion or two,
	// what the workbench's rules ask a subagent to reply with: an
	// assumption, the design gives no figure.
	DefaultReportChars = 200
	// DefaultDelegation is a delegation of such a brief and report.
	DefaultDelegation = DelegationFrame + DefaultBriefChars + DefaultReportChars
)

// A delegation costs the main thread its Agent call and the hand-back:
// the brief and the report, and what Claude Code 2.1.328 puts around them,
// measured by tests/e2e TestWhatIfDelegationCost:
//   - the call's input but the prompt and the description,
//     {"description":"","prompt":"","run_in_background":false,
//     "subagent_type":"general-purpose"}: 90 characters;
//   - the hand-back notice before the report, the agentId and usage lines
//     after it, and the two spaces that indent its line: 670 (±2, the
//     digits of the subagent's tokens and duration);
//   - the description the model writes: Agent's schema asks for 3 to 5
//     words, DescriptionChars.
const (
	DescriptionChars = 25
	DelegationFrame  = 90 + 670 + DescriptionChars
)

// denialPrefix is how Claude Code 2.1.328 shows a hook's deny to the model,
// before the reason (tests/e2e TestLayer1DenialAsReceived).
func denialPrefix(tool string) string { return "PreToolUse:" + tool + " hook error: " }

// SessionStartPrefix is how Claude Code 2.1.328 shows a SessionStart hook's
// additionalContext to the model (tests/e2e TestWhatIfDelegationCost).
const SessionStartPrefix = "SessionStart hook additional context: "

// blockMark is a line of index-guard's block for the main thread, by
// which a session that had it is told from one that had not: the line
// after the one naming the workbench.
var blockMark = func() string {
	block, _, err := workbench.Block("/w", false, &workbench.Index{}, workbench.Coordinator)
	if err != nil {
		panic(err)
	}
	return strings.Split(block, "\n")[1]
}()

// spillMatcher is the tools spill-guard is wired for, from the catalog the
// installer wires.
var spillMatcher = func() *regexp.Regexp {
	for _, e := range flowersettings.Catalog {
		if e.Binary == "spill-guard" && e.Event == "PostToolUse" {
			return regexp.MustCompile(e.Matcher)
		}
	}
	panic("no spill-guard entry in flowersettings.Catalog")
}()

// guarded is what delegate-guard denies by default.
var guarded = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Split(delegateguard.DefaultTools, ",") {
		m[t] = true
	}
	return m
}()

// WhatIf is the estimate; its JSON form is what_if.
type WhatIf struct {
	Assumed struct {
		Window           int64   `json:"window"`
		CompactThreshold int64   `json:"compact_threshold"`
		CharsPerToken    float64 `json:"chars_per_token"`
		// Delegation is what one delegation is priced at, and From
		// where that comes from: "session" (its own Agent calls, their
		// mean) or "assumed" (the frame and the brief and report sizes).
		Delegation int64  `json:"delegation"`
		From       string `json:"from"`
	} `json:"assumed"`
	LayerOne struct {
		Runs        int64 `json:"runs"`  // hands-on runs delegated
		Turns       int64 `json:"turns"` // the turns they took
		Chars       int64 `json:"chars"` // what they held
		DenialChars int64 `json:"denial_chars"`
		// DelegationChars is what the runs' delegations cost.
		DelegationChars int64 `json:"delegation_chars"`
	} `json:"layer_one"`
	LayerTwo struct {
		// Shown is true when the session had index-guard's block
		// already: then there is none to add.
		Shown  bool  `json:"shown"`
		Blocks int64 `json:"blocks"` // the block added: at the start and after each compaction
		Chars  int64 `json:"chars"`
	} `json:"layer_two"`
	LayerThree struct {
		Results int64 `json:"results"` // results spilled
		Chars   int64 `json:"chars"`   // their characters as the model saw them
		After   int64 `json:"after"`   // and with the pointers and heads
	} `json:"layer_three"`
	LayerFour struct {
		Expired  int64 `json:"expired"`  // glance results
		Removed  int64 `json:"removed"`  // denied calls
		Dropped  int64 `json:"dropped"`  // API-error entries
		Replaced int64 `json:"replaced"` // interrupted results
		Chars    int64 `json:"chars"`    // what the resume carries less
	} `json:"layer_four"`
	Observed  WhatIfSide `json:"observed"`
	Estimated WhatIfSide `json:"estimated"`
}

// WhatIfSide is the main thread one way: as recorded, or as estimated.
type WhatIfSide struct {
	Chars int64 `json:"chars"` // characters of the main thread's entries
	Turns int64 `json:"turns"`
	// ContextLast is the context at the last turn, in tokens, and
	// GrowthPerTurn its growth from the first turn on; null without usage.
	ContextLast   *int64   `json:"context_last"`
	GrowthPerTurn *float64 `json:"growth_per_turn"`
	// CompactTurn is the turn at which the context reached (Reached) or
	// at its growth per turn would reach the compaction threshold; null
	// when it does not grow.
	CompactTurn *int64 `json:"compact_turn"`
	Reached     bool   `json:"reached"`
}

// wiTurn is one turn of the main thread as the what-if needs it.
type wiTurn struct {
	context   int64 // tokens at its request; 0 when unknown
	chars     int64 // its entries and the results of its calls
	handsOn   int   // calls delegate-guard would deny
	denied    int   // of those, denied in the session by a hook or rule
	tool      string
	callChars int64 // the first hands-on call's characters
	// spillChars and spillAfter are its results that spill-guard would
	// spill, as the model saw them and with pointers and heads.
	spillChars, spillAfter, spills int64
	glances                        []wiGlance
	prompted, compacted            bool // a prompt, a compaction came before it
}

type wiGlance struct {
	cmd   string
	chars int64 // as the model saw it, after layer three
}

// wiCall is a call of the main thread until its result is read.
type wiCall struct {
	turn    int
	name    string
	chars   int64
	handsOn bool
	glance  string // the command, when a glance
	passes  bool   // a Bash command delegate-guard lets through: a glance or a configured hands-on one
}

// wiDenial is a call denied in the session, for layer four.
type wiDenial struct {
	turn  int
	chars int64
}

// whatIf reads the main transcript for the estimate.
type whatIf struct {
	s       *session
	o       WhatIfOptions
	turns   []wiTurn
	lastMsg string
	calls   map[string]wiCall
	// prompted and compacted wait for the next turn.
	prompted, compacted bool
	cwd                 string
	hasBlock            bool // index-guard's block is in the session
	// ownCalls and own are the session's own delegations: the Agent calls
	// whose result is still to come, and the count and cost of those done.
	ownCalls           map[string]int64
	own, ownChars      int64
	denials            []wiDenial
	apiErrors          int64
	apiErrorChars      int64
	interrupted        int64
	interruptedSavings int64
}

func newWhatIf(s *session, o WhatIfOptions) *whatIf {
	return &whatIf{s: s, o: o, calls: map[string]wiCall{}, ownCalls: map[string]int64{}}
}

// entry reads one line of the main thread.
func (w *whatIf) entry(e *transcript.Entry) {
	if w.cwd == "" && e.Cwd != "" {
		w.cwd = strings.Clone(e.Cwd)
	}
	if e.Type == "system" && e.LogicalParentUUID != "" {
		w.compacted = true // a compact_boundary
		return
	}
	if e.Type == "attachment" && !w.hasBlock && bytes.Contains(e.Raw, []byte(`"hook_additional_context"`)) &&
		bytes.Contains(e.Raw, []byte(blockMark)) {
		w.hasBlock = true // layer two is on already
		return
	}
	if e.Message == nil || (e.Type != "user" && e.Type != "assistant") {
		return
	}
	if e.IsAPIError {
		w.apiErrors++
		w.apiErrorChars += int64(e.Chars())
		return
	}
	if e.Type == "assistant" {
		w.assistant(e)
		return
	}
	w.user(e)
}

func (w *whatIf) assistant(e *transcript.Entry) {
	m := e.Message
	if m.ID == "" || m.ID != w.lastMsg || len(w.turns) == 0 {
		w.lastMsg = strings.Clone(m.ID)
		w.turns = append(w.turns, wiTurn{context: m.Usage.ContextTokens(), prompted: w.prompted, compacted: w.compacted})
		w.prompted, w.compacted = false, false
	}
	i := len(w.turns) - 1
	t := &w.turns[i]
	t.chars += int64(e.Chars())
	for _, b := range e.ToolUses() {
		c := wiCall{turn: i, name: strings.Clone(b.Name), chars: int64(b.Chars)}
		if b.Name == "Bash" {
			cmd := b.Input.Get("command").Str
			v := w.s.o.Glances.Classify(cmd)
			if v.Glance {
				c.glance = strings.Clone(cmd)
			}
			// A hands-on command the configuration lets the main
			// thread run passes delegate-guard as a glance does.
			c.passes = v.MainThread
		}
		if guarded[b.Name] && !c.passes {
			c.handsOn = true
			if t.handsOn == 0 {
				t.tool, t.callChars = c.name, c.chars
			}
			t.handsOn++
		}
		if briefTools[b.Name] {
			w.ownCalls[strings.Clone(b.ID)] = int64(b.Chars)
		}
		w.calls[strings.Clone(b.ID)] = c
	}
}

func (w *whatIf) user(e *transcript.Entry) {
	results := e.ToolResults()
	if len(results) == 0 {
		if !e.IsMeta {
			w.prompted = true
		}
		return
	}
	for _, b := range results {
		c, ok := w.calls[b.ToolUseID]
		delete(w.calls, b.ToolUseID)
		if !ok {
			continue // its call is not in this transcript: it stays as it is
		}
		t := &w.turns[c.turn]
		chars := int64(b.Chars)
		t.chars += chars
		if call, ok := w.ownCalls[b.ToolUseID]; ok {
			delete(w.ownCalls, b.ToolUseID)
			if e.ToolDenialKind == "" && !b.IsError {
				w.own++
				w.ownChars += call + chars
			}
		}
		switch {
		case prunesession.Removed(e.ToolDenialKind):
			w.denials = append(w.denials, wiDenial{turn: c.turn, chars: c.chars + chars})
			if c.handsOn {
				t.denied++
			}
			continue
		case prunesession.Interrupted(e.ToolDenialKind):
			w.interrupted++
			w.interruptedSavings += chars - int64(utf8.RuneCountInString(prunesession.InterruptedNote))
			continue
		}
		after := chars
		if !b.IsError && spillMatcher.MatchString(c.name) {
			after = w.spill(e, b, c, len(results) == 1)
		}
		if after < chars {
			t.spillChars += chars
			t.spillAfter += after
			t.spills++
		}
		if c.glance != "" {
			t.glances = append(t.glances, wiGlance{cmd: c.glance, chars: after})
		}
	}
}

// spill is what the model would have seen of result b with layer three.
// The fields spill-guard would spill are read from the entry's
// toolUseResult when the entry holds this result alone, else the result's
// text stands for its one field.
func (w *whatIf) spill(e *transcript.Entry, b transcript.Block, c wiCall, alone bool) int64 {
	seen := int64(b.Chars)
	root := w.root()
	resp := ""
	if alone && e.ToolUseResult.Exists() {
		resp = e.ToolUseResult.Raw
	}
	if resp == "" {
		text := contentText(b.Content())
		est, err := spillguard.Estimate("", b.ToolUseID, jsonString(text), root, spillguard.DefaultThreshold, spillguard.DefaultHead)
		if err != nil || len(est) == 0 {
			return seen
		}
		return int64(utf8.RuneCountInString(est[0].Text))
	}
	est, err := spillguard.Estimate(c.name, b.ToolUseID, resp, root, spillguard.DefaultThreshold, spillguard.DefaultHead)
	if err != nil || len(est) == 0 {
		return seen
	}
	var held, after int64
	for _, f := range est {
		held += f.Chars
		after += int64(utf8.RuneCountInString(f.Text))
	}
	if seen < held {
		// Claude Code showed less than the fields hold (a cut Bash
		// output's preview): the pointers and heads replace all of it.
		return min(seen, after)
	}
	// The model saw the fields rendered (Read numbers the lines): the
	// replacement is rendered alike.
	return max(seen-int64(math.Round(float64(held-after)*float64(seen)/float64(held))), after)
}

// root is the workbench root the hooks would have used.
func (w *whatIf) root() string {
	if w.s.root != "" {
		return w.s.root
	}
	return filepath.Join(w.cwd, hook.WorkbenchDirName)
}
