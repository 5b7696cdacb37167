package webhook

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"

	_ "modernc.org/sqlite"
)

const secret = "whsec_face_7c21"

// fixture is a sandbox of the service, and engines of profile "live" on it
// that share one ledger.
type fixture struct {
	sb   *sandbox.Server
	base string
	loc  string // the ledger
}

func newFixture(t *testing.T, b ledgertest.Backend) *fixture {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	base, err := sb.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sb: sb, base: base, loc: filepath.Join(t.TempDir(), "state", ledger.FileName)}
	if b.Name == "postgres" {
		f.loc = b.Location(t)
	}
	return f
}

// engine is another process's engine on the fixture's ledger: its own
// config and state directories, its own connection to the ledger.
func (f *fixture) engine(t *testing.T) *app.Engine {
	t.Helper()
	dir := t.TempDir()
	p := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	if _, err := config.Update(p, func(c *config.Config) error { c.Ledger = f.loc; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Open(context.Background(), f.loc); err != nil {
		if _, err := app.InitLedger(context.Background(), p, false, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { p.CloseLedger() })
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
	c, err := app.NewClient(p, f.base, f.sb.Key(), prof, app.ClientOptions{}, client.WithRatePerMinute(60000))
	if err != nil {
		t.Fatal(err)
	}
	return &app.Engine{Profile: app.ResolveProfile("live", f.base, prof, config.KeyKind(f.sb.Key())), Client: c, Paths: p,
		Webhooks: &app.Webhooks{Secret: secret}}
}

// sendPairs sends n pairs through eng and returns the send's id and the
// message ids.
func sendPairs(t *testing.T, eng *app.Engine, n int) (string, []string) {
	t.Helper()
	id, ids, err := trySendPairs(eng, n)
	if err != nil {
		t.Fatal(err)
	}
	return id, ids
}

// trySendPairs is sendPairs for a goroutine of the test's own.
func trySendPairs(eng *app.Engine, n int) (string, []string, error) {
	s := eng.Session(nil)
	rows := make([]model.PairRow, n)
	for i := range rows {
		rows[i] = model.PairRow{Line: i + 2, Recipient: fmt.Sprintf("0912%07d", i), Message: fmt.Sprintf("code %d", i)}
	}
	p, err := s.PrepareSend(context.Background(), app.SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: app.FileSource("pairs.csv")})
	if err != nil || p.Refusal != nil {
		return "", nil, fmt.Errorf("prepare: %v %v", err, p.Refusal)
	}
	x, err := p.Start(context.Background(), app.SendOptions{})
	if err != nil {
		return "", nil, err
	}
	for range x.Events() {
	}
	out, err := x.Finish()
	if err != nil {
		return "", nil, err
	}
	var ids []string
	for _, it := range out.Results {
		ids = append(ids, it.MessageID)
	}
	return out.Summary.JobID, ids, nil
}

func post(t *testing.T, url string, raw []byte, sig string) (int, http.Header) {
	t.Helper()
	code, h, err := tryPost(url, raw, sig)
	if err != nil {
		t.Fatal(err)
	}
	return code, h
}

// tryPost is post for a goroutine of the test's own.
func tryPost(url string, raw []byte, sig string) (int, http.Header, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, err
	}
	if sig != "" {
		req.Header.Set(SignatureHeader, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header, nil
}

func event(kind, id string) []byte {
	return fmt.Appendf(nil, `{"event":%q,"message_id":%q,"recipient":"09120000000","occurred_at":"2026-03-01T10:00:00Z"}`, kind, id)
}

// stored counts the events of every account the ledger at loc holds.
func stored(t *testing.T, eng *app.Engine) int {
	t.Helper()
	l, err := eng.Paths.Ledger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	list, err := l.ListEvents(context.Background(), ledger.EventQuery{Account: eng.Client.AccountID()})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// TestReceiverAnswers: each kind of post gets its status over HTTP, and
// only the events answered 200 are stored.
func TestReceiverAnswers(t *testing.T) {
	f := newFixture(t, ledgertest.Backends()[0])
	eng := f.engine(t)
	_, ids := sendPairs(t, eng, 1)
	srv := httptest.NewServer(New(Options{Receiver: eng}).Handler())
	defer srv.Close()
	good := event("sms.delivered", ids[0])
	big := append([]byte(`{"event":"sms.sent","message_id":"x","pad":"`), bytes.Repeat([]byte("a"), 70<<10)...)
	big = append(big, `"}`...)
	cases := []struct {
		name, path string
		raw        []byte
		sig        string
		want       int
	}{
		{"valid", "/webhook/live", good, app.Sign(secret, good), 200},
		{"duplicate", "/webhook/live", good, app.Sign(secret, good), 200},
		{"invalid", "/webhook/live", good, app.Sign("not the secret", good), 401},
		{"missing", "/webhook/live", good, "", 401},
		{"unknown profile", "/webhook/other", good, app.Sign(secret, good), 404},
		{"no profile", "/webhook/", good, app.Sign(secret, good), 404},
		{"elsewhere", "/hooks/live", good, app.Sign(secret, good), 404},
		{"70 KB", "/webhook/live", big, app.Sign(secret, big), 413},
		{"not an event", "/webhook/live", []byte("{}"), app.Sign(secret, []byte("{}")), 400},
	}
	for _, c := range cases {
		if got, _ := post(t, srv.URL+c.path, c.raw, c.sig); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	if n := stored(t, eng); n != 1 {
		t.Errorf("%d events stored, want 1 (the valid one, once)", n)
	}
	resp, err := http.Get(srv.URL + "/webhook/live")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Allow"), "POST") {
		t.Errorf("GET: %d Allow %q, want 405 POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestReceiverLedgerCannotWrite: 503 with Retry-After, and nothing stored.
func TestReceiverLedgerCannotWrite(t *testing.T) {
	f := newFixture(t, ledgertest.Backends()[0])
	eng := f.engine(t)
	srv := httptest.NewServer(New(Options{Receiver: eng}).Handler())
	defer srv.Close()
	if _, err := eng.Paths.Ledger(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", f.loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER full_disk BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`); err != nil {
		t.Fatal(err)
	}
	raw := event("sms.sent", "m1")
	code, h := post(t, srv.URL+"/webhook/live", raw, app.Sign(secret, raw))
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Fatalf("a ledger that cannot write: %d Retry-After %q, want 503 with one", code, h.Get("Retry-After"))
	}
	if n := stored(t, eng); n != 0 {
		t.Fatalf("%d events stored", n)
	}
}

// TestServerBounds: a slow client cannot hold the server (the timeouts a
// connection lives by).
func TestServerBounds(t *testing.T) {
	s := New(Options{Receiver: nil})
	h := s.http
	if h.ReadHeaderTimeout != 5*time.Second || h.ReadTimeout != 10*time.Second || h.WriteTimeout != 10*time.Second ||
		h.IdleTimeout != time.Minute || h.MaxHeaderBytes != 16<<10 || CommitTimeout >= h.WriteTimeout {
		t.Errorf("bounds: header %v read %v write %v idle %v header bytes %d commit %v", h.ReadHeaderTimeout, h.ReadTimeout,
			h.WriteTimeout, h.IdleTimeout, h.MaxHeaderBytes, CommitTimeout)
	}
}

// TestTwoReceiversOneLedger is a team: two receivers (two engines, each
// with its own connection to the one ledger, as two hosts behind one URL)
// are posted the same events at once, while the send they are about is
// made (the sandbox numbers its messages msg_1, msg_2, …: many events
// come before the outcome that accepts their message), each post tried
// again while it is answered 503. Each event is recorded once, none is
// left unmatched, and every message ends delivered.
func TestTwoReceiversOneLedger(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			f := newFixture(t, b)
			a, c := f.engine(t), f.engine(t)
			srvA := httptest.NewServer(New(Options{Receiver: a}).Handler())
			defer srvA.Close()
			srvC := httptest.NewServer(New(Options{Receiver: c}).Handler())
			defer srvC.Close()
			const n = 30
			var raws [][]byte
			for i := range n {
				id := fmt.Sprintf("msg_%d", i+1)
				raws = append(raws, event("sms.sent", id), event("sms.delivered", id))
			}
			var wg sync.WaitGroup
			codes := make(chan int, 2*len(raws))
			for _, url := range []string{srvA.URL, srvC.URL} {
				for _, raw := range raws {
					wg.Go(func() {
						// A 503 (the ledger busy past the commit's bound,
						// on a loaded machine) is posted again, as the
						// service does.
						code := http.StatusServiceUnavailable
						for try := 0; code == http.StatusServiceUnavailable && try < 20; try++ {
							var err error
							if code, _, err = tryPost(url+"/webhook/live", raw, app.Sign(secret, raw)); err != nil {
								t.Error(err)
							}
						}
						codes <- code
					})
				}
			}
			var sendID string
			wg.Go(func() {
				var err error
				if sendID, _, err = trySendPairs(a, n); err != nil {
					t.Error(err)
				}
			})
			wg.Wait()
			close(codes)
			for code := range codes {
				if code != http.StatusOK {
					t.Errorf("a post answered %d", code)
				}
			}
			if n := stored(t, c); n != len(raws) {
				t.Errorf("%d events stored, want %d: each once", n, len(raws))
			}
			l, _ := a.Paths.Ledger(context.Background())
			rows, err := l.SendDeliveries(context.Background(), sendID)
			if err != nil || len(rows) != n {
				t.Fatalf("deliveries: %d %v", len(rows), err)
			}
			for _, r := range rows {
				if r.State != model.DeliveryDelivered {
					t.Errorf("%s: %s, want delivered", r.MessageID, r.State)
				}
			}
			left, err := l.ListEvents(context.Background(), ledger.EventQuery{Account: a.Client.AccountID(), Unmatched: true})
			if err != nil || len(left) != 0 {
				t.Errorf("%d events left unmatched %v, want none", len(left), err)
			}
		})
	}
}
