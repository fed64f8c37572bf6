package contextaudit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/transcript"
)

// Report is the audit of one session; its JSON form is one line of
// --json, each figure as docs/REFERENCE.md defines it. A ratio whose
// denominator is zero is null (nil here): no number would say it.
type Report struct {
	Session             string  `json:"session"`
	Path                string  `json:"path"`
	ForkedFrom          *string `json:"forked_from"` // prune-session's fork (transcript.ForkMarker) or Claude Code's own
	SubagentOf          *string `json:"subagent_of"` // set when the transcript given is a subagent's
	SubagentTranscripts int     `json:"subagent_transcripts"`

	Main      Thread `json:"main"`
	Subagents Thread `json:"subagents"` // every subagent transcript summed

	SubagentShare struct {
		Turns *float64 `json:"turns"`
		Chars *float64 `json:"chars"`
	} `json:"subagent_share"`
	HandsOnRatio *float64 `json:"hands_on_ratio"`

	Denials struct {
		Hook      int64 `json:"hook"`
		Rule      int64 `json:"rule"`
		Chars     int64 `json:"chars"`
		MainChars int64 `json:"main_chars"`
	} `json:"denials"`
	GlancesMain int64 `json:"glances_main"`
	Spills      struct {
		Count      int64 `json:"count"`
		CharsMoved int64 `json:"chars_moved"`
	} `json:"spills"`
	Scripts struct {
		Written         int64        `json:"written"`
		Writes          int64        `json:"writes"`
		Runs            int64        `json:"runs"`
		RunMoreThanOnce int64        `json:"run_more_than_once"`
		WrittenNotRun   int64        `json:"written_not_run"`
		ReusedByScripts int64        `json:"reused_by_scripts"`
		MostReused      *ScriptReuse `json:"most_reused"`
	} `json:"scripts"`
	Briefs struct {
		Count          int64 `json:"count"`
		Chars          int64 `json:"chars"`
		Restating      int64 `json:"restating"`
		RestatingChars int64 `json:"restating_chars"`
	} `json:"briefs"`
	Context struct {
		First         int64    `json:"first"`
		Last          int64    `json:"last"`
		GrowthPerTurn *float64 `json:"growth_per_turn"`
	} `json:"context"`
	Cache struct {
		Read     int64    `json:"read"`
		Creation int64    `json:"creation"`
		Input    int64    `json:"input"`
		HitRate  *float64 `json:"hit_rate"`
	} `json:"cache"`
	Compactions Compactions `json:"compactions"`
	Warmups     int64       `json:"warmups"`
	Window      Window      `json:"window"`
	WhatIf      *WhatIf     `json:"what_if,omitempty"`
	BadLines    int64       `json:"bad_lines"`

	// What figures are derived from, kept for the totals to merge: the
	// scripts by name, the spill files with the characters they hold, the
	// subagent transcripts read and the subagent runs inline (CLI 1.0).
	scripts    map[string]*script
	spilled    map[string]int64
	files      []subFile
	inlineRuns int
	totals     *totals // set on the report of several sessions' totals
}

// Compactions are the main thread's, and the transcripts of their
// summarising runs where the CLI kept them (not subagent work).
type Compactions struct {
	Count           int64   `json:"count"`
	AfterTurns      []int64 `json:"after_turns"`
	PreTokens       int64   `json:"pre_tokens"`
	Runs            int64   `json:"runs"`
	RunInputTokens  int64   `json:"run_input_tokens"`
	RunOutputTokens int64   `json:"run_output_tokens"`
}

// subFile is a subagent transcript read: a subagent's, a compaction run's
// (with its tokens) or a warmup's; first and prompt are its thread's.
type subFile struct {
	path                string
	run, warmup         bool
	tokensIn, tokensOut int64
	first, prompt       int64
}

func newReport(path string) *Report {
	r := &Report{Session: transcript.SessionID(path), Path: path, scripts: map[string]*script{}, spilled: map[string]int64{}}
	r.Compactions.AfterTurns = []int64{}
	return r
}

