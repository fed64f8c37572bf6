package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ProjectSessions finds the sessions of one project: dir is the project's
// working directory (mapped to its folder under projects/ as ProjectDir
// does, after resolving symlinks, since Claude Code names the folder after
// the real cwd), or that folder itself (a folder whose parent is named
// projects, so that a working directory holding .jsonl files of its own is
// never taken for one). A working directory need not exist any more: the
// sessions of a deleted temporary folder or worktree stay under projects/,
// so such a path is mapped as written, and after resolving the symlinks of
// its longest existing ancestor. It returns the folder and the main
// transcripts in it (<session-id>.jsonl, sorted by name); subagent
// transcripts, in subfolders or (CLI 2.0) beside them as agent-*.jsonl, are
// not listed. A folder without any transcript is an error.
func ProjectSessions(dir string) (folder string, sessions []string, err error) {
	if dir == "" {
		return "", nil, errors.New("no project given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	real := resolve(abs)
	var cands []string
	for _, p := range []string{real, abs} {
		mapped, err := ProjectDir(p)
		if err != nil {
			return "", nil, err
		}
		if len(cands) == 0 || cands[0] != mapped {
			cands = append(cands, mapped)
		}
	}
	looked := strings.Join(cands, " or ")
	if filepath.Base(filepath.Dir(real)) == "projects" {
		cands = append(cands, real)
	}
	for _, cand := range cands {
		found, err := filepath.Glob(filepath.Join(cand, "*.jsonl"))
		if err != nil {
			return "", nil, err
		}
		var mains []string
		for _, f := range found {
			if IsSubagentFile(f) {
				continue // a subagent's (CLI 2.0), read with its session
			}
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
		return "", nil, fmt.Errorf("no project %s: no such folder, and no sessions in %s", dir, looked)
	}
	return "", nil, fmt.Errorf("no sessions of project %s (looked in %s)", dir, looked)
}

// resolve is abs with its symlinks resolved. When abs does not exist, the
// longest ancestor that does is resolved and the rest appended as written:
// a deleted working directory under a symlink (macOS's /tmp, a linked home)
// was recorded by its real path, which only the ancestor can still tell.
func resolve(abs string) string {
	rest := ""
	for p := abs; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
