package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// ForkMarker is the file prune-session leaves in a fork's session folder
// (SessionDir) to say which session the fork was made from. It lives there,
// not in the transcript, because Claude Code reads every transcript line on
// resume and ignores files of that folder it does not know. The folder goes
// wherever the session goes (it is deleted with it).
const ForkMarker = "flower-fork.json"

// maxForkMarker bounds what ForkedFrom reads: the marker is one short JSON
// object; anything longer is not one.
const maxForkMarker = 4 << 10

// forkMarker is what a ForkMarker holds.
type forkMarker struct {
	ForkedFrom string `json:"forkedFrom"`
}

// ForkMarkerJSON is the content of the marker of a fork of session from.
func ForkMarkerJSON(from string) []byte {
	b, _ := json.Marshal(forkMarker{from})
	return append(b, '\n')
}

// ForkedFrom is the id of the session that the session at path (its main
// transcript) was forked from, as its ForkMarker says; "" when it has no
// readable marker, as for every session not made by prune-session.
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

// sessionIDOrEmpty is id when it can name a session (what Locate takes for
// an id, printable), else "": the id is printed on a terminal and in JSON,
// and a marker is data, not to be trusted.
func sessionIDOrEmpty(id string) string {
	if id == "" || id == "." || id == ".." || len(id) > maxSessionID ||
		strings.ContainsAny(id, `/\*?[`) || strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) {
		return ""
	}
	return id
}

// maxSessionID bounds a session id read from data: Claude Code's are UUIDs
// (36 characters); 128 leaves room for any other naming.
const maxSessionID = 128

// NativeForkedFrom is the session an entry was copied from when Claude Code
// itself forked the session (/branch, --fork-session): it writes each copied
// entry with forkedFrom.sessionId (seen in the 2.1.328 CLI); "" otherwise.
func NativeForkedFrom(e *Entry) string {
	return sessionIDOrEmpty(gjson.GetBytes(e.Raw, "forkedFrom.sessionId").Str)
}
