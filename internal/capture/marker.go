package capture

import (
	"path/filepath"
	"strings"
	"time"
)

// The marker is the line the script prints in place of a call's output. It
// is what the model sees when spill-guard does not run (not wired, timed
// out) and, for a failed call, in the tool result itself (Claude Code lets
// no hook replace that): so it says where the output is. capture.bash
// prints it with the same words; a test runs the script and parses it.
const (
	markerStart = "[flower: the whole output of this command is in "
	markerEnd   = "]"
)

// Marker is the line the script prints for the capture file path.
func Marker(path string) string { return markerStart + path + markerEnd }

// Find returns the capture file named by a marker on the first line of a
// Bash result, or on its second line after one line of Claude Code's own
// (the "Exit code N" of a failed call), which comes back as before. rest is
// what follows the marker line. ok is false when there is no marker there.
func Find(text string) (path, before, rest string, ok bool) {
	line, after, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(line, markerStart) {
		before = line
		line, after, _ = strings.Cut(after, "\n")
	}
	path, ok = parseMarker(line)
	if !ok {
		return "", "", "", false
	}
	return path, before, after, true
}

// parseMarker returns the path a marker line names: an absolute, clean
// path.
func parseMarker(line string) (string, bool) {
	if !strings.HasPrefix(line, markerStart) || !strings.HasSuffix(line, markerEnd) {
		return "", false
	}
	path := line[len(markerStart) : len(line)-len(markerEnd)]
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return "", false
	}
	return path, true
}

// A capture file is named capture-<local time>-<session id>-<pid>-<random>.txt
// (capture.bash), so names sort by time, and the session id ties the file
// to the session spill-guard is called for.
const (
	namePrefix  = "capture-"
	nameSuffix  = ".txt"
	stampLayout = "20060102-150405"
)

// IsName reports whether name is the name of a capture file of any session.
func IsName(name string) bool {
	_, ok := nameSession(name)
	return ok
}

// IsSessionName reports whether name is the name of a capture file of the
// session sessionID.
func IsSessionName(name, sessionID string) bool {
	s, ok := nameSession(name)
	return ok && sessionID != "" && s == sessionID
}

// nameSession returns the session id in a capture file's name.
func nameSession(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, namePrefix)
	if !ok || len(rest) < len(stampLayout)+1 {
		return "", false
	}
	if _, err := time.Parse(stampLayout, rest[:len(stampLayout)]); err != nil || rest[len(stampLayout)] != '-' {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest[len(stampLayout)+1:], nameSuffix)
	if !ok {
		return "", false
	}
	// <session>-<pid>-<random>: the session id may hold dashes itself.
	for range 2 {
		i := strings.LastIndexByte(rest, '-')
		if i < 0 || !digits(rest[i+1:]) {
			return "", false
		}
		rest = rest[:i]
	}
	if rest == "" || strings.Trim(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
		return "", false
	}
	return rest, true
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
