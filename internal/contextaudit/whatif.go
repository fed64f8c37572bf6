package contextaudit

import (
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/flowersettings"
	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/internal/spillguard"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// --what-if estimates what a session recorded without flower (or with some
// of its layers) would have held with every layer (docs/REFERENCE.md, "What
// if"). This file reads the main thread turn by turn; whatif_estimate.go
// makes the estimate.

// WhatIfOptions are the assumptions of --what-if.
type WhatIfOptions struct {
	Window        int64   // the model's context window in tokens; 0 reads it from the session
	CharsPerToken float64 // characters a token holds
	// Delegation is what one delegation costs the main thread, in
	// characters; 0 for the mean of the session's own general-purpose ones.
	Delegation int64
}

// The defaults of WhatIfOptions.
const (
	DefaultCharsPerToken = 4.0 // the usual rough figure for English and code
	// DefaultBriefChars is the design's shortest measured brief
	// (context-economics "Layer one").
	DefaultBriefChars = 521
	// DefaultReportChars is a path and a conclusion or two, what the
	// workbench's rules ask for: an assumption, the design gives no figure.
	DefaultReportChars = 200
	DefaultDelegation  = DelegationFrame + DefaultBriefChars + DefaultReportChars
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

// SubagentShare is a general-purpose subagent's first request against the
// main thread's, each without its prompt (the brief, the user's): its own
// system prompt and tools, shorter than the main thread's. Measured in
// Claude Code 2.1.328 by tests/e2e TestWhatIfAgentPrompt; --what-if uses it
// for a session without subagent transcripts of its own to measure.
const SubagentShare = 0.66

// LongWindow is the context window Claude Code 2.1.328 gives the models of
// longWindowModels (its model catalog, context.window) and any model asked
// for with the [1m] suffix; the others have DefaultWindow.
const LongWindow = 1_000_000

var longWindowModels = regexp.MustCompile(`\[1m\]$|^claude-(opus-4-[78]|opus-5|sonnet-5|haiku-5-5|fable-5|mythos-5)`)

// windowOf is the window of the model a session ran, and why: a context
// over DefaultWindow says the window was longer whatever the model.
func windowOf(model string, largest int64) (int64, string) {
	switch {
	case longWindowModels.MatchString(model):
		return LongWindow, "the model " + model
	case largest > DefaultWindow:
		return LongWindow, "a context of " + thousands(largest) + " tokens"
	case model != "":
		return DefaultWindow, "the model " + model
	}
	return DefaultWindow, "no model recorded"
}

// denialPrefix is how Claude Code 2.1.328 shows a hook's deny to the model,
// before the reason (tests/e2e TestLayer1DenialAsReceived).
func denialPrefix(tool string) string { return "PreToolUse:" + tool + " hook error: " }

// SessionStartPrefix is how Claude Code 2.1.328 shows a SessionStart hook's
// additionalContext to the model (tests/e2e TestWhatIfDelegationCost).
const SessionStartPrefix = "SessionStart hook additional context: "

// rulesMark begins delegate-guard's coordinator's rules, by which a session
// that had them is told from one that had not.
const rulesMark = "You coordinate this session (flower)"

// wiTurn is one turn of the main thread as the what-if needs it.
type wiTurn struct {
	context int64 // tokens at its request; 0 when unknown
	chars   int64 // its entries and the results of its calls
	live    bool  // it made a hands-on call delegate-guard would deny, and the call ran
	own     bool  // it dispatched a subagent of the session's own
	// tool and callChars are the first hands-on call's.
	tool      string
	callChars int64
	// spillChars and spillAfter are its results that spill-guard would
	// spill, as the model saw them and with pointers and heads.
	spillChars, spillAfter, spills int64
	glances                        []wiGlance
	denials                        []int64 // calls denied in the session, call and denial
	prompted, compacted, manual    bool    // a prompt, a compaction (the user's: manual) came before it
}

type wiGlance struct {
	cmd   string
	chars int64 // as the model saw it, after layer three
}

// wiCall is a call of the main thread until its result is read.
type wiCall struct {
	turn   int
	name   string
	chars  int64
	guard  bool   // delegate-guard would deny it
	glance string // the command, when a glance
	// general is a foreground general-purpose Agent call, what a
	// delegation under flower is; brief is its prompt's characters.
	general bool
	brief   int64
}

// whatIf reads the main transcript for the estimate.
type whatIf struct {
	s         *session
	o         WhatIfOptions
	guarded   []string       // what delegate-guard denies by default
	blockMark string         // see newWhatIf
	spills    *regexp.Regexp // the tools spill-guard is wired for
	turns     []wiTurn
	lastMsg   string
	calls     map[string]wiCall
	// prompted, compacted and manual wait for the next turn.
	prompted, compacted, manual bool
	cwd, model                  string
	// largest and smallest are the turns' largest and smallest contexts:
	// the smallest is where the session started, or a compaction left it.
	largest, smallest  int64
	promptChars        int64 // the first prompt's
	hasBlock, hasRules bool  // index-guard's block, delegate-guard's rules are in the session
	// own counts the session's own general-purpose delegations, ownChars
	// their calls and hand-backs and ownBriefs their briefs.
	own, ownChars, ownBriefs        int64
	apiErrors, apiErrorChars        int64
	interrupted, interruptedSavings int64
}

func newWhatIf(s *session, o WhatIfOptions) *whatIf {
	w := &whatIf{s: s, o: o, calls: map[string]wiCall{}, guarded: strings.Split(delegateguard.DefaultTools, ",")}
	// The line after the workbench's of index-guard's block for the main
	// thread tells a session that had it.
	block, _, err := workbench.Block("/w", false, &workbench.Index{}, workbench.Coordinator)
	if err != nil {
		panic(err)
	}
	w.blockMark = strings.Split(block, "\n")[1]
	for _, e := range flowersettings.Catalog {
		if e.Binary == "spill-guard" && e.Event == "PostToolUse" {
			w.spills = regexp.MustCompile(e.Matcher)
		}
	}
	return w
}

// entry reads one line of the main thread.
func (w *whatIf) entry(e *transcript.Entry) {
	if w.cwd == "" && e.Cwd != "" {
		w.cwd = strings.Clone(e.Cwd)
	}
	if e.Type == "system" && e.LogicalParentUUID != "" {
		w.compacted = true // a compact_boundary
		w.manual = gjson.GetBytes(e.Raw, "compactMetadata.trigger").Str == "manual"
		return
	}
	if e.Type == "attachment" && bytes.Contains(e.Raw, []byte(`"hook_additional_context"`)) {
		// Layer two's block, or layer one's rules: on already.
		w.hasBlock = w.hasBlock || bytes.Contains(e.Raw, []byte(w.blockMark))
		w.hasRules = w.hasRules || bytes.Contains(e.Raw, []byte(rulesMark))
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
		w.turns = append(w.turns, wiTurn{context: m.Usage.ContextTokens(), prompted: w.prompted, compacted: w.compacted, manual: w.manual})
		w.prompted, w.compacted, w.manual = false, false, false
		if c := m.Usage.ContextTokens(); c > 0 {
			w.largest = max(w.largest, c)
			if w.smallest == 0 || c < w.smallest {
				w.smallest = c
			}
		}
		// Claude Code 2.1.3 records the model asked for, [1m] and all;
		// message.model is the API's id without it.
		if model := gjson.GetBytes(e.Raw, "requestedModel").Str; model != "" {
			w.model = strings.Clone(model)
		} else if model := gjson.GetBytes(e.Raw, "message.model").Str; model != "" && model != "<synthetic>" {
			w.model = strings.Clone(model)
		}
	}
	i := len(w.turns) - 1
	t := &w.turns[i]
	t.chars += int64(e.Chars())
	for _, b := range e.ToolUses() {
		c := wiCall{turn: i, name: strings.Clone(b.Name), chars: int64(b.Chars), guard: slices.Contains(w.guarded, b.Name)}
		switch {
		case b.Name == "Bash":
			v := w.s.o.Glances.Classify(b.Input.Get("command").Str)
			if v.Glance {
				c.glance = strings.Clone(b.Input.Get("command").Str)
			}
			c.guard = !v.MainThread // a glance, or allowed the main thread by the configuration
		case briefTools[b.Name]:
			t.own = true
			typ := b.Input.Get("subagent_type").Str
			c.general = (typ == "" || typ == "general-purpose") && !b.Input.Get("run_in_background").Bool()
			c.brief = int64(utf8.RuneCountInString(b.Input.Get("prompt").Str))
		}
		w.calls[strings.Clone(b.ID)] = c
	}
}

func (w *whatIf) user(e *transcript.Entry) {
	results := e.ToolResults()
	if len(results) == 0 {
		if !e.IsMeta {
			if !w.prompted && len(w.turns) == 0 {
				w.promptChars = int64(e.Chars())
			}
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
		switch {
		case prunesession.Removed(e.ToolDenialKind):
			t.denials = append(t.denials, c.chars+chars)
			continue
		case prunesession.Interrupted(e.ToolDenialKind):
			w.interrupted++
			w.interruptedSavings += chars - int64(utf8.RuneCountInString(prunesession.InterruptedNote))
			continue
		}
		if c.guard && !t.live {
			t.live, t.tool, t.callChars = true, c.name, c.chars
		}
		if c.general && !b.IsError {
			w.own++
			w.ownChars += c.chars + chars
			w.ownBriefs += c.brief
		}
		after := chars
		if !b.IsError && w.spills.MatchString(c.name) {
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

// spill is what the model would have seen of result b with layer three:
// the fields spill-guard would spill are the entry's toolUseResult when it
// holds this result alone, else the result's text.
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
