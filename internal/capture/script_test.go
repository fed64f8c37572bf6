package capture

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/workbench"
)

const testSession = "0f3c9a2e-5b7d-4e61-9c08-2a4b6d8e1f37"

// toolShell is the command string Claude Code 2.1.328 gives bash -c for a
// Bash call of cmd (tests/e2e TestCaptureShape pins it in the real CLI).
// The command is single-quoted; "< /dev/null" is added when it has no "<".
func toolShell(cmd, snapshot, cwdFile string) string {
	redirect := " < /dev/null"
	if strings.Contains(cmd, "<") {
		redirect = ""
	}
	return "source " + snapshot + ` 2>/dev/null || true && \builtin shopt -u extglob 2>/dev/null || true && ` +
		`{ \builtin unalias -- 'which'; \builtin unset -f -- 'which'; } >/dev/null 2>&1 || true && ` +
		`{ \builtin unalias -- 'unsetenv'; \builtin unset -f -- 'unsetenv'; } >/dev/null 2>&1 || true && ` +
		"eval '" + strings.ReplaceAll(cmd, "'", `'"'"'`) + "'" + redirect + " && pwd -P >| " + cwdFile
}

// shell is a sandbox in which bash runs as Claude Code runs it: a project
// folder that is the working directory of the shell's parent (the stand-in
// for Claude Code, whose pid is CLAUDE_PID), and the script as BASH_ENV.
type shell struct {
	t       *testing.T
	dir     string // the sandbox
	project string
	script  string
	env     []string // more KEY=VALUE for the Bash tool's shell
	str     func(cmd string) string
}

func newShell(t *testing.T) *shell {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed:", err)
	}
	dir := t.TempDir()
	sh := &shell{t: t, dir: dir, project: filepath.Join(dir, "project"), script: filepath.Join(dir, "capture.bash")}
	for _, d := range []string{sh.project, filepath.Join(sh.project, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sh.write(sh.script, Script)
	sh.write(filepath.Join(dir, "snapshot.sh"), "")
	sh.str = func(cmd string) string {
		return toolShell(cmd, filepath.Join(dir, "snapshot.sh"), filepath.Join(dir, "claude-1a2b-cwd"))
	}
	return sh
}

func (sh *shell) write(path, content string) {
	sh.t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		sh.t.Fatal(err)
	}
}

// result is one call: what Claude Code would read (the shell's output
// file), the exit code, and the cwd the call left.
type result struct {
	task string
	code int
	cwd  string
}

// run runs cmd as a Bash call started in the project folder's sub (from,
// relative to the project).
func (sh *shell) run(from, cmd string) result {
	sh.t.Helper()
	task := filepath.Join(sh.dir, "task.output")
	cwdFile := filepath.Join(sh.dir, "claude-1a2b-cwd")
	os.Remove(cwdFile)
	// The parent's cwd is the project; the Bash tool's shell starts in
	// from. (A subshell that execs keeps the parent: $$ is its pid.)
	outer := `cd "$PROJECT" && (cd "$FROM" && CLAUDE_PID=${PARENT:-$$} exec "$@") >"$TASK" 2>&1 </dev/null; echo $?`
	c := exec.Command("bash", "--norc", "--noprofile", "-c", outer, "outer", "env", "BASH_ENV="+sh.script, "bash", "-c", sh.str(cmd))
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + sh.dir, "LANG=C.UTF-8",
		"PROJECT=" + sh.project, "FROM=" + filepath.Join(sh.project, from), "TASK=" + task,
		"CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=" + testSession}, sh.env...)
	out, err := c.Output()
	if err != nil {
		sh.t.Fatalf("the stand-in for Claude Code failed: %v", err)
	}
	var r result
	fmt.Sscan(string(out), &r.code)
	b, _ := os.ReadFile(task)
	r.task = string(b)
	cwd, _ := os.ReadFile(cwdFile)
	r.cwd = strings.TrimSpace(string(cwd))
	return r
}

// spill lists the capture files.
func (sh *shell) spill() []string {
	paths, _ := filepath.Glob(filepath.Join(sh.project, ".flower", "spill", "capture-*.txt"))
	return paths
}

