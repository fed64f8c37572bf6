package prunesession

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// What a killed run leaves, and how the next run clears it. A run writes,
// in order: .<new-id>.tmp-*, renamed to <new-id>/ once it holds the session
// folder's copy; with --trim, the spill folder's name in the spillList in
// it, then spill files (spillHint); .<new-id>.jsonl.tmp-*, linked to
// <new-id>.jsonl once whole; then it removes the list.
const spillList = "flower-fork-spills"

// staleAfter is how long a leftover must have gone unmodified before a run
// removes it: a run takes seconds, a minute for a gigabyte. A clock needs
// no lock or process id, and works across machines sharing the folder.
const staleAfter = time.Hour

var errInterrupted = errors.New("interrupted by a signal")

// interruptible is r, reading nothing more once ctx is done: a signal stops
// the run at its next read, and its error path removes what it wrote.
type interruptible struct {
	ctx context.Context
	r   io.Reader
}

func (i interruptible) Read(b []byte) (int, error) {
	if i.ctx.Err() != nil {
		return 0, errInterrupted
	}
	return i.r.Read(b)
}

// openInterruptible opens path (transcript.Open) for a read ctx can stop.
func openInterruptible(ctx context.Context, path string) (io.Reader, func() error, error) {
	f, err := transcript.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return interruptible{ctx, f}, f.Close, nil
}

// leftover matches the temporary files and folders of a fork:
// .<id>.jsonl.tmp-* (package atomicfile's) and .<id>.tmp-* (copySessionDir's).
var leftover = regexp.MustCompile(`^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.jsonl)?\.tmp-`)

// spillName matches the files --trim writes and their temporary files.
var spillName = regexp.MustCompile(`^\.?prune-[A-Za-z0-9_-]+\.txt(\.tmp-.*)?$`)

// removeStale removes, best effort, the stale leftovers of killed runs
// from the project folder: a fork's temporary files, a fork folder without
// its transcript (and the spill files its list names), or a list whose fork
// is whole.
func removeStale(project string, now time.Time) {
	entries, err := os.ReadDir(project)
	if err != nil {
		return
	}
	stale := func(path string) bool {
		info, err := os.Lstat(path)
		return err == nil && now.Sub(info.ModTime()) > staleAfter
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(project, name)
		switch {
		case leftover.MatchString(name):
			if stale(path) {
				removeTree(path)
			}
		case e.IsDir() && uuidShape.MatchString(name):
			if _, err := os.Lstat(filepath.Join(path, transcript.ForkMarker)); err != nil {
				continue // a session folder, not a fork's
			}
			list := filepath.Join(path, spillList)
			_, listErr := os.Lstat(list)
			if _, err := os.Lstat(path + ".jsonl"); err == nil {
				if listErr == nil && stale(list) {
					os.Remove(list) // the fork is whole: its list outlived the run
				}
				continue
			}
			if stale(path) && (listErr != nil || stale(list)) {
				removeListed(list, name)
				removeTree(path)
			}
		}
	}
}

// removeListed removes, in each folder the fork's list names, the fork's
// spill files and the temporary files no running writer owns. The list is
// data: only regular files named as this fork's are removed.
func removeListed(list, forkID string) {
	f, err := transcript.Open(list)
	if err != nil {
		return
	}
	defer f.Close()
	prefix := spillHint(forkID, "")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		dir := filepath.Clean(sc.Text())
		if !filepath.IsAbs(dir) {
			continue
		}
		r, err := workbench.OpenFolder("spill folder", dir)
		if err != nil {
			continue
		}
		entries, _ := fs.ReadDir(r.FS(), ".")
		for _, e := range entries {
			if name := e.Name(); strings.HasPrefix(name, prefix) && spillName.MatchString(name) && e.Type().IsRegular() {
				r.Remove(name)
			}
		}
		atomicfile.RemoveStale(r, spill.TmpDir)
		r.Close()
	}
}

// removeTree removes path and everything under it, read-only folders too.
func removeTree(path string) {
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, ownerOnly)
		}
		return nil
	})
	os.RemoveAll(path)
}
