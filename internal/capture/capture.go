// Package capture keeps the whole output of every Bash call in the spill
// folder: Script, read through BASH_ENV, sends it to a capture file and
// prints a marker line naming it; spill-guard finds the marker (Detect) and
// shows a view of the file in its place (Show). docs/REFERENCE.md, "The
// capture layer", is the reference.
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

// ScriptPath is where an install with binaries in PREFIX/bin keeps Script.
func ScriptPath(bin string) string {
	return filepath.Join(filepath.Dir(bin), "share", "flower", ScriptName)
}

// IsScriptPath reports whether path is where some install, under any
// prefix, keeps Script (…/flower/capture.bash).
func IsScriptPath(path string) bool {
	return filepath.IsAbs(path) && filepath.Base(path) == ScriptName &&
		filepath.Base(filepath.Dir(path)) == "flower"
}
