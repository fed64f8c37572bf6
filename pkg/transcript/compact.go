package transcript

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Compactions. Where Claude Code compacted a conversation it writes a
// system entry of subtype compact_boundary (parentUuid null, the entry
// before it in logicalParentUuid), then a user entry holding the summary
// (isCompactSummary). --resume loads the conversation from the last
// boundary on: the entries before it stay in the file but are not sent
// again, but for the ones the boundary lists as kept verbatim (since CLI
// 2.1.3xx a compaction keeps the latest messages: compactMetadata's
// preservedMessages, and preservedSegment naming the first and last).
// Seen in CLI 2.1.5, 2.1.39 and 2.1.328.

// IsCompactBoundary reports whether e marks a compaction.
func (e *Entry) IsCompactBoundary() bool {
	return e.Type == "system" && e.Subtype == "compact_boundary"
}

// Compaction is what a compact_boundary entry says of its compaction.
type Compaction struct {
	Trigger   string // "auto" or "manual"
	PreTokens int64  // the context it summarized, in tokens
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
		Trigger:       strings.Clone(m.Get("trigger").Str),
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
