package hook

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
)

// WorkbenchDirName is the workbench folder under a project.
const WorkbenchDirName = ".flower"

// WorkbenchFlag registers --workbench on fs and returns its value.
func WorkbenchFlag(fs *flag.FlagSet) *string {
	return fs.String("workbench", "", "workbench root (default $FLOWER_WORKBENCH, else $CLAUDE_PROJECT_DIR/.flower, else <payload cwd>/.flower)")
}

// WorkbenchRoot resolves the workbench root, the same way for every command:
// the --workbench flag, else $FLOWER_WORKBENCH, else $CLAUDE_PROJECT_DIR/.flower
// (the project root, which does not follow cd), else <cwd>/.flower with cwd
// from the payload. The result is absolute and cleaned.
func WorkbenchRoot(flagValue, payloadCwd string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = os.Getenv("FLOWER_WORKBENCH")
	}
	if dir == "" {
		if p := os.Getenv("CLAUDE_PROJECT_DIR"); p != "" {
			dir = filepath.Join(p, WorkbenchDirName)
		}
	}
	if dir == "" {
		if payloadCwd == "" {
			return "", errors.New("cannot place the workbench: no --workbench, $FLOWER_WORKBENCH, $CLAUDE_PROJECT_DIR or payload cwd")
		}
		dir = filepath.Join(payloadCwd, WorkbenchDirName)
	}
	return filepath.Abs(dir)
}
