package tests

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/flowerhooks/flower/tests/support"
)

// TestSpillSwapRace: the spill folder swapped for a symlink to a folder
// outside the project, over and over while spill-guard runs, never sends a
// spill file there: every write goes through the handle opened after the
// checks.
func TestSpillSwapRace(t *testing.T) {
	project := gitRepo(t, map[string]string{})
	userConfig(t, project, "")
	outside := t.TempDir()
	if spillSecret(t, project, "toolu_first") == "" { // the folder, made as flower makes it
		t.Fatal("nothing was spilled")
	}
	spill := filepath.Join(project, ".flower", "spill")
	link := filepath.Join(project, ".flower", "swap")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan int)
	go func() {
		n := 0
		for !stop.Load() {
			if support.RenameExchange(spill, link) == nil {
				n++
			}
		}
		done <- n
	}()
	spilled := 0
	for i := range 300 {
		if spillSecret(t, project, "toolu_"+string(rune('a'+i%26))+string(rune('a'+i/26))) != "" {
			spilled++
		}
	}
	stop.Store(true)
	swaps := <-done
	if fi, err := os.Lstat(spill); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		support.RenameExchange(spill, link)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%d files written outside the project through the swapped symlink (of %d spills, %d swaps)", len(entries), spilled, swaps)
	}
	t.Logf("%d of 300 spilled while the folder was swapped %d times", spilled, swaps)
	committable(t, project)
}
