//go:build unix

package hook

import "syscall"

// openFileLimit is the process's open-file limit (RLIMIT_NOFILE). Go raises
// the soft limit to the hard one at start-up, so the soft limit read here is
// what the command has.
func openFileLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true
}