// Thread holds the figures of one side: the main thread, or all subagents.
type Thread struct {
	Entries   int64 `json:"entries"`    // user and assistant entries
	Turns     int64 `json:"turns"`      // assistant responses (distinct message.id)
	Chars     int64 `json:"chars"`      // message bodies, in characters
	ToolCalls int64 `json:"tool_calls"` // tool_use blocks
	HandsOn   int64 `json:"hands_on"`   // tool_use blocks of Bash, Write, Edit, MultiEdit, NotebookEdit
}

// addCounts adds each int64 of *src to *dst's, through nested structs:
// the counts of a thread, a report or an estimate. Pointers (the ratios),
// slices and maps hold no counts; finish derives the rest anew.
func addCounts(dst, src any) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for i := range d.NumField() {
		switch f := d.Field(i); {
		case !f.CanSet():
		case f.Kind() == reflect.Int64:
			f.SetInt(f.Int() + s.Field(i).Int())
		case f.Kind() == reflect.Struct:
			addCounts(f.Addr().Interface(), s.Field(i).Addr().Interface())
		}
	}
}

// DefaultWindow is the context window assumed, in tokens: what Claude Code
// gives its models unless a 1M variant is chosen ([1m]), where --window
// 1000000 says so.
const DefaultWindow = 200_000

// compactReserve is how far below the window auto-compaction starts: the
// design's "window − 33k" (context-economics, "What problem it solves").
const compactReserve = 33_000

// compactThreshold is the context at which the main thread is compacted.
func compactThreshold(window int64) int64 { return max(window-compactReserve, 0) }

// Window is the main thread's context against the model's window (the
// design's "18.6% of a 1M window … about 440 turns").
type Window struct {
	Size             int64    `json:"size"`              // tokens, --window
	Share            *float64 `json:"share"`             // context.last / size
	CompactThreshold int64    `json:"compact_threshold"` // size − 33,000
	// TurnsLeft is the turns to the threshold at the growth per turn, and
	// CompactTurn turns + turns_left; both null when it does not grow.
	TurnsLeft   *int64 `json:"turns_left"`
	CompactTurn *int64 `json:"compact_turn"`
}

// ScriptReuse is a script and how many other scripts name it.
type ScriptReuse struct {
	Name string `json:"name"`
	By   int64  `json:"by"`
}

// finish derives the figures that need the whole session or are not sums
// of the sessions' (a file or script counted once): window is the
// model's, turnsWithUsage the main-thread turns that gave a context size.
func (r *Report) finish(window, turnsWithUsage int64) {
	r.scriptFigures()
	r.SubagentTranscripts, r.Warmups = r.inlineRuns, 0
	c := &r.Compactions
	c.Runs, c.RunInputTokens, c.RunOutputTokens = 0, 0, 0
	for _, f := range r.files {
		switch {
		case f.run:
			c.Runs++
			c.RunInputTokens += f.tokensIn
			c.RunOutputTokens += f.tokensOut
		case f.warmup:
			r.Warmups++
		default:
			r.SubagentTranscripts++
		}
	}
	r.Spills.Count, r.Spills.CharsMoved = int64(len(r.spilled)), 0
	for _, chars := range r.spilled {
		r.Spills.CharsMoved += chars
	}
	r.SubagentShare.Turns = ratio(r.Subagents.Turns, r.Main.Turns+r.Subagents.Turns)
	r.SubagentShare.Chars = ratio(r.Subagents.Chars, r.Main.Chars+r.Subagents.Chars)
	r.HandsOnRatio = ratio(r.Subagents.HandsOn, r.Main.HandsOn)
	if turnsWithUsage > 1 {
		r.Context.GrowthPerTurn = ratio(r.Context.Last-r.Context.First, turnsWithUsage-1)
	}
	r.Cache.HitRate = ratio(r.Cache.Read, r.Cache.Read+r.Cache.Creation+r.Cache.Input)
	r.Window = Window{Size: window, CompactThreshold: compactThreshold(window)}
	if window > 0 && r.Context.Last > 0 { // else no usage in the transcript: nothing to place
		r.Window.Share = ratio(r.Context.Last, window)
		if left := turnsTo(r.Context.Last, r.Window.CompactThreshold, r.Context.GrowthPerTurn); left != nil {
			turn := r.Main.Turns + *left
			r.Window.TurnsLeft, r.Window.CompactTurn = left, &turn
		}
	}
}

