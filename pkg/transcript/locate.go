package transcript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/tidwall/gjson"
)

// configDir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude.
func configDir() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find ~/.claude: %v", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// ProjectDir is the folder holding the transcripts of sessions started in
// cwd: <config dir>/projects/<cwd, all but letters and digits as "-">.
func ProjectDir(cwd string) (string, error) {
	cfg, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg, "projects", folderName(cwd)), nil
}

// Locate resolves a session argument: the path of a .jsonl transcript, or a
// session id, looked up as <config dir>/projects/*/<id>.jsonl.
func Locate(session string) (string, error) {
	if session == "" {
		return "", errors.New("no session given")
	}
	if strings.HasSuffix(session, ".jsonl") || strings.ContainsRune(session, filepath.Separator) {
		return session, isRegular(session)
	}
	if strings.ContainsAny(session, `*?[\`) || session == "." || session == ".." {
		return "", fmt.Errorf("%q is neither a transcript path nor a session id", session)
	}
	cfg, err := configDir()
	if err != nil {
		return "", err
	}
	found, err := filepath.Glob(filepath.Join(cfg, "projects", "*", session+".jsonl"))
	if err != nil {
		return "", err
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no session %s under %s", session, filepath.Join(cfg, "projects"))
	case 1:
		return found[0], isRegular(found[0])
	}
	return "", fmt.Errorf("session %s is in %d projects under %s: pass the path", session, len(found), filepath.Join(cfg, "projects"))
}

// isRegular is nil when path is a regular file (or a link to one), not a
// FIFO that would block its reader.
func isRegular(path string) error {
	info, err := os.Stat(path)
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	return err
}

// Open opens a file of a session for reading, refusing anything but a
// regular file; without blocking, so a FIFO is refused, not waited on.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// SessionDir is the folder beside a transcript that holds the session's
// other files: the path without ".jsonl".
func SessionDir(path string) string { return strings.TrimSuffix(path, ".jsonl") }

// SessionID is the session id a transcript's file name carries.
func SessionID(path string) string { return filepath.Base(SessionDir(path)) }

// Subagents lists the subagent transcripts of the session at path, sorted,
// compaction runs included: CLI 2.1 keeps them under <session-id>/subagents/,
// CLI 2.0 beside the session's transcript (those whose sessionId is its),
// CLI 1.0 inline (not listed).
func Subagents(path string) ([]string, error) {
	if IsSubagentFile(path) {
		return nil, nil
	}
	var found []string
	err := filepath.WalkDir(filepath.Join(SessionDir(path), "subagents"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fs.SkipAll // no subagents/ folder: no subagents there
		case err != nil:
			return err
		case d.Type().IsRegular() && IsSubagentFile(p):
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	beside, err := filepath.Glob(filepath.Join(filepath.Dir(path), subagentPrefix+"*.jsonl"))
	if err != nil {
		return nil, err
	}
	for _, p := range beside {
		if sessionOf(p) == SessionID(path) {
			found = append(found, p)
		}
	}
	sort.Strings(found)
	return found, nil
}

// subagentPrefix begins the name of every subagent transcript;
// compactionPrefix that of a compaction's summarising run (CLI 2.1).
const (
	subagentPrefix   = "agent-"
	compactionPrefix = subagentPrefix + "acompact"
)

// IsSubagentFile reports whether path is named as a subagent transcript.
func IsSubagentFile(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, subagentPrefix) && strings.HasSuffix(base, ".jsonl")
}

// IsCompactionRun reports whether path is a compaction's summarising run,
// not a subagent the model dispatched.
func IsCompactionRun(path string) bool {
	return IsSubagentFile(path) && strings.HasPrefix(filepath.Base(path), compactionPrefix)
}

// sessionLines bounds the lines sessionOf reads: Claude Code writes a
// sessionId on every entry of a subagent transcript.
const sessionLines = 8

// sessionOf is the first sessionId in the leading lines of the transcript
// at path, "" when none or unreadable.
func sessionOf(path string) string {
	f, err := Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	rd := NewReader(f)
	for range sessionLines {
		line, err := rd.Next()
		if err == io.EOF {
			return ""
		}
		if v := gjson.GetBytes(line, "sessionId"); err == nil && v.Type == gjson.String {
			return v.Str
		}
	}
	return ""
}

// maxCwdPeek bounds what FirstCwd reads: the first prompt is a few KB in.
const maxCwdPeek = 1 << 20

// FirstCwd is the cwd of the first conversation entry of the transcript
// at path, the folder the session started in; "" when there is none.
func FirstCwd(path string) string {
	f, err := Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxCwdPeek))
	for {
		line, err := r.ReadBytes('\n')
		if res := gjson.GetManyBytes(line, "uuid", "cwd"); res[0].String() != "" && res[1].Type == gjson.String && res[1].Str != "" {
			return res[1].Str
		}
		if err != nil {
			return ""
		}
	}
}

// ProjectSessions finds the main transcripts of one project, sorted, and
// their folder: dir is the project's working directory (mapped by
// ProjectDir as written and with symlinks resolved, even once deleted), or
// that folder itself when its parent is named projects. None is an error.
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
			if !IsSubagentFile(f) && isRegular(f) == nil {
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

// resolve is abs with the symlinks of its longest existing ancestor
// resolved: a deleted working directory was recorded by its real path.
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
