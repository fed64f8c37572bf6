// Command flower-status is a Claude Code statusLine command: one line on how
// full the main thread's context is and what flower kept out of the session.
// See package github.com/flowerhooks/flower/internal/status.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/status"
)

func main() { os.Exit(status.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
