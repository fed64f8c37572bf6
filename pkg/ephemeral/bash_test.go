package ephemeral

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The differential check: a command Classify calls a glance is run by real
// bash, the way Claude Code runs it (bash -c "eval '<cmd>' < /dev/null"), in
// a throwaway project with a fake HOME, and must write nothing there and
// start no program but the table's. The parser's reading is what Classify
// judges; this is the reading that counts.
//
// bash runs contained, because FuzzClassify hands it whatever the fuzzer
// made of a glance: in new user, mount and network namespaces, with every
// mount read-only but the throwaway folder, no network, and every program
// it starts checked by ptrace as it is loaded, before its first instruction,
// and killed unless it is one of the table's. The namespaces are made once
// per sandbox: this test binary, started again inside them (TestMain), is
// the sandbox's first process; it sets the mounts up and then runs each
// command it is sent under a ptrace tracer of its own, so that a command
// costs a bash, not a second start of the test binary (under -race, 0.1 s).

// sandboxEnv carries, to the test binary started as a sandbox, its config.
const sandboxEnv = "FLOWER_BASH_SANDBOX"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(sandboxEnv); cfg != "" {
		sandboxMain(cfg)
	}
	// The machine's flower configuration stays out of the commands the
	// tests run in-process (sides_test.go).
	os.Setenv("XDG_CONFIG_HOME", "/nonexistent/flower-tests")
	os.Exit(m.Run())
}

// sandboxConfig is what the sandbox's first process is told.
type sandboxConfig struct {
	RW   string   // the one folder left writable
	Bash string   // bash's path
	Env  []string // bash's environment
	// Programs are the resolved paths of the table's commands as bash finds
	// them; Scripts are those among them that are scripts, run by one of
	// Interpreters; GitCore is git's own folder of programs.
	Programs, Scripts, Interpreters []string
	GitCore                         string
}

// bashRun is what one command did.
type bashRun struct {
	Started  []string // programs started off the table, each killed as it loaded
	TimedOut bool
	Output   string   // the start of what it printed
	changed  []string // files and folders written, created or removed (seen from outside)
}

// mount_setattr(2), not in package syscall: its number (the same on amd64
// and arm64) and the bits used here.
const (
	sysMountSetattr = 442
	atFDCWD         = -100
	atRecursive     = 0x8000
	mountAttrRdonly = 0x1
)

// sandboxMain runs as the root of new user, mount and network namespaces:
// it makes every mount read-only but cfg.RW, then runs each command read
// from stdin (a JSON string a line) and answers with a bashRun a line on
// stdout, until stdin ends. It never returns.
func sandboxMain(raw string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(125)
	}
	var cfg sandboxConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fail(err)
	}
	if err := sandboxMounts(cfg.RW); err != nil {
		fail(err)
	}
	// ptrace requests must come from the thread that started the process.
	runtime.LockOSThread()
	in := bufio.NewReader(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF {
			os.Exit(0)
		}
		var cmd string
		if err == nil {
			err = json.Unmarshal(line, &cmd)
		}
		if err != nil {
			fail(err)
		}
		r, err := cfg.trace(cmd)
		if err != nil {
			fail(err)
		}
		if err := enc.Encode(r); err != nil {
			fail(err)
		}
	}
}

