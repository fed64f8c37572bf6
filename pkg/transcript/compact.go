package transcript

import (
	"strings"

	"github.com/tidwall/gjson"
)

// IsCompactBoundary reports whether e marks a compaction.
func (e *Entry) IsCompactBoundary() bool {
	return e.Type == "system" && e.Subtype == "compact_boundary"
}

// Compaction is what a compact_boundary entry says of its compaction: a
// resume loads from the last boundary on, and the entries before it that
// the compaction kept (CLI 2.1.3xx).
type Compaction struct {
	PreTokens int64 // the context it summarized, in tokens
	// Preserved are the uuids of the entries before the boundary that the
	// compaction kept (preservedMessages.uuids). A boundary that names only
	// the first and last of them (preservedSegment) leaves Preserved nil
	// and sets PreservedHead and PreservedTail.
	Preserved                    []string
	PreservedHead, PreservedTail string
}

// Keeps reports whether the compaction kept entries from before it.
func (c Compaction) Keeps() bool { return len(c.Preserved) > 0 || c.PreservedHead != "" }

// CompactionOf reads the compactMetadata of a compact_boundary entry. Its
// strings are copies: they outlive the line.
func CompactionOf(e *Entry) Compaction {
	m := gjson.GetBytes(e.Raw, "compactMetadata")
	c := Compaction{
		PreTokens:     m.Get("preTokens").Int(),
		PreservedHead: strings.Clone(m.Get("preservedSegment.headUuid").Str),
		PreservedTail: strings.Clone(m.Get("preservedSegment.tailUuid").Str),
	}
	m.Get("preservedMessages.uuids").ForEach(func(_, u gjson.Result) bool {
		if u.Type == gjson.String {
			c.Preserved = append(c.Preserved, strings.Clone(u.Str))
		}
		return true
	})
	if len(c.Preserved) > 0 {
		c.PreservedHead, c.PreservedTail = "", ""
	}
	return c
}
