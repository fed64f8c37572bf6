package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/internal/spillguard"
)

func TestSpillGuardGolden(t *testing.T) { runGolden(t, "spill-guard", spillguard.Main) }

func TestSpillGuardBadStdin(t *testing.T) {
	checkBadStdin(t, "spill-guard", spillguard.Main, "--workbench", t.TempDir())
}

// spillPayload is a PostToolUse payload for tool with the raw tool_response.
func spillPayload(tool, id, resp string) []byte {
	return []byte(`{"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"` + tool +
		`","tool_input":{},"tool_use_id":"` + id + `","tool_response":` + resp + `}`)
}

// pointerPath finds the spill file a pointer names.
var pointerPath = regexp.MustCompile(`in full at (/\S+\.txt)\. Use Read`)

// runSpill runs spill-guard on payload and returns the exit code, the
// updatedToolOutput (nil when nothing was printed) and stderr.
func runSpill(t *testing.T, payload []byte, args ...string) (int, json.RawMessage, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := spillguard.Main(args, bytes.NewReader(payload), &stdout, &stderr)
	if stdout.Len() == 0 {
		return code, nil, stderr.String()
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string          `json:"hookEventName"`
			UpdatedToolOutput json.RawMessage `json:"updatedToolOutput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v: %.300s", err, stdout.String())
	}
	if !utf8.Valid(stdout.Bytes()) {
		t.Fatal("stdout is not valid UTF-8")
	}
	if out.HookSpecificOutput.HookEventName != "PostToolUse" {
		t.Fatalf("hookEventName %q", out.HookSpecificOutput.HookEventName)
	}
	return code, out.HookSpecificOutput.UpdatedToolOutput, stderr.String()
}

// checkSpilled compares the tool_response before and after: every value
// must be equal, except strings over threshold reached through objects,
// which must be pointers to a file holding the original string byte for
// byte. It returns the spill files named.
func checkSpilled(t *testing.T, before, after any, threshold int, path string) []string {
	t.Helper()
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			t.Fatalf("%s: object became %T", path, after)
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d keys became %d", path, len(b), len(a))
		}
		var files []string
		for k, v := range b {
			files = append(files, checkSpilled(t, v, a[k], threshold, path+"."+k)...)
		}
		return files
	case string:
		if utf8.RuneCountInString(b) <= threshold {
			if diff := cmp.Diff(before, after); diff != "" {
				t.Fatalf("%s: a string under the threshold changed (-want +got):\n%s", path, diff)
			}
			return nil
		}
		a, ok := after.(string)
		if !ok {
			t.Fatalf("%s: string became %T", path, after)
		}
		m := pointerPath.FindStringSubmatch(a)
		if m == nil || !strings.HasPrefix(a, "[Spilled") {
			t.Fatalf("%s: not a pointer: %.200q", path, a)
		}
		got, err := os.ReadFile(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal([]byte(b), got) {
			t.Fatalf("%s: spill file %s differs from the original field (%d bytes, want %d)", path, m[1], len(got), len(b))
		}
		return []string{m[1]}
	default:
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("%s: changed (-want +got):\n%s", path, diff)
		}
		return nil
	}
}

// TestSpillGuardReadsBack spills many shapes and reads every spill file back.
func TestSpillGuardReadsBack(t *testing.T) {
	long := func(unit string, n int) string { return strings.Repeat(unit, n) }
	tests := []struct {
		name, tool, resp string
		files            int
	}{
		{"bash ascii", "Bash", fmt.Sprintf(`{"stdout":%q,"stderr":"","interrupted":false}`, long("line\n", 900)), 1},
		{"bash multi-byte", "Bash", `{"stdout":"` + long("é😀日\\n", 1500) + `","stderr":"","interrupted":false}`, 1},
		{"bash stderr too", "Bash", fmt.Sprintf(`{"stdout":%q,"stderr":%q}`, long("o", 4001), long("e", 5000)), 2},
		{"escapes", "Bash", `{"stdout":"` + long(`\"q\" \\ \t \u00e9 \ud83d\ude00 \ud800 \/`, 300) + `"}`, 1},
		{"read text", "Read", `{"type":"text","file":{"filePath":"/a","content":"` + long("text line\\n", 500) + `","numLines":500}}`, 1},
		{"mcp string", "mcp__x__y", `"` + long("mcp ", 2000) + `"`, 1},
		{"mcp nested", "mcp__x__y", `{"a":{"b":{"c":"` + long("c", 4500) + `"},"d":"` + long("d", 4100) + `"},"arr":["` + long("z", 9000) + `"]}`, 2},
		{"over by one", "WebFetch", `{"result":"` + long("r", 4001) + `","code":200}`, 1},
		{"at threshold", "WebFetch", `{"result":"` + long("é", 4000) + `","code":200}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wb := t.TempDir()
			code, updated, stderr := runSpill(t, spillPayload(tt.tool, "toolu_x", tt.resp), "--workbench", wb)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if tt.files == 0 {
				if updated != nil {
					t.Fatalf("printed %s, want nothing", updated)
				}
				return
			}
			var before, after any
			if err := json.Unmarshal([]byte(tt.resp), &before); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(updated, &after); err != nil {
				t.Fatal(err)
			}
			files := checkSpilled(t, before, after, spillguard.DefaultThreshold, "tool_response")
			if len(files) != tt.files {
				t.Errorf("%d spill files, want %d", len(files), tt.files)
			}
			for _, f := range files {
				fi, err := os.Stat(f)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v (%v), want 0600", f, fi.Mode().Perm(), err)
				}
			}
			if fi, err := os.Stat(filepath.Join(wb, "spill")); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("spill folder mode %v (%v), want 0700", fi.Mode().Perm(), err)
			}
		})
	}
}

