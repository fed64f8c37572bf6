package config_test

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/indexguard"
	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/internal/spillguard"
	"github.com/flowerhooks/flower/pkg/config"
)

// perRun are flags that say what one run does, not how flower is set up:
// no key stands for them.
var perRun = []string{"version", "prune-session --session-id", "prune-session --dry-run"}

// TestEveryFlagHasAKey: every flag of every hook (and prune-session) has a
// key, every key's flags exist, and a key's default is its flag's.
func TestEveryFlagHasAKey(t *testing.T) {
	mains := map[string]func([]string, *bytes.Buffer) int{
		"delegate-guard": func(a []string, out *bytes.Buffer) int { return delegateguard.Main(a, nil, out, out) },
		"index-guard":    func(a []string, out *bytes.Buffer) int { return indexguard.Main(a, nil, out, out) },
		"spill-guard":    func(a []string, out *bytes.Buffer) int { return spillguard.Main(a, nil, out, out) },
		"prune-session":  func(a []string, out *bytes.Buffer) int { return prunesession.Main(a, nil, out, out) },
	}
	flagLine := regexp.MustCompile(`(?m)^  --([a-z-]+)(?: [A-Z-]+)?\n    \t.*?(?: \(default (.*)\))?$`)
	byFlag := map[string]*config.Key{}
	for _, k := range config.Keys() {
		for _, f := range k.Flags {
			byFlag[f] = k
		}
	}
	seen := map[string]bool{}
	for command, main := range mains {
		var out bytes.Buffer
		if code := main([]string{"--help"}, &out); code != 0 {
			t.Fatalf("%s --help: exit %d", command, code)
		}
		for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
			flag, def := m[1], strings.Trim(m[2], `"`)
			spec := command + " --" + flag
			if slices.Contains(perRun, flag) || slices.Contains(perRun, spec) {
				continue
			}
			seen[spec] = true
			k := byFlag[spec]
			if k == nil {
				t.Errorf("%s has no key", spec)
				continue
			}
			want := k.Default
			if strings.HasPrefix(flag, "no-") { // the key is the flag's negation
				want = map[string]string{"true": "false", "false": "true"}[want]
			}
			if want == "false" { // --help leaves a false default out
				want = ""
			}
			if flag == "workbench" || flag == "spill-dir" { // the usage text says the default
				def = ""
			}
			if def != want {
				t.Errorf("%s: the flag's default is %q, the key %s's %q", spec, def, k.Name, k.Default)
			}
		}
	}
	for spec, k := range byFlag {
		if !seen[spec] {
			t.Errorf("key %s fills %s, which --help does not list", k.Name, spec)
		}
	}
}
