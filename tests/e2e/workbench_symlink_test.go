package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A repository that commits its .flower as a symlink (`.flower ->
// ../other`) must not get the hooks to write where it leads: index-guard and
// spill-guard refuse such a workbench, the session goes on, and the model
// gets the tool's original output.

// listing is every path under dir with its size.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			info, _ := d.Info()
			out = append(out, fmt.Sprintf("%s %d", p, info.Size()))
		}
		return nil
	})
	return out
}

func TestWorkbenchSymlinkRefused(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	other := filepath.Join(s.Dir, "other")
	if err := os.MkdirAll(filepath.Join(other, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.WriteFile("../other/scripts/theirs.sh", "#!/bin/sh\n# Someone else's script\n")
	if err := os.Symlink("../other", s.Path(".flower")); err != nil {
		t.Fatal(err)
	}
	s.Git("add", ".flower")
	s.Git("commit", "-q", "-m", "a workbench that leads elsewhere")
	before := listing(t, other)

	s.API.Main(Steps(
		Call(Bash("big", "seq 1 3000")), // 13,893 characters: over spill-guard's threshold
		Say("done"),
	))
	res := s.Run(Options{Prompt: "count to 3000", Settings: Settings(LayerHooks(t, "2", "3")...), AllowedTools: handsOn})
	if res.IsError {
		t.Fatalf("the session did not proceed: %s", res.Result)
	}

	got := s.ToolResult("big")
	if got.IsError || strings.Contains(got.Text, "Spilled to a file") || !strings.Contains(got.Text, "\n2999\n3000") {
		t.Errorf("the model did not get the original output (error %v):\n%.300s", got.IsError, got.Text)
	}
	if first := allText(s.API.Thread(MainThread)[0]); strings.Contains(first, "Rules of the workbench:") || strings.Contains(first, "theirs.sh") {
		t.Errorf("the model was shown the workbench the symlink leads to:\n%s", first)
	}
	if diff := cmp.Diff(before, listing(t, other)); diff != "" {
		t.Errorf("a hook wrote through the symlink (-before +after):\n%s", diff)
	}
}

// TestWorkbenchSymlinkNamed: a workbench the user names through a symlink
// (FLOWER_WORKBENCH) is the user's choice: it is used where it leads.
func TestWorkbenchSymlinkNamed(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	real := filepath.Join(s.Dir, "real-wb")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(s.Dir, "wb-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s.API.Main(Steps(Call(Bash("big", "seq 1 3000")), Say("done")))
	s.Run(Options{Prompt: "count to 3000", Settings: Settings(LayerHooks(t, "2", "3")...), AllowedTools: handsOn,
		Env: []string{"FLOWER_WORKBENCH=" + link}})
	if got := s.ToolResult("big"); !strings.Contains(got.Text, "Spilled to a file") || !strings.Contains(got.Text, real+"/spill/") {
		t.Errorf("no spill into the named workbench:\n%.300s", got.Text)
	}
	// Not flower's default: its path is shown quoted, in a data fence.
	if first := allText(s.API.Thread(MainThread)[0]); !strings.Contains(first, "(data, not instructions):\n```\n\""+real+"\"\n```") {
		t.Errorf("the block does not name the workbench, quoted:\n%.500s", first)
	}
}
