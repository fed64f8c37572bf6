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

// point is a turn's context, in tokens; seg counts the compactions before
// it.
type point struct{ turn, context, seg int64 }

// estGlance and estDenial are what layer four acts on in the estimated
// session, with the estimated turn they are in.
type estGlance struct {
	cmd         string
	chars, turn int64
}

type estDenial struct{ turn, chars int64 }

// finish makes the estimate once the main transcript is read.
func (w *whatIf) finish() *WhatIf {
	r := w.s.r
	out := &WhatIf{}
	a := &out.Assumed
	a.Window, a.CompactThreshold, a.CharsPerToken = w.o.Window, compactThreshold(w.o.Window), w.o.CharsPerToken
	switch {
	case w.o.Delegation > 0:
		a.Delegation, a.From = w.o.Delegation, "given"
	case w.own > 0:
		a.Delegation, a.From = int64(math.Round(float64(w.ownChars)/float64(w.own))), "session"
	default:
		a.Delegation, a.From = DefaultDelegation, "assumed"
	}
	tokens := func(chars int64) int64 { return int64(math.Round(float64(chars) / w.o.CharsPerToken)) }

	root := w.root()
	artifacts := delegateguard.Artifacts(w.cwd, root)
	var blockChars int64
	if block, _, err := workbench.Block(root, false, &workbench.Index{}, workbench.Coordinator); err == nil {
		blockChars = int64(workbench.BlockLen(SessionStartPrefix + block))
	}
	seenDenials := map[int][]int64{} // observed turn → its denials' characters
	for _, d := range w.denials {
		seenDenials[d.turn] = append(seenDenials[d.turn], d.chars)
	}

	var (
		obs, est []point
		turns    int64 // estimated
		delta    int64 // characters kept out of the context so far; negative: added
		chars    = r.Main.Chars
		glances  []estGlance
		denials  []estDenial
	)
	if w.hasBlock {
		blockChars = 0
		out.LayerTwo.Shown = true
	}
	block := func() {
		if blockChars == 0 {
			return
		}
		delta -= blockChars
		out.LayerTwo.Blocks++
		out.LayerTwo.Chars += blockChars
	}
	block()
	var seg int64
	at := func(list *[]point, turn, context int64) {
		if context > 0 {
			*list = append(*list, point{turn, max(context, 1), seg})
		}
	}
	runs := func(t wiTurn) bool { return t.handsOn > t.denied }
	for i := 0; i < len(w.turns); {
		t := w.turns[i]
		if t.compacted && i > 0 {
			// The compaction left a summary either way; what the layers
			// kept out before it is no longer in the context, and the
			// block comes again.
			delta = 0
			block()
			seg++
		}
		at(&obs, int64(i+1), t.context)
		if !runs(t) {
			turns++
			at(&est, turns, t.context-tokens(delta))
			delta += t.spillChars - t.spillAfter
			chars -= t.spillChars - t.spillAfter
			out.LayerThree.Results += t.spills
			out.LayerThree.Chars += t.spillChars
			out.LayerThree.After += t.spillAfter
			for _, g := range t.glances {
				glances = append(glances, estGlance{g.cmd, g.chars, turns})
			}
			for _, d := range seenDenials[i] {
				denials = append(denials, estDenial{turns, d})
			}
			i++
			continue
		}
		// A run of hands-on turns: its first call denied, then delegated.
		j, held := i, int64(0)
		for ; j < len(w.turns) && runs(w.turns[j]) && (j == i || !w.turns[j].prompted && !w.turns[j].compacted); j++ {
			held += w.turns[j].chars
			if j > i {
				at(&obs, int64(j+1), w.turns[j].context)
			}
		}
		denial := t.callChars + int64(utf8.RuneCountInString(denialPrefix(t.tool)+delegateguard.Reason(t.tool, artifacts, true)))
		turns++
		at(&est, turns, t.context-tokens(delta))
		denials = append(denials, estDenial{turns, denial})
		turns++
		at(&est, turns, t.context-tokens(delta)+tokens(denial))
		delta += held - denial - a.Delegation
		chars += denial + a.Delegation - held
		l := &out.LayerOne
		l.Runs++
		l.Turns += int64(j - i)
		l.Chars += held
		l.DenialChars += denial
		l.DelegationChars += a.Delegation
		i = j
	}

	// Layer four: a resume through prune-session at the end.
	four := &out.LayerFour
	if n := len(glances) - prunesession.DefaultKeepRecent; n > 0 {
		for _, g := range glances[:n] {
			four.Expired++
			four.Chars += g.chars - int64(utf8.RuneCountInString(prunesession.ExpiredNote(g.cmd, int(turns-g.turn))))
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

	out.Observed = side(r.Main.Chars, int64(len(w.turns)), obs, a.CompactThreshold, true)
	out.Estimated = side(max(chars, 0), turns, est, a.CompactThreshold, false)
	return out
}

// side is the figures of one way from its turns' contexts. The growth per
// turn is that since the last compaction: the current rate. The turn of
// the first compaction is the first that reached the threshold; else, on
// the recorded side, the last before a compaction the session had; else
// the turn the growth before the first compaction leads to.
func side(chars, turns int64, pts []point, threshold int64, recorded bool) WhatIfSide {
	s := WhatIfSide{Chars: chars, Turns: turns}
	if len(pts) == 0 {
		return s
	}
	last := pts[len(pts)-1]
	s.ContextLast = &last.context
	s.GrowthPerTurn = growthOf(pts[slices.IndexFunc(pts, func(p point) bool { return p.seg == last.seg }):])
	for _, p := range pts {
		if p.context >= threshold {
			s.CompactTurn, s.Reached = &p.turn, true
			return s
		}
	}
	n := 1
	for n < len(pts) && pts[n].seg == pts[0].seg {
		n++
	}
	firstSeg := pts[:n]
	end := firstSeg[len(firstSeg)-1]
	if recorded && len(firstSeg) < len(pts) {
		s.CompactTurn, s.Reached = &end.turn, true
		return s
	}
	upto := turns
	if len(firstSeg) < len(pts) {
		upto = end.turn
	}
	if left := turnsTo(end.context, threshold, growthOf(firstSeg)); left != nil {
		turn := upto + *left
		s.CompactTurn = &turn
	}
	return s
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

// addWhatIf adds a session's estimate to the totals: the characters and
// turns each way and what each layer did; contexts do not add up.
func (t *totals) addWhatIf(w *WhatIf) {
	if t.r.WhatIf == nil {
		t.r.WhatIf = &WhatIf{Assumed: w.Assumed}
		t.r.WhatIf.Assumed.Delegation, t.r.WhatIf.Assumed.From = 0, ""
	}
	s := t.r.WhatIf
	s.LayerOne.Runs += w.LayerOne.Runs
	s.LayerOne.Turns += w.LayerOne.Turns
	s.LayerOne.Chars += w.LayerOne.Chars
	s.LayerOne.DenialChars += w.LayerOne.DenialChars
	s.LayerOne.DelegationChars += w.LayerOne.DelegationChars
	s.LayerTwo.Blocks += w.LayerTwo.Blocks
	s.LayerTwo.Chars += w.LayerTwo.Chars
	s.LayerThree.Results += w.LayerThree.Results
	s.LayerThree.Chars += w.LayerThree.Chars
	s.LayerThree.After += w.LayerThree.After
	s.LayerFour.Expired += w.LayerFour.Expired
	s.LayerFour.Removed += w.LayerFour.Removed
	s.LayerFour.Dropped += w.LayerFour.Dropped
	s.LayerFour.Replaced += w.LayerFour.Replaced
	s.LayerFour.Chars += w.LayerFour.Chars
	s.Observed.Chars += w.Observed.Chars
	s.Observed.Turns += w.Observed.Turns
	s.Estimated.Chars += w.Estimated.Chars
	s.Estimated.Turns += w.Estimated.Turns
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
	if from, ok := map[string]string{"session": "as the session's own", "assumed": "assumed", "given": "given"}[a.From]; ok {
		head += fmt.Sprintf("; a delegation %s characters, %s", thousands(a.Delegation), from)
	}
	fmt.Fprintf(b, "  what if: every layer of flower, estimated (%s)\n", head)
	l1 := w.LayerOne
	line("layer one", "%s (%s, %s characters) -> %s delegations (%s characters) after as many denials (%s characters)",
		plural(l1.Runs, "hands-on run"), plural(l1.Turns, "turn"), thousands(l1.Chars), thousands(l1.Runs), thousands(l1.DelegationChars), thousands(l1.DenialChars))
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
	fmt.Fprintf(tw, "    %-*s\tobserved\testimated\t\n", labelWidth, "")
	row := func(name string, o, e string) { fmt.Fprintf(tw, "    %-*s\t%s\t%s\t\n", labelWidth, name, o, e) }
	o, e := w.Observed, w.Estimated
	row("main chars", thousands(o.Chars), thousands(e.Chars))
	row("turns", thousands(o.Turns), thousands(e.Turns))
	if o.ContextLast == nil && e.ContextLast == nil {
		// Totals, or a transcript without usage: no context to compare.
		return tw.Flush()
	}
	row("context (last)", optional(o.ContextLast), optional(e.ContextLast))
	row("growth / turn", growth(o.GrowthPerTurn), growth(e.GrowthPerTurn))
	row("compaction at", compactAt(o), compactAt(e))
	if err := tw.Flush(); err != nil {
		return err
	}
	if a.Window > 0 {
		fmt.Fprintf(b, "    (tokens; compaction at %s of a %s-token window)\n", thousands(a.CompactThreshold), thousands(a.Window))
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

// compactAt says at which turn a side reaches the compaction threshold:
// "turn N" when it did, "~turn N" at its growth per turn, "-" never.
func compactAt(s WhatIfSide) string {
	switch {
	case s.CompactTurn == nil:
		return "-"
	case s.Reached:
		return "turn " + thousands(*s.CompactTurn)
	}
	return "~turn " + thousands(*s.CompactTurn)
}