var scriptMarker = regexp.MustCompile(`^\[flower: the whole output of this command is in (.+)\]\n$`)

// captured runs cmd and returns the capture file's content; it fails the
// test when the call was not captured.
func (sh *shell) captured(from, cmd string) (string, result) {
	sh.t.Helper()
	r := sh.run(from, cmd)
	m := scriptMarker.FindStringSubmatch(r.task)
	if m == nil {
		sh.t.Fatalf("%q was not captured; its output was %q", cmd, r.task)
	}
	path, _, _, ok := Find(strings.TrimSuffix(r.task, "\n"))
	if !ok || path != m[1] {
		sh.t.Fatalf("Find reads the script's marker %q as %q, %v", r.task, path, ok)
	}
	if filepath.Dir(path) != filepath.Join(sh.project, ".flower", "spill") || !isSession(filepath.Base(path), testSession) {
		sh.t.Errorf("capture file %s: not a capture file of the session in the project's spill folder", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		sh.t.Fatal(err)
	}
	return string(b), r
}

func TestScriptCaptures(t *testing.T) {
	t.Parallel()
	sh := newShell(t)
	for _, tc := range []struct {
		name, from, cmd string
		out             string
		code            int
		cwd             string
	}{
		{"stdout and stderr", "", "echo out; echo err >&2", "out\nerr\n", 0, "project"},
		{"exit code", "", "echo before; exit 7", "before\n", 7, ""},
		{"cd persists", "", "cd sub && echo moved", "moved\n", 0, "project/sub"},
		{"from a folder below", "sub", "pwd", "$PROJECT/sub\n", 0, "project/sub"},
		{"stdin is /dev/null", "", `cat; read -r x; echo "[$x] $?"`, "[] 1\n", 0, "project"},
		{"redirected stdin", "", "wc -c < sub/../../capture.bash >/dev/null; echo ok", "ok\n", 0, "project"},
		{"here-document", "", "cat <<'EOF'\n$not expanded\nEOF", "$not expanded\n", 0, "project"},
		{"nested shells are left alone", "", `bash -c 'echo "[${BASH_ENV-unset}]"'`, "[unset]\n", 0, "project"},
		{"trap", "", "trap 'echo bye' EXIT; echo hi", "hi\nbye\n", 0, "project"},
		{"appends to /dev/stdout", "", "echo a; echo b >> /dev/stdout; echo c", "a\nb\nc\n", 0, "project"},
		{"nothing left of the script", "", `declare -p | grep -c '^declare -[^ ]* _flower'; compgen -A function | grep -c .; shopt -po noclobber`,
			"0\n0\nset +o noclobber\n", 1, ""}, // shopt -p of an option that is off fails
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, r := sh.captured(tc.from, tc.cmd)
			if want := strings.ReplaceAll(tc.out, "$PROJECT", sh.project); out != want {
				t.Errorf("captured %q, want %q", out, want)
			}
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d", r.code, tc.code)
			}
			if want := filepath.Join(sh.dir, tc.cwd); tc.cwd != "" && r.cwd != want || tc.cwd == "" && r.cwd != "" {
				t.Errorf("cwd file %q, want %q", r.cwd, tc.cwd)
			}
		})
	}
}

