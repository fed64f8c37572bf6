package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// ForkMarker is the file prune-session leaves in a fork's SessionDir to
// name the session it was made from: Claude Code ignores it there, and the
// folder goes wherever the session goes.
const ForkMarker = "flower-fork.json"

// maxForkMarker bounds what ForkedFrom reads: a marker is one short object.
const maxForkMarker = 4 << 10

type forkMarker struct {
	ForkedFrom string `json:"forkedFrom"`
}

// ForkMarkerJSON is the content of the marker of a fork of session from.
func ForkMarkerJSON(from string) []byte {
	b, _ := json.Marshal(forkMarker{from})
	return append(b, '\n')
}

// ForkedFrom is the id of the session that the session at path was forked
// from, as its ForkMarker says; "" when it has no readable marker.
func ForkedFrom(path string) string {
	f, err := Open(filepath.Join(SessionDir(path), ForkMarker))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxForkMarker+1))
	var m forkMarker
	if err != nil || len(b) > maxForkMarker || json.Unmarshal(b, &m) != nil {
		return ""
	}
	return sessionIDOrEmpty(m.ForkedFrom)
}

// sessionIDOrEmpty is id when it can name a session (as Locate takes it,
// printable), else "": it is data, printed on a terminal.
func sessionIDOrEmpty(id string) string {
	if id == "" || id == "." || id == ".." || len(id) > maxSessionID ||
		strings.ContainsAny(id, `/\*?[`) || strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) {
		return ""
	}
	return id
}

// maxSessionID bounds a session id read from data (UUIDs are 36).
const maxSessionID = 128

// NativeForkedFrom is the session an entry was copied from when Claude Code
// forked it (/branch, --fork-session: forkedFrom.sessionId); "" otherwise.
func NativeForkedFrom(e *Entry) string {
	return sessionIDOrEmpty(gjson.GetBytes(e.Raw, "forkedFrom.sessionId").Str)
}
