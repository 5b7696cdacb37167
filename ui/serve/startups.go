package serve

// Limits before login, as OpenSSH's LoginGraceTime and MaxStartups (with
// PerSourceMaxStartups): a connection that has not signed in is closed
// after the grace; beyond the caps on connections not yet signed in, in
// total and per source address, a new one is closed at once, before any
// byte of SSH. A signed-in connection counts against neither: the
// sessions' own limit is MaxSessions.

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// Defaults of the limits before login.
const (
	// DefaultLoginGrace is how long a connection has to sign in (OpenSSH's
	// LoginGraceTime is 120 s; an operator's ssh signs in within a second).
	DefaultLoginGrace = 30 * time.Second
	// DefaultMaxStartups caps the connections not yet signed in, in total.
	DefaultMaxStartups = 32
	// DefaultMaxStartupsPerSource caps them per source address.
	DefaultMaxStartupsPerSource = 8
)

// startups counts the connections that have not signed in yet.
type startups struct {
	max, perSource int

	mu    sync.Mutex
	total int
	hosts map[string]int
}

func newStartups(max, perSource int) *startups {
	return &startups{max: max, perSource: perSource, hosts: map[string]int{}}
}

// begin counts a new connection from host in, or says why it is refused.
func (g *startups) begin(host string) (*startup, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.total >= g.max:
		return nil, fmt.Sprintf("%d connections are signing in, the most this server takes at once", g.max)
	case g.hosts[host] >= g.perSource:
		return nil, fmt.Sprintf("%d connections from this address are signing in, the most it may have at once", g.perSource)
	}
	g.total++
	g.hosts[host]++
	return &startup{g: g, host: host}, ""
}

// pending counts the connections not signed in yet (total, and from host).
func (g *startups) pending(host string) (total, fromHost int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total, g.hosts[host]
}

// startup is one connection until it has signed in or closed.
type startup struct {
	g    *startups
	host string
	once sync.Once
}

// done counts the connection out: it signed in, or it closed (either
// first; the second call does nothing).
func (s *startup) done() {
	s.once.Do(func() {
		s.g.mu.Lock()
		defer s.g.mu.Unlock()
		s.g.total--
		if s.g.hosts[s.host]--; s.g.hosts[s.host] <= 0 {
			delete(s.g.hosts, s.host)
		}
	})
}

// startupConn is a connection that counts itself out when it closes.
type startupConn struct {
	net.Conn
	s *startup
}

func (c *startupConn) Close() error {
	c.s.done()
	return c.Conn.Close()
}
