package pgfault_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
)

// lossyProxy is a loopback TCP proxy between pgx and a real server that
// loses the answer to one statement on cue: the statement reaches the
// server, the server runs it (and commits, if it commits) and answers, and
// the proxy drops that answer and breaks the connection. It reads the
// protocol's framing (a type byte and a length) only to know where one
// message ends; it never changes a byte it forwards.
type lossyProxy struct {
	ln     net.Listener
	target string

	mu   sync.Mutex
	cue  []byte // a frontend message containing these bytes arms the cut
	mode cutMode
	// cut is closed once the cue was seen and the connection broken.
	cut   chan struct{}
	conns []net.Conn
}

type cutMode uint8

const (
	// afterAnswer drops the server's answer to the cued statement, read
	// in full (up to its ReadyForQuery), and closes the client's side.
	afterAnswer cutMode = iota
	// afterAnswerReset is afterAnswer with a TCP reset instead of a close.
	afterAnswerReset
	// beforeServer closes both sides instead of forwarding the cued
	// message: the server never sees the statement.
	beforeServer
)

func newLossyProxy(t *testing.T, target string) *lossyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	return p
}

func (p *lossyProxy) addr() string { return p.ln.Addr().String() }

// arm makes the next frontend message containing cue the one whose answer
// is lost, and returns a channel closed when it was.
func (p *lossyProxy) arm(cue string, mode cutMode) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cue, p.mode, p.cut = []byte(cue), mode, make(chan struct{})
	return p.cut
}

// take reports whether msg is the cued one, disarming the proxy if so.
func (p *lossyProxy) take(msg []byte) (cutMode, chan struct{}, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cue == nil || !bytes.Contains(msg, p.cue) {
		return 0, nil, false
	}
	p.cue = nil
	return p.mode, p.cut, true
}

func (p *lossyProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(c, s)
	}
}

// pipe forwards one connection. The client's messages go on one at a
// time; once the cue passed, the server's messages are forwarded until the
// statement's execution begins (a prepare's answer still reaches pgx, or
// it would never send the execution) and dropped from there on.
func (p *lossyProxy) pipe(c, s net.Conn) {
	type cue struct {
		mode cutMode
		cut  chan struct{}
	}
	dropping := make(chan cue, 1)
	var once sync.Once
	breakConn := func(mode cutMode, cut chan struct{}) {
		once.Do(func() {
			if tc, ok := c.(*net.TCPConn); ok && mode == afterAnswerReset {
				tc.SetLinger(0)
			}
			c.Close()
			s.Close()
			close(cut)
		})
	}
	go func() {
		// The startup message has no type byte.
		first := true
		for {
			msg, err := readMessage(c, first)
			first = false
			if err != nil {
				s.Close()
				return
			}
			if mode, cut, ok := p.take(msg); ok {
				if mode == beforeServer {
					breakConn(mode, cut)
					return
				}
				dropping <- cue{mode, cut}
			}
			if _, err := s.Write(msg); err != nil {
				c.Close()
				return
			}
		}
	}()
	var armed *cue
	executing := false
	for {
		msg, err := readMessage(s, false)
		if err != nil {
			c.Close()
			return
		}
		if armed == nil {
			select {
			case a := <-dropping:
				armed = &a
			default:
			}
		}
		if armed != nil {
			switch msg[0] {
			case 'C', 'D', 'E', 'I', 's':
				executing = true
			case 'Z':
				if executing {
					breakConn(armed.mode, armed.cut)
					return
				}
			}
			if executing {
				continue
			}
		}
		if _, err := c.Write(msg); err != nil {
			s.Close()
			return
		}
	}
}

// readMessage reads one protocol message, whole, with its header.
func readMessage(r io.Reader, untyped bool) ([]byte, error) {
	head := 5
	if untyped {
		head = 4
	}
	buf := make([]byte, head)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(buf[head-4:]))
	if n < 4 {
		return nil, io.ErrUnexpectedEOF
	}
	msg := make([]byte, head+n-4)
	copy(msg, buf)
	if _, err := io.ReadFull(r, msg[head:]); err != nil {
		return nil, err
	}
	return msg, nil
}
