package serve

import (
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Auth failures are limited per source address: past AuthFailures refused
// keys within AuthWindow, every key from that address is refused (the right
// one too) until the window has passed, so that nobody can try keys or
// names at speed.
const (
	DefaultAuthFailures = 20
	DefaultAuthWindow   = time.Minute
)

// failureLimiter counts refused keys per source address.
type failureLimiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu    sync.Mutex
	hosts map[string][]time.Time // recent failures, oldest first
}

func newFailureLimiter(max int, window time.Duration, now func() time.Time) *failureLimiter {
	return &failureLimiter{max: max, window: window, now: now, hosts: map[string][]time.Time{}}
}

// blocked reports whether host has used up its failures.
func (l *failureLimiter) blocked(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(host)) >= l.max
}

// fail records a refused key from host; it returns true when this failure
// is the one that blocks it (to log once).
func (l *failureLimiter) fail(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := append(l.recent(host), l.now())
	l.hosts[host] = r
	if len(l.hosts) > 10000 { // a flood of addresses: forget the quiet ones
		for h := range l.hosts {
			if len(l.recent(h)) == 0 {
				delete(l.hosts, h)
			}
		}
	}
	return len(r) == l.max
}

// recent drops host's failures older than the window (mu held).
func (l *failureLimiter) recent(host string) []time.Time {
	r := l.hosts[host]
	from := l.now().Add(-l.window)
	i := 0
	for i < len(r) && r[i].Before(from) {
		i++
	}
	if i == len(r) {
		delete(l.hosts, host)
		return nil
	}
	return r[i:]
}

func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return a.String()
}

// operatorKey is where a signed-in connection keeps its operator.
type operatorKey struct{}

// publicKey is the only way in: the key must be an operator's, offered
// under that operator's name. The operators file is read at each attempt,
// so an operator added or removed counts for the next login.
func (s *Server) publicKey(ctx ssh.Context, key ssh.PublicKey) bool {
	host := hostOf(ctx.RemoteAddr())
	fp := gossh.FingerprintSHA256(key)
	user := model.SanitizeLine(ctx.User())
	if s.limiter.blocked(host) {
		s.log.Warn("refused: too many failed keys from this address", "addr", host, "user", user, "fingerprint", fp)
		return false
	}
	list, err := s.opts.Operators()
	if err != nil {
		s.log.Error("refused: the operators file does not read", "err", model.SanitizeLine(err.Error()))
		return false
	}
	e, ok := config.FindOperator(list, key)
	switch {
	case !ok:
		s.log.Warn("refused: unknown key", "addr", host, "user", user, "fingerprint", fp)
	case e.Name != ctx.User():
		s.log.Warn("refused: key belongs to another operator", "addr", host, "user", user, "fingerprint", fp, "operator", e.Name)
		ok = false
	}
	if !ok {
		if s.limiter.fail(host) {
			s.log.Warn("address blocked for the auth window", "addr", host, "failures", s.limiter.max, "window", s.limiter.window.String())
		}
		return false
	}
	ctx.SetValue(operatorKey{}, e.Operator())
	return true
}

// operatorOf is the operator a session signed in as.
func operatorOf(sess ssh.Session) (model.Operator, bool) {
	op, ok := sess.Context().Value(operatorKey{}).(model.Operator)
	return op, ok
}
