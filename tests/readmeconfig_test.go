package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/ephemeral"
)

// TestReadmeConfigure: the README's Configure section documents every key
// in its table, and its example user file, which sets every key, is a
// file flower takes.
func TestReadmeConfigure(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Configure\n")
	if !ok {
		t.Fatal(`README.md has no section "## Configure"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, example, ok := strings.Cut(section, "\n```json\n")
	if !ok {
		t.Fatal("the Configure section has no json block")
	}
	example, _, _ = strings.Cut(example, "\n```\n")
	for _, k := range config.Keys() {
		if !strings.Contains(section, "\n| `"+k.Name+"` |") {
			t.Errorf("the Configure table has no row for %s", k.Name)
		}
		leaf := k.Name[strings.LastIndex(k.Name, ".")+1:]
		if !strings.Contains(example, `"`+leaf+`"`) {
			t.Errorf("the example user file does not set %s", k.Name)
		}
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	extras, err := config.Check(path)
	if err == nil {
		_, err = ephemeral.NewGlances(extras)
	}
	if err != nil {
		t.Errorf("the README's example user file: %v", err)
	}
}
