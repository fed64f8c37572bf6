package hook

import (
	"cmp"
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

// WorkbenchRoot resolves the workbench root, absolute and clean: the
// --workbench flag, else $FLOWER_WORKBENCH, else DefaultWorkbench. A root
// the user names has its symlinks resolved here: the user chose where it
// leads. The default is left as it is, for package workbench to refuse as a
// symlink: a repository can commit a .flower that leads anywhere.
func WorkbenchRoot(flagValue, payloadCwd string) (string, error) {
	if dir := cmp.Or(flagValue, os.Getenv("FLOWER_WORKBENCH")); dir != "" {
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

// DefaultWorkbench is WorkbenchDirName in the project folder, or "" when no
// folder is known. It is the only workbench path flower's words to the
// model name: any other is the user's text, or a repository's.
func DefaultWorkbench(payloadCwd string) string {
	if project := ProjectDir(payloadCwd); project != "" {
		return filepath.Join(project, WorkbenchDirName)
	}
	return ""
}

// ProjectDir is the project folder of a hook call, absolute: where the
// session started ($CLAUDE_PROJECT_DIR, which does not follow cd), else
// the payload's cwd; "" when neither is known.
func ProjectDir(cwd string) string {
	dir := cmp.Or(os.Getenv("CLAUDE_PROJECT_DIR"), cwd)
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

// StateDir is where flower keeps state that outlives a session:
// $XDG_STATE_HOME/flower, else ~/.local/state/flower; "" when neither is
// known.
func StateDir() string {
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "flower")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "flower")
	}
	return ""
}