// TestSpillGuardConcurrent runs 32 hooks at once on one workbench, as Claude
// Code runs the hooks of parallel tool calls: half with one tool_use_id (a
// retried call), half with their own. Every run gets its own intact file.
func TestSpillGuardConcurrent(t *testing.T) {
	const n = 32
	wb := t.TempDir()
	var wg sync.WaitGroup
	outputs := make([]string, n)
	payloads := make([][]byte, n)
	for i := range n {
		id := "toolu_same"
		if i%2 == 1 {
			id = fmt.Sprintf("toolu_%02d", i)
		}
		stdout := strings.Repeat(fmt.Sprintf("run %02d\n", i), 2000)
		outputs[i] = stdout
		payloads[i] = spillPayload("Bash", id, fmt.Sprintf(`{"stdout":%q,"stderr":"","interrupted":false}`, stdout))
	}
	files := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			if code := spillguard.Main([]string{"--workbench", wb}, bytes.NewReader(payloads[i]), &stdout, &stderr); code != 0 {
				t.Errorf("run %d: exit %d: %s", i, code, stderr.String())
				return
			}
			var out struct {
				HookSpecificOutput struct {
					UpdatedToolOutput struct{ Stdout string } `json:"updatedToolOutput"`
				} `json:"hookSpecificOutput"`
			}
			json.Unmarshal(stdout.Bytes(), &out)
			m := pointerPath.FindStringSubmatch(out.HookSpecificOutput.UpdatedToolOutput.Stdout)
			if m == nil {
				t.Errorf("run %d: no pointer in %.200q", i, out.HookSpecificOutput.UpdatedToolOutput.Stdout)
				return
			}
			files[i] = m[1]
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for i, f := range files {
		if j, dup := seen[f]; dup {
			t.Errorf("runs %d and %d both point at %s", j, i, f)
		}
		seen[f] = i
		got, err := os.ReadFile(f)
		if err != nil || string(got) != outputs[i] {
			t.Errorf("run %d: %s does not hold its output (%v)", i, f, err)
		}
	}
	entries, err := filepath.Glob(filepath.Join(wb, "spill", "*.txt"))
	if err != nil || len(entries) != n {
		t.Errorf("%d spill files (%v), want %d", len(entries), err, n)
	}
	if temps, _ := os.ReadDir(filepath.Join(wb, "spill", ".tmp")); len(temps) != 0 {
		t.Errorf("%d temporary files left", len(temps))
	}
}

