package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProjectSessions(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	work := filepath.Join(root, "my.proj", "ws")
	link := filepath.Join(root, "link")
	empty := filepath.Join(root, "empty")
	for _, d := range []string{work, empty} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(work, link); err != nil {
		t.Fatal(err)
	}
	// The folder Claude Code names after the working directory.
	folder, err := ProjectDir(work)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.NewReplacer("/", "-", ".", "-").Replace(work); filepath.Base(folder) != want {
		t.Fatalf("ProjectDir(%s) = %s, want the folder %s", work, folder, want)
	}
	for _, f := range []string{"b.jsonl", "a.jsonl", "a/subagents/agent-1.jsonl", "notes.txt"} {
		p := filepath.Join(folder, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A working directory with .jsonl files of its own is not a project folder.
	if err := os.WriteFile(filepath.Join(empty, "data.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(folder, "a.jsonl"), filepath.Join(folder, "b.jsonl")}
	for _, dir := range []string{work, link, folder, work + "/"} {
		t.Run(dir, func(t *testing.T) {
			gotFolder, got, err := ProjectSessions(dir)
			if err != nil {
				t.Fatal(err)
			}
			if gotFolder != folder {
				t.Errorf("folder %s, want %s", gotFolder, folder)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sessions (-want +got):\n%s", diff)
			}
		})
	}
	for _, dir := range []string{"", empty, filepath.Join(root, "missing")} {
		t.Run("refuses "+dir, func(t *testing.T) {
			if f, got, err := ProjectSessions(dir); err == nil {
				t.Errorf("got %s %v, want an error", f, got)
			}
		})
	}
}
