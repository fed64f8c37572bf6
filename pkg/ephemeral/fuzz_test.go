package ephemeral

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzClassify: Classify never panics, gives the same answer twice, and
// its verdict holds together (a glance is made of glances only, and the
// expiry side agrees); and a glance, run by real bash in a sandbox, writes
// nothing and starts no program beyond the table's (bash_test.go). Seeded
// from the table test.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases() {
		f.Add(tc.cmd)
	}
	s := newSandbox(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		v := Classify(cmd)
		if diff := cmp.Diff(v, Classify(cmd)); diff != "" {
			t.Fatalf("Classify(%q) differs between two calls (-first +second):\n%s", cmd, diff)
		}
		if IsEphemeral(cmd) != v.Glance {
			t.Fatalf("IsEphemeral(%q) != Classify().Glance", cmd)
		}
		if v.Reason == "" {
			t.Fatalf("Classify(%q) has no reason", cmd)
		}
		checkInvariants(t, cmd, v)
		if v.Glance {
			checkUnderBash(t, s, cmd)
		}
	})
}

// TestMayBeGlance: the first-word check never says no to a glance, over
// every command of the table tests; and it does say no to plain commands
// that are not on the table, which is what it is for.
func TestMayBeGlance(t *testing.T) {
	cmds := []string{}
	for _, tc := range classifyCases() {
		cmds = append(cmds, tc.cmd)
	}
	for _, tc := range TableCases() {
		cmds = append(cmds, tc.Cmd)
	}
	for _, cmd := range cmds {
		if Classify(cmd).Glance && !builtin.mayBeGlance(cmd) {
			t.Errorf("mayBeGlance(%q) = false for a glance", cmd)
		}
	}
	for _, cmd := range []string{"./run-tests.sh", "make test", "go build ./...", "npm ci && ls", "rm -rf build", "python3 x.py | head"} {
		if builtin.mayBeGlance(cmd) {
			t.Errorf("mayBeGlance(%q) = true, want false", cmd)
		}
	}
	for _, cmd := range []string{"ls", "  git status", "2>/dev/null ls", "! ls", "\"ls\"", "l\\s", "$X", "{ ls; }", "(ls)", "# c\nls", "A=1 ls"} {
		if !builtin.mayBeGlance(cmd) {
			t.Errorf("mayBeGlance(%q) = false, want true (left to the parser)", cmd)
		}
	}
	// The parser reads a carriage return as a blank and drops NUL bytes, so
	// it reads each of these as ls or git status; bash does not, and
	// Classify refuses them before parsing.
	for _, cmd := range []string{"ls\r", "ls\r\n", "\rls", "\r\nls", "pwd\r", "echo\rhi", "git\rstatus", "\r2>/dev/null ls",
		"l\x00s", "\x00ls", "ls\x00", "ls\x00 -l"} {
		if v := Classify(cmd); v.Glance || !strings.Contains(v.Reason, "control character") {
			t.Errorf("Classify(%q) = %v, %q; want it refused for a control character", cmd, v.Glance, v.Reason)
		}
	}
}

// TestMayBeGlanceOneByte: no byte inserted near the start of a glance of
// the table test (where the first word is read), alone or before a space,
// makes mayBeGlance say no where Classify says glance. The parser reads
// some bytes in ways easy to miss (a carriage return is a blank, a NUL byte
// is dropped); this test finds those, where FuzzClassify's runs did not.
func TestMayBeGlanceOneByte(t *testing.T) {
	t.Parallel()
	const firstBytes = 5 // past the first word of most glances (ls, cat, git, grep)
	unsound := 0
	for _, tc := range classifyCases() {
		if !tc.glance {
			continue
		}
		for pos := 0; pos <= min(len(tc.cmd), firstBytes); pos++ {
			for b := range 256 {
				for _, after := range []string{"", " "} {
					cmd := tc.cmd[:pos] + string([]byte{byte(b)}) + after + tc.cmd[pos:]
					if !builtin.mayBeGlance(cmd) && Classify(cmd).Glance {
						if unsound++; unsound <= 10 {
							t.Errorf("mayBeGlance(%q) = false, and Classify calls it a glance", cmd)
						}
					}
				}
			}
		}
	}
}
