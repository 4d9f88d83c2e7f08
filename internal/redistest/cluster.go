package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NodeTimeout is the cluster-node-timeout of a Cluster: how long a master
// may be silent before the others count it as failed and one of its
// replicas takes over. Redis's default is 15s; tests cannot wait that long.
const NodeTimeout = time.Second

// CLIBinary returns the path of redis-cli: $REDIS_CLI if set, else the
// redis-cli beside redis-server, else the first on $PATH, else "".
func CLIBinary() string {
	if p := os.Getenv("REDIS_CLI"); p != "" {
		return p
	}
	if srv := Binary(); srv != "" {
		if p := filepath.Join(filepath.Dir(srv), "redis-cli"); isExecutable(p) {
			return p
		}
	}
	p, err := exec.LookPath("redis-cli")
	if err != nil {
		return ""
	}
	return p
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Cluster is a Redis Cluster of redis-server processes on 127.0.0.1,
// created with redis-cli --cluster create, every one of its nodes stopped
// when the test ends. Like Start, StartCluster skips the test when
// redis-server or redis-cli is missing, and fails it instead when CI is set.
type Cluster struct {
	t     testing.TB
	nodes []*Server
}

// StartCluster starts masters*(1+replicas) nodes, joins them into a
// cluster whose slots are spread over the masters, each with the given
// number of replicas, and returns once every node reports the cluster ok.
// A replica takes over a failed master after about two NodeTimeouts;
// replicas never refuse to because their data is old
// (cluster-replica-validity-factor 0), and a failed master makes only its
// own slots unavailable (cluster-require-full-coverage no).
func StartCluster(t testing.TB, masters, replicas int) *Cluster {
	t.Helper()
	srv := require(t, "redis-server", Binary())
	cli := require(t, "redis-cli", CLIBinary())
	if masters < 3 {
		t.Fatal("redistest: a Redis Cluster needs at least 3 masters")
	}
	c := &Cluster{t: t}
	for range masters * (1 + replicas) {
		bus, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		c.nodes = append(c.nodes, start(t, srv, func(int) []string {
			return []string{
				"--cluster-enabled", "yes",
				"--cluster-config-file", "nodes.conf",
				"--cluster-port", strconv.Itoa(bus),
				"--cluster-node-timeout", strconv.FormatInt(NodeTimeout.Milliseconds(), 10),
				"--cluster-replica-validity-factor", "0",
				"--cluster-require-full-coverage", "no",
				"--repl-diskless-sync-delay", "0",
			}
		}))
	}
	args := []string{"--cluster", "create"}
	args = append(args, c.Addrs()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := c.WaitHealthy(20 * time.Second); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	return c
}

// Addrs returns every node's host:port, for redis.ClusterOptions.Addrs.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = n.Addr()
	}
	return addrs
}

// Node returns the node listening on addr, or nil.
func (c *Cluster) Node(addr string) *Server {
	for _, n := range c.nodes {
		if n.Addr() == addr {
			return n
		}
	}
	return nil
}

// WaitHealthy waits until every running node reports cluster_state:ok
// with every slot assigned, and sees each slot served by a master that is
// running, each replica in sync: after a master was killed, that is once a
// replica has taken over. Killed nodes are ignored.
func (c *Cluster) WaitHealthy(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := c.healthy()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not healthy after %v: %v", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *Cluster) healthy() error {
	for _, n := range c.nodes {
		if !n.running() {
			continue
		}
		info, err := Do(n.Addr(), "CLUSTER", "INFO")
		if err != nil {
			return fmt.Errorf("%s: %v", n.Addr(), err)
		}
		if !strings.Contains(info, "cluster_state:ok") || field(info, "cluster_slots_assigned") != 16384 {
			return fmt.Errorf("%s: cluster state not ok", n.Addr())
		}
		// A replica that has not finished its first sync cannot take over
		// its master's data.
		repl, err := Do(n.Addr(), "INFO", "replication")
		if err != nil {
			return fmt.Errorf("%s: %v", n.Addr(), err)
		}
		if strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up") {
			return fmt.Errorf("%s: replica not in sync with its master", n.Addr())
		}
		nodes, err := Do(n.Addr(), "CLUSTER", "NODES")
		if err != nil {
			return fmt.Errorf("%s: %v", n.Addr(), err)
		}
		// <id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slots>...
		for _, line := range strings.Split(strings.TrimSpace(nodes), "\n") {
			f := strings.Fields(line)
			if len(f) < 9 || !strings.Contains(f[2], "master") {
				continue
			}
			addr, _, _ := strings.Cut(f[1], "@")
			if strings.Contains(f[2], "fail") || c.Node(addr) == nil || !c.Node(addr).running() {
				return fmt.Errorf("%s sees slots %s served by %s (%s)", n.Addr(), f[8], addr, f[2])
			}
		}
	}
	return nil
}

// field reads an integer field of CLUSTER INFO.
func field(info, name string) int {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

func (s *Server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}
