package contextaudit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is the audit of one session; its JSON form is one line of
// --json. A ratio whose denominator is zero is null (nil here): there is
// nothing to divide, which no number would say.
type Report struct {
	Session string `json:"session"`
	Path    string `json:"path"`
	// ForkedFrom is the session this one is a fork of: prune-session's
	// (its transcript.ForkMarker) or Claude Code's own (/branch); null when
	// it is no fork, or not one that says so. A fork is a session of its
	// own, resumable, so it is reported like any other.
	ForkedFrom *string `json:"forked_from"`
	// SubagentOf is set when the transcript given is a subagent's: the
	// session it belongs to. Its figures are then those of a subagent.
	SubagentOf *string `json:"subagent_of"`
	// SubagentTranscripts counts the subagents read: their transcripts,
	// and (CLI 1.0) the runs written inline in the main one.
	SubagentTranscripts int `json:"subagent_transcripts"`

	Main      Thread `json:"main"`
	Subagents Thread `json:"subagents"` // every subagent transcript summed

	SubagentShare struct {
		Turns *float64 `json:"turns"` // subagent turns / all turns
		Chars *float64 `json:"chars"` // subagent chars / all chars
	} `json:"subagent_share"`
	// HandsOnRatio is subagent hands-on calls per main-thread hands-on
	// call (the design's 1,893:32 = 59:1); null when the main thread made
	// none.
	HandsOnRatio *float64 `json:"hands_on_ratio"`

	Denials struct {
		Hook int64 `json:"hook"` // permissionDecision.source "hook"
		Rule int64 `json:"rule"` // any other source: settings rules ("config")
		// Chars is what the denials cost: the denied calls and their
		// results, on every thread; MainChars on the main thread alone.
		Chars     int64 `json:"chars"`
		MainChars int64 `json:"main_chars"`
	} `json:"denials"`
	GlancesMain int64 `json:"glances_main"`
	Spills      struct {
		Count      int64 `json:"count"`
		CharsMoved int64 `json:"chars_moved"`
	} `json:"spills"`
	Scripts struct {
		Written         int64 `json:"written"`
		Writes          int64 `json:"writes"`
		Runs            int64 `json:"runs"`
		RunMoreThanOnce int64 `json:"run_more_than_once"`
		WrittenNotRun   int64 `json:"written_not_run"`
		// ReusedByScripts counts the scripts another script names;
		// MostReused is the one most scripts name, null when none is.
		ReusedByScripts int64        `json:"reused_by_scripts"`
		MostReused      *ScriptReuse `json:"most_reused"`
	} `json:"scripts"`
	Briefs struct {
		Count int64 `json:"count"`
		Chars int64 `json:"chars"`
		// Restating counts the briefs with a sentence that restates what
		// the subagent is given anyway (restate.go); RestatingChars is
		// the characters of those sentences.
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
	// Compactions are the main thread's: where Claude Code summarized the
	// conversation so far and went on from the summary. Not subagent work,
	// though CLI 2.1 runs each as an agent with a transcript of its own
	// (agent-acompact-*.jsonl).
	Compactions struct {
		Count      int64   `json:"count"`
		AfterTurns []int64 `json:"after_turns"` // the main thread's turns before each
		PreTokens  int64   `json:"pre_tokens"`  // the context they summarized (compactMetadata.preTokens)
		// Runs counts the transcripts of their summarising runs, and
		// RunInputTokens and RunOutputTokens what those runs were sent and
		// wrote (their usage); 0 where the CLI kept no such transcript.
		Runs            int64 `json:"runs"`
		RunInputTokens  int64 `json:"run_input_tokens"`
		RunOutputTokens int64 `json:"run_output_tokens"`
	} `json:"compactions"`
	// Warmups counts the runs Claude Code starts on its own to fill the
	// prompt cache (a subagent transcript whose prompt is "Warmup"): no
	// subagent's work. Their tokens are in Cache.
	Warmups int64 `json:"warmups"`
	// Window is the main thread's context against the model's window.
	Window Window `json:"window"`
	// WhatIf is the estimate of --what-if, absent without it.
	WhatIf   *WhatIf `json:"what_if,omitempty"`
	BadLines int64   `json:"bad_lines"`

	totals *totals // set on the report of several sessions' totals
}

// Thread holds the figures of one side: the main thread, or all subagents.
type Thread struct {
	Entries   int64 `json:"entries"`    // user and assistant entries
	Turns     int64 `json:"turns"`      // assistant responses (distinct message.id)
	Chars     int64 `json:"chars"`      // message bodies, in characters
	ToolCalls int64 `json:"tool_calls"` // tool_use blocks
	HandsOn   int64 `json:"hands_on"`   // tool_use blocks of Bash, Write, Edit, MultiEdit, NotebookEdit
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

func share(part, whole int64) *float64 { return ratio(part, whole) }

// writeJSON prints r as one line.
func writeJSON(w io.Writer, r *Report) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// labelWidth fits the longest label of the table, "context (main)".
const labelWidth = 14

// writeTable prints r for people.
func writeTable(w io.Writer, r *Report) error {
	var b strings.Builder
	subs := "subagent transcripts"
	if r.SubagentTranscripts == 1 {
		subs = "subagent transcript"
	}
	fork := ""
	if r.ForkedFrom != nil {
		fork = ", a fork of " + *r.ForkedFrom
	}
	if r.totals != nil {
		b.WriteString(r.totals.header())
	} else if r.SubagentOf != nil {
		fmt.Fprintf(&b, "%s of session %s\n  %s\n", subagentKind(r), *r.SubagentOf, r.Path)
	} else {
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
	line("denials", "%s by hooks, %s by settings rules", thousands(r.Denials.Hook), thousands(r.Denials.Rule))
	denialCost(line, r)
	line("glances (main)", "%s", thousands(r.GlancesMain))
	line("spills", "%s, %s characters moved out of context", thousands(r.Spills.Count), thousands(r.Spills.CharsMoved))
	sc := r.Scripts
	line("scripts", "%s written (%s writes), %s runs, %s run more than once, %s written but never run",
		thousands(sc.Written), thousands(sc.Writes), thousands(sc.Runs), thousands(sc.RunMoreThanOnce), thousands(sc.WrittenNotRun))
	scriptReuse(line, r)
	line("briefs", "%s, %s characters", thousands(r.Briefs.Count), thousands(r.Briefs.Chars))
	restating(line, r)
	if r.totals == nil { // one session's context: no sum of several
		growth := ""
		if g := r.Context.GrowthPerTurn; g != nil {
			growth = fmt.Sprintf(" (%+.1f per turn)", *g)
		}
		line("context (main)", "%s -> %s tokens%s", thousands(r.Context.First), thousands(r.Context.Last), growth)
		window(line, r)
	}
	line("cache", "%s read, %s created, %s uncached input; hit rate %s",
		thousands(r.Cache.Read), thousands(r.Cache.Creation), thousands(r.Cache.Input), percent(r.Cache.HitRate))
	if c := r.Compactions; c.Count+c.Runs > 0 {
		line("compactions", "%s", compactions(r))
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

// subagentKind names what a transcript given alone was.
func subagentKind(r *Report) string {
	switch {
	case r.Compactions.Runs > 0:
		return "compaction run " + r.Session
	case r.Warmups > 0:
		return "cache warmup run " + r.Session
	}
	return "subagent transcript " + r.Session
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

// compactions describes the compactions of r: how many, after which turns
// of the main thread, and what they cost.
func compactions(r *Report) string {
	c := r.Compactions
	var b strings.Builder
	b.WriteString(thousands(c.Count))
	if n := len(c.AfterTurns); n > 0 {
		turns := make([]string, n)
		for i, t := range c.AfterTurns {
			turns[i] = thousands(t)
		}
		list := turns[0]
		if n > 1 {
			list = strings.Join(turns[:n-1], ", ") + " and " + turns[n-1]
		}
		word := "turns"
		if n == 1 {
			word = "turn"
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
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