// TestSpillGuardSymlinks: a spill/ that is a symlink is refused; a Read of a
// spill file through a symlink is still a read of a spill file.
func TestSpillGuardSymlinks(t *testing.T) {
	resp := fmt.Sprintf(`{"stdout":%q,"stderr":""}`, strings.Repeat("x\n", 3000))
	t.Run("spill is a symlink", func(t *testing.T) {
		root := t.TempDir()
		wb := filepath.Join(root, "wb")
		os.MkdirAll(filepath.Join(root, "elsewhere"), 0o700)
		os.MkdirAll(wb, 0o700)
		os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(wb, "spill"))
		code, updated, stderr := runSpill(t, spillPayload("Bash", "t1", resp), "--workbench", wb)
		if code != 1 || updated != nil || !strings.HasPrefix(stderr, "spill-guard: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "symlink") {
			t.Errorf("exit %d, output %s, stderr %q: want exit 1, nothing, one line about the symlink", code, updated, stderr)
		}
		if entries, _ := os.ReadDir(filepath.Join(root, "elsewhere")); len(entries) != 0 {
			t.Errorf("wrote %d files through the symlink", len(entries))
		}
	})
	t.Run("read through a symlink", func(t *testing.T) {
		root := t.TempDir()
		wb := filepath.Join(root, "wb")
		os.MkdirAll(filepath.Join(wb, "spill"), 0o700)
		os.WriteFile(filepath.Join(wb, "spill", "a.txt"), []byte("x"), 0o600)
		os.Symlink(filepath.Join(wb, "spill"), filepath.Join(root, "peek"))
		read := fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"t2","tool_response":{"type":"text","file":{"filePath":"x","content":%q}}}`,
			root, filepath.Join(root, "peek", "a.txt"), strings.Repeat("x\n", 3000))
		code, updated, stderr := runSpill(t, []byte(read), "--workbench", wb)
		if code != 0 || updated != nil {
			t.Errorf("exit %d, output %.100s, stderr %q: want the read untouched", code, updated, stderr)
		}
	})
	t.Run("spill/.tmp is a symlink", func(t *testing.T) {
		// A repository commits .flower/spill/.tmp -> ../..: the cleanup of
		// killed writers' leftovers must not list the project folder and
		// remove its files.
		project := t.TempDir()
		wb := filepath.Join(project, ".flower")
		os.MkdirAll(filepath.Join(wb, "spill"), 0o700)
		os.Symlink("../..", filepath.Join(wb, "spill", ".tmp"))
		old := time.Now().Add(-48 * time.Hour)
		for _, name := range []string{"README.md", ".README.md.tmp-2147483647-1"} {
			os.WriteFile(filepath.Join(project, name), []byte("the project's own"), 0o644)
			os.Chtimes(filepath.Join(project, name), old, old)
		}
		code, updated, stderr := runSpill(t, spillPayload("Bash", "t4", resp), "--workbench", wb)
		if code != 1 || updated != nil || strings.Count(stderr, "\n") != 1 {
			t.Errorf("exit %d, output %s, stderr %q: want exit 1, nothing, one line", code, updated, stderr)
		}
		for _, name := range []string{"README.md", ".README.md.tmp-2147483647-1"} {
			if _, err := os.Stat(filepath.Join(project, name)); err != nil {
				t.Errorf("the project's %s: %v", name, err)
			}
		}
	})
	t.Run("workbench root is a symlink", func(t *testing.T) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "real"), 0o700)
		os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "wb"))
		code, updated, stderr := runSpill(t, spillPayload("Bash", "t3", resp), "--workbench", filepath.Join(root, "wb"))
		if code != 0 || updated == nil {
			t.Errorf("exit %d, stderr %q: want a spill through a symlinked root", code, stderr)
		}
	})
}

// FuzzSpill: any valid tool_response gives exit 0 or 1 and, when something
// is printed, valid JSON in which every value equals the input's except
// strings over the threshold, which point at files holding them whole.
func FuzzSpill(f *testing.F) {
	for _, s := range []string{
		`{"stdout":"aaaaaaaaaaaaaaaaaaaaaaaa","stderr":"","interrupted":false}`,
		`{"type":"text","file":{"filePath":"/a","content":"é😀日é😀日é😀日é😀日é😀日é😀日\n"}}`,
		`{"query":"q","results":["text text text text text text",{"content":[{"title":"t"}]}]}`,
		`"an MCP string that is long enough"`,
		`[{"type":"text","text":"block block block block block"}]`,
		`{"a":{"b":{"c":"deep deep deep deep deep deep"}},"a":"dup"}`,
		`{"\u0061":"escaped key escaped key escaped key","k\"q":"quote in key quote in key",":x":"colon colon colon colon colon","":"empty key empty key empty key"}`,
		`{"esc":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800\udc00x\ud800\u0041\udc00 and more"}`,
		`{"n":null,"t":true,"num":-1.5e3}`,
	} {
		f.Add(s)
	}
	wb := f.TempDir()
	f.Fuzz(func(t *testing.T, resp string) {
		if !json.Valid([]byte(resp)) || !utf8.ValidString(resp) || strings.TrimSpace(resp) == "" {
			return
		}
		const threshold = 20
		payload := spillPayload("mcp__fuzz__tool", "toolu_fuzz", resp)
		var stdout, stderr bytes.Buffer
		code := spillguard.Main([]string{"--workbench", wb, "--threshold", "20", "--head", "5"}, bytes.NewReader(payload), &stdout, &stderr)
		if code != 0 && code != 1 {
			t.Fatalf("exit %d", code)
		}
		if code == 1 {
			if stdout.Len() != 0 {
				t.Fatal("exit 1 with output")
			}
			return
		}
		if stdout.Len() == 0 {
			return
		}
		_, updated, _ := runSpill(t, payload, "--workbench", wb, "--threshold", "20", "--head", "5")
		var before, after any
		if err := json.Unmarshal([]byte(resp), &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(updated, &after); err != nil {
			t.Fatalf("updatedToolOutput is not JSON: %v", err)
		}
		if _, isArray := before.([]any); isArray {
			t.Fatal("an array was replaced")
		}
		checkSpilled(t, dedup([]byte(resp), before), dedup(updated, after), threshold, "tool_response")
	})
}

// dedup re-reads an object so that a repeated key keeps its first value, as
// the hook does (encoding/json keeps the last).
func dedup(raw []byte, v any) any {
	if _, ok := v.(map[string]any); !ok {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // {
	first := map[string]any{}
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var val json.RawMessage
		dec.Decode(&val)
		if _, seen := first[key]; seen {
			continue
		}
		var x any
		json.Unmarshal(val, &x)
		first[key] = dedup(val, x)
	}
	return first
}

// buildSpillGuard builds the spill-guard binary once for the tests that
// need a process of their own (signals, a closed stdout).
var buildSpillGuard = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "spill-guard-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "spill-guard")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/spill-guard").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func spillGuardBinary(t *testing.T) string {
	t.Helper()
	bin, err := buildSpillGuard()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// spillLeft lists the spill files and the temporary files left in the
// workbench wb.
func spillLeft(wb string) []string {
	files, _ := filepath.Glob(filepath.Join(wb, "spill", "*.txt"))
	temps, _ := filepath.Glob(filepath.Join(wb, "spill", ".tmp", "*"))
	return append(files, temps...)
}

// persistedPayload is a Bash payload whose whole output, size bytes, is in
// a sparse file Claude Code's way (persistedOutputPath): copying it takes
// long enough to stop spill-guard midway.
func persistedPayload(t *testing.T, size int64) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b1.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return spillPayload("Bash", "toolu_kill", fmt.Sprintf(`{"stdout":"%s","stderr":"","interrupted":false,"persistedOutputPath":%q,"persistedOutputSize":%d}`,
		strings.Repeat("x", 30000), path, size))
}

