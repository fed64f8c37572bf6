package contextaudit

import (
	"testing"
	"unicode/utf8"
)

func TestRestates(t *testing.T) {
	r := newRestater("/w/.flower")
	for _, tc := range []struct {
		name, brief string
		restated    []string // the sentences that restate
	}{
		{"task only", "Run sh run_tests.sh and reply with the failing tests.", nil},
		{"the workbench rules", "Fix the flaky test in pkg/x. Write long outputs to .flower/artifacts/ and reply with only paths and conclusions.",
			[]string{"Write long outputs to .flower/artifacts/ and reply with only paths and conclusions."}},
		{"save scripts", "Save every script worth running twice under .flower/scripts/ with a one-line description as its first comment.",
			[]string{"Save every script worth running twice under .flower/scripts/ with a one-line description as its first comment."}},
		{"agent prompt", "Count the lines.\nUse absolute file paths only.",
			[]string{"Use absolute file paths only."}},
		{"a file name is no sentence end", "Read notes.txt. then stop", nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want int64
			for _, s := range tc.restated {
				want += int64(utf8.RuneCountInString(s))
			}
			if got := r.restates(tc.brief); got != want {
				t.Errorf("restates(%q) = %d characters, want %d (%q)", tc.brief, got, want, tc.restated)
			}
		})
	}
}
