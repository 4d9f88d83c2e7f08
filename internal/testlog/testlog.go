// Package testlog holds what the kit's tests share, so each helper has one
// home: a buffer that handler goroutines write records into while the test
// reads them, a problem writer and a logger wired as a service wires them,
// and the process's CPU time for benchmarks.
package testlog

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for one writer goroutine per request and a
// reading test at once.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
