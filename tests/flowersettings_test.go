package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/internal/flowersettings"
)

func TestFlowerSettingsGolden(t *testing.T) {
	runGolden(t, "flower-settings", flowersettings.Main)
}

// TestFlowerSettingsRepoFiles keeps the repository's example settings and the
// plugin's hooks file equal to what the catalog generates, so they cannot
// drift from what install.sh wires. -update rewrites them.
func TestFlowerSettingsRepoFiles(t *testing.T) {
	example, err := flowersettings.Example("", flowersettings.DefaultLayers)
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := flowersettings.PluginHooks()
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]byte{
		"../settings.example.json": example,
		"../hooks/hooks.json":      plugin,
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if *update {
				if err := os.WriteFile(file, want, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s is not what the catalog generates; run go test ./tests -run TestFlowerSettingsRepoFiles -update (-want +got):\n%s", file, diff)
			}
		})
	}
}

// TestFlowerSettingsPrintsCaptureScript: --print-capture-script prints the
// script the capture layer's BASH_ENV names, as embedded, for an install by
// hand (install.sh writes it with this flag).
func TestFlowerSettingsPrintsCaptureScript(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := flowersettings.Main([]string{"--print-capture-script"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.String() != capture.Script {
		t.Errorf("--print-capture-script printed %d bytes, not the %d of the script", stdout.Len(), len(capture.Script))
	}
}
