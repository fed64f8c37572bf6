// Command context-audit measures the context economics of Claude Code
// sessions from their transcripts. See package
// github.com/flowerhooks/flower/internal/contextaudit.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/contextaudit"
)

func main() { os.Exit(contextaudit.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
