package ephemeral

import "strings"

// Verdict is the answer for one command line.
type Verdict struct {
	// Glance is true only when every segment is a glance.
	Glance bool
	// MainThread is true when every segment is a glance or a hands-on
	// command of an extra entry (Glances): the main thread may run the
	// line, and its result expires only when Glance is true too.
	MainThread bool
	// Reason sums the verdict up in one line: the first segment that is not
	// a glance and why, or why the line could not be vouched for.
	Reason string
	// Segments are the simple commands of the line in source order, empty
	// when it could not be parsed.
	Segments []Segment
}

// Segment is one simple command of a command line.
type Segment struct {
	Command string // its source text
	Glance  bool
	// MainThread is set, with Glance false, for a hands-on command of an
	// extra entry.
	MainThread bool
	Reason     string
}

// IsEphemeral reports whether cmd is a glance: Classify(cmd).Glance.
func IsEphemeral(cmd string) bool { return builtin.IsEphemeral(cmd) }

// mayBeGlance is false for a line Classify neither calls a glance nor
// lets the main thread run, told from its first word alone, without the
// parser: spill-guard asks about every long Bash output, and most are not
// glances. A first word that is not plain (a quote, an expansion, a
// redirection, a pattern) is left to the parser. FuzzClassify holds it to
// Classify.
func (g *Glances) mayBeGlance(cmd string) bool {
	// Control characters are refused before parsing, so only the blanks
	// bash and the parser agree on end the word.
	s := strings.TrimLeft(cmd, " \t\n")
	end := strings.IndexAny(s, " \t\n|&;()<>\"'\\$`")
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	switch {
	case word == "" || strings.ContainsAny(word, "*?[{~=#!"),
		end < len(s) && strings.IndexByte("\"'\\$`", s[end]) >= 0,                                  // the word goes on, quoted or expanded
		end < len(s) && (s[end] == '<' || s[end] == '>') && strings.Trim(word, "0123456789") == "": // 2>/dev/null ls
		return true
	}
	return find(table, word) != nil || g.named(word) != nil
}
