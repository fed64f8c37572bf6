package ephemeral

// Verdict is the answer for one command line.
type Verdict struct {
	// Glance is true only when every segment is a glance.
	Glance bool
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
	Reason  string
}

// IsEphemeral reports whether cmd is a glance. It is Classify(cmd).Glance, so
// letting a command through and expiring its result can never disagree.
func IsEphemeral(cmd string) bool { return Classify(cmd).Glance }
