package tests

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/contextaudit"
	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/flowerconfig"
	"github.com/flowerhooks/flower/internal/flowersettings"
	"github.com/flowerhooks/flower/internal/glancecheck"
	"github.com/flowerhooks/flower/internal/indexguard"
	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/internal/spillguard"
	"github.com/flowerhooks/flower/internal/status"
	"github.com/flowerhooks/flower/pkg/hook"
)

// commandMains are every command's Main, by command name.
var commandMains = map[string]mainFunc{
	"context-audit":   contextaudit.Main,
	"flower-config":   flowerconfig.Main,
	"delegate-guard":  delegateguard.Main,
	"flower-settings": flowersettings.Main,
	"flower-status":   status.Main,
	"glance-check":    glancecheck.Main,
	"index-guard":     indexguard.Main,
	"prune-session":   prunesession.Main,
	"spill-guard":     spillguard.Main,
}

// TestOneVersion: the commands' --version, the plugin manifest and the
// marketplace entry all say hook.Release.
func TestOneVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(hook.Release) {
		t.Errorf("hook.Release = %q, want MAJOR.MINOR.PATCH", hook.Release)
	}
	entries, err := os.ReadDir("../cmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range entries {
		main, ok := commandMains[d.Name()]
		if !ok {
			t.Errorf("cmd/%s is not in commandMains", d.Name())
			continue
		}
		var stdout, stderr bytes.Buffer
		code := main([]string{"--version"}, nil, &stdout, &stderr)
		if diff := cmp.Diff(d.Name()+" "+hook.Release+"\n", stdout.String()); code != 0 || diff != "" {
			t.Errorf("%s --version: exit %d, stdout (-want +got):\n%s", d.Name(), code, diff)
		}
	}
	for file, path := range map[string]string{
		"../.claude-plugin/plugin.json":      "version",
		"../.claude-plugin/marketplace.json": `plugins.#(name=="flower").version`,
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(b, path).String(); got != hook.Release {
			t.Errorf("%s: %s = %q, want hook.Release %q", file, path, got, hook.Release)
		}
	}
}
