package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The interactive CLI in a tmux session, for what only the terminal UI does
// (teammates in panes): the prompt is typed, not given with -p.

// needTmux fails or skips t without tmux, as needClaude does without the CLI.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err == nil {
		return
	}
	if required() {
		t.Fatal("tmux is not installed: the interactive scenarios run the CLI in it")
	}
	t.Skip("tmux is not installed: the interactive scenarios run the CLI in it")
}

// runInTmux starts the interactive CLI in Work, in a tmux session of its own,
// with o's settings, tools, arguments and environment (o.Prompt is unused),
// types prompt once it is ready, waits until done reports true, and returns
// what its screen shows then (and a way to look again). Every
// tmux server the session or the CLI starts (its teammates' panes) keeps its
// socket under Dir, and all of them are killed, with what runs in them,
// before the test's folders are removed.
func runInTmux(t *testing.T, s *Scenario, prompt string, o Options, done func(screen string) bool) (screen func() string) {
	t.Helper()
	// Onboarding, the API key, the folder's trust: what a first run asks.
	seed := `{"hasCompletedOnboarding":true,"theme":"dark","customApiKeyResponses":{"approved":["sk-test"],"rejected":[]},` +
		`"projects":{` + strconv.Quote(s.Work) + `:{"hasTrustDialogAccepted":true,"hasCompletedProjectOnboarding":true}}}`
	if err := os.WriteFile(filepath.Join(s.ConfigDir, ".claude.json"), []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	socks := filepath.Join(s.Dir, "tmux")
	if err := os.Mkdir(socks, 0o700); err != nil {
		t.Fatal(err)
	}
	o.Env = append(o.Env, "TERM=xterm-256color", "TMUX_TMPDIR="+socks)
	sock := filepath.Join(socks, "e2e")
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	cmd := append([]string{"new-session", "-d", "-x", "200", "-y", "50", "-c", s.Work, "env", "-i"}, s.env(o)...)
	if out, err := tmux(append(append(cmd, claudeBin), s.args(o)...)...); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { killTmux(t, socks) })

	screen = func() string { out, _ := tmux("capture-pane", "-p"); return out }
	wait := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(DefaultTimeout); !ok(); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("the interactive CLI did not %s in %v; its screen:\n%s", what, DefaultTimeout, screen())
			}
		}
	}
	wait("show its prompt", func() bool { return strings.Contains(screen(), "❯") })
	if first := screen(); done(first) {
		return screen
	}
	if out, err := tmux("send-keys", "-l", prompt); err != nil {
		t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
	if out, err := tmux("send-keys", "Enter"); err != nil {
		t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
	wait("finish", func() bool { return done(screen()) })
	return screen
}

// tmuxKeys sends keys to the interactive CLI runInTmux started.
func tmuxKeys(t *testing.T, s *Scenario, keys ...string) {
	t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", filepath.Join(s.Dir, "tmux", "e2e"), "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		t.Errorf("tmux send-keys: %v\n%s", err, out)
	}
}

// killTmux kills every tmux server whose socket is in dir and waits for the
// processes of their panes to end.
func killTmux(t *testing.T, dir string) {
	socks, _ := filepath.Glob(filepath.Join(dir, "*"))
	more, _ := filepath.Glob(filepath.Join(dir, "tmux-*", "*"))
	var pids []int
	for _, sock := range append(socks, more...) {
		if fi, err := os.Stat(sock); err != nil || fi.Mode().Type() != os.ModeSocket {
			continue
		}
		out, _ := exec.Command("tmux", "-S", sock, "list-panes", "-a", "-F", "#{pane_pid}").Output()
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		exec.Command("tmux", "-S", sock, "kill-server").Run()
	}
	for end := time.Now().Add(10 * time.Second); len(pids) > 0; time.Sleep(100 * time.Millisecond) {
		if errors.Is(syscall.Kill(pids[0], 0), syscall.ESRCH) {
			pids = pids[1:]
		} else if time.Now().After(end) {
			t.Errorf("process %d of a tmux pane outlived its server", pids[0])
			return
		}
	}
}
