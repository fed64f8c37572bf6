// Command flower-config prints the configuration flower's hooks use in a
// project folder and where each value came from, checks a configuration
// file, and prints the decision log. See package
// github.com/flowerhooks/flower/internal/flowerconfig.
package main

import (
	"os"

	"github.com/flowerhooks/flower/internal/flowerconfig"
)

func main() { os.Exit(flowerconfig.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
