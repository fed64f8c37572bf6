package ephemeral

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flowerhooks/flower/tests/cputime"
)

// fill repeats unit as often as fits in n bytes after head.
func fill(head, unit string, n int) string {
	return head + strings.Repeat(unit, (n-len(head))/len(unit))
}

// TestClassifyBounded: classification is linear and bounded. Commands past
// the length or nesting cap are refused at once, with that reason; the
// shapes that cost the parser or the rules most are, at the cap, cheap.
// Before the caps, 126 KB of nested parentheses took 1.9 s and 491 MB, and
// 320 KB overflowed the stack, which exits 2: "block" to Claude Code.
func TestClassifyBounded(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, why string
	}{
		{"126 KB of nested parentheses", strings.Repeat("(", 63<<10) + strings.Repeat(")", 63<<10), "past the 16384"},
		{"320 KB of nested parentheses", strings.Repeat("(", 160<<10) + strings.Repeat(")", 160<<10), "past the 16384"},
		{"one byte past the cap", fill("ls", " a", maxCommandBytes+2), "past the 16384"},
		{"33 parentheses deep", strings.Repeat("(", 33) + "ls" + strings.Repeat(")", 33), "nested more than 32 deep"},
		{"33 deep, quoted", "grep '" + strings.Repeat("(", 33) + "' f", "nested more than 32 deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v Verdict
			took, alloc := measureClassify(func() { v = Classify(tc.cmd) })
			if v.Glance || !strings.Contains(v.Reason, tc.why) {
				t.Errorf("Classify = %v, %q; want refused with %q", v.Glance, v.Reason, tc.why)
			}
			if took > 10*time.Millisecond || alloc > 1<<10 {
				t.Errorf("took %v and allocated %d bytes, want it refused before parsing", took, alloc)
			}
		})
	}
	deep := func(open, mid, close string) string {
		return strings.Repeat(open, maxParenDepth) + mid + strings.Repeat(close, maxParenDepth)
	}
	const n = maxCommandBytes
	for _, tc := range []struct{ name, cmd string }{
		{"nested parentheses", fill("", deep("(", "ls", ")")+";", n)},
		{"unclosed parentheses", fill(strings.Repeat("(", maxParenDepth), "x ", n)},
		{"unclosed arithmetic", fill("echo $(("+strings.Repeat("(", maxParenDepth-2), "1+", n)},
		{"arithmetic", fill("", "echo $(("+deep("(", "1", ")")[2:]+"));", n)},
		{"command substitutions", fill("", deep("$(", "ls", ")")+";", n)},
		{"quoted substitutions", fill("", deep(`"$(`, "ls", `)"`)+";", n)},
		{"groups", fill("", "{ ", n/2) + "ls" + strings.Repeat("; }", (n/2)/3)},
		{"conditionals", fill("", "if true; then ", n/2) + "ls" + strings.Repeat("; fi", (n/2)/14)},
		{"a pipeline", fill("ls", " | ls", n)},
		{"an and-list", fill("ls", " && ls", n)},
		{"a list", fill("", "ls; ", n)},
		{"words", fill("ls", " a", n)},
		{"backslash-newlines", fill("ls", " a\\\n", n)},
		{"comments", fill("", "ls # c\n", n)},
		{"here-documents", fill("", "cat <<E\nx\nE\n", n)},
		{"brace expansions", fill("echo", " {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", n)},
		{"sed commands", fill("sed -n '", "1p;", n-4) + "' f"},
		{"sed -e", fill("sed -n", " -e 1p", n)},
		{"find predicates", fill("find .", " -name a -o", n)},
		{"git pathspecs", fill("git log --", " a", n)},
		{"cds", fill("cd / && ", "cd a && ", n-2) + "ls"},
		{"relative words after cds", fill("cd /a && cd /b && cd /c && cd /d && cat", " x", n)},
		{"globs", fill("cat", " /*/*", n)},
		{"test operands", fill("test", " -n a", n)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.cmd) > maxCommandBytes {
				t.Fatalf("the case is %d bytes, past the cap", len(tc.cmd))
			}
			took, alloc := measureClassify(func() { Classify(tc.cmd) })
			t.Logf("%d bytes: %v, %d KB", len(tc.cmd), took, alloc>>10)
			if took > time.Second || alloc > 32<<20 {
				t.Errorf("took %v and allocated %d MB, want under a second (a few ms without the race detector) and a few MB", took, alloc>>20)
			}
		})
	}
}

// measureClassify returns the CPU time f took and how many bytes it allocated.
func measureClassify(f func()) (time.Duration, uint64) {
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
