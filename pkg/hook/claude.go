package hook

import (
	"slices"
	"strconv"
	"strings"
)

// MinClaudeVersion is the oldest Claude Code flower supports: every layer's
// end-to-end tests pass on it (`make e2e-min`). docs/REFERENCE.md "Claude
// Code versions" lists what fails below it.
const MinClaudeVersion = "2.1.323"

// ClaudeVersionProblem says why flower does not work with Claude Code
// version v ("2.1.328"), or "" when it does.
func ClaudeVersionProblem(v string) string {
	have, ok := parseVersion(v)
	if !ok {
		return "not a version flower can read"
	}
	if least, _ := parseVersion(MinClaudeVersion); slices.Compare(have, least) < 0 {
		return "older than " + MinClaudeVersion + ", the oldest flower supports; update Claude Code"
	}
	return ""
}

// parseVersion reads a version of three dotted numbers.
func parseVersion(v string) ([]int, bool) {
	parts := strings.Split(v, ".")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, len(parts) == 3
}
