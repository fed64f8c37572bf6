package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ProjectSessions finds the sessions of one project: dir is the project's
// working directory (mapped to its folder under projects/ as ProjectDir
// does, after resolving symlinks, since Claude Code names the folder after
// the real cwd), or that folder itself (a folder whose parent is named
// projects, so that a working directory holding .jsonl files of its own is
// never taken for one). It returns the folder and the main
// transcripts in it (<session-id>.jsonl, sorted by name); subagent
// transcripts live in subfolders and are not listed. A folder without any
// transcript is an error.
func ProjectSessions(dir string) (folder string, sessions []string, err error) {
	if dir == "" {
		return "", nil, errors.New("no project given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	mapped, err := ProjectDir(abs)
	if err != nil {
		return "", nil, err
	}
	cands := []string{mapped}
	if filepath.Base(filepath.Dir(abs)) == "projects" {
		cands = append(cands, abs)
	}
	for _, cand := range cands {
		found, err := filepath.Glob(filepath.Join(cand, "*.jsonl"))
		if err != nil {
			return "", nil, err
		}
		var mains []string
		for _, f := range found {
			if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
				mains = append(mains, f)
			}
		}
		if len(mains) > 0 {
			sort.Strings(mains)
			return cand, mains, nil
		}
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("no project %s: no such folder", dir)
	}
	return "", nil, fmt.Errorf("no sessions of project %s (looked in %s)", dir, mapped)
}
