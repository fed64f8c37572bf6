package hook

import "syscall"

// getTermios is the ioctl request that reads a terminal's attributes.
const getTermios = syscall.TIOCGETA
