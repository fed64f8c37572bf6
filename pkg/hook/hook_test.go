package hook

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestRecoverTurnsPanicIntoExit1(t *testing.T) {
	var stderr bytes.Buffer
	run := func() (code int) {
		c := NewCLI("x-tool", "usage", nil, &bytes.Buffer{}, &stderr)
		defer c.Recover(&code)
		var m map[string]int
		m["boom"]++ // nil map write panics
		return 0
	}
	if code := run(); code != ExitFail {
		t.Errorf("exit %d, want %d", code, ExitFail)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "x-tool: internal error: ") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr = %q, want one line naming the tool", got)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantDone   bool
		wantStdout string
		wantStderr string
	}{
		{name: "no flags", args: nil},
		{name: "version", args: []string{"--version"}, wantDone: true, wantStdout: "x-tool " + Release + "\n"},
		{name: "help spells --flag", args: []string{"-help"}, wantDone: true,
			wantStdout: "usage\n\nFlags:\n  --n N\n    \ta number\n  --version\n    \tprint the version and exit\n"},
		{name: "unknown flag", args: []string{"-q"}, wantCode: 1, wantDone: true,
			wantStderr: "x-tool: flag provided but not defined: -q (see x-tool --help)\n"},
		{name: "bad value", args: []string{"-n", "many"}, wantCode: 1, wantDone: true,
			wantStderr: "x-tool: invalid value \"many\" for flag -n: parse error (see x-tool --help)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := NewCLI("x-tool", "usage", nil, &stdout, &stderr)
			c.Flags.Int("n", 0, "a number")
			code, done := c.Parse(tt.args)
			if code != tt.wantCode || done != tt.wantDone {
				t.Errorf("Parse = %d, %v; want %d, %v", code, done, tt.wantCode, tt.wantDone)
			}
			if diff := cmp.Diff(tt.wantStdout, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStderr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	var stdout, stderr bytes.Buffer
	c := NewCLI("x-tool", "Usage: x-tool\n", nil, &stdout, &stderr)
	code, done := c.Parse([]string{"-h"})
	if code != 0 || !done || stderr.Len() != 0 || !strings.HasPrefix(stdout.String(), "Usage: x-tool\n\nFlags:\n") {
		t.Errorf("Parse(-h) = %d, %v, stdout %q, stderr %q", code, done, stdout.String(), stderr.String())
	}
}

func TestWorkbenchRoot(t *testing.T) {
	tests := []struct {
		name, flag, envWB, envProject, cwd, want string
		wantErr                                  bool
	}{
		{name: "flag wins", flag: "/f", envWB: "/e", envProject: "/p", cwd: "/c", want: "/f"},
		{name: "FLOWER_WORKBENCH", envWB: "/e", envProject: "/p", cwd: "/c", want: "/e"},
		{name: "project dir", envProject: "/p", cwd: "/c", want: "/p/.flower"},
		{name: "payload cwd", cwd: "/c", want: "/c/.flower"},
		{name: "cleaned", flag: "/a/../b/", want: "/b"},
		{name: "nothing", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FLOWER_WORKBENCH", tt.envWB)
			t.Setenv("CLAUDE_PROJECT_DIR", tt.envProject)
			got, err := WorkbenchRoot(tt.flag, tt.cwd)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("WorkbenchRoot = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestWorkbenchRootSymlinks: a root the user names is resolved through its
// symlinks (as far as it exists); the default root is left as it is, for
// package workbench to refuse if it is a symlink.
func TestWorkbenchRootSymlinks(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(tmp, "real")
	os.Mkdir(real, 0o700)
	os.Symlink(real, filepath.Join(tmp, "link"))
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	for _, tc := range []struct{ name, flag, env, cwd, want string }{
		{"named by flag", filepath.Join(tmp, "link"), "", "", real},
		{"named by env, missing below", "", filepath.Join(tmp, "link", "wb", "x"), "", filepath.Join(real, "wb", "x")},
		{"named, all missing", "", "/nonexistent-flower/wb", "", "/nonexistent-flower/wb"},
		{"default: not resolved", "", "", filepath.Join(tmp, "link"), filepath.Join(tmp, "link", ".flower")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FLOWER_WORKBENCH", tc.env)
			if got, err := WorkbenchRoot(tc.flag, tc.cwd); err != nil || got != tc.want {
				t.Errorf("WorkbenchRoot = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestOutputEscapes(t *testing.T) {
	var b bytes.Buffer
	reason := "quote \" backslash \\ newline \n unicode é ✓ <tag>"
	if _, err := Decision("deny", reason).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	p, err := ParsePayload(`{"hook_event_name":"x","o":` + strings.TrimSpace(b.String()) + "}")
	if err != nil {
		t.Fatalf("output is not valid JSON: %v\n%s", err, b.String())
	}
	if got := p.Get("o.hookSpecificOutput.permissionDecisionReason").String(); got != reason {
		t.Errorf("reason round-trip = %q, want %q", got, reason)
	}
	if got := p.Get("o.hookSpecificOutput.hookEventName").String(); got != "PreToolUse" {
		t.Errorf("hookEventName = %q", got)
	}
}

// TestReadPayloadSizes: payloads around the first buffer's size, read in
// pieces, come out whole; a read error is reported.
func TestReadPayloadSizes(t *testing.T) {
	for _, n := range []int{0, 1, firstBuffer - 40, firstBuffer, firstBuffer + 1, 3*firstBuffer + 7} {
		stdin := `{"hook_event_name":"x","pad":"` + strings.Repeat("a", n) + `"}`
		p, err := ReadPayload(iotest.HalfReader(strings.NewReader(stdin)))
		if err != nil || p.Raw != stdin {
			t.Errorf("%d bytes of padding: %v, read back whole %v", n, err, p != nil && p.Raw == stdin)
		}
	}
	boom := errors.New("boom")
	if _, err := ReadPayload(io.MultiReader(strings.NewReader(strings.Repeat(" ", 3*firstBuffer)), iotest.ErrReader(boom))); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want boom", err)
	}
}

// TestProjectDir: $CLAUDE_PROJECT_DIR, else the payload's cwd.
func TestProjectDir(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	if got := ProjectDir("/w/sub"); got != "/w/sub" {
		t.Errorf("ProjectDir = %s", got)
	}
	t.Setenv("CLAUDE_PROJECT_DIR", "/p")
	if got := ProjectDir("/w/sub"); got != "/p" {
		t.Errorf("ProjectDir with CLAUDE_PROJECT_DIR = %s", got)
	}
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	if got := ProjectDir(""); got != "" {
		t.Errorf("ProjectDir of nothing = %q", got)
	}
}
