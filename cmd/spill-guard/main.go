// Command spill-guard is the PostToolUse hook of layer three: it writes long
// tool results to the workbench's spill folder and leaves the model a
// pointer. See package github.com/flowerhooks/flower/internal/spillguard.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/spillguard"
)

func main() { os.Exit(spillguard.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
