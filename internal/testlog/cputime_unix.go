//go:build unix

package testlog

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, all threads. Reported per
// operation next to ns/op, it stays meaningful on a machine busy with other
// work, where wall time per operation mostly measures waiting for a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
