package problem

import (
	"bufio"
	"io"
	"net"
	"net/http"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// startedWriter tells Write whether the handler Handler adapts has started
// its response, where nothing else does (no middleware.Stack): net/http
// cannot be asked, and a problem written after the first body byte would
// be appended to the body the client is reading, under the status already
// sent.
type startedWriter struct {
	http.ResponseWriter
	started bool
}

var _ problemhook.ResponseStarter = (*startedWriter)(nil)

func (s *startedWriter) ResponseStarted() bool { return s.started }

func (s *startedWriter) WriteHeader(code int) {
	// An informational status (103 Early Hints) does not start the
	// response; 101 ends it as HTTP.
	if code >= 200 || code == http.StatusSwitchingProtocols {
		s.started = true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *startedWriter) Write(b []byte) (int, error) {
	s.started = true
	return s.ResponseWriter.Write(b)
}

// ReadFrom keeps sendfile available: io.Copy hands src to the server's
// own ReadFrom.
func (s *startedWriter) ReadFrom(src io.Reader) (int64, error) {
	s.started = true
	return io.Copy(s.ResponseWriter, src)
}

// Flush and Hijack keep the wrapped writer's abilities for handlers that
// type-assert them; Unwrap does so for http.ResponseController.
func (s *startedWriter) Flush() {
	s.started = true
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *startedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s.started = true
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

func (s *startedWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
