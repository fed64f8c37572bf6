// Command prune-session writes a pruned fork of a Claude Code session for
// --resume (layer four). See package
// github.com/flowerhooks/flower/internal/prunesession.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/prunesession"
)

func main() { os.Exit(prunesession.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
