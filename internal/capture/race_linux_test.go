package capture

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/flowerhooks/flower/tests/support"
)

// TestScriptSwapRace: the spill folder swapped for a symlink to a folder
// outside, over and over while the script opens its file, never gets output
// sent there: the script checks after the open that its file is the one in
// the spill folder.
func TestScriptSwapRace(t *testing.T) {
	sh := newShell(t)
	sh.captured("", "true") // the folder, as the script makes it
	outside := t.TempDir()
	spillDir := filepath.Join(sh.project, ".flower", "spill")
	link := filepath.Join(sh.project, ".flower", "swap")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan int)
	go func() {
		n := 0
		for !stop.Load() {
			if support.RenameExchange(spillDir, link) == nil {
				n++
			}
		}
		done <- n
	}()
	captured := 0
	for range 120 {
		if r := sh.run("", "echo secret-output"); r.task != "secret-output\n" {
			captured++
		}
	}
	stop.Store(true)
	swaps := <-done
	filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); len(b) > 0 {
				t.Errorf("output written outside through the swapped symlink: %s holds %q", p, b)
			}
		}
		return nil
	})
	t.Logf("%d of 120 calls captured while the folder was swapped %d times", captured, swaps)
}