// TestSpillGuardKilledMidway: Claude Code kills a hook at its timeout or
// when the user presses Esc. SIGTERM (and SIGINT, SIGHUP) leave nothing;
// SIGKILL leaves the temporary file, which the next spill removes since
// its writer is gone (issue 20).
func TestSpillGuardKilledMidway(t *testing.T) {
	bin := spillGuardBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			wb := t.TempDir()
			cmd := exec.Command(bin, "--workbench", wb)
			cmd.Stdin = bytes.NewReader(persistedPayload(t, 4<<30))
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the copy has begun, then stop it.
			deadline := time.Now().Add(20 * time.Second)
			for len(spillLeft(wb)) == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			if stdout.Len() != 0 {
				t.Errorf("printed %q", stdout.String())
			}
			left := spillLeft(wb)
			if sig != syscall.SIGKILL {
				if code := cmd.ProcessState.ExitCode(); code != 1 || len(left) != 0 {
					t.Errorf("exit %d, left %q; want exit 1 and nothing left", code, left)
				}
				return
			}
			if len(left) != 1 {
				t.Fatalf("after SIGKILL: %q left, want the temporary file", left)
			}
			// The next spill, of another call, removes the leftover.
			code, _, stderr := runSpill(t, spillPayload("Bash", "toolu_next", `{"stdout":"`+strings.Repeat("y", 5000)+`"}`), "--workbench", wb)
			left = spillLeft(wb)
			if code != 0 || len(left) != 1 || filepath.Base(left[0]) != "Bash-toolu_next-stdout.txt" {
				t.Errorf("the next run: exit %d (%s), left %q; want only its own spill file", code, stderr, left)
			}
		})
	}
}

// TestSpillGuardStdoutClosed: when the pointer cannot be printed (stdout
// closed, or a pipe nobody reads), the spill file it would name goes too,
// and the exit code says the hook failed (issue 20).
func TestSpillGuardStdoutClosed(t *testing.T) {
	bin := spillGuardBinary(t)
	payload := spillPayload("Bash", "toolu_closed", `{"stdout":"`+strings.Repeat("z", 5000)+`"}`)
	t.Run("fd 1 closed", func(t *testing.T) {
		wb := t.TempDir()
		cmd := exec.Command("sh", "-c", `exec "$0" --workbench "$1" >&-`, bin, wb)
		cmd.Stdin = bytes.NewReader(payload)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		if code, left := cmd.ProcessState.ExitCode(), spillLeft(wb); code != 1 || len(left) != 0 {
			t.Errorf("exit %d (%s), left %q; want exit 1 and nothing left", code, stderr.String(), left)
		}
	})
	t.Run("pipe without a reader", func(t *testing.T) {
		wb := t.TempDir()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(bin, "--workbench", wb)
		cmd.Stdin = bytes.NewReader(payload)
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		w.Close()
		if code, left := cmd.ProcessState.ExitCode(), spillLeft(wb); code != 1 || len(left) != 0 {
			t.Errorf("exit %d (%s), left %q; want exit 1 and nothing left", code, stderr.String(), left)
		}
	})
}
