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
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
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

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
}

// Start starts a redis-server on a free loopback port and stops it when the
// test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("redistest: redis-server not found (set REDIS_SERVER or install it); CI is set, so this fails instead of skipping")
		}
		t.Skip("redistest: redis-server not found; install it or set REDIS_SERVER to run this test")
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir()}
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
		if ping(s.Addr()) == nil {
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

// ping speaks just enough RESP to know the server is serving, so this
// package needs no Redis client.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
