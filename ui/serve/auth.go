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

// Refused keys are throttled per source address, never the operators:
// past AuthFailures refused keys from one address within AuthWindow, each
// further refused key from it is answered only after FailureDelay, and a
// connection is dropped at its MaxAuthTries-th refused key (OpenSSH's
// default, 6). A key that belongs to an operator, offered under that
// operator's name, is never slowed or refused because other keys failed
// from the same address (a shared bastion, an office behind one NAT).
const (
	DefaultAuthFailures = 20
	DefaultAuthWindow   = time.Minute
	DefaultFailureDelay = 2 * time.Second
	MaxAuthTries        = 6
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

// fail records a refused key from host. slow says the address is past its
// failures (this one is to be answered late); first that this failure is
// the first one past them (to log once).
func (l *failureLimiter) fail(host string) (slow, first bool) {
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
	return len(r) > l.max, len(r) == l.max+1
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

// provedKey is the permissions' extension that keeps the fingerprint of
// the key publicKey accepted, with that key's permissions (x/crypto keeps
// one set per key offered): the session handler checks it against the key
// the connection proved (soft-serve's pubkey-fp).
const provedKey = "smsdesk-accepted-key"

// publicKey is the only way in: the key must be an operator's, offered
// under that operator's name. The operators file is read at each attempt,
// so an operator added or removed counts for the next login.
func (s *Server) publicKey(ctx ssh.Context, key ssh.PublicKey) bool {
	host := hostOf(ctx.RemoteAddr())
	fp := gossh.FingerprintSHA256(key)
	user := model.SanitizeLine(ctx.User())
	_, why, err := s.operatorFor(ctx.User(), key)
	switch {
	case err != nil: // nobody's fault at that address: not counted
		s.log.Error("refused: the operators file cannot be trusted", "err", model.SanitizeLine(err.Error()), "addr", host, "user", user)
		return false
	case why == "":
		p := ctx.Permissions()
		if p.Extensions == nil {
			p.Extensions = map[string]string{}
		}
		p.Extensions[provedKey] = fp
		return true
	}
	slow, first := s.limiter.fail(host)
	s.log.Warn("refused: "+why, "addr", host, "user", user, "fingerprint", fp, "slowed", slow)
	if first {
		s.log.Warn("refused keys from this address are now answered late", "addr", host, "failures", s.limiter.max,
			"window", s.limiter.window.String(), "delay", s.opts.FailureDelay.String())
	}
	if slow {
		_ = s.opts.Sleep(ctx, s.opts.FailureDelay) // ends early if the connection does
	}
	return false
}

// operatorFor is the operator whose key this is, if they sign in under
// their own name; else why not. err: the operators file cannot be read
// or trusted (everyone is refused).
func (s *Server) operatorFor(user string, key gossh.PublicKey) (op model.Operator, why string, err error) {
	list, err := s.opts.Operators()
	if err != nil {
		return model.Operator{}, "", err
	}
	e, ok := config.FindOperator(list, key)
	switch {
	case !ok:
		return model.Operator{}, "unknown key", nil
	case e.Name != user:
		return model.Operator{}, "key belongs to another operator (" + model.SanitizeLine(e.Name) + ")", nil
	}
	return e.Operator(), "", nil
}

// signedIn is the operator a session proved to be, from the key it proved
// (sess.PublicKey), not from what the auth callback last saw (a client may
// offer one operator's public key, then sign with another's: the Go
// advisory for CVE-2024-45337). That key must be the one publicKey
// accepted (the fingerprint kept with its permissions) and still be an
// operator's, under the name the session gave, in the file as it is now.
func (s *Server) signedIn(sess ssh.Session) (model.Operator, string) {
	key := sess.PublicKey()
	if key == nil {
		return model.Operator{}, "no key was proved"
	}
	fp := gossh.FingerprintSHA256(key)
	perms := sess.Permissions()
	if perms.Permissions == nil || perms.Extensions[provedKey] != fp {
		return model.Operator{}, "the key proved is not the one accepted"
	}
	op, why, err := s.operatorFor(sess.User(), key)
	switch {
	case err != nil:
		return model.Operator{}, "the operators file cannot be trusted: " + model.SanitizeLine(err.Error())
	case why != "":
		return model.Operator{}, why
	}
	return op, ""
}

// operatorKey is where a session keeps its operator, once signedIn.
type operatorKey struct{}

// operatorOf is the operator the gatekeeper admitted the session as.
func operatorOf(sess ssh.Session) (model.Operator, bool) {
	op, ok := sess.Context().Value(operatorKey{}).(model.Operator)
	return op, ok
}
