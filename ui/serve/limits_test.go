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

	"github.com/smsdesk/smsdesk/model/eventually"
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
	eventually.True(t, wait, func() bool { return strings.Count(w.log.String(), "closed: not signed in within the login grace") == 2 },
		func() string { return "the grace is not in the log:\n" + w.log.String() })

	// sara signed in before either was closed: her session is still served.
	if err := tm.sess.WindowChange(24, 81); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("81x24")
}

// TestIdleSocketsDoNotLockOutOperators: idle sockets that never sign in,
// from one address or from several, do not keep an operator out, however
// often they are opened again: each new connection sheds a stalled one
// (MaxStartups 10:30:100 and the per-address cap, with the chance drawn
// always or never), never the operator's. (Before: 8 idle sockets from
// 127.0.0.1, or 32 from 127.0.0.2–5, refused every login.)
func TestIdleSocketsDoNotLockOutOperators(t *testing.T) {
	for _, tc := range []struct {
		name string
		from []string
		each int
		draw float64 // what the chance is drawn as: 0 sheds from MaxStartups' start on, 0.99 almost never
	}{
		{"8 from 127.0.0.1", []string{"127.0.0.1"}, 8, 0.99}, // at the per-address cap: its own stalled one
		{"8 from 127.0.0.1, shed by chance", []string{"127.0.0.1"}, 8, 0},
		{"32 from 127.0.0.2-5", []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}, 8, 0},
		{"32 from 127.0.0.2-5, no chance drawn", []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}, 8, 0.99},
		{"100 from 127.0.0.2-5: full", []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}, 25, 0.99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
			w := newWorld(t, worldOptions{serve: func(o *Options) {
				o.Now, o.Rand, o.VersionGrace = clock.Now, func() float64 { return tc.draw }, time.Hour // shed, not timed out
			}})
			reopen := func() { // as an attacker does every 30 s: as many as the server holds
				for _, ip := range tc.from {
					for range tc.each {
						w.rawConn(ip)
					}
				}
			}
			for round := range 3 {
				reopen()
				eventually.True(t, wait, func() bool { total, _ := w.srv.starts.pending(""); return total >= tc.each*len(tc.from) },
					func() string { total, _ := w.srv.starts.pending(""); return fmt.Sprintf("%d counted", total) })
				clock.Advance(30 * time.Second) // they have stalled
				c, err := w.dial("sara")
				if err != nil {
					t.Fatalf("round %d: sara was kept out by %d idle sockets: %v", round, tc.each*len(tc.from), err)
				}
				c.Close()
			}
			if strings.Contains(w.log.String(), "connection refused") {
				t.Errorf("log:\n%s", w.log.String())
			}
		})
	}
}

// TestTwentyOperatorsAtOnce: twenty sign-ins at once from one address all
// get in, even with MaxStartups' chance always drawn: none has stalled, so
// none is shed (before: past 8 from one address they were refused).
func TestTwentyOperatorsAtOnce(t *testing.T) {
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.Rand = func() float64 { return 0 } }})
	const n = 20
	errs := make(chan error, n)
	start := make(chan struct{})
	for range n {
		go func() {
			<-start
			c, err := w.dial("sara")
			if err == nil {
				c.Close()
			}
			errs <- err
		}()
	}
	close(start)
	in := 0
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
			continue
		}
		in++
	}
	if in != n {
		t.Errorf("%d of %d got in; log:\n%s", in, n, w.log.String())
	}
}

