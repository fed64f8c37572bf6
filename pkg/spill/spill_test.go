package spill

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/pkg/workbench"
)

func TestCounter(t *testing.T) {
	tests := []struct {
		name, text   string
		head         int
		chars, lines int64
		wantHead     string
	}{
		{"empty", "", 3, 0, 0, ""},
		{"one line no newline", "abc", 2, 3, 1, "ab"},
		{"one line with newline", "abc\n", 10, 4, 1, "abc\n"},
		{"two lines", "a\nb", 1, 3, 2, "a"},
		{"blank lines", "\n\n\n", 2, 3, 3, "\n\n"},
		{"two-byte chars at the cut", "ééééé", 2, 5, 1, "éé"},
		{"four-byte chars at the cut", "😀😀😀", 1, 3, 1, "😀"},
		{"mixed", "aé😀b\nc", 3, 6, 2, "aé😀"},
		{"no head", "abc", 0, 3, 1, ""},
		{"head longer than text", "ab", 5, 2, 1, "ab"},
		{"combining mark is its own char", "e\u0301x", 1, 3, 1, "e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every split into two writes must count alike: a character
			// may straddle two writes.
			for cut := 0; cut <= len(tt.text); cut++ {
				var sb strings.Builder
				c := NewCounter(&sb, tt.head)
				io.WriteString(c, tt.text[:cut])
				io.WriteString(c, tt.text[cut:])
				f := c.File("")
				got := struct {
					Chars, Lines int64
					Head, Out    string
				}{f.Chars, f.Lines, f.Head, sb.String()}
				want := struct {
					Chars, Lines int64
					Head, Out    string
				}{tt.chars, tt.lines, tt.wantHead, tt.text}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("split at %d (-want +got):\n%s", cut, diff)
				}
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Bash-toolu_01-stdout", "Bash-toolu_01-stdout"},
		{"Read-t1-file.content", "Read-t1-file.content"},
		{"mcp__srv__x-t/../../etc-a b", "mcp__srv__x-t_.._.._etc-a_b"},
		{"..hidden", "hidden"},
		{"", "spill"},
		{"é", "__"},
		{strings.Repeat("x", 300), strings.Repeat("x", maxNameBytes)},
	}
	for _, tt := range tests {
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// open opens a spill folder for a test.
func open(t *testing.T, dir string) *Folder {
	t.Helper()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func write(f *Folder, hint string, head int, sync bool, text string) (File, error) {
	return f.Write(hint, head, sync, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

func TestWriteNeverOverwrites(t *testing.T) {
	dir := Dir(t.TempDir())
	folder := open(t, dir)
	var paths []string
	for i, text := range []string{"first", "second", "third"} {
		f, err := write(folder, "Bash-t1-stdout", 2, i == 1, text)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(f.Path))
		got, err := os.ReadFile(f.Path)
		if err != nil || string(got) != text {
			t.Fatalf("write %d: file holds %q (%v), want %q", i, got, err, text)
		}
		fi, err := os.Stat(f.Path)
		if err != nil || fi.Mode().Perm() != workbench.FilePerm {
			t.Errorf("mode %v (%v), want %v", fi.Mode().Perm(), err, workbench.FilePerm)
		}
	}
	want := []string{"Bash-t1-stdout.txt", "Bash-t1-stdout-2.txt", "Bash-t1-stdout-3.txt"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, want[0])); string(b) != "first" {
		t.Errorf("first file changed to %q", b)
	}
	if entries := spillEntries(t, dir); len(entries) != 3 {
		t.Errorf("%d entries in the spill folder, want 3 (no temp files left)", len(entries))
	}
}

func TestWriteParallel(t *testing.T) {
	for _, synced := range []bool{true, false} {
		dir := Dir(t.TempDir())
		folder := open(t, dir)
		const n = 32
		var wg sync.WaitGroup
		paths := make([]string, n)
		text := func(i int) string { return strings.Repeat(string(rune('a'+i%26)), 10000+i) }
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := write(folder, "same-hint", 5, synced, text(i))
				if err != nil {
					t.Error(err)
				}
				paths[i] = f.Path
			}()
		}
		wg.Wait()
		seen := map[string]bool{}
		for i, p := range paths {
			if seen[p] {
				t.Fatalf("two writers got %s", p)
			}
			seen[p] = true
			b, err := os.ReadFile(p)
			if err != nil || string(b) != text(i) {
				t.Errorf("%s does not hold writer %d's text (%v)", p, i, err)
			}
		}
		if entries := spillEntries(t, dir); len(entries) != n {
			t.Errorf("%d entries in the spill folder, want %d (no temp files left)", len(entries), n)
		}
	}
}

func TestWriteFillFails(t *testing.T) {
	dir := Dir(t.TempDir())
	folder := open(t, dir)
	boom := errors.New("boom")
	_, err := folder.Write("x", 3, false, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if entries := spillEntries(t, dir); len(entries) != 0 {
		t.Errorf("left %d entries behind", len(entries))
	}
}

// TestWriteThroughTheHandle: a spill folder swapped for a symlink after it
// was opened receives the file, not the symlink's target.
func TestWriteThroughTheHandle(t *testing.T) {
	wb, outside := filepath.Join(t.TempDir(), ".flower"), t.TempDir()
	folder := open(t, Dir(wb))
	if err := os.Rename(Dir(wb), filepath.Join(wb, "moved")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, Dir(wb))
	f, err := write(folder, "x", 1, false, "secret")
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote through the swapped symlink: %v", ents)
	}
	if b, err := os.ReadFile(filepath.Join(wb, "moved", filepath.Base(f.Path))); err != nil || string(b) != "secret" {
		t.Errorf("the opened folder holds %q, %v", b, err)
	}
}

func TestOpen(t *testing.T) {
	t.Run("creates 0700", func(t *testing.T) {
		dir := Dir(filepath.Join(t.TempDir(), "new", ".flower"))
		open(t, dir)
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != workbench.DirPerm {
			t.Errorf("mode %v (%v), want %v", fi.Mode().Perm(), err, workbench.DirPerm)
		}
	})
	t.Run("keeps the mode of a folder it did not make", func(t *testing.T) {
		dir := Dir(t.TempDir())
		os.Mkdir(dir, 0o755)
		os.Chmod(dir, 0o755)
		open(t, dir)
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 {
			t.Errorf("mode %v, want 0755", fi.Mode().Perm())
		}
	})
	t.Run("refuses a symlink", func(t *testing.T) {
		root := t.TempDir()
		os.Mkdir(filepath.Join(root, "elsewhere"), 0o700)
		os.Symlink(filepath.Join(root, "elsewhere"), Dir(root))
		if _, err := Open(Dir(root)); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("err = %v, want a symlink error", err)
		}
	})
	t.Run("refuses a file", func(t *testing.T) {
		root := t.TempDir()
		os.WriteFile(Dir(root), []byte("x"), 0o600)
		if _, err := Open(Dir(root)); err == nil {
			t.Error("err = nil, want an error")
		}
	})
	t.Run("refuses a symlinked workbench", func(t *testing.T) {
		root := t.TempDir()
		other := filepath.Join(root, "other")
		os.Mkdir(other, 0o700)
		wb := filepath.Join(root, ".flower")
		os.Symlink(other, wb)
		if _, err := Open(Dir(wb)); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("err = %v, want a symlink error", err)
		}
		if ents, _ := os.ReadDir(other); len(ents) > 0 {
			t.Errorf("wrote through the symlink: %v", ents)
		}
	})
	t.Run("a new workbench gets its .gitignore", func(t *testing.T) {
		wb := filepath.Join(t.TempDir(), ".flower")
		open(t, Dir(wb))
		if b, err := os.ReadFile(filepath.Join(wb, ".gitignore")); err != nil || !strings.Contains(string(b), "/spill/") {
			t.Errorf(".gitignore = %q, %v", b, err)
		}
		mine := t.TempDir()
		open(t, Dir(mine))
		if _, err := os.Lstat(filepath.Join(mine, ".gitignore")); !os.IsNotExist(err) {
			t.Errorf("a folder that existed got a .gitignore (%v)", err)
		}
	})
	t.Run("root is a file", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "wb")
		os.WriteFile(root, []byte("x"), 0o600)
		if _, err := Open(Dir(root)); err == nil {
			t.Error("err = nil, want an error")
		}
	})
}

