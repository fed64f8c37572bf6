package contextaudit

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// The estimate, turn by turn, follows the rules of docs/REFERENCE.md ("What
// if"): each request's context is the one before plus what the turn before
// added, less what the layers keep out and plus what they add, with the
// compactions recomputed.

// WhatIf is the estimate; its JSON form is what_if, each figure as
// docs/REFERENCE.md ("What if") defines it.
type WhatIf struct {
	Assumed struct {
		Window           int64   `json:"window"`
		WindowFrom       string  `json:"window_from"`
		CompactThreshold int64   `json:"compact_threshold"`
		CharsPerToken    float64 `json:"chars_per_token"`
		Delegation       int64   `json:"delegation"`
		From             string  `json:"from"` // of the delegation: "session", "assumed" or "given"
		SubagentBase     int64   `json:"subagent_base"`
		SubagentFrom     string  `json:"subagent_from"` // "session" or "main"
	} `json:"assumed"`
	LayerOne struct {
		Delegations     int64 `json:"delegations"` // pieces of work delegated
		Turns           int64 `json:"turns"`       // the main-thread turns they took
		Chars           int64 `json:"chars"`       // what those turns held
		Denials         int64 `json:"denials"`
		DenialChars     int64 `json:"denial_chars"`
		DelegationChars int64 `json:"delegation_chars"`
		RulesChars      int64 `json:"rules_chars"` // the coordinator's rules, at the start and after each compaction
	} `json:"layer_one"`
	LayerTwo struct {
		Shown  bool  `json:"shown"`  // the session had index-guard's block: none to add
		Blocks int64 `json:"blocks"` // the block added: at the start and after each compaction
		Chars  int64 `json:"chars"`
	} `json:"layer_two"`
	LayerThree struct {
		Results int64 `json:"results"` // main-thread results spilled
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

// WhatIfSide is the session one way: as recorded, or as estimated.
type WhatIfSide struct {
	Chars         int64    `json:"chars"` // characters of the main thread's messages
	Turns         int64    `json:"turns"` // the main thread's requests
	ContextLast   *int64   `json:"context_last"`
	GrowthPerTurn *float64 `json:"growth_per_turn"` // since the last compaction
	Compactions   int64    `json:"compactions"`
	TurnsLeft     *int64   `json:"turns_left"`
	Sent          int64    `json:"sent"` // tokens of all the main thread's requests
	Subagents     struct {
		Requests int64 `json:"requests"`
		Sent     int64 `json:"sent"` // tokens of all their requests
	} `json:"subagents"`
}

// point is a request's context, in tokens; seg counts the compactions
// before it.
type point struct{ turn, context, seg int64 }

// estGlance and estDenial are what layer four acts on in the estimated
// session, with the estimated turn they are in.
type estGlance struct {
	cmd         string
	chars, turn int64
}

type estDenial struct{ turn, chars int64 }

// finish makes the estimate once the transcripts are read; inline is the
// subagent thread of the main transcript (CLI 1.0).
func (w *whatIf) finish(inline *thread) *WhatIf {
	r := w.s.r
	out := &WhatIf{}
	a := &out.Assumed
	a.Window, a.WindowFrom = w.o.Window, "given with --window"
	if a.Window == 0 {
		a.Window, a.WindowFrom = windowOf(w.model, w.largest)
	}
	a.CompactThreshold, a.CharsPerToken = compactThreshold(a.Window), w.o.CharsPerToken
	brief := int64(DefaultBriefChars)
	switch {
	case w.o.Delegation > 0:
		a.Delegation, a.From = w.o.Delegation, "given"
	case w.own > 0:
		a.Delegation, a.From = w.ownChars/w.own, "session"
		brief = w.ownBriefs / w.own
	default:
		a.Delegation, a.From = DefaultDelegation, "assumed"
	}
	tokens := func(chars int64) int64 { return int64(math.Round(float64(chars) / w.o.CharsPerToken)) }

	// The subagents as recorded: their requests, and the first of each
	// without its prompt.
	var bases []int64
	files := r.files
	if r.SubagentOf == nil {
		files = append(slices.Clip(files), subFile{tokensIn: inline.tokensIn, first: inline.first, prompt: inline.prompt})
	}
	for _, f := range files {
		if !f.run && !f.warmup {
			out.Observed.Subagents.Sent += f.tokensIn
			if f.first > 0 {
				bases = append(bases, f.first-tokens(f.prompt))
			}
		}
	}
	out.Observed.Subagents.Requests = r.Subagents.Turns
	turns := w.turns
	if len(bases) > 0 {
		slices.Sort(bases)
		a.SubagentBase, a.SubagentFrom = bases[len(bases)/2], "session"
	} else {
		a.SubagentBase, a.SubagentFrom = max(int64(SubagentShare*float64(w.smallest-tokens(w.promptChars))), 0), "main"
	}

	root := w.root()
	artifacts := delegateguard.Artifacts(w.cwd, root)
	var blockChars, workerChars int64
	if !w.hasBlock {
		block, _, err := workbench.Block(root, false, &workbench.Index{}, workbench.Coordinator)
		if err == nil {
			blockChars = int64(workbench.BlockLen(SessionStartPrefix + block))
		}
		if block, _, err = workbench.Block(root, false, &workbench.Index{}, workbench.Worker); err == nil {
			workerChars = int64(workbench.BlockLen(block))
		}
	}
	out.LayerTwo.Shown = w.hasBlock
	var rulesChars int64
	if !w.hasRules {
		rulesChars = int64(workbench.BlockLen(SessionStartPrefix + delegateguard.Rules(strings.Split(delegateguard.DefaultTools, ","), true)))
	}

	// What each turn added to the context: as recorded, or across a
	// compaction (where the recorded context fell) its characters.
	grew := func(i int) int64 {
		if i+1 < len(turns) && turns[i].context > 0 && turns[i+1].context > 0 && !turns[i+1].compacted {
			return turns[i+1].context - turns[i].context
		}
		return tokens(turns[i].chars)
	}
	// The pieces of work: per prompt, from the first turn whose hands-on
	// call ran to the last; ends[i] is the last of turn i's prompt.
	ends := make([]int, len(turns))
	for i, last := len(turns)-1, -1; i >= 0; i-- {
		if turns[i].live && last < 0 {
			last = i
		}
		ends[i] = last
		if turns[i].prompted {
			last = -1
		}
	}
	moved := func(i, end int) bool { return i <= end && (turns[i].live || !turns[i].own) }

	// The recorded side, and post, what a compaction leaves: the level
	// the session's own compactions fell to, else its first context.
	o := &out.Observed
	o.Chars, o.Turns, o.Compactions = r.Main.Chars, int64(len(turns)), r.Compactions.Count
	var obs []point
	var seg, post, posts int64
	for i, t := range turns {
		if t.compacted && i > 0 {
			seg++
		}
		if t.compacted && i > 0 && t.context > 0 {
			post += t.context
			posts++
		}
		if t.context > 0 {
			obs = append(obs, point{int64(i + 1), t.context, seg})
			o.Sent += t.context
		}
	}
	o.place(obs, a.CompactThreshold)
	known := len(turns) > 0 && turns[0].context > 0
	switch {
	case posts > 0:
		post /= posts
	case known:
		post = turns[0].context
	}

	var (
		est      []point
		ctx      int64
		e        = &out.Estimated
		chars    = r.Main.Chars
		glances  []estGlance
		denials  []estDenial
		l1       = &out.LayerOne
		pieceEnd = -1
	)
	seg = 0
	// At the start and after each compaction: layer two's block and layer
	// one's rules.
	block := func() {
		if blockChars > 0 {
			ctx += tokens(blockChars)
			chars += blockChars
			out.LayerTwo.Blocks++
			out.LayerTwo.Chars += blockChars
		}
		ctx += tokens(rulesChars)
		chars += rulesChars
		out.LayerOne.RulesChars += rulesChars
	}
	compact := func(to int64) {
		ctx = to
		block()
		e.Compactions++
		seg++
	}
	// request is one request of the estimated main thread at ctx, after
	// the compaction the context calls for.
	request := func() {
		e.Turns++
		if !known {
			return
		}
		if ctx >= a.CompactThreshold {
			compact(post)
		}
		est = append(est, point{e.Turns, max(ctx, 1), seg})
		e.Sent += ctx
	}
	if known {
		ctx = turns[0].context
	}
	block()
	for i, t := range turns {
		if t.manual && t.context > 0 {
			compact(t.context) // the user's /compact: with flower too
		}
		if t.live && i > pieceEnd {
			pieceEnd = ends[i]
			if l1.Denials == 0 {
				denial := t.callChars + int64(utf8.RuneCountInString(denialPrefix(t.tool)+delegateguard.Reason(t.tool, artifacts, true)))
				request()
				denials = append(denials, estDenial{e.Turns, denial})
				ctx += tokens(denial)
				chars += denial
				l1.Denials++
				l1.DenialChars += denial
			}
			request()
			ctx += tokens(a.Delegation)
			chars += a.Delegation
			l1.Delegations++
			l1.DelegationChars += a.Delegation
			// The subagent: its brief, then a request per turn of
			// the piece and one for its report.
			sub := a.SubagentBase + tokens(workerChars+brief)
			for j := i; j <= pieceEnd; j++ {
				if moved(j, pieceEnd) {
					e.Subagents.Requests++
					e.Subagents.Sent += sub
					sub += grew(j) - tokens(turns[j].spillChars-turns[j].spillAfter)
				}
			}
			e.Subagents.Requests++
			e.Subagents.Sent += sub
		}
		if moved(i, pieceEnd) {
			l1.Turns++
			l1.Chars += t.chars
			chars -= t.chars
			continue
		}
		request()
		ctx += grew(i) - tokens(t.spillChars-t.spillAfter)
		chars -= t.spillChars - t.spillAfter
		out.LayerThree.Results += t.spills
		out.LayerThree.Chars += t.spillChars
		out.LayerThree.After += t.spillAfter
		for _, g := range t.glances {
			glances = append(glances, estGlance{g.cmd, g.chars, e.Turns})
		}
		for _, d := range t.denials {
			denials = append(denials, estDenial{e.Turns, d})
		}
	}
	e.Subagents.Requests += o.Subagents.Requests
	e.Subagents.Sent += o.Subagents.Sent

	// Layer four: a resume through prune-session at the end.
	four := &out.LayerFour
	if n := len(glances) - prunesession.DefaultKeepRecent; n > 0 {
		for _, g := range glances[:n] {
			four.Expired++
			four.Chars += g.chars - int64(utf8.RuneCountInString(prunesession.ExpiredNote(g.cmd, int(e.Turns-g.turn))))
		}
	}
	if n := len(denials) - prunesession.DefaultKeepDenials; n > 0 {
		for _, d := range denials[:n] {
			four.Removed++
			four.Chars += d.chars
		}
	}
	four.Dropped, four.Replaced = w.apiErrors, w.interrupted
	four.Chars += w.apiErrorChars + w.interruptedSavings

	e.Chars = max(chars, 0)
	e.place(est, a.CompactThreshold)
	return out
}

// place sets the last context, the growth since the last compaction and
// the turns left to the threshold from the contexts of a side's requests.
func (s *WhatIfSide) place(pts []point, threshold int64) {
	if len(pts) == 0 {
		return
	}
	last := pts[len(pts)-1]
	s.ContextLast = &last.context
	s.GrowthPerTurn = growthOf(pts[slices.IndexFunc(pts, func(p point) bool { return p.seg == last.seg }):])
	s.TurnsLeft = turnsTo(last.context, threshold, s.GrowthPerTurn)
}

// growthOf is the growth per turn over pts, nil for fewer than two.
func growthOf(pts []point) *float64 {
	if len(pts) < 2 {
		return nil
	}
	return ratio(pts[len(pts)-1].context-pts[0].context, int64(len(pts)-1))
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// writeWhatIf prints the estimate under a session's table.
func writeWhatIf(b *strings.Builder, w *WhatIf) error {
	if w == nil {
		return nil
	}
	a := w.Assumed
	line := func(name, format string, args ...any) {
		fmt.Fprintf(b, "    %-*s  %s\n", labelWidth, name, fmt.Sprintf(format, args...))
	}
	head := fmt.Sprintf("%g characters a token", a.CharsPerToken)
	if from, ok := map[string]string{"session": "as the session's own general-purpose ones", "assumed": "assumed", "given": "given"}[a.From]; ok {
		head += fmt.Sprintf("; a delegation %s characters, %s", thousands(a.Delegation), from)
	}
	fmt.Fprintf(b, "  what if: every layer of flower, estimated (%s)\n", head)
	l1 := w.LayerOne
	line("layer one", "%s (%s, %s characters) -> %s (%s characters) after %s (%s characters); the coordinator's rules %s characters",
		plural(l1.Delegations, "piece")+" of work", plural(l1.Turns, "turn"), thousands(l1.Chars),
		plural(l1.Delegations, "delegation"), thousands(l1.DelegationChars), plural(l1.Denials, "denial"), thousands(l1.DenialChars),
		thousands(l1.RulesChars))
	if w.LayerTwo.Shown {
		line("layer two", "nothing to add: the session shows index-guard's block")
	} else {
		line("layer two", "+%s characters: %s", thousands(w.LayerTwo.Chars), plural(w.LayerTwo.Blocks, "workbench block"))
	}
	l3 := w.LayerThree
	line("layer three", "%s over the threshold (%s characters) -> pointers and heads (%s characters)",
		plural(l3.Results, "result"), thousands(l3.Chars), thousands(l3.After))
	l4 := w.LayerFour
	line("layer four", "a pruned resume carries %s characters less: %s expired, %s removed, %s dropped, %s replaced",
		thousands(l4.Chars), plural(l4.Expired, "glance result"), plural(l4.Removed, "denied call"), plural(l4.Dropped, "API error"), plural(l4.Replaced, "interrupted result"))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	const width = 22 // "subagents: sent tokens"
	fmt.Fprintf(tw, "    %-*s\trecorded\testimated\t\n", width, "")
	row := func(name string, o, e string) { fmt.Fprintf(tw, "    %-*s\t%s\t%s\t\n", width, name, o, e) }
	o, e := w.Observed, w.Estimated
	row("main: message chars", thousands(o.Chars), thousands(e.Chars))
	row("main: requests", thousands(o.Turns), thousands(e.Turns))
	usage := o.ContextLast != nil || e.ContextLast != nil
	if usage {
		row("main: context (last)", optional(o.ContextLast), optional(e.ContextLast))
		row("main: growth / turn", growth(o.GrowthPerTurn), growth(e.GrowthPerTurn))
		row("main: turns left", optional(o.TurnsLeft), optional(e.TurnsLeft))
		row("main: compactions", thousands(o.Compactions), thousands(e.Compactions))
		row("main: sent tokens", thousands(o.Sent), thousands(e.Sent))
	}
	row("subagents: requests", thousands(o.Subagents.Requests), thousands(e.Subagents.Requests))
	if usage {
		row("subagents: sent tokens", thousands(o.Subagents.Sent), thousands(e.Subagents.Sent))
	}
	row("total: requests", thousands(o.Turns+o.Subagents.Requests), thousands(e.Turns+e.Subagents.Requests))
	if usage {
		row("total: sent tokens", thousands(o.Sent+o.Subagents.Sent), thousands(e.Sent+e.Subagents.Sent))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if usage {
		fmt.Fprintf(b, "    (tokens from the usage: whole requests, system prompt and tools included; chars: message text only;\n"+
			"    compaction at %s of a %s-token window (%s); a subagent starts at %s tokens and its brief, as %s)\n",
			thousands(a.CompactThreshold), thousands(a.Window), a.WindowFrom, thousands(a.SubagentBase),
			map[string]string{"session": "the session's own subagents did", "main": "a share of the main thread's start"}[a.SubagentFrom])
	}
	return nil
}

func optional(v *int64) string {
	if v == nil {
		return "-"
	}
	return thousands(*v)
}

func growth(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f", *v)
}
