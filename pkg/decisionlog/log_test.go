package decisionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/pkg/hook"
)

func payload(t *testing.T, v map[string]any) *hook.Payload {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p, err := hook.ParsePayload(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t *testing.T, path string) []Entry {
	t.Helper()
	var out []Entry
	bad, err := Read(path, func(e Entry) { out = append(out, e) })
	if err != nil || bad != 0 {
		t.Fatalf("Read: %v, %d bad lines", err, bad)
	}
	return out
}

// TestRecord: a decision is one line with the payload's fields, the
// verdict, the reason and the sizes, and the start of the input only.
func TestRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "flower", "decisions.jsonl")
	var stderr bytes.Buffer
	cli := hook.NewCLI("delegate-guard", "", nil, nil, &stderr)
	secret := "curl -H 'Authorization: Bearer " + strings.Repeat("s", 40) + "' https://example.invalid/" + strings.Repeat("x", 100)
	p := payload(t, map[string]any{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"cwd": "/w", "tool_input": map[string]string{"command": secret}})
	r := New(Settings{File: path, MaxBytes: 1 << 20, Project: "/w"}, cli, p)
	r.Record("deny", "curl: not on the glance table", Sizes{})
	if stderr.Len() != 0 {
		t.Fatalf("stderr: %s", stderr.String())
	}
	got := readAll(t, path)
	if len(got) != 1 {
		t.Fatalf("%d entries, want 1", len(got))
	}
	e := got[0]
	if e.Time == "" {
		t.Error("no time")
	}
	e.Time = ""
	want := Entry{Session: "s1", Project: "/w", Hook: "delegate-guard", Event: "PreToolUse", Tool: "Bash",
		Verdict: "deny", Reason: "curl: not on the glance table", Input: secret[:maxInput] + "…",
		Sizes: Sizes{Payload: len(p.Raw), Input: len(secret)}}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), secret[maxInput:]) {
		t.Error("the log holds the command past its first characters")
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[fi.IsDir()]; fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}

// TestRecordOff: the zero Settings is no recorder, and a nil recorder
// records nothing.
func TestRecordOff(t *testing.T) {
	t.Parallel()
	p := payload(t, map[string]any{"hook_event_name": "PreToolUse"})
	r := New(Settings{}, hook.NewCLI("x", "", nil, nil, nil), p)
	if r != nil {
		t.Fatal("a recorder without a file")
	}
	r.Record("deny", "x", Sizes{}) // no panic
}

// TestRecordLongReason: a line stays under maxLine whatever the reason.
func TestRecordLongReason(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log.jsonl")
	p := payload(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"session_id": strings.Repeat("\u2028", 3000), "tool_input": map[string]string{"command": strings.Repeat("\x01", 5000)}})
	var stderr bytes.Buffer
	New(Settings{File: path, MaxBytes: 1 << 20}, hook.NewCLI("x", "", nil, nil, &stderr), p).Record("deny", strings.Repeat("\x02", 5000), Sizes{})
	raw, _ := os.ReadFile(path)
	if len(raw) >= maxLine && stderr.Len() == 0 {
		t.Errorf("a line of %d bytes", len(raw))
	}
}

// TestRecordCannotWrite: a log that cannot be written says so in one
// stderr line, and that is all.
func TestRecordCannotWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "log.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, filepath.Join(file, "log.jsonl")} {
		var stderr bytes.Buffer
		p := payload(t, map[string]any{"hook_event_name": "PreToolUse"})
		New(Settings{File: path, MaxBytes: 1 << 20}, hook.NewCLI("spill-guard", "", nil, nil, &stderr), p).Record("pass", "x", Sizes{})
		if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "spill-guard: warning: decision log: ") {
			t.Errorf("%s: stderr %q, want one warning line", path, got)
		}
	}
}

// TestAppendParallel: hooks appending at once, with the log rotating
// under them, lose no line and break none, and the log stays bounded.
func TestAppendParallel(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log.jsonl")
	const writers, each, maxBytes = 16, 200, 64 << 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				line := fmt.Sprintf(`{"hook":"h","verdict":"pass","reason":"w%02d-%04d %s"}`+"\n", w, i, strings.Repeat("x", 200))
				if err := Append(path, []byte(line), maxBytes); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range []string{path + ".1", path} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		if fi.Size() > maxBytes+writers*300 {
			t.Errorf("%s holds %d bytes, past %d and a line a writer", p, fi.Size(), maxBytes)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("a broken line in %s: %q", p, sc.Text())
			}
			seen[e.Reason[:8]] = true
		}
		f.Close()
	}
	// Rotation keeps one old file: the lines of the files before it are
	// gone, the ones kept are whole. At least the last file's worth is
	// there, and every line of the two files is distinct.
	if len(seen) < maxBytes/300 {
		t.Errorf("%d lines kept", len(seen))
	}
}

// TestRotate: past MaxBytes the log moves to .1 (replacing the older
// one), and reading gives .1 then the log.
func TestRotate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log.jsonl")
	line := func(i int) []byte { return []byte(fmt.Sprintf(`{"hook":"h","verdict":"pass","reason":"%d"}`+"\n", i)) }
	size := int64(len(line(0)))
	for i := range 7 {
		if err := Append(path, line(i), 3*size); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, e := range readAll(t, path) {
		got = append(got, e.Reason)
	}
	if diff := cmp.Diff([]string{"3", "4", "5", "6"}, got); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}

// TestReadBadLines: lines that are not decisions are counted and skipped.
func TestReadBadLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log.jsonl")
	content := `{"hook":"h","verdict":"pass","reason":"a"}` + "\nnot json\n{}\n" + strings.Repeat("x", 5*maxLine) + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	bad, err := Read(path, func(Entry) { n++ })
	if err != nil || n != 1 || bad != 3 {
		t.Errorf("Read: %d entries, %d bad, %v; want 1, 3, nil", n, bad, err)
	}
}
