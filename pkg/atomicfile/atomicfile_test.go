package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func fill(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWriteReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := Write(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q, want %q", b, "new")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestFailedFillKeepsOld(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "f"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	boom := errors.New("boom")
	err = Replace(r, "f", 0o644, true, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "old" {
		t.Errorf("content %q after failed write, want %q", b, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the folder, want 1 (no temp file)", len(ents))
	}
}

func TestWriteNewNeverReplaces(t *testing.T) {
	for _, sync := range []bool{true, false} {
		p := filepath.Join(t.TempDir(), "f")
		if err := WriteNew(p, 0o600, sync, fill("first")); err != nil {
			t.Fatal(err)
		}
		if err := WriteNew(p, 0o600, sync, fill("second")); !errors.Is(err, os.ErrExist) {
			t.Fatalf("err = %v, want ErrExist", err)
		}
		if b, _ := os.ReadFile(p); string(b) != "first" {
			t.Errorf("content %q, want %q", b, "first")
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
		if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
			t.Errorf("%d files in the folder, want 1 (no temp file)", len(ents))
		}
	}
}

// TestCreateStaysInTheFolder: a symlink swapped in for the temporary
// folder or the name is not written through.
func TestCreateStaysInTheFolder(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(dir, "tmp"))
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, "name"))
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Create(r, "tmp", "new", 0o600, false, fill("x")); err == nil {
		t.Error("wrote through a symlinked temporary folder")
	}
	if err := Create(r, ".", "name", 0o600, false, fill("x")); !errors.Is(err, os.ErrExist) {
		t.Errorf("err = %v, want ErrExist for a symlink at the name", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("%d files written outside the folder", len(ents))
	}
}

func TestUnwritableFolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "f")
	if err := Write(p, []byte("x"), 0o600); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}

// TestRemoveStaleOnlyLeftovers: RemoveStale removes a dead writer's
// temporary file and an old one, and nothing else: not a file of another
// name however old, not a symlink or a folder named like a temporary file,
// and nothing at all through a tmpDir that is a symlink (a repository can
// commit spill/.tmp -> ../.., which once removed every file over an hour
// old in the project's folder).
func TestRemoveStaleOnlyLeftovers(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	mk := func(path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, old, old)
	}
	// A pid that no process has: above the kernel's pid_max.
	const dead = ".f.txt.tmp-2147483647-1"
	live := ".g.txt" + tmpMark + strconv.Itoa(os.Getpid()) + "-2"

	tmp := filepath.Join(root, "tmp")
	os.Mkdir(tmp, 0o700)
	for _, name := range []string{dead, live, "README.md", "notes.tmp-1-1"} {
		mk(filepath.Join(tmp, name))
	}
	young := ".h.txt" + tmpMark + strconv.Itoa(os.Getpid()) + "-3"
	os.WriteFile(filepath.Join(tmp, young), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(tmp, ".d.tmp-2147483647-1"), 0o700)
	mk(filepath.Join(root, "target"))
	os.Symlink(filepath.Join(root, "target"), filepath.Join(tmp, ".l.tmp-2147483647-1"))

	project := filepath.Join(root, "project")
	os.Mkdir(project, 0o700)
	for _, name := range []string{"README.md", dead} {
		mk(filepath.Join(project, name))
	}
	os.Symlink("project", filepath.Join(root, "link"))

	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	RemoveStale(r, "tmp")
	RemoveStale(r, "link")
	var left []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			left = append(left, rel)
		}
		return nil
	})
	want := []string{"link", "project", "project/" + dead, "project/README.md", "target", "tmp",
		"tmp/.d.tmp-2147483647-1", "tmp/" + young, "tmp/.l.tmp-2147483647-1", "tmp/README.md", "tmp/notes.tmp-1-1"}
	slices.Sort(left)
	slices.Sort(want)
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("left after RemoveStale (-want +got):\n%s", diff)
	}
}
