package ephemeral

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNewGlancesRefuses: an entry that could make a line run other code than
// its words show, never end, change the shell, or (as a glance) write, or
// that would change the built-in table's rules, is refused when it is made,
// with a reason naming it.
func TestNewGlancesRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    Extra
		want string
	}{
		{Extra{Command: ""}, "no command"},
		{Extra{Command: "bash"}, "runs another command"},
		{Extra{Command: "bash scripts/test.sh", MainThread: true}, "runs another command"},
		{Extra{Command: "sh -c"}, "runs another command"},
		{Extra{Command: "zsh"}, "runs another command"},
		{Extra{Command: "python3 -m json.tool"}, "programming language"},
		{Extra{Command: "node --version", MainThread: true}, "programming language"},
		{Extra{Command: "awk"}, "programming language"},
		{Extra{Command: "perl -e", MainThread: true}, "programming language"},
		// Interpreters and runners under another name or with a version.
		{Extra{Command: "python3.12 -c"}, "python runs code"},
		{Extra{Command: "pypy3 manage.py", MainThread: true}, "pypy runs code"},
		{Extra{Command: "node18 app.js"}, "node runs code"},
		{Extra{Command: "deno run", MainThread: true}, "deno runs code"},
		{Extra{Command: "bun x"}, "bun runs code"},
		{Extra{Command: "ruby3.2 -e"}, "ruby runs code"},
		{Extra{Command: "npx cowsay", MainThread: true}, "npx runs code"},
		{Extra{Command: "strace -f"}, "strace runs code"},
		{Extra{Command: "ssh host", MainThread: true}, "ssh runs code"},
		{Extra{Command: "env"}, "runs another command"},
		{Extra{Command: "xargs", MainThread: true}, "runs another command"},
		{Extra{Command: "sudo docker ps"}, "runs another command"},
		{Extra{Command: "timeout 5", MainThread: true}, "runs another command"},
		{Extra{Command: "nohup"}, "runs another command"},
		{Extra{Command: "busybox ls"}, "runs another command"},
		{Extra{Command: "eval"}, "shell builtin"},
		{Extra{Command: "exec"}, "shell builtin"},
		{Extra{Command: "source"}, "shell builtin"},
		{Extra{Command: "."}, "not a plain name"},
		{Extra{Command: "builtin"}, "shell builtin"},
		{Extra{Command: "command", MainThread: true}, "shell builtin"},
		{Extra{Command: "trap"}, "shell builtin"},
		{Extra{Command: "cd", MainThread: true}, "shell builtin"},
		{Extra{Command: "echo"}, "shell builtin"},
		{Extra{Command: "printf -v", MainThread: true}, "shell builtin"},
		{Extra{Command: "kill", MainThread: true}, "shell builtin"},
		{Extra{Command: "function"}, "shell builtin"},
		{Extra{Command: "coproc"}, "shell builtin"},
		{Extra{Command: "[["}, "not a plain name"},
		{Extra{Command: "time"}, "shell builtin"},
		{Extra{Command: "pkill", MainThread: true}, "changes the shell"},
		{Extra{Command: "less"}, "never ends"},
		{Extra{Command: "watch", MainThread: true}, "never ends"},
		{Extra{Command: "rm"}, "cannot be a glance"},
		{Extra{Command: "tee"}, "cannot be a glance"},
		{Extra{Command: "ls"}, "built-in glance table"},
		{Extra{Command: "git worktree list"}, "built-in glance table"},
		{Extra{Command: "sed -i"}, "built-in glance table"},
		{Extra{Command: "/usr/bin/docker ps"}, "not a plain name"},
		{Extra{Command: "./run.sh", MainThread: true}, "not a plain name"},
		{Extra{Command: "-rf"}, "not a plain name"},
		{Extra{Command: "do$cker ps"}, "not a plain name"},
		{Extra{Command: " docker"}, "not a plain name"},
		{Extra{Command: "docker  ps"}, "one space between words"},
		{Extra{Command: "docker ps$(x)"}, "the shell gives a meaning"},
		{Extra{Command: "docker p*"}, "the shell gives a meaning"},
		{Extra{Command: "docker {ps,rm}"}, "the shell gives a meaning"},
		{Extra{Command: "docker 'ps'"}, "the shell gives a meaning"},
		{Extra{Command: "docker ps;rm"}, "the shell gives a meaning"},
		{Extra{Command: "docker\tps"}, "not a plain name"},
		{Extra{Command: "docker ps\nrm"}, "the shell gives a meaning"},
		{Extra{Command: "a b c d e f g h i"}, "more than 8 words"},
		{Extra{Command: "docker ps", Operands: -2}, "operands"},
		{Extra{Command: "docker ps", Options: []string{"a"}}, `option "a"`},
		{Extra{Command: "docker ps", Options: []string{"-ab"}}, `option "-ab"`},
		{Extra{Command: "docker ps", Options: []string{"--format=$(x)"}}, "option"},
		{Extra{Command: "docker ps", Options: []string{"---x"}}, "option"},
		{Extra{Command: "docker ps", Options: []string{""}}, "option"},
		{Extra{Command: "docker ps", Options: []string{"--x y z"}}, "option"},
	} {
		_, err := NewGlances([]Extra{{Command: "ok"}, tc.e})
		var ee *ExtraError
		if err == nil || !errors.As(err, &ee) || ee.Index != 1 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewGlances(%+v) = %v, want an error on entry 1 containing %q", tc.e, err, tc.want)
		}
		if g, _ := NewGlances([]Extra{tc.e}); g != nil {
			t.Errorf("NewGlances(%+v) made a table of it", tc.e)
		}
	}
	if g, err := NewGlances(make([]Extra, maxExtras+1)); err == nil || g != nil {
		t.Errorf("NewGlances of %d entries: %v, %v; want an error and the built-in table", maxExtras+1, g, err)
	}
	// A bad entry costs only itself: the good ones make the table.
	g, err := NewGlances([]Extra{{Command: "docker ps"}, {Command: "bash -c", File: "/u/config.json", Line: 7}})
	if !g.IsEphemeral("docker ps") || err == nil || err.Error() != `/u/config.json:7: glances entry "bash -c": bash: runs another command; no entry may name it` {
		t.Errorf("a good and a bad entry: docker ps is a glance %v, error %v", g.IsEphemeral("docker ps"), err)
	}
}

