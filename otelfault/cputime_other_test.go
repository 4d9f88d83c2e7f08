//go:build !unix

package otelfault_test

import "time"

// cpuTime is unknown here; benchmarks then report 0 CPU ns/op.
func cpuTime() time.Duration { return 0 }
