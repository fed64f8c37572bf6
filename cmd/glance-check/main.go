// Command glance-check is the glance table as a command: the verdict on one
// command line, a JSON Lines filter, and the table itself. See package
// github.com/flowerhooks/flower/internal/glancecheck.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/glancecheck"
)

func main() { os.Exit(glancecheck.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
