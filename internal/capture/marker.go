package capture

import (
	"path/filepath"
	"strings"
	"time"
)

// The marker stands for a call's output where no view replaces it (a failed
// call's result), so it says where the output is; capture.bash prints the
// same words, which a test holds equal.
const (
	markerStart = "[flower: the whole output of this command is in "
	markerEnd   = "]"
)

// Marker is the line the script prints for the capture file path.
func Marker(path string) string { return markerStart + path + markerEnd }

// Find returns the absolute, clean path a marker names on the first line
// of text, or on the second after one of Claude Code's ("Exit code N",
// returned as before); rest follows the marker line.
func Find(text string) (path, before, rest string, ok bool) {
	line, rest, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(line, markerStart) {
		before = line
		line, rest, _ = strings.Cut(rest, "\n")
	}
	path, ok = strings.CutPrefix(line, markerStart)
	path, end := strings.CutSuffix(path, markerEnd)
	if !ok || !end || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return "", "", "", false
	}
	return path, before, rest, true
}

// A capture file is capture-<local time>-<session id>-<pid>-<random>.txt
// (capture.bash): sorted by time, and tied to its session.
const (
	namePrefix  = "capture-"
	nameSuffix  = ".txt"
	stampLayout = "20060102-150405"
)

// nameSession returns the session id in a capture file's name, and false
// for any other name.
func nameSession(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, namePrefix)
	if !ok || len(rest) <= len(stampLayout) || rest[len(stampLayout)] != '-' {
		return "", false
	}
	if _, err := time.Parse(stampLayout, rest[:len(stampLayout)]); err != nil {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest[len(stampLayout)+1:], nameSuffix)
	// <session>-<pid>-<random>: the session id may hold dashes itself.
	for range 2 {
		i := strings.LastIndexByte(rest, '-')
		if !ok || i < 0 || rest[i+1:] == "" || strings.Trim(rest[i+1:], "0123456789") != "" {
			return "", false
		}
		rest = rest[:i]
	}
	if rest == "" || strings.Trim(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
		return "", false
	}
	return rest, true
}