// sandboxMounts makes every mount read-only but rw, which it mounts over
// itself first, and stands in it again.
func sandboxMounts(rw string) error {
	setattr := func(path string, set, clear uint64) error {
		attr := struct{ set, clear, propagation, userns uint64 }{set, clear, 0, 0}
		p, err := syscall.BytePtrFromString(path)
		if err != nil {
			return err
		}
		fd := atFDCWD
		_, _, errno := syscall.Syscall6(sysMountSetattr, uintptr(fd), uintptr(unsafe.Pointer(p)),
			atRecursive, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
		if errno != 0 {
			return fmt.Errorf("mount_setattr %s: %w", path, errno)
		}
		return nil
	}
	// The working folder is looked up again at the end: the process still
	// stands in the read-only folder under the writable mount.
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	for _, step := range []func() error{
		func() error { return syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, "") },
		func() error { return syscall.Mount(rw, rw, "", syscall.MS_BIND|syscall.MS_REC, "") },
		func() error { return setattr("/", mountAttrRdonly, 0) },
		func() error { return setattr(rw, 0, mountAttrRdonly) },
		func() error { return syscall.Chdir(wd) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// allowed reports whether a program just loaded (exe, and its argv) is one
// a glance may start: bash, the table's programs, an interpreter running a
// table script, git's own helpers.
func (cfg *sandboxConfig) allowed(exe string, argv []string) bool {
	switch {
	case exe == cfg.Bash, slices.Contains(cfg.Programs, exe), strings.HasPrefix(exe, cfg.GitCore+"/"):
		return true
	case slices.Contains(cfg.Interpreters, exe) && len(argv) > 1:
		p, err := filepath.EvalSymlinks(argv[1])
		return err == nil && slices.Contains(cfg.Scripts, p)
	}
	return false
}

// maxOutput is how much of a command's output a report keeps.
const maxOutput = 2000

// trace runs cmd under bash, following every process it starts until all
// have exited.
func (cfg *sandboxConfig) trace(cmd string) (bashRun, error) {
	var r bashRun
	null, err := os.Open(os.DevNull)
	if err != nil {
		return r, err
	}
	defer null.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return r, err
	}
	output := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(pr, maxOutput))
		io.Copy(io.Discard, pr)
		pr.Close()
		output <- string(b)
	}()
	// Claude Code quotes the command for eval with single quotes; the
	// closing and reopening around \' gives eval the command unchanged.
	script := "eval '" + strings.ReplaceAll(cmd, "'", `'\''`) + "' < /dev/null"
	p, err := os.StartProcess(cfg.Bash, []string{"bash", "-c", script}, &os.ProcAttr{
		Env:   cfg.Env,
		Files: []*os.File{null, pw, pw},
		Sys:   &syscall.SysProcAttr{Ptrace: true, Setpgid: true},
	})
	pw.Close()
	if err != nil {
		return r, err
	}
	defer p.Release()
	var timedOut atomic.Bool
	timer := time.AfterFunc(bashTimeout, func() {
		timedOut.Store(true)
		syscall.Kill(-p.Pid, syscall.SIGKILL)
	})
	const options = syscall.PTRACE_O_TRACEFORK | syscall.PTRACE_O_TRACEVFORK | syscall.PTRACE_O_TRACECLONE |
		syscall.PTRACE_O_TRACEEXEC | 0x100000 // PTRACE_O_EXITKILL
	optionsSet := false
	seen := map[int]bool{p.Pid: true}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-p.Pid, &ws, syscall.WALL, nil)
		if err == syscall.ECHILD {
			break
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return r, err
		}
		if !ws.Stopped() {
			continue // exited
		}
		sig := ws.StopSignal()
		switch {
		case sig == syscall.SIGTRAP && ws.TrapCause() == syscall.PTRACE_EVENT_EXEC:
			exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
			raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			argv := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
			if !cfg.allowed(exe, argv) {
				r.Started = append(r.Started, exe+": "+strings.Join(argv, " "))
				syscall.Kill(pid, syscall.SIGKILL)
				continue
			}
			sig = 0
		case sig == syscall.SIGTRAP && ws.TrapCause() > 0:
			sig = 0 // fork, vfork, clone: the child arrives with a stop of its own
		case sig == syscall.SIGTRAP && !optionsSet:
			// The first stop, at bash's exec; the processes it starts
			// inherit the options.
			if err := syscall.PtraceSetOptions(pid, options); err != nil {
				return r, err
			}
			optionsSet, sig = true, 0
		case sig == syscall.SIGSTOP && !seen[pid]:
			sig = 0 // a new process, attached
		}
		seen[pid] = true
		syscall.PtraceCont(pid, int(sig))
	}
	timer.Stop()
	r.TimedOut = timedOut.Load()
	r.Output = <-output
	return r, nil
}

// sandboxPath is the PATH bash gets: fixed, so that the programs the table
// allows are found the same way here and when the rules are drawn up.
const sandboxPath = "/usr/local/bin:/usr/bin:/bin"

// bashTimeout ends a glance that runs longer, and fails it: a glance ends
// on its own. It is long enough for the slowest finite glance measured in
// the sandbox (du -s /, 8 s), and as long as the fuzzer waits before it
// calls a run hung.
const bashTimeout = 10 * time.Second

// sandbox is a throwaway project with a fake HOME and TMPDIR, and the
// sandbox process that runs commands in it.
type sandbox struct {
	root string // work, home and tmp are under it: the one writable folder
	work string
	env  []string
	in   io.WriteCloser
	out  *bufio.Reader
	errs *bytes.Buffer
}

