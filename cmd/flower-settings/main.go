// Command flower-settings wires flower's hooks into a Claude Code settings
// file, and unwires them; install.sh runs it. See package
// github.com/flowerhooks/flower/internal/flowersettings.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/flowersettings"
)

func main() { os.Exit(flowersettings.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
