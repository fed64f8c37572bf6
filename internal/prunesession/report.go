package prunesession

import (
	"fmt"
	"io"
	"strings"
)

// report is what prune-session tells the user on stderr.
type report struct {
	lines []string
}

func newReport(src, dst string, p *plan, delta int64, o options, dry bool) *report {
	r := &report{}
	add := func(format string, a ...any) { r.lines = append(r.lines, fmt.Sprintf(format, a...)) }
	if dry {
		add("%s: dry run on %s, nothing written", name, src)
	} else {
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
	before := p.charsBefore
	after := before - p.charsGone + delta
	change := ""
	if before > 0 {
		change = fmt.Sprintf(" (%+.1f%%)", 100*float64(after-before)/float64(before))
	}
	add("  chars     %d -> %d%s in %s", before, after, change, plural(p.turns, "turn"))
	return r
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

func (r *report) write(w io.Writer) {
	fmt.Fprintln(w, strings.Join(r.lines, "\n"))
}
