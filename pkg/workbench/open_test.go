package workbench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesSymlinks: a workbench that is a symlink, or holds one where
// a folder or INDEX.md should be, is refused, and nothing is written
// through it.
func TestOpenRefusesSymlinks(t *testing.T) {
	tmp := t.TempDir()
	other := filepath.Join(tmp, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "proj", ".flower")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink("../other", link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("Open(symlink) = %v, want ErrSymlink", err)
	}
	if _, err := Make(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("Make(symlink) = %v, want ErrSymlink", err)
	}
	dangling := filepath.Join(tmp, "dangling")
	os.Symlink(filepath.Join(tmp, "nowhere"), dangling)
	if _, err := Make(dangling); err == nil {
		t.Error("Make(dangling symlink) succeeded")
	}
	if _, err := os.Lstat(filepath.Join(tmp, "nowhere")); !os.IsNotExist(err) {
		t.Errorf("Make created the target of a dangling symlink (%v)", err)
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Errorf("wrote %d entries through the symlink", len(ents))
	}

	for _, name := range []string{ScriptsDir, ArtifactsDir, SpillDir, StateDir, IndexFile} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), ".flower")
			w := opened(t, root)
			if err := os.Symlink(other, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
			err := w.Check(ScriptsDir, ArtifactsDir, SpillDir, StateDir, IndexFile)
			if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), name) {
				t.Errorf("Check = %v, want ErrSymlink naming %s", err, name)
			}
			if name != IndexFile {
				if err := w.Folder(name); !errors.Is(err, ErrSymlink) {
					t.Errorf("Folder(%s) = %v, want ErrSymlink", name, err)
				}
			}
			// Even unchecked, the root handle never writes through it.
			if err := w.WriteState("s.shown", []byte("{}")); name == StateDir && err == nil {
				t.Error("WriteState wrote through a symlinked .state")
			}
			if ents, _ := os.ReadDir(other); len(ents) != 0 {
				t.Errorf("wrote %d entries through the symlink", len(ents))
			}
		})
	}
}

// TestOpenKinds: a root or part that exists but is not what it should be.
func TestOpenKinds(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, []byte("x"), 0o600)
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Open(file) = %v", err)
	}
	if _, err := Open(filepath.Join(tmp, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want ErrNotExist", err)
	}
	w := opened(t, filepath.Join(tmp, "wb"))
	os.WriteFile(filepath.Join(w.Path, ScriptsDir), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(w.Path, IndexFile), 0o700)
	if err := w.Check(ScriptsDir); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Check(scripts as a file) = %v", err)
	}
	if err := w.Check(IndexFile); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Check(INDEX.md as a folder) = %v", err)
	}
	if err := w.Check(ArtifactsDir, StateDir); err != nil {
		t.Errorf("Check(missing parts) = %v, want nil", err)
	}
}

// TestMake: a new workbench is 0700 with its .gitignore; an existing folder
// gets nothing added.
func TestMake(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "b", ".flower")
	opened(t, root)
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != DirPerm {
		t.Fatalf("mode %v (%v)", fi.Mode().Perm(), err)
	}
	if b, err := os.ReadFile(filepath.Join(root, gitignoreFile)); err != nil || string(b) != gitignore {
		t.Errorf(".gitignore = %q, %v", b, err)
	}
	mine := t.TempDir()
	opened(t, mine)
	if _, err := os.Lstat(filepath.Join(mine, gitignoreFile)); !os.IsNotExist(err) {
		t.Errorf("Make added a .gitignore to an existing folder (%v)", err)
	}
}

// TestReadCapsAndFIFOs: a FIFO, a device or a huge file under a name the
// workbench reads is an error at once, never a hang or a 2 GB read.
func TestReadCapsAndFIFOs(t *testing.T) {
	w := opened(t, t.TempDir())
	if err := syscall.Mkfifo(filepath.Join(w.Path, IndexFile), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(w.Path, StateDir), 0o700)
	if err := syscall.Mkfifo(filepath.Join(w.Path, StateDir, "s.shown"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(w.Path, StateDir, "z.shown")); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(w.Path, StateDir, "big.shown"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(2 << 30) // sparse: costs no disk
	big.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, tc := range []struct {
			name, want string
			read       func() error
		}{
			{"FIFO INDEX.md", "not a regular file", func() error { _, err := w.read(IndexFile, 1<<20); return err }},
			{"FIFO state", "not a regular file", func() error { _, err := w.ReadState("s.shown"); return err }},
			{"/dev/zero state", "escapes", func() error { _, err := w.ReadState("z.shown"); return err }},
			{"2 GB state", "larger than", func() error { _, err := w.ReadState("big.shown"); return err }},
		} {
			if err := tc.read(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO or a huge file blocked")
	}
}
