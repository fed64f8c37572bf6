package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestSpillStaysPrivateInTheRealCLI: a repository with a .gitignore of its
// own and an untrusted project file naming the project folder as workbench
// (issue 24's first case) gets a spill in the real CLI, and an agent's
// `git add -A` would commit none of it: the workbench stays flower's
// default, and its spill folder ignores itself.
func TestSpillStaysPrivateInTheRealCLI(t *testing.T) {
	t.Parallel()
	s := NewScenario(t)
	s.WriteFile(".gitignore", "node_modules/\n")
	s.WriteFile(".claude/flower.json", `{"workbench": "."}`)
	s.Git("add", ".")
	s.Git("commit", "-qm", "a repository that names its own folder as the workbench")
	s.API.Main(Steps(
		Call(Bash("env", "echo SECRET_TOKEN=flower-e2e-secret && seq 1 3000")),
		Say("done"),
	))
	s.Run(Options{Prompt: "show the environment", Settings: Settings(LayerHooks(t, "3")...), AllowedTools: handsOn})

	got := s.ToolResult("env")
	if !strings.Contains(got.Text, "Spilled to a file") || !strings.Contains(got.Text, s.Path(".flower/spill")+"/") {
		t.Fatalf("no spill into the default workbench:\n%.400s", got.Text)
	}
	added := s.Git("add", "-A", "-n")
	for _, line := range strings.Split(strings.TrimSpace(added), "\n") {
		name := strings.TrimSuffix(strings.TrimPrefix(line, "add '"), "'")
		if b, _ := os.ReadFile(s.Path(name)); strings.Contains(name, "spill") || strings.Contains(string(b), "flower-e2e-secret") {
			t.Errorf("git add -A would commit the spilled output: %s", name)
		}
	}
}
