package capture

import (
	_ "embed"
	"path/filepath"
)

// Script is the bash file named by BASH_ENV. See capture.bash.
//
//go:embed capture.bash
var Script string

// ScriptName is the file name install.sh gives Script.
const ScriptName = "capture.bash"

// ScriptPath is where an install whose binaries are in bin keeps Script:
// PREFIX/share/flower/capture.bash for binaries in PREFIX/bin.
func ScriptPath(bin string) string {
	return filepath.Join(filepath.Dir(bin), "share", "flower", ScriptName)
}

// IsScriptPath reports whether path is where some install keeps Script
// (…/flower/capture.bash): an install under another prefix is still
// flower's.
func IsScriptPath(path string) bool {
	return filepath.IsAbs(path) && filepath.Base(path) == ScriptName &&
		filepath.Base(filepath.Dir(path)) == "flower"
}
