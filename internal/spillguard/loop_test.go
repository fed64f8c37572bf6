package spillguard

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/tests/cputime"
)

// TestNamesSpillFile runs glances from a project folder whose workbench is
// .flower, with one spill file and a symlink "peek" to the spill folder.
func TestNamesSpillFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	proj := filepath.Join(home, "proj")
	root := filepath.Join(proj, ".flower")
	dir := filepath.Join(root, "spill")
	for _, d := range []string{dir, filepath.Join(proj, "src")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Bash-toolu_03-stdout.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(proj, "peek")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "Bash-toolu_03-stdout.txt")

	tests := []struct {
		name, cmd string
		cwd, root string // default proj and root
		want      bool
	}{
		{name: "absolute", cmd: "cat " + file, want: true},
		{name: "relative to cwd", cmd: "cat .flower/spill/Bash-toolu_03-stdout.txt", want: true},
		{name: "the folder itself", cmd: "ls .flower/spill", want: false},
		{name: "out again", cmd: "cat .flower/spill/../INDEX.md", want: false},
		{name: "beside", cmd: "cat .flower/INDEX.md src/a.go", want: false},
		{name: "through a symlink", cmd: "head -5 peek/Bash-toolu_03-stdout.txt", want: true},
		{name: "quoted", cmd: `cat '.flower/spill/a b.txt'`, want: true},
		{name: "flag value", cmd: "grep --file=.flower/spill/p.txt x src/a.go", want: true},
		{name: "after --", cmd: "head -c 100 -- .flower/spill/x", want: true},
		{name: "redirect", cmd: "wc -l < .flower/spill/x", want: true},
		{name: "home", cmd: "cat ~/proj/.flower/spill/x", cwd: "/", want: true},
		{name: "a variable", cmd: "cat $D/x", want: false},

		{name: "star", cmd: "cat .flower/spill/*", want: true},
		{name: "name prefix", cmd: "cat .flower/spill/Bash-*-stdout.txt", want: true},
		{name: "class", cmd: "cat .flower/spill/Bash-[a-z]*", want: true},
		{name: "extglob", cmd: "cat .flower/spill/@(a|b).txt", want: true},
		{name: "brace", cmd: "cat .flower/spill/{a,b}.txt", want: true},
		{name: "brace over the folder", cmd: "cat {.flower,x}/spill/a.txt", want: true},
		{name: "brace elsewhere", cmd: "cat src/{a,b}.go", want: false},
		{name: "too many braces", cmd: "cat {1..100000}/x", want: true},
		{name: "wildcard folder", cmd: "cat .flower/*/x.txt", want: true},
		{name: "star star", cmd: "cat */*/*", want: true},
		{name: "globstar", cmd: "grep -n x **/*.txt", want: true},
		{name: "two levels, not deep enough", cmd: "grep -n x */*.go", want: false},
		{name: "listing the workbench", cmd: "ls .flower/*", want: false},
		{name: "wildcard not matching", cmd: "cat .flower/s*x/a", want: false},
		{name: "quoted wildcard is a name", cmd: `cat '.flower/s*'/x`, want: false},
		{name: "unquoted wildcard", cmd: "cat .flower/s*/x", want: true},
		{name: "flag glob", cmd: "grep -rn --include=*.go x src", want: false},

		{name: "cd then relative", cmd: "cd .flower && cat spill/Bash-toolu_03-stdout.txt", root: "/elsewhere", want: true},
		{name: "cd into spill", cmd: "cd .flower/spill; head -50 *.txt", root: "/elsewhere", want: true},
		{name: "cd chain", cmd: "cd .flower && cd spill && cat x", root: "/elsewhere", want: true},
		{name: "cd options", cmd: "cd -P -- .flower/spill && cat x", root: "/elsewhere", want: true},
		{name: "cd absolute", cmd: "cd " + dir + " && cat x", cwd: "/", root: "/elsewhere", want: true},
		{name: "cd to a variable", cmd: "cd $D && cat spill/x", root: "/elsewhere", want: false},
		{name: "cd back", cmd: "cd - && cat spill/x", root: "/elsewhere", want: false},
		{name: "cd elsewhere", cmd: "cd src && cat a.go", want: false},
		{name: "cd to a brace word", cmd: "cd {src,x} && cat .flower/spill/x", want: true}, // panicked in syntax.Walk (FuzzNamesSpillFile)
		{name: "relative to the workbench root", cmd: "cat spill/Bash-toolu_03-stdout.txt", cwd: "/", want: true},
		{name: "no cwd", cmd: "cat spill/x", cwd: "", want: true},
		{name: "prefix relative to the workbench root", cmd: "cat spill/*", cwd: "/", want: true},
		{name: "wildcard folder relative to the workbench root", cmd: "cat */*.txt", cwd: "/", want: false},

		{name: "not shell", cmd: "cat 'unterminated", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd, r := proj, root
			if tt.cwd != "" || tt.name == "no cwd" {
				cwd = tt.cwd
			}
			if tt.root != "" {
				r = tt.root
			}
			if got := namesSpillFile(tt.cmd, cwd, r, dir); got != tt.want {
				t.Errorf("namesSpillFile(%q, cwd %q, root %q) = %v, want %v", tt.cmd, cwd, r, got, tt.want)
			}
		})
	}
}

