package flowersettings

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
)

var captureLayers = []string{LayerDelegate, LayerWorkbench, LayerSpill, LayerCapture}

// TestCaptureEnvRoundTrip: wiring the capture layer and taking it out again
// (by uninstalling, or by installing without it) gives back the file byte
// for byte, a BASH_ENV of the user's own included.
func TestCaptureEnvRoundTrip(t *testing.T) {
	script := capture.ScriptPath(testBin)
	for _, tc := range []struct {
		name, doc string
		chained   string // the user's BASH_ENV, kept in FLOWER_BASH_ENV
	}{
		{"no env", "{}\n", ""},
		{"claude code style", "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n", ""},
		{"compact", `{"env":{"A":"1"},"z":[]}`, ""},
		// An "env" left empty goes, as an emptied "hooks" does: {"env": {}} comes back as {}.
		{"empty env", "{\n  \"env\": {}\n}\n", ""},
		{"user BASH_ENV", "{\n  \"env\": {\n    \"BASH_ENV\": \"/home/u/.bash_env\",\n    \"B\": \"2\"\n  }\n}\n", "/home/u/.bash_env"},
		{"user BASH_ENV escaped", `{"env":{"BASH_ENV":"$HOME/\u00e9 \"x\".sh"}}`, `$HOME/é "x".sh`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			installed, changes, err := Install([]byte(tc.doc), testBin, captureLayers)
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(installed, "env.BASH_ENV").String(); got != script {
				t.Errorf("BASH_ENV = %q, want %q", got, script)
			}
			if got := gjson.GetBytes(installed, "env.FLOWER_BASH_ENV").String(); got != tc.chained {
				t.Errorf("FLOWER_BASH_ENV = %q, want %q", got, tc.chained)
			}
			if !gjson.GetBytes(installed, "hooks.PostToolUseFailure.0.matcher").Exists() {
				t.Errorf("no PostToolUseFailure entry:\n%s", installed)
			}
			if want := len(catalogOf(AllLayers)) + 1; len(changes) != want {
				t.Errorf("%d changes, want %d hooks and the env:\n%v", len(changes), want-1, changes)
			}
			again, changes, err := Install(installed, testBin, captureLayers)
			if err != nil || len(changes) != 0 || string(again) != string(installed) {
				t.Errorf("a second install changed %v (%v)", changes, err)
			}
			if layers, _ := WiredLayers(installed, testBin); !cmp.Equal(layers, captureLayers) {
				t.Errorf("WiredLayers = %v", layers)
			}
			restored, _, err := Uninstall(installed, testBin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.doc, string(restored)); diff != "" && tc.name != "empty env" {
				t.Errorf("uninstall did not restore the file (-want +got):\n%s", diff)
			}
			// Without the layer, the env goes; the hooks of the rest stay.
			narrowed, _, err := Install(installed, testBin, DefaultLayers)
			if err != nil {
				t.Fatal(err)
			}
			back, _, err := Uninstall(narrowed, testBin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(restored), string(back)); diff != "" {
				t.Errorf("narrowing to 1,2,3 then uninstalling differs from uninstalling (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCaptureEnvCases(t *testing.T) {
	script := capture.ScriptPath(testBin)
	for _, tc := range []struct {
		name, doc string
		want      string // env.BASH_ENV after, or the error
		change    string
	}{
		{"another install's script moves", `{"env":{"BASH_ENV":"/opt/flower/share/flower/capture.bash"}}`, script,
			"~ env BASH_ENV=/opt/flower/share/flower/capture.bash -> " + script + " (layer capture)"},
		{"the user's moves aside", `{"env":{"BASH_ENV":"/u/env.sh"}}`, script,
			"~ env BASH_ENV=/u/env.sh -> " + script + " (layer capture; your BASH_ENV moves to FLOWER_BASH_ENV, which the capture script reads after itself)"},
		{"added", `{}`, script, "+ env BASH_ENV=" + script + " (layer capture)"},
		{"both taken", `{"env":{"BASH_ENV":"/u/a.sh","FLOWER_BASH_ENV":"/u/b.sh"}}`,
			`error: "env" holds BASH_ENV="/u/a.sh" and FLOWER_BASH_ENV="/u/b.sh"`, ""},
		{"env not an object", `{"env":[]}`, `error: "env" is an array, want an object`, ""},
		{"BASH_ENV not a string", `{"env":{"BASH_ENV":1}}`, `error: "env.BASH_ENV" is a number, want a string`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, changes, err := Install([]byte(tc.doc), testBin, captureLayers)
			if err != nil {
				if !strings.HasPrefix(tc.want, "error: ") || !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "error: ")) {
					t.Errorf("error %v, want %s", err, tc.want)
				}
				return
			}
			if got := gjson.GetBytes(out, "env.BASH_ENV").String(); got != tc.want {
				t.Errorf("BASH_ENV = %q, want %q", got, tc.want)
			}
			if last := changes[len(changes)-1].String(); last != tc.change {
				t.Errorf("change %q, want %q", last, tc.change)
			}
		})
	}
	// Uninstalling another install leaves this one's script wired; a
	// narrowing install takes any.
	doc := []byte(`{"env":{"BASH_ENV":"/opt/flower/share/flower/capture.bash"}}`)
	if out, changes, _ := Uninstall(doc, testBin); len(changes) != 0 || string(out) != string(doc) {
		t.Errorf("uninstall of %s took another install's script: %v", testBin, changes)
	}
	if out, _, _ := Install(doc, testBin, DefaultLayers); gjson.GetBytes(out, "env").Exists() {
		t.Errorf("installing without the capture layer left %s", out)
	}
	if _, _, err := Install([]byte(`{}`), "", captureLayers); err == nil {
		t.Error("the capture layer wired without --bin")
	}
}

func TestParseLayersCapture(t *testing.T) {
	if _, err := ParseLayers("1,capture"); err == nil || !strings.Contains(err.Error(), "needs layer 3") {
		t.Errorf("capture without 3: %v", err)
	}
	if got, err := ParseLayers("capture,3"); err != nil || !cmp.Equal(got, []string{"3", "capture"}) {
		t.Errorf("ParseLayers(capture,3) = %v, %v", got, err)
	}
}
