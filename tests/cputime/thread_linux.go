package cputime

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD of getrusage(2), which package syscall
// does not name.
const rusageThread = 1

func threadTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
