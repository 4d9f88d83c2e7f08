package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// FileSink appends events to a file as JSON lines and fsyncs each one
// before Write returns: an event Write accepted survives a crash of the
// process or the machine.
type FileSink struct {
	mu  sync.Mutex
	f   *os.File
	err error // sticky: after a failed write the file's tail is unknown
}

// OpenFile opens (or creates, mode 0600) an append-only audit file.
func OpenFile(path string) (*FileSink, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return &FileSink{f: f}, nil
}

// Write implements Sink.
func (s *FileSink) Write(ctx context.Context, e Event) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := s.f.Write(line); err != nil {
		s.err = fmt.Errorf("audit: %w", err)
		return s.err
	}
	if err := s.f.Sync(); err != nil {
		s.err = fmt.Errorf("audit: %w", err)
		return s.err
	}
	return nil
}

// Close closes the file; later writes fail.
func (s *FileSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("audit: %w", os.ErrClosed)
	}
	return s.f.Close()
}
