package transcript

import (
	"strings"

	"github.com/tidwall/gjson"
)

// IsCompactBoundary reports whether e marks a compaction.
func (e *Entry) IsCompactBoundary() bool {
	return e.Type == "system" && e.Subtype == "compact_boundary"
}

// Compaction is what a compact_boundary entry says: a resume loads from
// the last boundary on, and the entries before it that it kept.
type Compaction struct {
	PreTokens int64 // the context it summarized, in tokens
	// Preserved are the uuids of the entries kept; a boundary that names the
	// first and last alone sets PreservedHead and PreservedTail instead.
	Preserved                    []string
	PreservedHead, PreservedTail string
}

// Keeps reports whether the compaction kept entries from before it.
func (c Compaction) Keeps() bool { return len(c.Preserved) > 0 || c.PreservedHead != "" }

// CompactionOf reads a compact_boundary entry's compactMetadata, copied.
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
