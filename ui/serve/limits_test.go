package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// rawConn is a TCP connection to the server from local address ip (any
// 127.0.0.0/8 address is this machine's loopback): it says nothing, as an
// attacker holding connections open does.
func (w *world) rawConn(ip string) net.Conn {
	w.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: wait}
	c, err := d.Dial("tcp", w.addr)
	if err != nil {
		w.t.Fatalf("from %s: %v", ip, err)
	}
	w.t.Cleanup(func() { c.Close() })
	return c
}

// greeted reads the server's version line: the connection was admitted.
func greeted(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "SSH-2.0-smsdesk") {
		t.Fatalf("no greeting: %q %v", line, err)
	}
	_ = c.SetReadDeadline(time.Time{})
}

// closedByServer waits (at most wait) until the server has closed c, and
// returns what it had sent first.
func closedByServer(t *testing.T, c net.Conn, what string) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	var got []byte
	buf := make([]byte, 512)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			t.Fatalf("%s: still open after %v", what, wait)
		case err != nil: // EOF or reset: closed by the server
			return string(got)
		}
	}
}

// TestLoginGrace: a connection that does not sign in is closed at the
// grace, whether it said nothing or stopped after the version line; a
// signed-in session is not (the deadline ends with the handshake).
func TestLoginGrace(t *testing.T) {
	// Long enough for an honest sign-in on a busy machine (sara's, below).
	const grace = 2 * time.Second
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.LoginGrace = grace }})
	silent, halfway := w.rawConn("127.0.0.1"), w.rawConn("127.0.0.1")
	began := time.Now()
	greeted(t, halfway)
	if _, err := halfway.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")); err != nil {
		t.Fatal(err)
	}
	tm := w.open("sara", nil)
	tm.waitFor("operator=sara")

	closedByServer(t, silent, "a silent connection")
	t.Logf("a silent connection was closed %v after it opened (grace %v)", time.Since(began).Round(time.Millisecond), grace)
	closedByServer(t, halfway, "a connection that stopped after its version")
	waitUntil(t, func() bool { return strings.Count(w.log.String(), "closed: not signed in within the login grace") == 2 },
		func() string { return "the grace is not in the log:\n" + w.log.String() })

	// sara signed in before either was closed: her session is still served.
	if err := tm.sess.WindowChange(24, 81); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("81x24")
}

// TestMaxStartups: past the connections signing in from one address, a new
// one from it is closed at once (no greeting) while an operator at another
// address signs in; past the total, every new one is closed at once while
// a signed-in operator goes on; connections that close or sign in leave
// the count.
func TestMaxStartups(t *testing.T) {
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.MaxStartups, o.MaxStartupsPerSource = 4, 2 }})
	for range 2 {
		greeted(t, w.rawConn("127.0.0.2"))
	}
	if got := closedByServer(t, w.rawConn("127.0.0.2"), "a third connection from 127.0.0.2"); got != "" {
		t.Errorf("past the per-address cap the server said %q before closing", got)
	}
	tm := w.open("sara", nil) // from 127.0.0.1
	tm.waitFor("operator=sara")
	if total, mine := w.srv.starts.pending("127.0.0.1"); total != 2 || mine != 0 {
		t.Errorf("signing in: %d in total, %d from sara's address; want 2 and 0 (she has signed in)", total, mine)
	}

	held := []net.Conn{w.rawConn("127.0.0.3"), w.rawConn("127.0.0.3")}
	for _, c := range held {
		greeted(t, c)
	}
	if got := closedByServer(t, w.rawConn("127.0.0.4"), "a fifth connection signing in"); got != "" {
		t.Errorf("past the total the server said %q before closing", got)
	}
	if c, err := w.dial("reza"); err == nil {
		c.Close()
		t.Error("an operator signed in past the total cap")
	}
	if err := tm.sess.WindowChange(24, 81); err != nil { // sara's session goes on
		t.Fatal(err)
	}
	tm.waitFor("81x24")
	if !strings.Contains(w.log.String(), "connection refused: 2 connections from this address are signing in") ||
		!strings.Contains(w.log.String(), "connection refused: 4 connections are signing in") {
		t.Errorf("log:\n%s", w.log.String())
	}

	for _, c := range held {
		c.Close()
	}
	waitUntil(t, func() bool { total, _ := w.srv.starts.pending(""); return total == 2 },
		func() string {
			total, _ := w.srv.starts.pending("")
			return fmt.Sprintf("closed connections still counted: %d signing in", total)
		})
	c, err := w.dial("reza")
	if err != nil {
		t.Fatalf("reza, once there was room: %v", err)
	}
	c.Close()
}

