//go:build linux || darwin

package hook

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal reports whether f is a terminal: the request for its terminal
// attributes succeeds only on one (/dev/null is a character device too, and
// must read as empty input).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), getTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
