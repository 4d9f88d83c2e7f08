//go:build !unix

package testlog

import "time"

// CPUTime is unknown here; benchmarks then report 0 CPU ns/op.
func CPUTime() time.Duration { return 0 }
