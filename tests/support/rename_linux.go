package support

import (
	"runtime"
	"syscall"
	"unsafe"
)

// sysRenameat2 is renameat2's number on Linux, which package syscall does
// not name.
var sysRenameat2 = map[string]uintptr{"amd64": 316, "arm64": 276, "riscv64": 276, "386": 353, "arm": 382, "ppc64le": 357, "s390x": 347}

// RenameExchange swaps the two names at once (renameat2 RENAME_EXCHANGE):
// what an attacker racing a hook does to a folder it checks.
func RenameExchange(a, b string) error {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return err
	}
	const atFDCWD, renameExchange = -100, 2
	fd := atFDCWD
	_, _, errno := syscall.Syscall6(sysRenameat2[runtime.GOARCH], uintptr(fd), uintptr(unsafe.Pointer(pa)),
		uintptr(fd), uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
