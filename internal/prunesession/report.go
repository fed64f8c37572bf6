package prunesession

import (
	"fmt"
	"io"
	"strings"
)

// report tells the user on w what a run on src did: a fork written to dst,
// or, when the plan changes nothing, no fork.
func report(w io.Writer, src, dst string, p *plan, rw *rewriter, dry bool) {
	o := p.o
	add := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	switch {
	case !p.changes() && dry:
		add("%s: dry run on %s: nothing to prune, nothing written", name, src)
	case !p.changes():
		add("%s: nothing to prune in %s: nothing written, resume it as it is", name, src)
	case dry:
		add("%s: dry run on %s, nothing written", name, src)
	default:
		add("%s: %s -> %s", name, src, dst)
	}
	add("  expired   %s of %d (kept the %d most recent)", plural(p.expired, "glance result"), p.glancesSeen, o.keepRecent)
	add("  removed   %s of %d (kept the %d most recent)", plural(p.removed, "denied call"), p.deniedSeen, o.keepDenials)
	add("  dropped   %s", plural(p.apiErrors, "API-error entry"))
	add("  replaced  %s", plural(p.interrupted, "interrupted tool result"))
	if o.trim {
		add("  trimmed   %s of %d to %s (kept the %d most recent)", plural(p.trimmed, "large tool result"), p.largeSeen, p.spillDir, o.trimKeep)
	} else {
		add("  trimmed   off (--trim)")
	}
	// What a resume sends: the main thread after the last compaction, and
	// what that compaction kept from before it.
	before, turns, keptTurns := p.charsBefore, p.turns, 0
	if rw.kept != nil {
		before += rw.kept.chars
		keptTurns = rw.kept.turns
		turns += keptTurns
	}
	after := before - p.charsGone + rw.delta
	change := ""
	if before > 0 {
		change = fmt.Sprintf(" (%+.1f%%)", 100*float64(after-before)/float64(before))
	}
	add("  chars     %d -> %d%s in the %s a resume sends", before, after, change, plural(turns, "turn"))
	if p.compactions > 0 {
		sent := "none of them"
		if keptTurns > 0 {
			sent = fmt.Sprintf("the %d it kept", keptTurns)
		}
		add("  compacted %s: %s before the last one, left as they are; a resume sends %s",
			plural(p.compactions, "time"), plural(p.turnsBefore, "turn"), sent)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "entry") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(what, "y"))
	}
	return fmt.Sprintf("%d %ss", n, what)
}
