package pgfault_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"
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
	// tls, when set, makes the proxy accept pgx's SSLRequest and speak
	// TLS to it (and plain TCP to the server).
	tls *tls.Config

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
	// holdAnswer drops the answer and keeps the connection open, silent.
	holdAnswer
	// garbleTLS drops the answer and sends a TLS record pgx cannot
	// decrypt in its place, as a broken middlebox or a reset TLS session
	// would: pgx's TLS layer fails with an alert.
	garbleTLS
)

func newLossyProxy(t *testing.T, target string, cfg *tls.Config) *lossyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{ln: ln, target: target, tls: cfg}
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
		go func() {
			client := c
			if p.tls != nil {
				var err error
				if client, err = p.startTLS(c); err != nil {
					c.Close()
					s.Close()
					return
				}
			}
			p.pipe(client, c, s)
		}()
	}
}

// startTLS answers pgx's SSLRequest and completes the handshake.
func (p *lossyProxy) startTLS(c net.Conn) (net.Conn, error) {
	req, err := readMessage(c, true)
	if err != nil {
		return nil, err
	}
	if len(req) != 8 || binary.BigEndian.Uint32(req[4:]) != 80877103 {
		return nil, errors.New("no SSLRequest")
	}
	if _, err := c.Write([]byte{'S'}); err != nil {
		return nil, err
	}
	tc := tls.Server(c, p.tls)
	return tc, tc.Handshake()
}

// selfSignedTLS is a server configuration with a throwaway certificate.
func selfSignedTLS(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// pipe forwards one connection: c is the client's side (raw, or TLS over
// raw), s the server's. The client's messages go on one at a time; once
// the cue passed, the server's messages are forwarded until the
// statement's execution begins (a prepare's answer still reaches pgx, or
// it would never send the execution) and dropped from there on.
func (p *lossyProxy) pipe(c, raw, s net.Conn) {
	type cue struct {
		mode cutMode
		cut  chan struct{}
	}
	dropping := make(chan cue, 1)
	var once sync.Once
	breakConn := func(mode cutMode, cut chan struct{}) {
		once.Do(func() {
			defer close(cut)
			switch mode {
			case holdAnswer:
				return
			case afterAnswerReset:
				raw.(*net.TCPConn).SetLinger(0)
			case garbleTLS:
				garbage := append([]byte{23, 3, 3, 0, 32}, make([]byte, 32)...)
				raw.Write(garbage)
			}
			raw.Close()
			s.Close()
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
					if armed.mode != holdAnswer {
						return
					}
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