// TestScriptShapes: only Claude Code's command string is captured; any
// other shape, or a shell that is not the Bash tool's, runs as without the
// script.
func TestScriptShapes(t *testing.T) {
	t.Parallel()
	const cmd = "echo plain"
	for _, tc := range []struct {
		name string
		env  []string
		str  func(s string) string
	}{
		{"an unknown part before eval", nil, func(s string) string {
			return strings.Replace(s, " && eval ", ` && printf '.' && eval `, 1)
		}},
		{"no cwd file", nil, func(s string) string { return s[:strings.LastIndex(s, " && pwd -P")] }},
		{"cwd file elsewhere", nil, func(s string) string { return strings.Replace(s, "claude-1a2b-cwd", "other", 1) }},
		{"not eval", nil, func(s string) string { return strings.Replace(s, " && eval ", " && builtin eval ", 1) }},
		{"more after the cwd file", nil, func(s string) string { return s + " && printf ." }},
		{"a cwd file that is no plain word", nil, func(s string) string { return strings.Replace(s, "claude-1a2b-cwd", "x;y/claude-1a2b-cwd", 1) }},
		{"not Claude Code", []string{"CLAUDECODE="}, nil},
		{"not Claude Code's child", []string{"PARENT=1"}, nil},
		{"no session", []string{"CLAUDE_CODE_SESSION_ID="}, nil},
		{"a session id unfit for a name", []string{"CLAUDE_CODE_SESSION_ID=../x"}, nil},
		{"xtrace", []string{"SHELLOPTS=xtrace"}, nil},
		{"relative FLOWER_WORKBENCH", []string{"FLOWER_WORKBENCH=wb"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sh := newShell(t)
			sh.env = tc.env
			if tc.str != nil {
				orig := sh.str
				sh.str = func(c string) string { return tc.str(orig(c)) }
			}
			r := sh.run("", cmd)
			if strings.Contains(r.task, "[flower:") || len(sh.spill()) != 0 {
				t.Errorf("captured: output %q, files %v", r.task, sh.spill())
			}
			if !strings.Contains(r.task, "plain\n") {
				t.Errorf("the command's output %q lacks its line", r.task)
			}
		})
	}
}

// TestScriptNestedCannotCapture: a command that sets BASH_ENV to the
// script itself and runs a shell with Claude Code's command string gets no
// second capture: that shell's parent is not Claude Code.
// TestScriptQuotedCwdFile: a cwd file under a folder with a space, which
// Claude Code single-quotes, is known.
func TestScriptQuotedCwdFile(t *testing.T) {
	t.Parallel()
	sh := newShell(t)
	orig := sh.str
	plain := " && pwd -P >| " + filepath.Join(sh.dir, "claude-1a2b-cwd")
	quoted := " && pwd -P >| '" + filepath.Join(sh.dir, "my tmp", "claude-1a2b-cwd") + "'"
	sh.str = func(c string) string { return strings.Replace(orig(c), plain, quoted, 1) }
	os.Mkdir(filepath.Join(sh.dir, "my tmp"), 0o755)
	if out, _ := sh.captured("", "echo quoted"); out != "quoted\n" {
		t.Errorf("captured %q", out)
	}
}

func TestScriptNestedCannotCapture(t *testing.T) {
	t.Parallel()
	sh := newShell(t)
	inner := sh.str("echo inner")
	out, _ := sh.captured("", fmt.Sprintf("BASH_ENV=%s bash -c %q; echo outer", sh.script, inner))
	if out != "inner\nouter\n" {
		t.Errorf("captured %q, want both lines in the one capture file", out)
	}
	if files := sh.spill(); len(files) != 1 {
		t.Errorf("capture files %v, want one", files)
	}
}

