package contextaudit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowerhooks/flower/pkg/workbench"
)

// How much of a brief restates what the subagent is given anyway, by the
// rule of docs/REFERENCE.md ("restating"): a sentence restates when at
// least half of its words that are not stopWords make, with a neighbour, a
// pair of words found in the subagent's block (workbench.Block for a
// Worker) or in AgentPrompt.

// AgentPrompt is the discipline of Claude Code 2.1.328's prompt for a
// general-purpose subagent, as the CLI sends it (tests/e2e
// TestWhatIfAgentPrompt checks that it still does).
var AgentPrompt = []string{
	"Complete the task fully—don't gold-plate, but don't leave it half-done.",
	"When you complete the task, respond with a concise report covering what was done and any key findings — the caller will relay this to the user, so it only needs the essentials.",
	"NEVER create files unless they're absolutely necessary for achieving your goal. ALWAYS prefer editing an existing file to creating a new one.",
	"NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested.",
	"Agent threads always have their cwd reset between bash calls, as a result please only use absolute file paths.",
	"In your final response, share file paths (always absolute, never relative) that are relevant to the task.",
	"Do NOT Write report/summary/findings/analysis .md files. Return findings directly as your final assistant message — the parent agent reads your text output, not files you create.",
}

// stopWords are the function words that neither make nor need a pair.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "in": true, "on": true, "at": true,
	"for": true, "and": true, "or": true, "with": true, "as": true, "by": true, "it": true, "its": true,
	"is": true, "be": true, "that": true, "this": true, "your": true, "you": true, "their": true, "from": true,
	"into": true, "then": true, "any": true, "all": true, "each": true, "are": true, "not": true,
}

// restater knows the word pairs of what a subagent receives.
type restater struct{ pairs map[[2]string]bool }

func newRestater(root string) *restater {
	r := &restater{pairs: map[[2]string]bool{}}
	ref := strings.Join(AgentPrompt, "\n")
	if root != "" {
		if block, _, err := workbench.Block(root, false, &workbench.Index{}, workbench.Worker); err == nil {
			ref += "\n" + block
		}
	}
	for _, s := range sentences(ref) {
		w := words(s)
		for i := 1; i < len(w); i++ {
			r.pairs[[2]string{w[i-1], w[i]}] = true
		}
	}
	return r
}

// restates returns the characters of brief's sentences that restate.
func (r *restater) restates(brief string) int64 {
	var n int64
	for _, s := range sentences(brief) {
		w := words(s)
		content, restated := 0, 0
		for i, word := range w {
			if stopWords[word] {
				continue
			}
			content++
			if i > 0 && r.pairs[[2]string{w[i-1], word}] || i+1 < len(w) && r.pairs[[2]string{word, w[i+1]}] {
				restated++
			}
		}
		if content > 0 && 2*restated >= content {
			n += int64(utf8.RuneCountInString(s))
		}
	}
	return n
}

// sentences cuts text at line ends and at '.', '!' or '?' before a space:
// "tests.log" stays one word. The pieces keep their characters but for the
// spaces and line ends between them.
func sentences(text string) []string {
	var out []string
	start := 0
	add := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			add(i + 1)
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' {
				add(i + 1)
			}
		}
	}
	add(len(text))
	return out
}

// words are the words of s: runs of letters and digits, lowercased, with a
// plural s dropped from words of four letters or more.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}
