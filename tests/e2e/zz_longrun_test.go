package e2e

import (
	"os"
	"testing"
	"time"
)

func TestZZLongRunExperiment(t *testing.T) {
	s := NewScenario(t)
	s.API.Main(Steps(Call(Bash("before", "echo before")), Call(Bash("long", "sleep 125; echo done")), Call(Bash("after", "echo after")), Say("ok")))
	o := Options{Prompt: "run them", Settings: captureSettings(t, s, "{}", captureLayers...), AllowedTools: []string{"Bash"}, Env: captureEnv, Timeout: 5 * time.Minute}
	res := s.Run(o)
	for _, id := range []string{"before", "long", "after"} {
		r := s.ToolResult(id)
		t.Logf("%s: is_error %v %q", id, r.IsError, r.Text)
	}
	t.Logf("stderr: %s", res.Stderr)
	ents, _ := os.ReadDir(s.Path(".flower/spill"))
	for _, e := range ents {
		t.Logf("spill: %s", e.Name())
	}
}
