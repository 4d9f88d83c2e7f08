package redistest_test

import (
	"net"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/redistest"
)

func dialable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func TestKillAndRestartKeepTheAddress(t *testing.T) {
	s := redistest.Start(t)
	addr := s.Addr()
	if !dialable(addr) {
		t.Fatal("server not reachable after Start")
	}
	s.Kill()
	if dialable(addr) {
		t.Fatal("server reachable after Kill")
	}
	s.Restart()
	if s.Addr() != addr || !dialable(addr) {
		t.Fatalf("after Restart: addr %s (was %s), reachable %v", s.Addr(), addr, dialable(addr))
	}
	s.Close()
	s.Close()
	if dialable(addr) {
		t.Fatal("server reachable after Close")
	}
}

func TestPauseStallsReplies(t *testing.T) {
	s := redistest.Start(t)
	s.Pause()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write([]byte("PING\r\n"))
	_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := c.Read(make([]byte, 16)); err == nil {
		t.Fatal("a paused server answered")
	}
	s.Resume()
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "+PONG\r\n" {
		t.Fatalf("after Resume: %q, %v", buf[:n], err)
	}
}