// TestScriptWorkbench: the workbench the script creates is the one
// pkg/workbench creates; one a repository planted as a symlink, or a spill/
// that is no folder, is refused; one the user names may be a symlink.
func TestScriptWorkbench(t *testing.T) {
	t.Parallel()
	t.Run("created as pkg/workbench creates it", func(t *testing.T) {
		t.Parallel()
		sh := newShell(t)
		sh.captured("", "true")
		ref := filepath.Join(t.TempDir(), ".flower")
		w, err := workbench.Make(ref)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		want, _ := os.ReadFile(filepath.Join(ref, ".gitignore"))
		got, err := os.ReadFile(filepath.Join(sh.project, ".flower", ".gitignore"))
		if err != nil || string(got) != string(want) {
			t.Errorf(".gitignore (%v) (-pkg/workbench +script):\n%s", err, cmp.Diff(string(want), string(got)))
		}
		for _, d := range []string{".flower", ".flower/spill"} {
			if fi, err := os.Lstat(filepath.Join(sh.project, d)); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v (%v), want a folder 0700", d, fi.Mode(), err)
			}
		}
	})
	t.Run("the spill folder's ignore rule is spill.IgnoreRule", func(t *testing.T) {
		t.Parallel()
		sh := newShell(t)
		sh.captured("", "true")
		if got, err := os.ReadFile(filepath.Join(sh.project, ".flower", "spill", spill.IgnoreFile)); err != nil || string(got) != spill.IgnoreRule {
			t.Errorf("the rule (%v) (-pkg/spill +script):\n%s", err, cmp.Diff(spill.IgnoreRule, string(got)))
		}
	})
	// A rule the repository committed in its place that is not flower's,
	// whatever it says or is, means no capture: the output stays where
	// Claude Code puts it.
	for name, plant := range map[string]func(path string){
		"another rule":  func(p string) { os.WriteFile(p, []byte("!*\n"), 0o644) },
		"an empty file": func(p string) { os.WriteFile(p, nil, 0o644) },
		"a symlink":     func(p string) { os.Symlink("/etc/hostname", p) },
		"a FIFO":        func(p string) { syscall.Mkfifo(p, 0o644) },
		"a longer rule": func(p string) { os.WriteFile(p, []byte(spill.IgnoreRule+"!x\n"), 0o644) },
		"a folder":      func(p string) { os.MkdirAll(filepath.Join(p, "x"), 0o755) },
		"flower's rule": func(p string) { os.WriteFile(p, []byte(spill.IgnoreRule), 0o644) },
	} {
		t.Run("committed ignore rule: "+name, func(t *testing.T) {
			t.Parallel()
			sh := newShell(t)
			dir := filepath.Join(sh.project, ".flower", "spill")
			os.MkdirAll(dir, 0o755)
			plant(filepath.Join(dir, spill.IgnoreFile))
			r := sh.run("", "echo out")
			if captured := r.task != "out\n"; captured != (name == "flower's rule") {
				t.Errorf("output %q, capture files %v", r.task, sh.spill())
			}
		})
	}
	t.Run("a spill folder the repository committed", func(t *testing.T) {
		// A checkout makes it 0755: the output written while the command
		// runs is still the owner's alone, and the command's umask is its own.
		t.Parallel()
		sh := newShell(t)
		os.MkdirAll(filepath.Join(sh.project, ".flower", "spill"), 0o755)
		os.Chmod(filepath.Join(sh.project, ".flower"), 0o755)
		os.Chmod(filepath.Join(sh.project, ".flower", "spill"), 0o755)
		got, _ := sh.captured("", "umask 0022 && umask && umask 0027 && umask")
		if got != "0022\n0027\n" {
			t.Errorf("the command printed %q", got)
		}
		own, err := exec.Command("bash", "-c", "umask").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, _ = sh.captured("", "umask"); got != string(own) {
			t.Errorf("the command's umask is %q, want the shell's own %q", got, own)
		}
		for _, f := range sh.spill() {
			if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v (%v), want 0600", f, fi.Mode().Perm(), err)
			}
		}
	})
	refused := map[string]func(sh *shell){
		"symlinked workbench": func(sh *shell) {
			os.Mkdir(filepath.Join(sh.dir, "elsewhere"), 0o755)
			os.Symlink(filepath.Join(sh.dir, "elsewhere"), filepath.Join(sh.project, ".flower"))
		},
		"symlinked spill folder": func(sh *shell) {
			os.Mkdir(filepath.Join(sh.dir, "elsewhere"), 0o755)
			os.Mkdir(filepath.Join(sh.project, ".flower"), 0o700)
			os.Symlink(filepath.Join(sh.dir, "elsewhere"), filepath.Join(sh.project, ".flower", "spill"))
		},
		"spill is a file": func(sh *shell) {
			os.Mkdir(filepath.Join(sh.project, ".flower"), 0o700)
			sh.write(filepath.Join(sh.project, ".flower", "spill"), "x")
		},
		"workbench is a file": func(sh *shell) { sh.write(filepath.Join(sh.project, ".flower"), "x") },
	}
	for name, plant := range refused {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sh := newShell(t)
			plant(sh)
			if r := sh.run("", "echo plain"); r.task != "plain\n" {
				t.Errorf("output %q, want the command's own", r.task)
			}
			if entries, _ := os.ReadDir(filepath.Join(sh.dir, "elsewhere")); len(entries) != 0 {
				t.Errorf("written through the symlink: %v", entries)
			}
		})
	}
	t.Run("named workbench may be a symlink", func(t *testing.T) {
		t.Parallel()
		sh := newShell(t)
		real := filepath.Join(sh.dir, "real")
		os.Mkdir(real, 0o700)
		os.Symlink(real, filepath.Join(sh.dir, "named"))
		sh.env = []string{"FLOWER_WORKBENCH=" + filepath.Join(sh.dir, "named")}
		r := sh.run("", "echo named")
		if !strings.HasPrefix(r.task, Marker(filepath.Join(sh.dir, "named", "spill", "capture-"))[:len(markerStart)+len(sh.dir)]) {
			t.Errorf("output %q, want a marker into the named workbench", r.task)
		}
		files, _ := filepath.Glob(filepath.Join(real, "spill", "capture-*.txt"))
		if len(files) != 1 {
			t.Fatalf("files in the named workbench: %v", files)
		}
		if b, _ := os.ReadFile(files[0]); string(b) != "named\n" {
			t.Errorf("capture file holds %q", b)
		}
	})
}