// turnsTo is how many turns growing by growth a turn take from context
// to threshold: 0 when it is there, nil when it does not grow.
func turnsTo(context, threshold int64, growth *float64) *int64 {
	var n int64
	switch {
	case context >= threshold:
	case growth == nil || *growth <= 0:
		return nil
	default:
		n = int64(math.Ceil(float64(threshold-context) / *growth))
	}
	return &n
}

// decimals is how far ratios are rounded: four places keep a share to a
// hundredth of a percent, and keep the output the same across platforms.
const decimals = 1e4

func ratio(num, den int64) *float64 {
	if den == 0 {
		return nil
	}
	v := math.Round(float64(num)/float64(den)*decimals) / decimals
	return &v
}

// writeJSON prints r as one line. The totals' line is {"totals":{…}}
// with the counts of sessions and forks, then the keys of a report that
// add up.
func writeJSON(w io.Writer, r *Report, _ bool) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if t := r.totals; t != nil {
		for _, key := range []string{"session", "path", "forked_from", "subagent_of", "context", "window", "compactions.after_turns"} {
			if b, err = sjson.DeleteBytes(b, key); err != nil {
				return err
			}
		}
		b = fmt.Appendf(nil, `{"totals":{"sessions":%d,"forks":%d,%s}`, t.sessions, t.forks, b[1:])
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// labelWidth fits the longest label of the table, "context (main)".
const labelWidth = 14

// writeTable prints r for people, after a blank line when after is set.
func writeTable(w io.Writer, r *Report, after bool) error {
	var b strings.Builder
	if after {
		b.WriteString("\n")
	}
	subs := "subagent transcripts"
	if r.SubagentTranscripts == 1 {
		subs = "subagent transcript"
	}
	fork := ""
	if r.ForkedFrom != nil {
		fork = ", a fork of " + *r.ForkedFrom
	}
	switch {
	case r.totals != nil:
		b.WriteString(r.totals.header())
	case r.SubagentOf != nil:
		kind := "subagent transcript "
		if r.Compactions.Runs > 0 {
			kind = "compaction run "
		} else if r.Warmups > 0 {
			kind = "cache warmup run "
		}
		fmt.Fprintf(&b, "%s%s of session %s\n  %s\n", kind, r.Session, *r.SubagentOf, r.Path)
	default:
		fmt.Fprintf(&b, "session %s (%d %s%s)\n  %s\n", r.Session, r.SubagentTranscripts, subs, fork, r.Path)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	// The labels are padded here so that AlignRight, meant for the
	// figures, leaves them flush left; its padding indents them.
	fmt.Fprintf(tw, "%-*s\tmain\tsubagents\tsubagent share\t\n", labelWidth, "")
	row := func(name string, m, s int64, tail string) {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t\n", labelWidth, name, thousands(m), thousands(s), tail)
	}
	row("entries", r.Main.Entries, r.Subagents.Entries, "")
	row("turns", r.Main.Turns, r.Subagents.Turns, percent(r.SubagentShare.Turns))
	row("chars", r.Main.Chars, r.Subagents.Chars, percent(r.SubagentShare.Chars))
	row("tool calls", r.Main.ToolCalls, r.Subagents.ToolCalls, "")
	ho := "-"
	if r.HandsOnRatio != nil {
		ho = handsOnRatio(r.Subagents.HandsOn, r.Main.HandsOn)
	}
	row("hands-on", r.Main.HandsOn, r.Subagents.HandsOn, ho)
	if err := tw.Flush(); err != nil {
		return err
	}
	line := func(name, format string, a ...any) {
		fmt.Fprintf(&b, "  %-*s  %s\n", labelWidth, name, fmt.Sprintf(format, a...))
	}
	d := r.Denials
	line("denials", "%s by hooks, %s by settings rules", thousands(d.Hook), thousands(d.Rule))
	if n := d.Hook + d.Rule; n > 0 {
		line("denial cost", "%s characters, %s a denial; %s on the main thread",
			thousands(d.Chars), thousands(int64(math.Round(float64(d.Chars)/float64(n)))), thousands(d.MainChars))
	}
	line("glances (main)", "%s", thousands(r.GlancesMain))
	line("spills", "%s, %s characters moved out of context", thousands(r.Spills.Count), thousands(r.Spills.CharsMoved))
	sc := r.Scripts
	line("scripts", "%s written (%s writes), %s runs, %s run more than once, %s written but never run",
		thousands(sc.Written), thousands(sc.Writes), thousands(sc.Runs), thousands(sc.RunMoreThanOnce), thousands(sc.WrittenNotRun))
	if m := sc.MostReused; m != nil {
		line("script reuse", "%s named by other scripts; most: %s, by %s", plural(sc.ReusedByScripts, "script"), m.Name, thousands(m.By))
	}
	br := r.Briefs
	line("briefs", "%s, %s characters", thousands(br.Count), thousands(br.Chars))
	if br.Count > 0 {
		line("restating", "%s of %s, %s of %s characters: sentences that say what the subagent is told anyway",
			thousands(br.Restating), plural(br.Count, "brief"), thousands(br.RestatingChars), thousands(br.Chars))
	}
	if r.totals == nil { // one session's context: no sum of several
		growth := ""
		if g := r.Context.GrowthPerTurn; g != nil {
			growth = fmt.Sprintf(" (%+.1f per turn)", *g)
		}
		line("context (main)", "%s -> %s tokens%s", thousands(r.Context.First), thousands(r.Context.Last), growth)
	}
	if w := r.Window; w.Share != nil {
		reach := "not growing: no compaction in sight"
		switch {
		case w.TurnsLeft != nil && *w.TurnsLeft == 0:
			reach = "at the compaction threshold"
		case w.TurnsLeft != nil:
			reach = fmt.Sprintf("compaction in about %s turns, at turn %s", thousands(*w.TurnsLeft), thousands(*w.CompactTurn))
		}
		line("window", "%s of %s tokens (compaction at %s); %s", percent(w.Share), thousands(w.Size), thousands(w.CompactThreshold), reach)
	}
	line("cache", "%s read, %s created, %s uncached input; hit rate %s",
		thousands(r.Cache.Read), thousands(r.Cache.Creation), thousands(r.Cache.Input), percent(r.Cache.HitRate))
	if c := r.Compactions; c.Count+c.Runs > 0 {
		line("compactions", "%s", compactions(c))
	}
	if r.Warmups > 0 {
		line("warmups", "%s of Claude Code's own, not counted as subagents", plural(r.Warmups, "cache warmup run"))
	}
	if r.BadLines > 0 {
		line("bad lines", "%s skipped", thousands(r.BadLines))
	}
	if err := writeWhatIf(&b, r.WhatIf); err != nil {
		return err
	}
	// Rows without a share end in the tabwriter's padding.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// handsOnRatio prints sub against main hands-on calls as a ratio with a 1
// on the smaller side: 59.2:1, or 1:69 for 2 against 138, never 0.0:1.
func handsOnRatio(sub, main int64) string {
	short := func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
	switch {
	case sub == 0:
		return "0:1"
	case sub < main:
		return "1:" + short(float64(main)/float64(sub))
	}
	return short(float64(sub)/float64(main)) + ":1"
}

// compactions says how many compactions, after which turns of the main
// thread, and what they cost.
func compactions(c Compactions) string {
	var b strings.Builder
	b.WriteString(thousands(c.Count))
	if n := len(c.AfterTurns); n > 0 {
		turns := make([]string, n)
		for i, t := range c.AfterTurns {
			turns[i] = thousands(t)
		}
		list, word := turns[0], "turn"
		if n > 1 {
			list, word = strings.Join(turns[:n-1], ", ")+" and "+turns[n-1], "turns"
		}
		fmt.Fprintf(&b, " (after main %s %s)", word, list)
	}
	fmt.Fprintf(&b, ", %s tokens of context summarized", thousands(c.PreTokens))
	if c.Runs > 0 {
		fmt.Fprintf(&b, "; %s: %s tokens in, %s out", plural(c.Runs, "run transcript"), thousands(c.RunInputTokens), thousands(c.RunOutputTokens))
	}
	return b.String()
}

// percent prints a share, "-" when there is none.
func percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v*100, 'f', 1, 64) + "%"
}

// thousands prints n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural is "1 brief", "2 briefs".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}
