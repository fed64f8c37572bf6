package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's "Check it works" runs exactly as written, in a sandbox HOME,
// with the real CLI as `claude` on PATH: it must show delegate-guard's own
// words with flower installed, and say that flower did not run without it.

// readmeCheck returns the README's check command (the first sh block of the
// section "Check it works") and the output it shows for an install (the
// first plain block after it).
func readmeCheck(t *testing.T) (command, shown string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Check it works\n")
	if !ok {
		t.Fatal(`README.md has no section "## Check it works"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	block := func(fence string) string {
		_, rest, ok := strings.Cut(section, "\n"+fence+"\n")
		if !ok {
			t.Fatalf("the README's check has no %q block", fence)
		}
		body, after, ok := strings.Cut(rest, "\n```\n")
		if !ok {
			t.Fatalf("the README's %q block is not closed", fence)
		}
		section = after
		return body
	}
	return block("```sh"), block("```")
}

// readmePrompt is the prompt the check gives claude -p.
var readmePrompt = regexp.MustCompile(`claude -p '([^']*)'`)

func TestReadmeCheck(t *testing.T) {
	t.Parallel()
	command, shown := readmeCheck(t)
	m := readmePrompt.FindStringSubmatch(command)
	if m == nil {
		t.Fatalf("no `claude -p '…'` in the README's check:\n%s", command)
	}
	prompt := m[1]
	_, rm, ok := strings.Cut(prompt, ": ")
	if !ok {
		t.Fatalf("the prompt %q does not end in \": <command>\"", prompt)
	}
	for _, tc := range []struct {
		name    string
		install bool
	}{{"with flower", true}, {"without flower", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScenario(t)
			if tc.install {
				runInstall(t, s)
			}
			// The scripted model does what the prompt asks, then stops.
			s.API.AddMainPrompt(prompt)
			s.API.Main(Steps(Call(Bash("check", rm)), Say("done")))
			path := filepath.Join(s.Dir, "path")
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(claudeBin, filepath.Join(path, "claude")); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", command)
			cmd.Dir = s.Work
			cmd.Env = s.env(Options{Env: []string{"PATH=" + path + string(os.PathListSeparator) + os.Getenv("PATH")}})
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the README's check failed: %v\n%s", err, out)
			}
			got := string(out)
			if !tc.install {
				if want := "no denial: flower did not run (see Troubleshooting)\n"; got != want {
					t.Errorf("without flower the check printed %q, want %q", got, want)
				}
				return
			}
			// The README shows a made-up temporary folder.
			folder := regexp.MustCompile(`/\S*/\.flower/artifacts/`)
			norm := func(s string) string {
				return folder.ReplaceAllString(strings.TrimSpace(s), "<tmp>/.flower/artifacts/")
			}
			if norm(got) != norm(shown) {
				t.Errorf("with flower the check printed\n%s\nthe README shows\n%s", got, shown)
			}
			if !strings.HasPrefix(got, hookDenial("Bash")+delegateReason("Bash")) {
				t.Errorf("with flower the check printed %q, not delegate-guard's reason", got)
			}
		})
	}
}
