package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/internal/flowerconfig"
)

// The README's "Check it works" runs exactly as written, in a sandbox HOME,
// with the real CLI as `claude` on PATH: its model check must show
// delegate-guard's own words with flower installed, say that flower did not
// run without it, and tell a model call that failed from both; and leave no
// folder or session behind.

// readmeCheck returns the README's model check (the sh block of the section
// "Check it works" that runs --model), the output it shows for an install
// (the plain block after it), and the line it quotes for no install.
func readmeCheck(t *testing.T) (command, shown, without string) {
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
	block := func(fence, holding string) string {
		for rest := section; ; {
			_, after, ok := strings.Cut(rest, "\n"+fence+"\n")
			if !ok {
				t.Fatalf("the README's check has no %q block holding %q", fence, holding)
			}
			body, next, ok := strings.Cut(after, "\n```\n")
			if !ok {
				t.Fatalf("the README's %q block is not closed", fence)
			}
			if strings.Contains(body, holding) {
				section = next
				return body
			}
			rest = next
		}
	}
	command = block("```sh", "--model")
	shown = block("```", "PreToolUse:Bash hook error")
	m := regexp.MustCompile("`(no denial: [^`]*)`").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("the README's check quotes no `no denial: …` line")
	}
	return command, shown, strings.Join(strings.Fields(m[1]), " ")
}

func TestReadmeCheck(t *testing.T) {
	t.Parallel()
	command, shown, without := readmeCheck(t)
	_, rm, _ := strings.Cut(flowerconfig.ModelPrompt, ": ")
	for _, tc := range []struct {
		name             string
		install, offline bool
	}{{"with flower", true, false}, {"without flower", false, false}, {"no model", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewScenario(t)
			if tc.install {
				runInstall(t, s)
			}
			// The scripted model does what the prompt asks, then stops.
			s.API.AddMainPrompt(flowerconfig.ModelPrompt)
			s.API.Main(Steps(Call(Bash("check", rm)), Say("done")))
			path := filepath.Join(s.Dir, "path")
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(claudeBin, filepath.Join(path, "claude")); err != nil {
				t.Fatal(err)
			}
			env := []string{"PATH=" + filepath.Join(s.Home, ".local", "bin") + string(os.PathListSeparator) + path + string(os.PathListSeparator) + os.Getenv("PATH")}
			if tc.offline {
				env = append(env, "ANTHROPIC_BASE_URL=http://127.0.0.1:1")
			}
			cmd := exec.Command("sh", "-c", command)
			cmd.Dir = s.Work
			cmd.Env = s.env(Options{Env: env})
			if !tc.install { // flower-config from the build, nothing wired
				cmd.Env = append(cmd.Env, "PATH="+binDir+string(os.PathListSeparator)+strings.TrimPrefix(env[0], "PATH="))
			}
			out, err := cmd.Output()
			got := strings.TrimSpace(string(out))
			last := got[strings.LastIndex(got, "\n")+1:]
			switch {
			case tc.offline:
				if err == nil || !strings.Contains(got, "\nthe model call failed: ") {
					t.Errorf("with no model reachable the check printed (%v):\n%s", err, got)
				}
			case !tc.install:
				if err == nil || last != without {
					t.Errorf("without flower the check ended %q (%v), want %q:\n%s", last, err, without, got)
				}
			default:
				// The README shows a made-up temporary folder.
				folder := regexp.MustCompile(`/\S*/\.flower/artifacts/`)
				norm := func(s string) string {
					return folder.ReplaceAllString(strings.TrimSpace(s), "<tmp>/.flower/artifacts/")
				}
				if err != nil || !strings.HasSuffix(norm(got), norm(shown)) {
					t.Errorf("with flower the check printed (%v)\n%s\nthe README shows it ending\n%s", err, got, shown)
				}
				if !strings.Contains(got, hookDenial("Bash")+delegateReason("Bash")) {
					t.Errorf("with flower the check did not print delegate-guard's reason:\n%s", got)
				}
			}
			// Nothing left behind: no folder of the check, no session of it.
			if left, _ := filepath.Glob(filepath.Join(s.Dir, "flower-check-*")); len(left) > 0 {
				t.Errorf("the check left %v", left)
			}
			if left, _ := filepath.Glob(filepath.Join(s.ConfigDir, "projects", "*flower-check-*")); len(left) > 0 {
				t.Errorf("the check left its session in %v", left)
			}
		})
	}
}
