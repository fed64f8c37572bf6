package spillguard

import (
	"os"
	"path/filepath"
	"testing"
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
