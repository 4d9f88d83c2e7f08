//go:build unix

package otelfault_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, all threads: with other
// work on the machine, wall time per operation measures the queue for a
// core as much as the code, CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
