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

// TestProjectSessionsDeleted: the sessions of a working directory that no
// longer exists (a temporary folder, a removed worktree) stay reachable by
// the path, whether it was the real one or went through a symlink whose
// target's folder is gone.
func TestProjectSessionsDeleted(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	// Claude Code records the real cwd; t.TempDir itself may sit under a
	// symlink, so the recorded path is what EvalSymlinks says.
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, recorded, given string
	}{
		{"as recorded", filepath.Join(realRoot, "gone", "ws"), filepath.Join(root, "gone", "ws")},
		{"through a symlink", filepath.Join(realRoot, "real", "ws"), filepath.Join(link, "ws")},
		{"through a symlink, deeper", filepath.Join(realRoot, "real", "a", "b"), filepath.Join(link, "a", "b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			folder, err := ProjectDir(tc.recorded)
			if err != nil {
				t.Fatal(err)
			}
			session := filepath.Join(folder, "s.jsonl")
			if err := os.MkdirAll(folder, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(session, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tc.given); !os.IsNotExist(err) {
				t.Fatalf("%s exists (%v); the case needs it gone", tc.given, err)
			}
			gotFolder, got, err := ProjectSessions(tc.given)
			if err != nil {
				t.Fatal(err)
			}
			if gotFolder != folder {
				t.Errorf("folder %s, want %s", gotFolder, folder)
			}
			if diff := cmp.Diff([]string{session}, got); diff != "" {
				t.Errorf("sessions (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("no sessions either", func(t *testing.T) {
		missing := filepath.Join(root, "never")
		_, _, err := ProjectSessions(missing)
		if err == nil || !strings.Contains(err.Error(), "no such folder") {
			t.Errorf("got %v, want an error saying %s is no folder", err, missing)
		}
	})
}
