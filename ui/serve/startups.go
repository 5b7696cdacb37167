package serve

// Limits before login, as OpenSSH's LoginGraceTime and MaxStartups: a
// connection that has not signed in is closed after the login grace, and
// one that has not even sent its SSH version after the version grace.
// Connections not yet signed in are counted, in total and per source
// address; a signed-in one counts against neither (the sessions' own limit
// is MaxSessions).
//
// Past MaxStartups' start, each new connection sheds, with a chance rising
// from rate% to 100% at full, a connection stalled before login (the one
// that has shown the least: no version first, then the longest silent),
// not the new one: sshd drops the new connection, which lets idle sockets
// lock operators out. A new connection from an address at its per-source
// cap sheds that address's own stalled one. Only at full with nobody
// stalled is the new connection itself closed. A connection that keeps
// talking is never shed: twenty operators signing in at once from one
// address all get in.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the limits before login.
const (
	// DefaultLoginGrace is how long a connection has to sign in (OpenSSH's
	// LoginGraceTime is 120 s; an operator's ssh signs in within a second).
	DefaultLoginGrace = 30 * time.Second
	// DefaultVersionGrace is how long a connection has to send its SSH
	// version line (every client sends it at once).
	DefaultVersionGrace = 10 * time.Second
	// DefaultMaxStartupsPerSource is how many connections not yet signed
	// in one address may hold before a new one sheds a stalled one of its
	// own.
	DefaultMaxStartupsPerSource = 8
	// stalledAfter is how long a connection not yet signed in may be silent
	// (since its last byte, or since it opened) before it may be shed.
	stalledAfter = time.Second
)

// DefaultMaxStartups is OpenSSH's default MaxStartups, 10:30:100.
var DefaultMaxStartups = Startups{Start: 10, Rate: 30, Full: 100}

// Startups is OpenSSH's MaxStartups start:rate:full over the connections
// not yet signed in: from Start of them, a new connection sheds a stalled
// one with a chance of Rate%, rising linearly to 100% at Full; at Full a
// new one is closed when none is stalled.
type Startups struct{ Start, Rate, Full int }

// ParseStartups reads "10:30:100" (or a single number N, as "N:100:N").
func ParseStartups(s string) (Startups, error) {
	f := strings.Split(s, ":")
	n := make([]int, len(f))
	for i, v := range f {
		x, err := strconv.Atoi(v)
		if err != nil || x < 0 {
			return Startups{}, fmt.Errorf("max-startups %q: give start:rate:full, e.g. 10:30:100", s)
		}
		n[i] = x
	}
	var m Startups
	switch len(n) {
	case 1:
		m = Startups{Start: n[0], Rate: 100, Full: n[0]}
	case 3:
		m = Startups{Start: n[0], Rate: n[1], Full: n[2]}
	default:
		return Startups{}, fmt.Errorf("max-startups %q: give start:rate:full, e.g. 10:30:100", s)
	}
	if m.Start < 1 || m.Full < m.Start || m.Rate > 100 {
		return Startups{}, fmt.Errorf("max-startups %q: start 1 or more, full at least start, rate at most 100", s)
	}
	return m, nil
}

func (m Startups) String() string { return fmt.Sprintf("%d:%d:%d", m.Start, m.Rate, m.Full) }

// shedChance is the chance that a new connection sheds a stalled one when
// pending connections are not signed in yet.
func (m Startups) shedChance(pending int) float64 {
	switch {
	case pending < m.Start:
		return 0
	case pending >= m.Full:
		return 1
	}
	rate := float64(m.Rate) / 100
	return rate + (1-rate)*float64(pending-m.Start)/float64(m.Full-m.Start)
}

// startups counts the connections that have not signed in yet.
type startups struct {
	limits    Startups
	perSource int
	now       func() time.Time
	rand      func() float64

	mu    sync.Mutex
	conns map[*startup]struct{}
	hosts map[string]int
}

func newStartups(limits Startups, perSource int, now func() time.Time, random func() float64) *startups {
	return &startups{limits: limits, perSource: perSource, now: now, rand: random,
		conns: map[*startup]struct{}{}, hosts: map[string]int{}}
}

