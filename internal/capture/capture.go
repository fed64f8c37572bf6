// Package capture is the capture layer of layer three, which keeps the whole
// output of every Bash call, failing ones included, in the workbench's spill
// folder. Script, a bash file the Bash tool's shell reads through BASH_ENV,
// sends the call's output to a new capture file and prints one marker line
// naming it; spill-guard then finds the marker (Detect) and shows the model a
// view of the file in its place (Show): what layer three shows of any result
// on success, the head, a pointer and the tail on failure. docs/REFERENCE.md,
// "The capture layer", says what is shown, kept and refused.
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