// testExtras are the entries the classify tests use: the examples.
var testExtras = []Extra{
	{Command: "docker ps", Options: []string{"-a", "--all", "-q", "--format=X", "-n X"}, Operands: 0, Source: "user file"},
	{Command: "docker images", Operands: -1, Source: "user file"},
	{Command: "kubectl get", Options: []string{"-o X", "--output=X", "-A"}, Operands: -1, Source: "user file"},
	{Command: "gh pr view", Operands: 1, Source: "user file"},
	{Command: "make -n", Operands: -1, Source: "user file"},
	{Command: "npm ls", Options: []string{"--all", "--depth=X", "--color[=X]"}, Operands: -1, Source: "project file"},
	{Command: "go list", Operands: -1, Source: "user file"},
	{Command: "make test", Operands: 0, MainThread: true, Source: "user file"},
	{Command: "git commit", Options: []string{"-m X", "-a"}, Operands: 0, MainThread: true, Source: "user file"},
	{Command: "git add", Options: []string{"-A"}, Operands: -1, MainThread: true, Source: "user file"},
	{Command: "rm -rf build", Operands: 0, MainThread: true, Source: "user file"},
}

func testGlances(t testing.TB) *Glances {
	g, err := NewGlances(testExtras)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestExtrasClassify: an extra entry lets through exactly its words with
// its options and operands; every check the table's commands pass still
// applies to the lines it admits; a hands-on entry lets the main thread run
// a line without making it a glance.
func TestExtrasClassify(t *testing.T) {
	t.Parallel()
	g := testGlances(t)
	const (
		no     = iota
		glance // a glance: the main thread runs it, its result expires
		main   // the main thread runs it, not a glance
	)
	for _, tc := range []struct {
		cmd  string
		want int
	}{
		{"docker ps", glance},
		{"docker  ps  -a", glance},
		{"docker ps --all -q", glance},
		{"docker ps --format '{{.Names}}'", glance},
		{"docker ps --format={{.Names}}", glance}, // no comma or ..: bash expands no brace
		{"docker ps --format={a,b}", no},
		{"docker ps -n 3", glance},
		{"docker ps -n3", glance},
		{"docker ps -an 3", glance},
		{"docker ps -n", no},
		{"docker ps -n -a", no},
		{"docker ps -n 1*", no}, // the glob may make more words: an operand the entry does not allow
		{"docker ps -H tcp://evil", no},
		{"docker ps --host=tcp://evil", no},
		{"docker --host=tcp://evil ps", no},
		{"docker -H x ps", no},
		{"docker ps x", no},
		{"docker ps -- x", no},
		{"docker rm -f x", no},
		{"docker", no},
		{"docker p*", no},
		{"docker ps *", no},
		{"docker ps {a,b}", no},
		{"docker images *.txt", no},
		{"docker images a*", glance},
		{"docker images", glance},
		{"docker ps 2>/dev/null", glance},
		{"docker ps 2>&1 | tail -3", glance},
		{"docker ps | head && git status -s", glance},
		{"docker ps > out.txt", no},
		{"docker ps >> out.txt", no},
		{"docker ps 3>&1", no},
		{"docker ps 3</dev/tcp/127.0.0.1/80", no},
		{"docker images /dev/tcp/127.0.0.1/80", no},
		{"docker images /dev/zero", no},
		{"docker images < /dev/zero", no},
		{"docker images //dev/zero", no},
		{"docker ps <<< x", no},
		{"docker ps <<EOF\nx\nEOF", no},
		{"docker ps $(touch x)", no},
		{"docker ps `touch x`", no},
		{"docker images \"$HOME\"", no},
		{"docker images ~root", no},
		{"docker images $'\\x41'", no},
		{"docker images <(touch x)", no},
		{"FOO=1 docker ps", no},
		{"'docker' ps", no},
		{"\\docker ps", no},
		{"d\\ocker ps", no},
		{"docker\\ ps", no},
		{"docker 'ps'", glance}, // bash passes ps
		{"docker ps &", no},
		{"(docker ps)", no},
		{"{ docker ps; }", no},
		{"docker ps; touch x", no},
		{"docker ps && eval x", no},
		{"docker ps | sh", no},
		{"docker ps | xargs rm", no},
		{"docker ps\rtouch x", no},
		{"docker ps # note \\\ntouch x", no},
		{"cd /tmp && docker ps", no},
		{"cd sub; kubectl get pods", no},
		{"kubectl get pods -o wide", glance},
		{"kubectl get pods -A", glance},
		{"kubectl get pods --kubeconfig=/tmp/x", no},
		{"kubectl -n x get pods", no},
		{"kubectl delete pods x", no},
		{"gh pr view 12", glance},
		{"gh pr view 12 13", no},
		{"gh pr view 12 --web", no},
		{"gh pr merge 12", no},
		{"make -n", glance},
		{"make -n all install", glance},
		{"make", no},
		{"make -n -f evil.mk", no},
		{"make -n --eval=x", no},
		{"make -j4 -n", no},
		{"npm ls", glance},
		{"npm ls --depth=0", glance},
		{"npm ls --depth 0", glance},
		{"npm ls --color", glance},
		{"npm ls --color=always", glance},
		{"npm ls --col", no}, // an entry's options are matched exactly
		{"npm install", no},
		{"go list ./...", glance},
		{"go run .", no},
		{"go build ./...", no},
		{"go list -toolexec x ./...", no},
		{"make test", main},
		{"make test 2>&1 | tail -20", main},
		{"make test && git status -s", main},
		{"make test all", no},
		{"make test > log.txt", no},
		{"make test; rm -rf x", no},
		{"git add -A && git commit -m 'fix the build'", main},
		{"git commit -a -m \"$(cat msg)\"", no},
		{"git commit --amend", no},
		{"git commit -m x --no-verify", no},
		{"git -c core.hooksPath=/tmp/h commit -m x", no},
		{"git -C /tmp/other commit -m x", no},
		{"cd /tmp && git commit -m x", no},
		{"git status -s", glance},
		{"git log --oneline -3 && git commit -m x", main},
		{"git push", no},
		{"rm -rf build", main},
		{"rm -rf build/x", no},
		{"rm -rf /", no},
		{"rm -rf build && ls", main},
	} {
		v := g.Classify(tc.cmd)
		got := no
		switch {
		case v.Glance:
			got = glance
		case v.MainThread:
			got = main
		}
		if got != tc.want {
			t.Errorf("Classify(%q) = %d (%s), want %d", tc.cmd, got, v.Reason, tc.want)
		}
		if v.Glance && !v.MainThread {
			t.Errorf("Classify(%q): a glance the main thread may not run", tc.cmd)
		}
		if g.IsEphemeral(tc.cmd) != v.Glance {
			t.Errorf("IsEphemeral(%q) != Classify().Glance", tc.cmd)
		}
		if v.MainThread && !g.mayBeGlance(tc.cmd) || g.MainThread(tc.cmd) != v.MainThread {
			t.Errorf("mayBeGlance(%q) = false for a line the main thread may run, or MainThread != Classify().MainThread", tc.cmd)
		}
	}
}

// TestExtrasReasons: the reasons name the entry and where it comes from, or
// say which of its rules failed.
func TestExtrasReasons(t *testing.T) {
	t.Parallel()
	g := testGlances(t)
	for cmd, want := range map[string]string{
		"docker ps -a":            "docker ps: extra glance (user file)",
		"npm ls":                  "npm ls: extra glance (project file)",
		"make test":               "make test: a hands-on command the main thread may run (user file), not a glance",
		"docker ps -H x":          "docker ps option -H is not on its entry (user file)",
		"docker ps x":             "docker ps x: more operands than its entry allows (0)",
		"docker rm x":             "docker: no extra entry takes these words (docker ps, docker images)",
		"cd /tmp && docker ps":    "docker after cd may run in another folder, with that folder's configuration",
		"git commit --amend":      "git commit option --amend is not on its entry (user file)",
		"git push":                "git push: not a read-only git subcommand on the table",
		"rm -rf /":                "rm: writes or removes files",
		"rm -rf build x":          "rm -rf build x: more operands than its entry allows (0)",
		"make test && ls":         "the main thread may run every command, not all are glances: make test, ls",
		"docker ps && git status": "every command is a glance: docker ps, git status",
	} {
		if got := g.Classify(cmd).Reason; got != want {
			t.Errorf("Classify(%q).Reason = %q, want %q", cmd, got, want)
		}
	}
}

// TestExtrasLeaveTheTableAlone: with extra entries, every command of the
// table tests that does not name one gets the verdict it gets without them.
func TestExtrasLeaveTheTableAlone(t *testing.T) {
	t.Parallel()
	g := testGlances(t)
	names := map[string]bool{}
	for _, e := range testExtras {
		names[strings.Fields(e.Command)[0]] = true
	}
	checked := 0
	for _, tc := range classifyCases() {
		if namesAny(tc.cmd, names) {
			continue
		}
		checked++
		if diff := cmp.Diff(Classify(tc.cmd), g.Classify(tc.cmd)); diff != "" {
			t.Errorf("%q with extras (-without +with):\n%s", tc.cmd, diff)
		}
	}
	if checked < 300 {
		t.Errorf("only %d commands checked", checked)
	}
}

// namesAny reports whether a word of cmd (split at blanks and operators) is
// one of names.
func namesAny(cmd string, names map[string]bool) bool {
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`$'\"\\", r) }) {
		if names[w] {
			return true
		}
	}
	return false
}

// TestNilGlances: the zero table is the built-in one.
func TestNilGlances(t *testing.T) {
	t.Parallel()
	g, err := NewGlances(nil)
	if err != nil || g != nil {
		t.Fatalf("NewGlances(nil) = %v, %v; want the built-in table (nil)", g, err)
	}
	if diff := cmp.Diff(Table(), g.Table()); diff != "" {
		t.Errorf("the built-in table's entries (-Table +Glances.Table):\n%s", diff)
	}
	for _, tc := range classifyCases() {
		if v := g.Classify(tc.cmd); v.MainThread != v.Glance {
			t.Errorf("%q: without extras MainThread = %v, Glance = %v", tc.cmd, v.MainThread, v.Glance)
		}
	}
}

// TestExtrasTable: Glances.Table lists the extra entries after the
// table, in the order given, with their rules.
func TestExtrasTable(t *testing.T) {
	t.Parallel()
	entries := testGlances(t).Table()
	var extras []Entry
	for _, e := range entries {
		if e.Extra {
			extras = append(extras, e)
		}
	}
	if len(extras) != len(testExtras) {
		t.Fatalf("%d extra entries listed, want %d", len(extras), len(testExtras))
	}
	want := Entry{Command: "docker ps", Glance: true, Extra: true, About: "extra glance (user file)",
		Rules: []string{"options allowed: -a -q -n X --all --format=X", "no operands"}}
	if diff := cmp.Diff(want, extras[0]); diff != "" {
		t.Errorf("first extra entry (-want +got):\n%s", diff)
	}
	want = Entry{Command: "make test", MainThread: true, Extra: true,
		About: "hands-on, the main thread may run it (user file); not a glance",
		Rules: []string{"options allowed: none", "no operands"}}
	if diff := cmp.Diff(want, extras[7]); diff != "" {
		t.Errorf("the make test entry (-want +got):\n%s", diff)
	}
}

// sandboxExtras stand for the docker ps of a configuration in the bash
// sandbox: programs on this machine's PATH that are not on the table and
// only print.
var sandboxExtras = []Extra{
	{Command: "getconf", Operands: 1, Source: "test"},
	{Command: "locale", Options: []string{"-a", "-k"}, Operands: -1, Source: "test"},
}

// extrasHostile are lines naming a sandbox extra that the table's checks
// must keep from being glances: each would write, run a program off the
// table, open the network or never end if bash ran it.
var extrasHostile = []string{
	"getconf PAGESIZE; touch pwned",
	"getconf PAGESIZE > pwned",
	"getconf PAGESIZE >| pwned",
	"getconf PAGESIZE &> pwned",
	"getconf $(touch pwned)",
	"getconf `touch pwned`",
	"getconf <(touch pwned)",
	"getconf PAGESIZE 3>pwned",
	"getconf PAGESIZE 3</dev/tcp/127.0.0.1/80",
	"getconf /dev/tcp/127.0.0.1/80",
	"getconf PAGESIZE < /dev/zero",
	"locale -k /dev/zero",
	"getconf PAGESIZE # note \\\ntouch pwned",
	"getconf PAGESIZE\rtouch pwned",
	"getconf PAGESIZE\x00; touch pwned",
	"FOO=1 getconf PAGESIZE",
	"BASH_ENV=x getconf PAGESIZE",
	"getconf PAGESIZE & touch pwned",
	"getconf {PAGESIZE,-a}",
	"getconf *",
	"getconf <<< x",
	"getconf <<EOF\nx\nEOF",
	"cd /tmp && getconf PAGESIZE",
	"getconf PAGESIZE | sh",
	"locale -a | xargs touch",
	"'getconf' PAGESIZE",
	"getconf PAGESIZE x",
	"locale -m",
	"locale --help",
	"getconf ${X}",
	"getconf ~root",
	"getconf $'\\x41'",
	"(getconf PAGESIZE)",
	"{ getconf PAGESIZE; }",
	"getconf PAGESIZE && eval touch pwned",
	"getconf PAGESIZE || exec touch pwned",
	"locale -a $(exec touch pwned)",
	"time getconf PAGESIZE",
	"command getconf PAGESIZE",
	"builtin getconf",
	"getconf() { touch pwned; }; getconf",
	"alias getconf=touch; getconf pwned",
}

// extrasGlances are lines a sandbox extra makes glances.
var extrasGlances = []string{
	"getconf PAGESIZE",
	"getconf PAGESIZE 2>/dev/null",
	"locale -a | head -3",
	"locale -k LC_NUMERIC && git status -s",
	"getconf 'PAGESIZE' | wc -c",
}

// TestExtrasUnderBash: with extra entries on the table, the hostile lines
// are not glances, and the glances they make run under real bash without
// writing a file or starting a program off the table (theirs included).
func TestExtrasUnderBash(t *testing.T) {
	g, err := NewGlances(sandboxExtras)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range extrasHostile {
		if v := g.Classify(cmd); v.Glance || v.MainThread {
			t.Errorf("Classify(%q) lets it through: %s", cmd, v.Reason)
		}
	}
	s := newSandbox(t, "getconf", "locale")
	for _, cmd := range extrasGlances {
		if v := g.Classify(cmd); !v.Glance {
			t.Errorf("Classify(%q) = not a glance (%s), want a glance", cmd, v.Reason)
			continue
		}
		checkUnderBash(t, s, cmd)
	}
}

// FuzzExtras is FuzzClassify with extra entries on the table: the verdict
// holds together, it differs from the table's only on lines that name an
// extra, and a glance run by real bash writes nothing and starts no program
// but the table's and the extras'.
func FuzzExtras(f *testing.F) {
	for _, cmd := range append(extrasHostile, extrasGlances...) {
		f.Add(cmd)
	}
	g, err := NewGlances(sandboxExtras)
	if err != nil {
		f.Fatal(err)
	}
	s := newSandbox(f, "getconf", "locale")
	f.Fuzz(func(t *testing.T, cmd string) {
		v := g.Classify(cmd)
		if diff := cmp.Diff(v, g.Classify(cmd)); diff != "" {
			t.Fatalf("Classify(%q) differs between two calls (-first +second):\n%s", cmd, diff)
		}
		if g.IsEphemeral(cmd) != v.Glance || g.MainThread(cmd) != v.MainThread || v.Glance && !v.MainThread || v.MainThread && !v.Glance {
			t.Fatalf("Classify(%q): Glance %v, MainThread %v, IsEphemeral %v (no hands-on entries here)", cmd, v.Glance, v.MainThread, g.IsEphemeral(cmd))
		}
		checkInvariants(t, cmd, v)
		if b := Classify(cmd); b.Glance && !v.Glance || v.Glance && !b.Glance && !strings.Contains(cmd, "getconf") && !strings.Contains(cmd, "locale") {
			t.Fatalf("Classify(%q): with extras %v, without %v", cmd, v.Glance, b.Glance)
		}
		if v.Glance {
			checkUnderBash(t, s, cmd)
		}
	})
}
