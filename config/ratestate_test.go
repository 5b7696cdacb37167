package config_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// TestRateStateIsShared: two clients on one key (the console and a CLI job)
// each with their own store on the same state file, against a service that
// allows 20 requests per 2 s: together they stay under the limit, at most
// one 429, where two unshared budgets would each spend the window.
func TestRateStateIsShared(t *testing.T) {
	fc := fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC))
	srv, err := sandbox.New(sandbox.Options{RatePerMinute: 20, RateWindow: 2 * time.Second, RateHeaders: sandbox.RateHeadersLaravel, Now: fc.Now})
	if err != nil {
		t.Fatal(err)
	}
	var n429 atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, r)
		if rec.Code == http.StatusTooManyRequests {
			n429.Add(1)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer ts.Close()
	paths := config.PathsIn(t.TempDir(), t.TempDir())
	base := ts.URL + "/api/v1"
	var clients []*client.Client
	for range 2 {
		c, err := client.New(base, srv.Key(), client.WithRatePerMinute(60), client.WithClock(fc.Now, fc.Sleep),
			client.WithRateStore(config.NewRateState(paths, base, srv.Key())))
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	for i := range 60 { // alternately, as two processes would interleave
		if _, err := clients[i%2].Credit(context.Background()); err != nil { // one request each
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := n429.Load(); n > 1 {
		t.Errorf("%d answers were 429, want at most 1 with a shared budget", n)
	}
	st := config.NewRateState(paths, base, srv.Key())
	fi, err := os.Stat(st.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(st.Path())
	if strings.Contains(string(b), srv.Key()) || strings.Contains(st.Path(), srv.Key()) {
		t.Fatal("the key is in the rate state")
	}
}
