package tests

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the machine's flower configuration and decision log out
// of every command these tests run: XDG_CONFIG_HOME and XDG_STATE_HOME
// point into an empty folder. A test that wants a configuration writes
// one there, or points the variables elsewhere (a golden case's env).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "flower-tests-xdg-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CONFIG_HOME", dir+"/config")
	os.Setenv("XDG_STATE_HOME", dir+"/state")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