// TestScriptChainsUserBashEnv: FLOWER_BASH_ENV, the user's BASH_ENV, is read
// in the Bash tool's shell (after the output is captured) and handed back
// as BASH_ENV to the shells the command starts; in any other shell it is
// read as BASH_ENV would be.
func TestScriptChainsUserBashEnv(t *testing.T) {
	t.Parallel()
	sh := newShell(t)
	user := filepath.Join(sh.dir, "user env.sh")
	sh.write(user, "greet() { echo \"hello [$BASH_ENV]\"; }\n")
	sh.env = []string{"FLOWER_BASH_ENV=" + user}
	out, _ := sh.captured("", `greet; bash -c 'greet; echo "[${FLOWER_BASH_ENV-unset}]"'`)
	want := fmt.Sprintf("hello [%s]\nhello [%s]\n[unset]\n", user, user)
	if out != want {
		t.Errorf("captured %q, want %q", out, want)
	}

	// Expanded as bash expands BASH_ENV; BASH_ENV keeps the value as
	// written.
	sh.env = []string{"FLOWER_BASH_ENV=$HOME/user env.sh"}
	if out, _ := sh.captured("", "greet"); out != "hello [$HOME/user env.sh]\n" {
		t.Errorf("with $HOME in the value: captured %q", out)
	}

	// Another bash (a script run by a hook) reads it, and the script
	// pointing at itself does not loop.
	for _, chain := range []string{user, sh.script} {
		c := exec.Command("bash", "-euc", `type -t greet || echo none`)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "BASH_ENV=" + sh.script, "FLOWER_BASH_ENV=" + chain, "CLAUDECODE=1"}
		out, err := c.CombinedOutput()
		want := "function\n"
		if chain == sh.script {
			want = "none\n"
		}
		if err != nil || string(out) != want {
			t.Errorf("bash -eu with FLOWER_BASH_ENV=%s: %q, %v; want %q", chain, out, err, want)
		}
	}
}

// TestScriptOtherShellsUnharmed: a bash that is not the Bash tool's shell
// (a hook, a build script) runs under set -eu, noclobber or xtrace as it
// would without BASH_ENV.
func TestScriptOtherShellsUnharmed(t *testing.T) {
	t.Parallel()
	sh := newShell(t)
	for _, opts := range []string{"-euc", "-Cc", "-ec"} {
		for _, env := range [][]string{nil, {"CLAUDECODE=1"}} {
			c := exec.Command("bash", opts, `echo "ran $-"`)
			c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "BASH_ENV=" + sh.script}, env...)
			out, err := c.CombinedOutput()
			want := map[string]string{"-euc": "ran ehuBc\n", "-Cc": "ran hBCc\n", "-ec": "ran ehBc\n"}[opts]
			if err != nil || string(out) != want {
				t.Errorf("bash %s %v: %q, %v; want %q", opts, env, out, err, want)
			}
		}
	}
	// Under noclobber the Bash tool's shell is captured all the same, and
	// the option stays on.
	sh.env = []string{"SHELLOPTS=noclobber"}
	if out, _ := sh.captured("", "shopt -po noclobber"); out != "set -o noclobber\n" {
		t.Errorf("under noclobber: %q", out)
	}
}

// isSession reports whether name is a capture file's name for session.
func isSession(name, session string) bool {
	s, ok := nameSession(name)
	return ok && s == session
}
