package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	name := []byte(cwd)
	for i, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			name[i] = '-'
		}
	}
	return filepath.Join(cfg, "projects", string(name)), nil
}

// Locate resolves a session argument: the path of a .jsonl transcript, or a
// session id, looked up as <ConfigDir>/projects/*/<id>.jsonl.
func Locate(session string) (string, error) {
	if session == "" {
		return "", errors.New("no session given")
	}
	if strings.HasSuffix(session, ".jsonl") || strings.ContainsRune(session, filepath.Separator) {
		info, err := os.Stat(session)
		if err != nil {
			return "", err
		}
		if !info.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", session)
		}
		return session, nil
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
		return found[0], nil
	}
	return "", fmt.Errorf("session %s is in %d projects under %s: pass the path", session, len(found), filepath.Join(cfg, "projects"))
}

// SessionDir is the folder beside a transcript that holds its subagent
// transcripts (and other files of the session): the path without ".jsonl".
func SessionDir(path string) string { return strings.TrimSuffix(path, ".jsonl") }

// SessionID is the session id a transcript's file name carries.
func SessionID(path string) string { return filepath.Base(SessionDir(path)) }

// Subagents lists the subagent transcripts of the session at path, sorted;
// none is not an error.
func Subagents(path string) ([]string, error) {
	found, err := filepath.Glob(filepath.Join(SessionDir(path), "subagents", "agent-*.jsonl"))
	sort.Strings(found)
	return found, err
}