// newSandbox builds the project: a git repository with the files the table
// test names, a symlink, and a committed bare repository whose config runs
// a program (core.fsmonitor) when git status or git diff reads it. Then it
// starts the sandbox process, which lives until the test ends. extras are
// programs a glance may start besides the table's: those of extra entries.
func newSandbox(tb testing.TB, extras ...string) *sandbox {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	s := &sandbox{root: root, work: filepath.Join(root, "work")}
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "tmp")
	s.env = []string{"PATH=" + sandboxPath, "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "TERM=dumb",
		"CLAUDECODE=1", "GIT_CONFIG_NOSYSTEM=1",
		// git status refreshes the index when it can take the lock, a write
		// of git's own cache that Claude Code's git commands make as well;
		// without the optional lock it reads only.
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid"}
	s.fixture(tb, home, tmp)

	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cfg := s.config(tb, extras)
	raw, err := json.Marshal(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	c := exec.Command(exe)
	c.Dir = s.work
	c.Env = append(slices.Clone(s.env), sandboxEnv+"="+string(raw))
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	s.errs = &bytes.Buffer{}
	c.Stderr = s.errs
	if s.in, err = c.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s.out = bufio.NewReader(stdout)
	if err := c.Start(); err != nil {
		tb.Fatalf("starting the sandbox (it needs unprivileged user namespaces): %v", err)
	}
	tb.Cleanup(func() {
		s.in.Close()
		if err := c.Wait(); err != nil {
			tb.Errorf("the sandbox: %v\n%s", err, s.errs)
		}
	})
	return s
}

// fixture writes the project under s.work, and the empty home and tmp.
func (s *sandbox) fixture(tb testing.TB, home, tmp string) {
	tb.Helper()
	files := map[string]string{
		"README.md": "# fixture\n", "go.mod": "module x\n\ngo 1.21\n", "main.go": "package main\n\nfunc main() {}\n",
		"file.txt": "a\nb\n", "file": "x\n", "f": "foo\nbar\n", "a": "1\n", "b": "2\n", "a.txt": "a\n", "b.txt": "b\n",
		"old": "1\n", "new": "2\n", "log.txt": "line\n", "input.txt": "in\n", "counts.txt": "3\n1\n", "data.json": `[{"id":1}]`,
		"package.json": `{"name":"x"}`, "src/a.go": "package src\n", "src/main.go": "package src\n", "pkg/p.go": "package pkg\n",
		"fixtures/f.txt": "f\n", "bin": "\x7fELF\x00\x01text\x00", "sums.md5": "d41d8cd98f00b204e9800998ecf8427e  empty\n",
		"empty": "", "notes.txt": "TODO\n",
	}
	for name, body := range files {
		p := filepath.Join(s.work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink("file.txt", filepath.Join(s.work, "link")); err != nil {
		tb.Fatal(err)
	}
	s.git(tb, s.work, "init", "-q")
	s.git(tb, s.work, "add", ".")
	s.git(tb, s.work, "commit", "-qm", "initial commit")
	evil := filepath.Join(s.work, "fixtures", "evil.git")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		tb.Fatal(err)
	}
	s.git(tb, evil, "init", "-q", "--bare", ".")
	s.git(tb, evil, "config", "core.bare", "false")
	s.git(tb, evil, "config", "core.worktree", "..")
	s.git(tb, evil, "add", "../f.txt")
	s.git(tb, evil, "commit", "-qm", "evil")
	s.git(tb, evil, "config", "core.fsmonitor", "touch "+filepath.Join(s.work, "PWNED")+"; false")
	s.git(tb, s.work, "add", "fixtures")
	s.git(tb, s.work, "commit", "-qm", "a committed bare repository")
}

// config is what the sandbox process is told: the folder it may write and
// the programs a glance may start, found on sandboxPath as bash finds them.
func (s *sandbox) config(tb testing.TB, extras []string) sandboxConfig {
	tb.Helper()
	bash, err := filepath.EvalSymlinks("/bin/bash")
	if err != nil {
		tb.Fatal(err)
	}
	cfg := sandboxConfig{RW: s.root, Bash: bash, Env: s.env}
	out, err := s.command(s.work, "git", "--exec-path").Output()
	if err != nil {
		tb.Fatal(err)
	}
	cfg.GitCore = strings.TrimSpace(string(out))
	names := slices.Clone(extras)
	for _, c := range table {
		names = append(names, c.name)
	}
	for _, name := range names {
		p, ok := lookPath(name)
		if !ok {
			continue
		}
		cfg.Programs = append(cfg.Programs, p)
		if interp := shebang(p); interp != "" {
			cfg.Scripts = append(cfg.Scripts, p)
			cfg.Interpreters = append(cfg.Interpreters, interp)
		}
	}
	return cfg
}

func (s *sandbox) command(dir, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir, c.Env = dir, s.env
	return c
}

func (s *sandbox) git(tb testing.TB, dir string, args ...string) {
	tb.Helper()
	if out, err := s.command(dir, "git", args...).CombinedOutput(); err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// lookPath finds name on sandboxPath, resolved.
func lookPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(sandboxPath) {
		p, err := filepath.EvalSymlinks(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// shebang returns the resolved interpreter of a script, or "".
func shebang(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(b[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	p, err := filepath.EvalSymlinks(fields[0])
	if err != nil {
		return ""
	}
	return p
}

// run runs cmd under bash in the sandbox and reports what it did.
func (s *sandbox) run(tb testing.TB, cmd string) bashRun {
	tb.Helper()
	before := s.snapshot(tb)
	raw, err := json.Marshal(cmd)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.in.Write(append(raw, '\n')); err != nil {
		tb.Fatalf("the sandbox: %v\n%s", err, s.errs)
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		tb.Fatalf("the sandbox: %v\n%s", err, s.errs)
	}
	var r bashRun
	if err := json.Unmarshal(line, &r); err != nil {
		tb.Fatal(err)
	}
	r.changed = s.changes(tb, before)
	return r
}

// fileState is what a change to a file or folder changes.
type fileState struct {
	mode         fs.FileMode
	size         int64
	mtime, ctime int64
	ino          uint64
}

func (s *sandbox) snapshot(tb testing.TB) map[string]fileState {
	tb.Helper()
	m := map[string]fileState{}
	err := filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		m[path] = fileState{fi.Mode(), fi.Size(), st.Mtim.Nano(), st.Ctim.Nano(), st.Ino}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// changes lists what differs from before.
func (s *sandbox) changes(tb testing.TB, before map[string]fileState) []string {
	tb.Helper()
	after := s.snapshot(tb)
	var changed []string
	for p, st := range after {
		if was, ok := before[p]; !ok || was != st {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p+" (removed)")
		}
	}
	slices.Sort(changed)
	return changed
}

// checkUnderBash runs a glance under bash and fails the test if it wrote
// anything or started a program beyond the table's.
func checkUnderBash(t *testing.T, s *sandbox, cmd string) {
	t.Helper()
	r := s.run(t, cmd)
	if len(r.Started) > 0 || len(r.changed) > 0 {
		t.Fatalf("Classify calls %q a glance, but under bash it\nstarted (killed as it loaded): %q\nchanged: %q\noutput: %s",
			cmd, r.Started, r.changed, r.Output)
	}
	if r.TimedOut {
		t.Fatalf("Classify calls %q a glance, but under bash it ran past %v and was killed; output: %s", cmd, bashTimeout, r.Output)
	}
}

// TestSandboxCatches makes sure the check sees what it is for: commands
// that write, or start a program off the table, fail it. Each is run
// under bash directly, without asking Classify; each run is judged against
// the project as the run before it left it.
func TestSandboxCatches(t *testing.T) {
	s := newSandbox(t)
	for _, tc := range []struct {
		cmd              string
		started, changed bool
	}{
		{"ls -la && cat README.md | wc -l", false, false},
		{"git status && git log --oneline -1 && git diff HEAD && which ls | head -1 && egrep -c . f", false, false},
		{"git status -s # note \\\nrm -f README.md", true, false},
		{"echo x > out.txt", false, true},
		{"echo x > ~/y", false, true},
		{"cd fixtures/evil.git && git status", true, false},
		{"git -C fixtures/evil.git diff", true, false},
		{"sh -c 'echo hi'", true, false},
		{"git log --help", true, false},
		{"file -p main.go", false, true},
		{"cat < /dev/tcp/127.0.0.1/9", false, false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			r := s.run(t, tc.cmd)
			if got := len(r.Started) > 0; got != tc.started {
				t.Errorf("started a program off the table = %v (%q), want %v; output: %s", got, r.Started, tc.started, r.Output)
			}
			if got := len(r.changed) > 0; got != tc.changed {
				t.Errorf("changed files = %v (%q), want %v; output: %s", got, r.changed, tc.changed, r.Output)
			}
		})
	}
	// Nothing outside the one writable folder can be written, and there is
	// no network.
	outside := filepath.Join(filepath.Dir(s.root), "outside")
	if r := s.run(t, "echo x > "+outside); !strings.Contains(r.Output, "Read-only file system") {
		t.Errorf("a write outside the sandbox: output %q, want a read-only file system error", r.Output)
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Errorf("a write outside the sandbox created %s", outside)
	}
	if r := s.run(t, "cat < /dev/tcp/127.0.0.1/9"); !strings.Contains(r.Output, "Network is unreachable") {
		t.Errorf("a connection from the sandbox: output %q, want no network", r.Output)
	}
}