// FuzzNamesSpillFile: any command gives an answer without panicking, the
// same one twice.
func FuzzNamesSpillFile(f *testing.F) {
	for _, s := range []string{
		"cat .flower/spill/*", "cd .flower && cat spill/x", "cat {a,b}/{1..3}/x", "cat '.flower/s*'/x",
		"cat ~/x", "cd -P -- a && cd b && cat c", "grep --file=.flower/spill/p x", `cat "a\"b" a\*b [`,
	} {
		f.Add(s)
	}
	const cwd, root, dir = "/p", "/p/.flower", "/p/.flower/spill"
	f.Fuzz(func(t *testing.T, cmd string) {
		if namesSpillFile(cmd, cwd, root, dir) != namesSpillFile(cmd, cwd, root, dir) {
			t.Fatal("two answers")
		}
	})
}

// longCommand is one of the repros of issues 13 and 20: commands that cost
// spill-guard's loop check seconds to minutes (a folder resolved again for
// every word and every cd, every ancestor of a missing path resolved in
// turn) while the glance table took a tenth of a second. The command is
// head, unit n times, then tail.
type longCommand struct {
	name, head, unit, tail string
	n                      int
}

func (c longCommand) cmd(n int) string { return c.head + strings.Repeat(c.unit, n) + c.tail }

var longCommands = []longCommand{
	{"1000 cds", "", "cd a && ", "ls", 1000},
	{"30,000 slashes", "cat ", "/", "", 30000},
	{"a word of 30,000 slashes, a/a/…", "cat ", "a/", "", 15000},
	{"sed, 10^5 commands", "sed -n '", "1p;", "' f", 100000},
	{"sed, 10^5 -e", "sed -n", " -e 1p", " f", 100000},
	{"find, 10^5 predicates", "find .", " -name a -o", " -name b", 100000},
	{"grep, 10^5 -e", "grep", " -e p", " f", 100000},
	{"rg, 10^5 --glob", "rg", " --glob '*.go'", " x", 100000},
	{"10^5 words of comment", "ls # ", "a ", "", 100000},
	{"10^5 backslash-newlines", "ls", " a\\\n", "", 100000},
}

