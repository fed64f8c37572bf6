package ephemeral

import "strings"

// Verdict is the answer for one command line.
type Verdict struct {
	// Glance is true only when every segment is a glance.
	Glance bool
	// MainThread is true when every segment is a glance or a hands-on
	// command an extra entry lets the main thread run (Glances): the main
	// thread may run the line; its result expires only when Glance is true
	// too. Without extra entries it is Glance.
	MainThread bool
	// Reason sums the verdict up in one line: the first segment that is not
	// a glance and why, or why the whole line could not be vouched for.
	Reason string
	// Segments are the simple commands of the line in source order, each with
	// its own verdict. Empty when the line could not be parsed.
	Segments []Segment
}

// Segment is one simple command of a command line.
type Segment struct {
	Command string // the segment's source text
	Glance  bool
	// MainThread is set for a hands-on command an extra entry lets the
	// main thread run; Glance is then false.
	MainThread bool
	Reason     string
}

// IsEphemeral reports whether cmd is a glance. It is Classify(cmd).Glance, so
// letting a command through and expiring its result can never disagree; a
// line whose first word already rules a glance out is answered without the
// parser (mayBeGlance), which spill-guard's loop guard asks of every long
// Bash output: the first parse of a run cost it about 0.3 ms.
func IsEphemeral(cmd string) bool { return builtin.IsEphemeral(cmd) }

// mayBeGlance is false for a command line Classify never calls a glance,
// nor lets the main thread run, told from its first word alone: a glance's first simple command is named
// by a plain word on the table, written first. Anything else at the start
// (a quote, an expansion, a redirection, a negation, a comment, a pattern)
// is left to the parser. FuzzClassify holds IsEphemeral to Classify.
func (g *Glances) mayBeGlance(cmd string) bool {
	// Control characters are refused before parsing (unvouched), so only
	// the blanks bash and the parser agree on end the word.
	s := strings.TrimLeft(cmd, " \t\n")
	end := strings.IndexAny(s, " \t\n|&;()<>\"'\\$`")
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	if word == "" || strings.ContainsAny(word, "*?[{~=#!") {
		return true
	}
	if end < len(s) {
		switch next := s[end]; {
		case strings.IndexByte("\"'\\$`", next) >= 0:
			return true // the word goes on, quoted or expanded
		case (next == '<' || next == '>') && strings.Trim(word, "0123456789") == "":
			return true // 2>/dev/null ls: a redirection comes first
		}
	}
	for _, c := range table {
		if c.name == word {
			return true
		}
	}
	return g.named(word) != nil
}
