// Package pgtest runs a throwaway PostgreSQL cluster on a free loopback
// port for tests, so the mapper is proven against PostgreSQL's own failures
// rather than against hand-made errors.
//
// The cluster lives in a temporary directory and is created with initdb on
// each Start. PostgreSQL refuses to run as root, and CI runs as root, so
// as root initdb and the server run as the unprivileged postgres account
// (created by Debian's postgresql package) through runuser.
//
// When the binaries are not installed, Start skips the test, unless the
// environment variable CI is set: there a missing server is a broken
// pipeline, and the test fails instead of passing silently.
package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Roles created in every cluster. Superuser administers (terminating
// backends, altering the schema under a running service); App is an
// ordinary role, so privileges and connection limits apply to it.
const (
	Superuser = "postgres"
	App       = "app"
	Database  = "app"
)

// BinDir returns the directory holding initdb and postgres: $PG_BIN if set,
// otherwise the newest /usr/lib/postgresql/*/bin that has both, otherwise "".
func BinDir() string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isFile(filepath.Join(d, "initdb")) && isFile(filepath.Join(d, "postgres")) {
			return d
		}
	}
	return ""
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Server is one postgres process bound to 127.0.0.1.
type Server struct {
	dir    string
	port   int
	cmd    *exec.Cmd
	exited chan error
}

// Start creates a cluster, starts it on a free loopback port with the App
// role owning the Database, and stops and deletes it when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := BinDir()
	if bin == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("pgtest: PostgreSQL binaries not found (install postgresql or set PG_BIN); CI is set, so this fails instead of skipping")
		}
		tb.Skip("pgtest: PostgreSQL binaries not found; install postgresql or set PG_BIN to run this test")
	}
	s, err := start(bin)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

func start(bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir}
	run, err := runner(dir)
	if err != nil {
		s.Close()
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-U", Superuser,
		"--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync").CombinedOutput(); err != nil {
		s.Close()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// Another process may take the free port between the probe and the
	// server's bind; a few attempts make that race irrelevant.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			continue
		}
		if err = s.startPostgres(run, bin, data); err == nil {
			break
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	setup := []string{
		"CREATE ROLE " + App + " LOGIN",
		"CREATE DATABASE " + Database + " OWNER " + App,
	}
	for _, stmt := range setup {
		if out, err := run(filepath.Join(bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
			"-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", Superuser, "-d", "postgres",
			"-c", stmt).CombinedOutput(); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %v\n%s", stmt, err, out)
		}
	}
	return s, nil
}

// runner returns how to run a PostgreSQL program: directly, or as root
// through runuser as the postgres account, which then owns dir.
func runner(dir string) (func(name string, args ...string) *exec.Cmd, error) {
	if os.Geteuid() != 0 {
		return exec.Command, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs the postgres account to run PostgreSQL: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		// The temporary directory's path must be reachable by postgres;
		// os.MkdirTemp's parent (TMPDIR) is world-traversable by convention.
		cmd.Dir = dir
		return cmd
	}, nil
}

func (s *Server) startPostgres(run func(string, ...string) *exec.Cmd, bin, data string) error {
	cmd := run(filepath.Join(bin, "postgres"), "-D", data,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "port="+strconv.Itoa(s.port),
		"-c", "unix_socket_directories="+s.dir,
		"-c", "max_connections=40",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "deadlock_timeout=100ms",
		"-c", "log_min_messages=fatal",
		"-c", "log_min_error_statement=panic",
	)
	// A test binary that dies (a panic, a timeout) must not leave a server
	// behind: the kernel signals the child when this process goes. Through
	// runuser that is SIGTERM, which runuser passes on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("postgres on port %d exited: %v\n%s", s.port, err, log.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
			c.Close()
			if s.ready(run, bin) {
				s.cmd, s.exited = cmd, exited
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.cmd, s.exited = cmd, exited
	s.stop()
	return fmt.Errorf("postgres on port %d did not accept connections within 15s", s.port)
}

// ready asks pg_isready, which knows a server that listens but still
// recovers from one that serves.
func (s *Server) ready(run func(string, ...string) *exec.Cmd, bin string) bool {
	return run(filepath.Join(bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(s.port)).Run() == nil
}

// Addr returns host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Port returns the server's TCP port.
func (s *Server) Port() int { return s.port }

// DSN returns a connection string for role on the Database.
func (s *Server) DSN(role string) string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", role, s.Addr(), Database)
}

// Close stops the server at once and deletes the cluster. It is registered
// with t.Cleanup by Start, and safe to call more than once.
func (s *Server) Close() {
	s.stop()
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// stop signals the postmaster itself, whose PID is the first line of
// postmaster.pid: runuser sits between this process and the server and
// would forward only a smart shutdown, which waits for every client.
// SIGQUIT is PostgreSQL's immediate shutdown.
func (s *Server) stop() {
	if s.cmd == nil {
		return
	}
	if pid := s.postmasterPID(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGQUIT)
	} else {
		_ = s.cmd.Process.Kill()
	}
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd, s.exited = nil, nil
}

func (s *Server) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(s.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
