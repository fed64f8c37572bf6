package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

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
	p := filepath.Join(dir, "f")
	if err := Write(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFunc(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("content %q after failed write, want %q", b, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the folder, want 1 (no temp file)", len(ents))
	}
}

func TestWriteNewNeverReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteNew(p, 0o600, fill("first")); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(p, 0o600, fill("second"))
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("err = %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Errorf("content %q, want %q", b, "first")
	}
}

func TestUnwritableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: permission bits do not stop writes, using a missing folder instead")
	}
	p := filepath.Join(t.TempDir(), "missing", "f")
	if err := Write(p, []byte("x"), 0o600); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}

func TestWriteNewUnsynced(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteNewUnsynced(p, 0o600, fill("first")); err != nil {
		t.Fatal(err)
	}
	if err := WriteNewUnsynced(p, 0o600, fill("second")); !errors.Is(err, os.ErrExist) {
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
