// Command index-guard is the hook of layer two: it keeps the workbench's
// INDEX.md current and shows the model the workbench, its rules and its
// index. See package github.com/flowerhooks/flower/internal/indexguard.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/indexguard"
)

func main() { os.Exit(indexguard.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