// TestFailedKeysThrottled: 40 unknown keys from one address; past the
// failures allowed, each further one is answered late (on a clock the test
// controls); an operator's key from that address is never slowed nor
// refused, even offered after a wrong one on the same connection.
func TestFailedKeysThrottled(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.AuthFailures, o.Now, o.Sleep = 20, clock.Now, clock.Sleep }})
	stranger := strangerKey(t)
	for range 40 {
		if c, err := w.dial("sara", gossh.PublicKeys(stranger)); err == nil {
			c.Close()
			t.Fatal("a stranger signed in")
		}
	}
	if got := clock.Sleeps(); len(got) != 20 || got[0] != DefaultFailureDelay {
		t.Errorf("the refusals past the 20th waited %v; want 20 waits of %v", got, DefaultFailureDelay)
	}
	if !strings.Contains(w.log.String(), `refused keys from this address are now answered late" addr=127.0.0.1`) {
		t.Errorf("log:\n%s", w.log.String())
	}
	c, err := w.dial("sara")
	if err != nil {
		t.Fatalf("sara's own key after 40 bad ones from her address: %v", err)
	}
	c.Close()
	if n := len(clock.Sleeps()); n != 20 {
		t.Errorf("sara's sign-in waited: %d waits", n)
	}
	c, err = w.dial("reza", gossh.PublicKeys(stranger, w.keys["reza"])) // an agent with another key first
	if err != nil {
		t.Fatalf("reza, his key second: %v", err)
	}
	c.Close()
}

// TestAConnectionDroppedAtMaxAuthTries: a connection offering key after
// wrong key is dropped at the MaxAuthTries-th.
func TestAConnectionDroppedAtMaxAuthTries(t *testing.T) {
	w := newWorld(t, worldOptions{})
	var keys []gossh.Signer
	for range MaxAuthTries + 3 {
		keys = append(keys, strangerKey(t))
	}
	if c, err := w.dial("sara", gossh.PublicKeys(keys...)); err == nil {
		c.Close()
		t.Fatal("signed in")
	}
	waitUntil(t, func() bool { return strings.Contains(w.log.String(), "too many authentication failures") },
		func() string { return "not dropped:\n" + w.log.String() })
	if n := strings.Count(w.log.String(), "refused: unknown key"); n != MaxAuthTries {
		t.Errorf("%d keys were tried, want %d", n, MaxAuthTries)
	}
}

// provedSession is a session as the handler sees one: who it says it is,
// the key it proved and the permissions kept with the accepted key.
type provedSession struct {
	ssh.Session
	user  string
	key   gossh.PublicKey
	perms ssh.Permissions
}

func (p provedSession) User() string                 { return p.user }
func (p provedSession) PublicKey() ssh.PublicKey     { return p.key }
func (p provedSession) Permissions() ssh.Permissions { return p.perms }

// TestSignedInFromTheProvedKey: the session's operator is the one whose
// key it proved, under the name it gave; a session whose proved key is
// not the one the sign-in accepted is nobody (the CVE-2024-45337 shape:
// accept one operator's key in a query, prove another's).
func TestSignedInFromTheProvedKey(t *testing.T) {
	w := newWorld(t, worldOptions{})
	accepted := func(k gossh.PublicKey) ssh.Permissions {
		return ssh.Permissions{Permissions: &gossh.Permissions{Extensions: map[string]string{provedKey: gossh.FingerprintSHA256(k)}}}
	}
	sara, vida := w.keys["sara"].PublicKey(), w.keys["vida"].PublicKey()
	for _, tc := range []struct {
		name, user string
		key        gossh.PublicKey
		perms      ssh.Permissions
		want, why  string
	}{
		{"vida proves her key", "vida", vida, accepted(vida), "vida", ""},
		{"sara's key accepted, vida's proved", "vida", vida, accepted(sara), "", "the key proved is not the one accepted"},
		{"sara's key accepted, vida's proved, as sara", "sara", vida, accepted(sara), "", "the key proved is not the one accepted"},
		{"no record of the accepted key", "vida", vida, ssh.Permissions{Permissions: &gossh.Permissions{}}, "", "the key proved is not the one accepted"},
		{"no permissions", "vida", vida, ssh.Permissions{}, "", "the key proved is not the one accepted"},
		{"vida's key as sara", "sara", vida, accepted(vida), "", "key belongs to another operator (vida)"},
		{"no key", "vida", nil, accepted(vida), "", "no key was proved"},
	} {
		op, why := w.srv.signedIn(provedSession{user: tc.user, key: tc.key, perms: tc.perms})
		if op.Name != tc.want || why != tc.why {
			t.Errorf("%s: %q, %q; want %q, %q", tc.name, op.Name, why, tc.want, tc.why)
		}
	}
}

// TestAPanicEndsOneSession: a console that panics ends its own session,
// with a line on its terminal and the panic in the log; the server goes on
// and its place is free (one session at most here).
func TestAPanicEndsOneSession(t *testing.T) {
	w := newWorld(t, worldOptions{serve: func(o *Options) {
		o.MaxSessions = 1
		console := o.Console
		o.Console = func(ctx context.Context, t Terminal) (Console, []tea.ProgramOption) {
			if t.Operator.Name == "reza" {
				panic("a bad console")
			}
			return console(ctx, t)
		}
	}})
	reza := w.open("reza", nil)
	reza.waitFor("smsdesk serve: this session failed and is closed")
	var ee *gossh.ExitError
	if err := reza.sess.Wait(); !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("reza's session ended with %v, want exit 1", err)
	}
	waitUntil(t, func() bool { return strings.Contains(w.log.String(), "a bad console") },
		func() string { return "no panic in the log:\n" + w.log.String() })
	if !strings.Contains(w.log.String(), `msg="session failed" operator=reza`) {
		t.Errorf("log:\n%s", w.log.String())
	}
	w.open("sara", nil).waitFor("operator=sara")
}