// TestSpillGuardBoundedOnLongCommands runs spill-guard on a Bash result of
// 5,000 characters from each long command: each finishes in well under a
// second with bounded memory. None of them reads a spill file, so the
// output is spilled, but after the 1,000 cds, where the check answers "it
// may" at once, past the folders it follows.
func TestSpillGuardBoundedOnLongCommands(t *testing.T) {
	proj := t.TempDir()
	if err := os.Mkdir(filepath.Join(proj, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	output := strings.Repeat("0123456789\n", 500)
	for _, tc := range longCommands {
		t.Run(tc.name, func(t *testing.T) {
			payload, err := json.Marshal(map[string]any{
				"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1", "cwd": proj,
				"tool_input": map[string]string{"command": tc.cmd(tc.n)}, "tool_response": map[string]any{"stdout": output, "stderr": ""},
			})
			if err != nil {
				t.Fatal(err)
			}
			wb := filepath.Join(t.TempDir(), "wb")
			var stdout, stderr bytes.Buffer
			took, alloc := measure(func() {
				if code := Main([]string{"--workbench", wb}, bytes.NewReader(payload), &stdout, &stderr); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
			})
			if spilled := strings.Contains(stdout.String(), "Spilled to a file"); spilled != (tc.name != "1000 cds") {
				t.Errorf("spilled = %v, stdout %.200q", spilled, stdout.String())
			}
			checkBounded(t, took, alloc, len(payload))
		})
	}
}

// TestNamesSpillFileBounded asks the loop check itself about the long
// commands, made as long as the glance table still reads (it refuses
// longer ones before spill-guard gets to them), alone and with a last word
// that names a spill file, which is found: past the check's caps (1,000
// cds) the answer is "it may" at once, and in a comment a word is none.
func TestNamesSpillFileBounded(t *testing.T) {
	proj := t.TempDir()
	root := filepath.Join(proj, ".flower")
	dir := filepath.Join(root, "spill")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(proj, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	const glanceMax = 16 << 10 // the glance table's length cap
	const spillWord = " .flower/spill/x"
	for _, tc := range longCommands {
		for _, last := range []string{"", spillWord} {
			n := min(tc.n, (glanceMax-len(tc.head)-len(tc.tail)-len(last))/len(tc.unit))
			cmd := tc.cmd(n) + last
			want := tc.name == "1000 cds" || last != "" && !strings.Contains(tc.name, "comment")
			t.Run(tc.name+last, func(t *testing.T) {
				var got bool
				took, alloc := measure(func() { got = namesSpillFile(cmd, proj, root, dir) })
				if got != want {
					t.Errorf("namesSpillFile(%d bytes) = %v, want %v", len(cmd), got, want)
				}
				checkBounded(t, took, alloc, len(cmd))
			})
		}
	}
}

// measure runs f and returns the CPU time it took and how many bytes it
// allocated.
func measure(f func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	// Inside: the thread cputime.Of locks may be a new one, whose making
	// allocates.
	took := cputime.Of(func() {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
	})
	return took, after.TotalAlloc - before.TotalAlloc
}

// checkBounded: under a second (the slowest measured here took 0.04 s, and
// 0.17 s under the race detector; before, seconds to minutes), and memory
// proportional to the input.
func checkBounded(t *testing.T, took time.Duration, alloc uint64, inputBytes int) {
	t.Helper()
	if took > time.Second {
		t.Errorf("took %v, want well under a second", took)
	}
	if limit := uint64(200*inputBytes + 16<<20); alloc > limit {
		t.Errorf("allocated %d MB for %d bytes of input, want at most %d MB", alloc>>20, inputBytes, limit>>20)
	}
}

// TestWithin: a path is in the spill folder once symlinks are resolved.
func TestWithin(t *testing.T) {
	root := t.TempDir()
	dir := spill.Dir(root)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o600)
	os.Symlink(dir, filepath.Join(root, "link"))
	os.Symlink(filepath.Join(dir, "a.txt"), filepath.Join(root, "a-link.txt"))
	tests := []struct {
		path string
		want bool
	}{
		{filepath.Join(dir, "a.txt"), true},
		{filepath.Join(dir, "missing.txt"), true},
		{filepath.Join(dir, "sub", "..", "a.txt"), true},
		{filepath.Join(root, "link", "a.txt"), true},
		{filepath.Join(root, "a-link.txt"), true},
		{dir, false},
		{filepath.Join(dir, ".."), false},
		{filepath.Join(dir, "..", "spill2", "a.txt"), false},
		{filepath.Join(root, "spillx.txt"), false},
		{"/etc/passwd", false},
	}
	for _, tt := range tests {
		if got := within(dir, tt.path); got != tt.want {
			t.Errorf("within(%s) = %v, want %v", strings.TrimPrefix(tt.path, root), got, tt.want)
		}
	}
}
