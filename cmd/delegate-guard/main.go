// Command delegate-guard is the PreToolUse hook of layer one: it denies the
// main thread the hands-on tools so the work goes to subagents. See package
// github.com/flowerhooks/flower/internal/delegateguard.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/delegateguard"
)

func main() { os.Exit(delegateguard.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
