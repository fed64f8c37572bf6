package flowersettings

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
)

const testBin = "/home/u/.local/bin"

// roundTripCases are settings files without flower's hooks: installing then
// uninstalling must give back the same bytes.
var roundTripCases = []struct{ name, doc string }{
	{"empty object", "{}"},
	{"empty object newline", "{}\n"},
	{"claude code style", "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}"},
	{"own hooks", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}],"Stop":[]}}`},
	{"own hooks pretty", "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"echo hi\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
	{"hand laid out", "{ \"model\" : \"opus\" ,\n\n \"permissions\":{\"allow\":[ \"Bash(ls)\" ]} }\n"},
	{"tabs", "{\n\t\"a\": [\n\t\t1,\n\t\t2\n\t]\n}\n"},
	{"leading space", "  \n{\"a\":1}\n\n"},
	{"unicode and escapes", "{\"name\":\"bär \\u00e4 \\\"q\\\" \\\\\"}"},
	{"other events only", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`},
}

// catalogOf is the catalog's entries of layers.
func catalogOf(layers []string) []Entry {
	var out []Entry
	for _, e := range Catalog {
		if slices.Contains(layers, e.Layer) {
			out = append(out, e)
		}
	}
	return out
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			installed, added, err := Install([]byte(tc.doc), testBin, DefaultLayers)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := len(catalogOf(DefaultLayers)), len(added); want != got {
				t.Errorf("added %d entries, want %d", got, want)
			}
			again, changes, err := Install(installed, testBin, DefaultLayers)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != 0 || !bytes.Equal(again, installed) {
				t.Errorf("second install changed %v", changes)
			}
			restored, removed, err := Uninstall(installed, testBin)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := len(added), len(removed); want != got {
				t.Errorf("removed %d entries, want %d", got, want)
			}
			if diff := cmp.Diff(tc.doc, string(restored)); diff != "" {
				t.Errorf("uninstall did not restore the file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstallKeepsOtherKeysInOrder(t *testing.T) {
	doc := `{"z":1,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"s"}]}],"PreToolUse":[{"hooks":[{"type":"command","command":"mine"}]}]},"a":[1,{"b":null}]}`
	out, _, err := Install([]byte(doc), testBin, []string{LayerDelegate})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	gjson.ParseBytes(out).ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.String()); return true })
	if diff := cmp.Diff([]string{"z", "hooks", "a"}, keys); diff != "" {
		t.Errorf("top-level keys (-want +got):\n%s", diff)
	}
	for path, want := range map[string]string{
		"hooks.Stop.0.hooks.0.command":       "s",
		"hooks.PreToolUse.0.hooks.0.command": "mine",
		"hooks.PreToolUse.1.hooks.0.command": testBin + "/delegate-guard",
		"hooks.PreToolUse.1.matcher":         "Bash|Write|Edit|NotebookEdit",
		"a.1.b":                              "",
	} {
		if got := gjson.GetBytes(out, path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
}

func TestWiredLayers(t *testing.T) {
	all, _ := Example(testBin, AllLayers)
	for _, tc := range []struct {
		name string
		doc  string
		want []string
	}{
		{"nothing", `{}`, nil},
		{"all", string(all), AllLayers},
		{"another install's entries count", string(all), AllLayers},
		{"one index-guard entry means layer 2", `{"hooks":{"SubagentStart":[{"hooks":[{"type":"command","command":"` + testBin + `/index-guard"}]}]}}`, []string{LayerWorkbench}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := testBin
			if tc.name == "another install's entries count" {
				bin = "/elsewhere"
			}
			got, err := WiredLayers([]byte(tc.doc), bin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCatalogInvariants(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalog {
		key := e.Event + " " + e.Binary
		if seen[key] {
			t.Errorf("%s appears twice: entries are recognised by event and binary", key)
		}
		seen[key] = true
		if e.Timeout <= 0 {
			t.Errorf("%s has no timeout", key)
		}
	}
	for _, l := range AllLayers {
		if len(Binaries([]string{l})) == 0 {
			t.Errorf("layer %s has no entry", l)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/u/.local/bin/x", "/home/u/.local/bin/x"},
		{"/home/my user/bin/x", "'/home/my user/bin/x'"},
		{"/it's/x", `'/it'\''s/x'`},
		{"/a$b/x", "'/a$b/x'"},
		{"", "''"},
	} {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsCommandOf(t *testing.T) {
	e := Catalog[0] // delegate-guard
	for _, tc := range []struct {
		cmd, dir string
		want     bool
	}{
		{"/b/delegate-guard", "/b", true},
		{"/b/delegate-guard --no-glance", "/b", true},
		{"/b/delegate-guard-x", "/b", false},
		{"delegate-guard", "/b", false},
		{"/c/delegate-guard", "/b", false},
		{"'/my b/delegate-guard'", "/my b", true},
		{"/my b/delegate-guard", "/my b", false},
	} {
		if got := e.IsCommandOf(tc.cmd, tc.dir); got != tc.want {
			t.Errorf("IsCommandOf(%q, %q) = %v, want %v", tc.cmd, tc.dir, got, tc.want)
		}
	}
}

func TestParseLayers(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"1,2,3", []string{"1", "2", "3"}, ""},
		{" 3, 1 ,1", []string{"1", "3"}, ""},
		{"glance,1", nil, `unknown layer "glance"`},
		{"1,4", nil, `unknown layer "4"`},
		{",", nil, "names no layer"},
	} {
		got, err := ParseLayers(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseLayers(%q) error %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseLayers(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestWriteThroughSymlink: a settings.json that is a link (dotfile managers)
// stays a link; the file it points to gets the change.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range Binaries(DefaultLayers) {
		if err := os.WriteFile(filepath.Join(bin, b), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real := filepath.Join(dir, "dotfiles", "settings.json")
	link := filepath.Join(dir, "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("{}\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"--settings", link, "--bin", bin}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("settings.json is no longer a symlink (%v)", err)
	}
	got, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), filepath.Join(bin, "delegate-guard")) {
		t.Errorf("the linked file was not changed:\n%s", got)
	}
	if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode of the linked file changed: %v %v", fi.Mode(), err)
	}
	if b, err := os.ReadFile(real + BackupSuffix); err != nil || string(b) != "{}\n" {
		t.Errorf("backup = %q, %v; want the previous content next to the real file", b, err)
	}
}

// FuzzMerge: whatever the file holds, merging never panics, its result is
// valid JSON, a second install changes nothing, and uninstall leaves no
// flower entry behind and only valid JSON.
func FuzzMerge(f *testing.F) {
	for _, tc := range roundTripCases {
		f.Add([]byte(tc.doc))
	}
	all, _ := Example(testBin, AllLayers)
	f.Add(all)
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/home/u/.local/bin/delegate-guard x"},7,{"hooks":"no"}]},null]}}`))
	f.Add([]byte(`{"hooks":null}`))
	f.Add([]byte(`{"env":{"BASH_ENV":"/u/x","FLOWER_BASH_ENV":"/u/y"}}`))
	f.Add([]byte(`{"env":{"BASH_ENV":"/o/share/flower/capture.bash","A":"1"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, layers := range [][]string{DefaultLayers, {LayerSpill}, AllLayers} {
			out, _, err := Install(doc, testBin, layers)
			if err != nil {
				// The one refusal of a valid file: a BASH_ENV of the user's
				// that FLOWER_BASH_ENV, taken too, cannot keep.
				if Validate(doc) == nil && !strings.Contains(err.Error(), "would be lost") {
					t.Fatalf("Install failed on a valid file: %v", err)
				}
				return
			}
			if !gjson.ValidBytes(out) {
				t.Fatalf("Install produced invalid JSON: %q", out)
			}
			again, changes, err := Install(out, testBin, layers)
			if err != nil || len(changes) != 0 || !bytes.Equal(again, out) {
				t.Fatalf("second Install changed %v (err %v):\n%s", changes, err, out)
			}
			got, err := WiredLayers(out, testBin)
			if err != nil {
				t.Fatal(err)
			}
			// Entries the file already held may wire more layers; never fewer.
			for _, l := range layers {
				if !strings.Contains(strings.Join(got, ","), l) {
					t.Fatalf("layer %s not wired after Install: %v", l, got)
				}
			}
			removed, _, err := Uninstall(out, testBin)
			if err != nil {
				t.Fatal(err)
			}
			if !gjson.ValidBytes(removed) {
				t.Fatalf("Uninstall produced invalid JSON: %q", removed)
			}
			if left := slices.DeleteFunc(scan(removed, testBin), func(f Wiring) bool { return !f.ours && !f.Retired }); len(left) != 0 {
				t.Fatalf("Uninstall left %d entries:\n%s", len(left), removed)
			}
			if gjson.GetBytes(removed, "env.BASH_ENV").String() == capture.ScriptPath(testBin) {
				t.Fatalf("Uninstall left the capture script in BASH_ENV:\n%s", removed)
			}
		}
	})
}

// TestCannotWrite: the message names the file as the user gave it, the file
// a link leads to, and the cause in words (the read-only file system of a
// store such as home-manager's cannot be made in a test running as root).
func TestCannotWrite(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "settings.json")
	store := "/nix/store/abc-home-manager-files/settings.json"
	for _, tc := range []struct {
		settings, path string
		err            error
		want           string
	}{
		{link, store, &os.PathError{Op: "open", Path: "/nix/store/abc-home-manager-files/.flower-check-1", Err: syscall.EROFS},
			"cannot write " + link + " (a link to " + store + "): /nix/store/abc-home-manager-files is on a read-only file system"},
		{link, link, &os.PathError{Op: "open", Path: dir + "/.flower-check-1", Err: syscall.EACCES},
			"cannot write " + link + ": " + dir + " is not writable by you"},
		{link, link, errors.New("disk on fire"), "cannot write " + link + ": disk on fire"},
	} {
		if got := cannotWrite(tc.settings, tc.path, tc.err).Error(); got != tc.want {
			t.Errorf("cannotWrite(%q, %q, %v) = %q, want %q", tc.settings, tc.path, tc.err, got, tc.want)
		}
	}
}

// TestDanglingSymlink: a settings.json that is a link to a file not there
// (a dotfile manager's, before its checkout) is refused, naming the link's
// target: the atomic rename would replace the link with a plain file.
func TestDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "settings.json")
	dest := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.Symlink(dest, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "delegate-guard"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"--settings", link, "--bin", dir, "--layers", "1"}, nil, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), dest) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 1, one line naming %s", code, stderr.String(), dest)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("settings.json is no longer a symlink (%v)", err)
	}
}

// TestValidateDeep: a file nested past maxDepth is refused as not JSON,
// with exit 1, not a stack overflow (exit 2).
func TestValidateDeep(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + "}"
	if err := Validate([]byte(deep)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("Validate of a file nested %d deep: %v, want not valid JSON", maxDepth+1, err)
	}
}
