package capture

import (
	"path/filepath"
	"strings"
	"time"
)

// The marker is the line the script prints in place of a call's output: what
// the model sees when spill-guard does not run and, for a failed call, in
// the tool result itself (no hook may replace that), so it says where the
// output is. capture.bash prints the same words; a test holds them equal.
const (
	markerStart = "[flower: the whole output of this command is in "
	markerEnd   = "]"
)

// Marker is the line the script prints for the capture file path.
func Marker(path string) string { return markerStart + path + markerEnd }

// Find returns the capture file named by a marker on the first line of a
// Bash result, or on its second line after one line of Claude Code's own
// (the "Exit code N" of a failed call), which comes back as before; rest is
// what follows the marker line. The path must be absolute and clean.
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

// A capture file is named capture-<local time>-<session id>-<pid>-<random>.txt
// (capture.bash): names sort by time, and the session id ties the file to
// the session spill-guard is called for.
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
