package hook

import (
	"strconv"
	"strings"
)

// MinClaudeVersion is the oldest Claude Code flower supports: the pinned
// version's e2e layer tests pass on it.
const MinClaudeVersion = "2.1.178"

// brokenClaude are versions of Claude Code in which a layer silently does
// nothing, with why.
var brokenClaude = []struct{ from, to, why string }{
	{"2.1.121", "2.1.177", "Claude Code ignores updatedToolOutput for the Bash tool, so spill-guard's spills do nothing"},
}

// ClaudeVersionProblem says why flower does not work with Claude Code
// version v ("2.1.328"), or "" when it does.
func ClaudeVersionProblem(v string) string {
	if _, ok := parseVersion(v); !ok {
		return "not a version flower can read"
	}
	for _, b := range brokenClaude {
		if compareVersions(v, b.from) >= 0 && compareVersions(v, b.to) <= 0 {
			return b.why + " (" + b.from + " to " + b.to + "); update Claude Code"
		}
	}
	if compareVersions(v, MinClaudeVersion) < 0 {
		return "older than " + MinClaudeVersion + ", the oldest flower supports; update Claude Code"
	}
	return ""
}

// compareVersions compares two dotted versions number by number.
func compareVersions(a, b string) int {
	x, _ := parseVersion(a)
	y, _ := parseVersion(b)
	for i := range 3 {
		if x[i] != y[i] {
			if x[i] < y[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
