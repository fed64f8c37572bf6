// Package tests holds the golden tests of every flower command: txtar cases
// under testdata/<command>/ run in-process against the command's Main.
package tests
