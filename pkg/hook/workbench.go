package hook

import (
	"errors"
	"flag"
	"os"
	"path/filepath"

	"github.com/flowerhooks/flower/pkg/workbench"
)

// WorkbenchDirName is the workbench folder under a project.
const WorkbenchDirName = ".flower"

// WorkbenchFlag registers --workbench on fs and returns its value.
func WorkbenchFlag(fs *flag.FlagSet) *string {
	return fs.String("workbench", "", "workbench root (default $FLOWER_WORKBENCH, else $CLAUDE_PROJECT_DIR/.flower, else <payload cwd>/.flower)")
}

// WorkbenchRoot resolves the workbench root, the same way for every command:
// the --workbench flag, else $FLOWER_WORKBENCH, else DefaultWorkbench. The
// result is absolute and cleaned.
//
// A root the user names (the flag or the variable) has its symlinks
// resolved here, as far as it exists: the user chose where it leads. The
// default root is left as it is, and package workbench refuses it if it is
// a symlink: a repository can commit a .flower that leads anywhere.
func WorkbenchRoot(flagValue, payloadCwd string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = os.Getenv("FLOWER_WORKBENCH")
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		return workbench.Resolve(abs), nil
	}
	if root := DefaultWorkbench(payloadCwd); root != "" {
		return root, nil
	}
	return "", errors.New("cannot place the workbench: no --workbench, $FLOWER_WORKBENCH, $CLAUDE_PROJECT_DIR or payload cwd")
}

// DefaultWorkbench is flower's own choice of workbench for a hook call:
// WorkbenchDirName in the project folder; "" when no folder is known. It is
// the only workbench path flower's words to the model name: any other is
// the user's text, or a trusted repository's.
func DefaultWorkbench(payloadCwd string) string {
	if project := ProjectDir(payloadCwd); project != "" {
		return filepath.Join(project, WorkbenchDirName)
	}
	return ""
}

// ProjectDir is the project folder of a hook call: $CLAUDE_PROJECT_DIR
// (where the session started; it does not follow cd), else the payload's
// cwd. The result is absolute, or "" when neither is known.
func ProjectDir(cwd string) string {
	dir := os.Getenv("CLAUDE_PROJECT_DIR")
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

// StateDir is where flower keeps state that outlives a session and is no
// configuration: $XDG_STATE_HOME/flower, else ~/.local/state/flower; ""
// when neither is known.
func StateDir() string {
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "flower")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "flower")
	}
	return ""
}
