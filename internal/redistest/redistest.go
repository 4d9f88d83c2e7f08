// Package redistest runs a real redis-server on a free loopback port for
// tests, so that code talking to Redis is tested against Redis itself,
// including its failures: the server can be killed, paused and restarted on
// the same address.
//
// When redis-server is not installed, Start skips the test, unless the
// environment variable CI is set: there a missing server is a broken
// pipeline, and the test fails instead of passing silently.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary returns the path of redis-server: $REDIS_SERVER if set, otherwise
// the first redis-server on $PATH, otherwise "".
func Binary() string {
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		return p
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// Server is one redis-server process bound to 127.0.0.1.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	// extra holds more redis-server arguments; a function of the port, for
	// settings that name it.
	extra func(port int) []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
}

// Start starts a redis-server on a free loopback port and stops it when the
// test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, require(t, "redis-server", Binary()), nil)
}

// require returns path, or ends the test when it is empty: skipped
// locally, failed when CI is set.
func require(t testing.TB, name, path string) string {
	t.Helper()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("redistest: %s not found (install it, or set REDIS_SERVER / REDIS_CLI); CI is set, so this fails instead of skipping", name)
		}
		t.Skipf("redistest: %s not found; install it (Debian: redis-server, redis-tools) to run this test", name)
	}
	return path
}

func start(t testing.TB, bin string, extra func(port int) []string) *Server {
	t.Helper()
	s := &Server{t: t, bin: bin, dir: t.TempDir(), extra: extra}
	var err error
	// Another process may take the free port between our probe and the
	// server's bind; a few attempts make that race irrelevant.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			continue
		}
		if err = s.start(); err == nil {
			t.Cleanup(s.Close)
			return s
		}
	}
	t.Fatalf("redistest: %v", err)
	return nil
}

// StartProcess starts a redis-server for code that has no testing.TB, such
// as a TestMain serving Example functions. It returns "" and no error when
// redis-server is not installed and CI is not set; the caller stops the
// server with stop.
func StartProcess() (addr string, stop func(), err error) {
	bin := Binary()
	if bin == "" {
		if os.Getenv("CI") != "" {
			return "", nil, errors.New("redistest: redis-server not found and CI is set")
		}
		return "", nil, nil
	}
	dir, err := os.MkdirTemp("", "redistest")
	if err != nil {
		return "", nil, err
	}
	s := &Server{bin: bin, dir: dir}
	for range 5 {
		if s.port, err = freePort(); err != nil {
			continue
		}
		if err = s.start(); err == nil {
			return s.Addr(), func() { s.Close(); _ = os.RemoveAll(dir) }, nil
		}
	}
	_ = os.RemoveAll(dir)
	return "", nil, err
}

// Addr returns host:port, for redis.Options.Addr.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Kill stops the server abruptly (SIGKILL), as a crash would: clients see
// refused connections until Restart.
func (s *Server) Kill() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
}

// Restart starts the server again on the same port, with an empty data set,
// and returns once it answers PING. A running server is killed first.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
	if err := s.startLocked(); err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
}

// Pause freezes the server (SIGSTOP): connections stay open but nothing is
// answered, as with a stalled server. Resume undoes it.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume lets a paused server continue (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

// Close stops the server. It is registered with t.Cleanup by Start, and
// safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
}

func (s *Server) signal(sig os.Signal) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatalf("redistest: %v: server not running", sig)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("redistest: %v: %v", sig, err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startLocked()
}

func (s *Server) startLocked() error {
	cmd := exec.Command(s.bin,
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(s.port),
		"--dir", s.dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--loglevel", "warning",
	)
	if s.extra != nil {
		cmd.Args = append(cmd.Args, s.extra(s.port)...)
	}
	out, err := os.Create(s.dir + "/redis-" + strconv.Itoa(s.port) + ".log")
	if err != nil {
		return err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(out.Name())
			return fmt.Errorf("redis-server on port %d exited: %v\n%s", s.port, err, log)
		default:
		}
		if reply, err := Do(s.Addr(), "PING"); err == nil && reply == "PONG" {
			s.cmd = cmd
			s.exited = exited
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("redis-server on port %d did not answer PING within 10s", s.port)
}

func (s *Server) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd, s.exited = nil, nil
}

// Do sends one command to addr and returns the reply as text: a status,
// an integer or a bulk string (a Redis error reply is returned as an
// error). It speaks just enough RESP for tests to steer servers, so this
// package needs no Redis client.
func Do(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write(b); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", errors.New(line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("bulk reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("unsupported reply %q", line)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
