// Command floor is the benchmark floor: a minimal static Go program that reads
// stdin and exits. A hook cannot cost less than starting a process like it.
package main

import (
	"io"
	"os"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
}