// TestIgnoreRule: the spill folder holds its own ignore rule, written when
// it is missing; a folder whose .gitignore is anything else (a rule the
// repository committed, a link, a FIFO, a folder) or that is a repository's
// top folder is refused: nothing is spilled there.
func TestIgnoreRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plant   func(dir string)
		wantErr string
	}{
		{"missing", func(string) {}, ""},
		{"flower's", func(d string) { os.WriteFile(filepath.Join(d, IgnoreFile), []byte(IgnoreRule), 0o644) }, ""},
		{"committed, another rule", func(d string) { os.WriteFile(filepath.Join(d, IgnoreFile), []byte("/INDEX.md\n"), 0o644) }, "not flower's"},
		{"committed, a negation", func(d string) { os.WriteFile(filepath.Join(d, IgnoreFile), []byte(IgnoreRule+"!*.txt\n"), 0o644) }, "not flower's"},
		{"a symlink to flower's rule", func(d string) {
			os.WriteFile(filepath.Join(d, "rule"), []byte(IgnoreRule), 0o600)
			os.Symlink("rule", filepath.Join(d, IgnoreFile))
		}, "not flower's"},
		{"a FIFO", func(d string) { syscall.Mkfifo(filepath.Join(d, IgnoreFile), 0o600) }, "not flower's"},
		{"a folder", func(d string) { os.MkdirAll(filepath.Join(d, IgnoreFile, "x"), 0o700) }, "not flower's"},
		{"a repository's top folder", func(d string) { os.Mkdir(filepath.Join(d, ".git"), 0o700) }, "repository's top folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := Dir(filepath.Join(t.TempDir(), "p", ".flower"))
			os.MkdirAll(dir, 0o755)
			tc.plant(dir)
			before, _ := os.ReadDir(dir)
			f, err := Open(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want %q", err, tc.wantErr)
				}
				if after, _ := os.ReadDir(dir); len(after) != len(before) {
					t.Errorf("the folder changed: %d entries, then %d", len(before), len(after))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			fi, err := os.Lstat(filepath.Join(dir, IgnoreFile))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("the rule is %v, %v", fi, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, IgnoreFile)); string(b) != IgnoreRule {
				t.Errorf("the rule reads %q", b)
			}
		})
	}
}

