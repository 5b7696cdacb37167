package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// testKey is the key every test client uses; no output may ever show it.
const testKey = "sk_test_S3cretKeyNeverShown42"

// withClock makes the client wait on fc instead of real time.
func withClock(fc *fakeclock.Clock) Option {
	return func(c *Client) { c.now, c.sleep = fc.Now, fc.Sleep }
}

// withMaxBody lowers the body cap for tests.
func withMaxBody(n int64) Option { return func(c *Client) { c.maxBody = n } }

// setup starts an httptest server whose mux serves the API under /api/v1 and
// returns a client pointed at it (pacing off, fake clock). Every request must
// carry the key, Accept and the User-Agent.
func setup(t *testing.T, opts ...Option) (*Client, *http.ServeMux, *httptest.Server, *fakeclock.Clock) {
	t.Helper()
	mux := http.NewServeMux()
	outer := http.NewServeMux()
	outer.Handle("/api/v1/", http.StripPrefix("/api/v1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("%s %s: Authorization = %q", r.Method, r.URL.Path, got)
		}
		if got := r.Header.Get("Accept"); got != "application/json" {
			t.Errorf("%s %s: Accept = %q", r.Method, r.URL.Path, got)
		}
		if got := r.Header.Get("User-Agent"); !strings.HasPrefix(got, "smsdesk/") {
			t.Errorf("%s %s: User-Agent = %q", r.Method, r.URL.Path, got)
		}
		mux.ServeHTTP(w, r)
	})))
	outer.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the API root: %s %s", r.Method, r.URL)
		http.Error(w, "no", http.StatusTeapot)
	})
	srv := httptest.NewServer(outer)
	t.Cleanup(srv.Close)
	fc := fakeclock.New(time.Now())
	all := append([]Option{WithRatePerMinute(0), withClock(fc)}, opts...)
	c, err := New(srv.URL, testKey, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, mux, srv, fc
}

// writeJSON answers status with body written as-is.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// readBody decodes a request's JSON body.
func readBody(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	d := json.NewDecoder(r.Body)
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Errorf("request body: %v", err)
	}
	return m
}

// hijackClose drops the connection without an answer.
func hijackClose(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Fatal("cannot hijack")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}

// counter counts requests safely.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) inc() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func TestClient_StringNeverShowsKey(t *testing.T) {
	c, _, srv, _ := setup(t)
	type holder struct{ C Client }
	for _, s := range []string{
		fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q", c, c, c, c, c),
		fmt.Sprintf("%v %+v %#v", *c, *c, *c), fmt.Sprintf("%+v %#v", holder{*c}, holder{*c}),
	} {
		if strings.Contains(s, testKey) || strings.Contains(s, "S3cret") {
			t.Fatalf("printed client shows the key: %s", s)
		}
		if !strings.Contains(s, srv.URL+"/api/v1/") {
			t.Errorf("printed client %q lacks the base URL", s)
		}
	}
}

func TestNew_EmptyKey(t *testing.T) {
	if _, err := New("https://example.com", ""); err == nil || !strings.Contains(err.Error(), "login") {
		t.Fatalf("empty key: err = %v, want a hint to log in", err)
	}
}

// jsonNumber is how readBody decodes a number.
func jsonNumber(s string) json.Number { return json.Number(s) }

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