// begin counts a new connection c from host in, with the stalled ones it
// sheds to make room (to be closed by the caller), or says why it is
// refused. The connection returned reports what it receives and counts
// itself out when closed.
func (g *startups) begin(c net.Conn, host string) (sc *startupConn, shed []*startup, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if g.hosts[host] >= g.perSource {
		if v := g.stalled(host, now); v != nil {
			shed = append(shed, g.shed(v, now))
		}
	}
	pending := len(g.conns)
	if c := g.limits.shedChance(pending); c > 0 && (c >= 1 || g.rand() < c) {
		if v := g.stalled("", now); v != nil {
			shed = append(shed, g.shed(v, now))
		} else if pending >= g.limits.Full {
			return nil, shed, fmt.Sprintf("%d connections are signing in, the most this server takes at once, and none has stalled", pending)
		}
	}
	st := &startup{g: g, host: host, last: now}
	sc = &startupConn{Conn: c, s: st}
	st.conn = sc
	g.conns[st] = struct{}{}
	g.hosts[host]++
	return sc, shed, ""
}

// stalled is the connection to shed (from host, or from anywhere when host
// is ""), nil when none has stalled: one that has not sent its version
// before one that has, then the longest silent.
func (g *startups) stalled(host string, now time.Time) *startup {
	var worst *startup
	for c := range g.conns {
		if host != "" && c.host != host || now.Sub(c.last) < stalledAfter {
			continue
		}
		if worst == nil || !c.versioned && worst.versioned {
			worst = c
			continue
		}
		if c.versioned == worst.versioned && c.last.Before(worst.last) {
			worst = c
		}
	}
	return worst
}

// shed counts c out to close it (under mu), saying why in c.why.
func (g *startups) shed(c *startup, now time.Time) *startup {
	what := "silent"
	if !c.versioned {
		what = "sent no version"
	}
	c.why = fmt.Sprintf("stalled before login (%s for %v)", what, now.Sub(c.last).Round(time.Millisecond))
	return g.remove(c)
}

// remove counts c out (under mu); c is returned for the caller to close.
func (g *startups) remove(c *startup) *startup {
	if _, ok := g.conns[c]; !ok {
		return c
	}
	delete(g.conns, c)
	if g.hosts[c.host]--; g.hosts[c.host] <= 0 {
		delete(g.hosts, c.host)
	}
	c.out.Store(true)
	if c.timer != nil {
		c.timer.Stop()
	}
	return c
}

// pending counts the connections not signed in yet (total, and from host).
func (g *startups) pending(host string) (total, fromHost int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns), g.hosts[host]
}

// startup is one connection until it has signed in or closed.
type startup struct {
	g    *startups
	host string
	conn net.Conn // what shedding closes
	why  string   // why it was shed (set before it is returned by begin)

	timer *time.Timer // the version grace (under g.mu)

	// under g.mu:
	last      time.Time // when it last sent a byte, or opened
	versioned bool      // it has sent its version line

	out atomic.Bool // counted out: signed in, shed or closed
}

// done counts the connection out: it signed in, or it closed (either
// first; the second call does nothing).
func (s *startup) done() {
	s.g.mu.Lock()
	defer s.g.mu.Unlock()
	s.g.remove(s)
}

// read notes bytes received from the connection.
func (s *startup) read(p []byte) {
	if s.out.Load() {
		return // signed in or shed: nothing to keep
	}
	s.g.mu.Lock()
	defer s.g.mu.Unlock()
	s.last = s.g.now()
	if !s.versioned && bytes.IndexByte(p, '\n') >= 0 {
		s.versioned = true
	}
}

// closeUnversioned closes the connection after grace unless it has sent
// its version line by then (or is no longer counted).
func (s *startup) closeUnversioned(grace time.Duration, closed func()) {
	s.g.mu.Lock()
	defer s.g.mu.Unlock()
	if s.out.Load() {
		return
	}
	s.timer = time.AfterFunc(grace, func() {
		if !s.hasVersion() {
			closed()
			_ = s.conn.Close()
		}
	})
}

// hasVersion says whether the connection has sent its version line (or
// is no longer counted: signed in, shed or closed).
func (s *startup) hasVersion() bool {
	s.g.mu.Lock()
	defer s.g.mu.Unlock()
	return s.versioned || s.out.Load()
}

// startupConn is a connection that reports what it receives and counts
// itself out when it closes.
type startupConn struct {
	net.Conn
	s *startup
}

func (c *startupConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.s.read(p[:n])
	}
	return n, err
}

func (c *startupConn) Close() error {
	c.s.done()
	return c.Conn.Close()
}

// randFloat is the default chance draw.
func randFloat() float64 { return rand.Float64() }
