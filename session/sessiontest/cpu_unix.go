//go:build unix

package sessiontest

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, in user and system
// mode, on all its threads: a benchmark's cost that other processes on a
// busy machine change less than they change its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
