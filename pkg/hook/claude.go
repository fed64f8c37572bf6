package hook

import (
	"strconv"
	"strings"
)

// MinClaudeVersion is the oldest Claude Code flower supports: every layer's
// end-to-end tests pass on it (`make e2e-min` runs those that exercise what
// flower needs of Claude Code). Layers one to four pass from 2.1.314; the
// capture script knows the Bash command string of 2.1.323 on, and under an
// older one does nothing. docs/REFERENCE.md "Claude Code versions" lists what
// fails below. No version at or above it is known to break a layer.
const MinClaudeVersion = "2.1.323"

// ClaudeVersionProblem says why flower does not work with Claude Code
// version v ("2.1.328"), or "" when it does.
func ClaudeVersionProblem(v string) string {
	if _, ok := parseVersion(v); !ok {
		return "not a version flower can read"
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