// TestStartupsShed: which connection a new one sheds, and when it is refused
// (MaxStartups 4:50:6, 2 per address, on a clock the test moves).
func TestStartupsShed(t *testing.T) {
	type conn struct {
		host    string
		age     time.Duration // silent for
		version bool
	}
	for _, tc := range []struct {
		name    string
		held    []conn
		draw    float64
		host    string
		shed    int // index in held, -1 none
		refused bool
	}{
		{"below start: nobody", []conn{{"a", time.Minute, false}, {"b", time.Minute, false}}, 0, "c", -1, false},
		{"per-address cap: its own stalled one", []conn{{"a", time.Minute, true}, {"a", 2 * time.Second, false}}, 0, "a", 1, false},
		{"per-address cap, none stalled: admitted", []conn{{"a", 0, false}, {"a", 0, false}}, 0, "a", -1, false},
		{"at start, drawn: no version before silence", []conn{{"a", time.Minute, true}, {"b", 2 * time.Second, false}, {"c", 0, false}, {"d", 0, false}}, 0.4, "e", 1, false},
		{"at start, drawn: the longest silent", []conn{{"a", 2 * time.Second, true}, {"b", time.Minute, true}, {"c", 0, false}, {"d", 0, false}}, 0.4, "e", 1, false},
		{"at start, not drawn", []conn{{"a", time.Minute, false}, {"b", time.Minute, false}, {"c", 0, false}, {"d", 0, false}}, 0.6, "e", -1, false},
		{"at start, drawn, none stalled: admitted", []conn{{"a", 0, false}, {"b", 0, false}, {"c", 0, false}, {"d", 0, false}}, 0, "e", -1, false},
		{"full: a stalled one, whatever the draw", []conn{{"a", 0, false}, {"b", 0, false}, {"c", 0, false}, {"d", 0, false}, {"e", 0, false}, {"f", 3 * time.Second, true}}, 0.99, "g", 5, false},
		{"full, none stalled: refused", []conn{{"a", 0, false}, {"b", 0, false}, {"c", 0, false}, {"d", 0, false}, {"e", 0, false}, {"f", 0, true}}, 0.99, "g", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
			g := newStartups(Startups{Start: 4, Rate: 50, Full: 6}, 2, clock.Now, func() float64 { return tc.draw })
			var held []*startup
			for _, c := range tc.held {
				sc, _, why := g.begin(nil, c.host)
				if why != "" {
					t.Fatal(why)
				}
				if c.version {
					sc.s.read([]byte("SSH-2.0-x\r\n"))
				}
				sc.s.last = sc.s.last.Add(-c.age)
				held = append(held, sc.s)
			}
			sc, shed, why := g.begin(nil, tc.host)
			if (why != "") != tc.refused || (sc == nil) != tc.refused {
				t.Errorf("refused %q, want refused %v", why, tc.refused)
			}
			switch {
			case tc.shed < 0 && len(shed) > 0:
				t.Errorf("shed %s's, want none", shed[0].host)
			case tc.shed >= 0 && (len(shed) != 1 || shed[0] != held[tc.shed]):
				t.Errorf("shed %d, want %s's", len(shed), tc.held[tc.shed].host)
			}
		})
	}
}

// TestVersionGrace: a connection that has sent no version is closed at the
// version grace; one that has is left to the login grace.
func TestVersionGrace(t *testing.T) {
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.VersionGrace = time.Second }})
	spoke, silent := w.rawConn("127.0.0.2"), w.rawConn("127.0.0.3")
	greeted(t, spoke)
	if _, err := spoke.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")); err != nil {
		t.Fatal(err)
	}
	closedByServer(t, silent, "a connection that sent no version")
	if !strings.Contains(w.log.String(), `closed: no SSH version within the version grace" addr=127.0.0.3 grace=1s`) ||
		strings.Contains(w.log.String(), "addr=127.0.0.2") {
		t.Errorf("log:\n%s", w.log.String())
	}
	if _, from := w.srv.starts.pending("127.0.0.2"); from != 1 {
		t.Errorf("the connection that sent its version is counted %d times", from)
	}
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
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), "too many authentication failures") },
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
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), "a bad console") },
		func() string { return "no panic in the log:\n" + w.log.String() })
	if !strings.Contains(w.log.String(), `msg="session failed" operator=reza`) {
		t.Errorf("log:\n%s", w.log.String())
	}
	w.open("sara", nil).waitFor("operator=sara")
}

// TestParseStartups: --max-startups as OpenSSH writes MaxStartups.
func TestParseStartups(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Startups
		bad  bool
	}{
		{in: "10:30:100", want: Startups{10, 30, 100}},
		{in: "20", want: Startups{20, 100, 20}},
		{in: "10:30", bad: true},
		{in: "10:130:100", bad: true},
		{in: "100:30:10", bad: true},
		{in: "0:30:10", bad: true},
		{in: "a:b:c", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseStartups(tc.in)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("%q: %v, %v", tc.in, got, err)
		}
	}
	if c := DefaultMaxStartups.shedChance(55); c < 0.64 || c > 0.66 {
		t.Errorf("10:30:100 at 55: chance %v, want 0.65", c)
	}
}
