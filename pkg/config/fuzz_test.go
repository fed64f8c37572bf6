package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse: a project file is a repository's text, read on every hook
// call. Whatever it holds, parse never panics, gives the same answer twice,
// and refuses with one *FileError of one line; a file it takes merges as a
// project file without a panic, and what the merge keeps holds together
// (the head below the threshold).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"spill-guard": {"threshold": 8000, "head": 100, "enabled": false}}`,
		`{"delegate-guard": {"tools": ["Bash", "Task"], "glance": false, "main-thread": [{"command": "make test"}]}}`,
		`{"glances": [{"command": "docker ps", "options": ["-a", "--format=X"], "operands": 0}]}`,
		`{"workbench": "work/bench", "trusted-projects": ["/p", "~/q"], "log": {"enabled": true, "file": "~/x.jsonl"}}`,
		`{"prune-session": {"keep-recent": 3, "trim": true, "spill-dir": "s"}, "index-guard": {"max-entries": 0}}`,
		"{\"spill-guard\": {\"threshold\": 8000,\n \"threshold\": 9}}",
		`{"log": {"file": {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}}}`,
		`{"spill-guard": {"threshold": 1e400}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		const path = "/p/.claude/flower.json"
		l, err := parse([]byte(src), path, "project file")
		l2, err2 := parse([]byte(src), path, "project file")
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("two answers: %v, then %v", err, err2)
		}
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q is not one line of a *FileError", err)
			}
			return
		}
		if diff := cmp.Diff(l, l2, cmp.AllowUnexported(Key{})); diff != "" {
			t.Fatalf("two layers (-first +second):\n%s", diff)
		}
		c := &Config{Dir: "/p", Project: File{Path: path, Found: true, set: l}}
		if err := c.merge(&c.User, &c.Project); err != nil {
			return
		}
		if head, threshold := c.Value("spill-guard.head").Int, c.Value("spill-guard.threshold").Int; head >= threshold {
			t.Fatalf("merged a head of %d, not below the threshold %d", head, threshold)
		}
	})
}