func TestText(t *testing.T) {
	f := File{Path: "/w/.flower/spill/Bash-t-stdout.txt", Chars: 108894, Lines: 20000, Head: "1\n2\n"}
	want := "[Spilled to a file to keep it out of context: 108894 characters, 20000 lines, in full at /w/.flower/spill/Bash-t-stdout.txt. " +
		"Use Read on that file with offset/limit to see the rest. The first 4 characters follow.]\n1\n2\n"
	if diff := cmp.Diff(want, f.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	f.Head, f.Note = "", "A note."
	want = "[Spilled to a file to keep it out of context: 108894 characters, 20000 lines, in full at /w/.flower/spill/Bash-t-stdout.txt. " +
		"Use Read on that file with offset/limit to see the rest. A note.]"
	if diff := cmp.Diff(want, f.Text()); diff != "" {
		t.Errorf("no head (-want +got):\n%s", diff)
	}
}

// FuzzCounter: any bytes, written in two pieces, are passed through intact
// and counted as if written at once; the head is a prefix of whole characters.
func FuzzCounter(f *testing.F) {
	f.Add("aé😀b\nc", 3, 2)
	f.Add("\xff\x80abc", 1, 1)
	f.Add("", 0, 0)
	f.Fuzz(func(t *testing.T, text string, head, cut int) {
		head = max(0, head%64)
		if len(text) > 0 {
			cut = (cut%len(text) + len(text)) % len(text)
		} else {
			cut = 0
		}
		var sb strings.Builder
		c := NewCounter(&sb, head)
		io.WriteString(c, text[:cut])
		io.WriteString(c, text[cut:])
		f := c.File("")
		if sb.String() != text {
			t.Fatal("text changed on the way through")
		}
		if utf8.ValidString(text) && f.Chars != int64(utf8.RuneCountInString(text)) {
			t.Fatalf("chars %d, want %d", f.Chars, utf8.RuneCountInString(text))
		}
		if !strings.HasPrefix(text, f.Head) {
			t.Fatalf("head %q is not a prefix", f.Head)
		}
		if utf8.ValidString(text) {
			if n := utf8.RuneCountInString(f.Head); n != min(head, utf8.RuneCountInString(text)) {
				t.Fatalf("head has %d characters, want %d", n, min(head, utf8.RuneCountInString(text)))
			}
		}
	})
}

// TestPointerRoundTrip: what Pointer writes, ParsePointers reads back, in
// the singular and the plural, with a note and a head after it.
func TestPointerRoundTrip(t *testing.T) {
	for _, f := range []File{
		{Path: "/w/.flower/spill/Bash-t-stdout.txt", Chars: 108894, Lines: 20000, Head: "1\n2\n"},
		{Path: "/w/spill/a b.txt", Chars: 1, Lines: 1, Head: "x"},
		{Path: "/w/spill/c.txt", Chars: 4001, Lines: 0, Note: "A note. With 3 lines, in full at nowhere."},
	} {
		got := ParsePointers("before\n" + f.Text() + "\nafter")
		want := []File{{Path: f.Path, Chars: f.Chars, Lines: f.Lines}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f.Text(), diff)
		}
	}
}

// spillEntries lists dir but its folder of temporary files, which must be
// empty: every writer removed its own.
func spillEntries(t *testing.T, dir string) []string {
	t.Helper()
	if temps, _ := os.ReadDir(filepath.Join(dir, TmpDir)); len(temps) != 0 {
		t.Errorf("%d temporary files left", len(temps))
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != TmpDir && e.Name() != IgnoreFile {
			names = append(names, e.Name())
		}
	}
	return names
}
