package hook

import "testing"

func TestClaudeVersionProblem(t *testing.T) {
	for v, ok := range map[string]bool{
		MinClaudeVersion: true,
		"2.1.328":        true,
		"2.2.0":          true,
		"3.0.0":          true,
		"2.1.322":        false,
		"2.1.99":         false, // numbers, not strings: 99 < 323
		"2.1.150":        false, // the 2.1.121-2.1.177 reports: below the minimum anyway
		"1.0.128":        false,
		"2.1":            false,
		"2.1.x":          false,
		"":               false,
	} {
		if got := ClaudeVersionProblem(v); (got == "") != ok {
			t.Errorf("ClaudeVersionProblem(%q) = %q; want a problem: %v", v, got, !ok)
		}
	}
}
