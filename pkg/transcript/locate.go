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

// ConfigDir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude.
func ConfigDir() (string, error) {
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
// cwd: <ConfigDir>/projects/<cwd with every character but letters and digits
// replaced by "-">.
func ProjectDir(cwd string) (string, error) {
	cfg, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg, "projects", folderName(cwd)), nil
}

// Locate resolves a session argument: the path of a .jsonl transcript, or a
// session id, looked up as <ConfigDir>/projects/*/<id>.jsonl.
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
	cfg, err := ConfigDir()
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

// isRegular is nil when path is a regular file (or a link to one): a FIFO
// named as a transcript would block the reader that opens it.
func isRegular(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// Open opens the transcript (or other file of a session) at path for
// reading, and refuses anything but a regular file. It opens without
// blocking, so that a FIFO put where a transcript was (after Locate looked)
// is refused at once rather than waited on.
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

// SessionDir is the folder beside a transcript that holds its subagent
// transcripts (and other files of the session): the path without ".jsonl".
func SessionDir(path string) string { return strings.TrimSuffix(path, ".jsonl") }

// SessionID is the session id a transcript's file name carries.
func SessionID(path string) string { return filepath.Base(SessionDir(path)) }

// Subagents lists the subagent transcripts of the session at path, sorted;
// none is not an error. Claude Code has kept them in three places:
//   - CLI 2.1: <session-id>/subagents/agent-<agent-id>.jsonl, or in a folder
//     below subagents/ (a workflow's agents);
//   - CLI 2.0: agent-<agent-id>.jsonl beside the session's own transcript,
//     in the project folder every session shares; such a file belongs to
//     the session its entries name in sessionId;
//   - CLI 1.0: inline, as the isSidechain entries of the main transcript,
//     which this does not list.
//
// A subagent transcript (IsSubagentFile) has none of its own. The list
// includes compaction runs (IsCompactionRun).
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
	id := SessionID(path)
	for _, p := range beside {
		if sessionOf(p) == id {
			found = append(found, p)
		}
	}
	sort.Strings(found)
	return found, nil
}

// subagentPrefix begins the name of every subagent transcript.
const subagentPrefix = "agent-"

// compactionPrefix begins the name of the transcript of a compaction's
// summarising run (CLI 2.1: agent-acompact-<hex>.jsonl): Claude Code runs
// it as an agent of its own, but the model did not dispatch it.
const compactionPrefix = subagentPrefix + "acompact"

// IsSubagentFile reports whether path is named as a subagent transcript
// (agent-<agent-id>.jsonl), in any of the layouts Subagents reads.
func IsSubagentFile(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, subagentPrefix) && strings.HasSuffix(base, ".jsonl")
}

// IsCompactionRun reports whether path is the transcript of a compaction's
// summarising run rather than of a subagent the model dispatched.
func IsCompactionRun(path string) bool {
	return IsSubagentFile(path) && strings.HasPrefix(filepath.Base(path), compactionPrefix)
}

// sessionLines bounds how many lines sessionOf reads looking for a
// sessionId: Claude Code writes one on every entry of a subagent
// transcript.
const sessionLines = 8

// sessionOf is the sessionId of the first of the leading lines of the
// transcript at path that names one, "" when none does or it cannot be
// read. The path is opened without blocking and read only if it is a
// regular file: the project folder is Claude Code's, but a name in it may
// be anything.
func sessionOf(path string) string {
	f, err := Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	rd := NewReader(f)
	for range sessionLines {
		line, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			continue
		}
		if v := gjson.GetBytes(line, "sessionId"); v.Type == gjson.String {
			return v.Str
		}
	}
	return ""
}

// maxCwdPeek bounds what FirstCwd reads: the cwd is on the first entries
// (the first prompt), a few KB into a transcript.
const maxCwdPeek = 1 << 20

// FirstCwd is the cwd of the first conversation entry of the transcript
// at path, the folder the session started in ($CLAUDE_PROJECT_DIR for its
// hooks), found in its first maxCwdPeek bytes; "" when there is none.
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
