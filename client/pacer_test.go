package client

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/fakeclock"
)

func TestClient_ServerRemainingZeroWaitsForReset(t *testing.T) {
	for _, form := range []string{"delta", "epoch"} {
		t.Run(form, func(t *testing.T) {
			c, mux, _, fc := setup(t)
			var n counter
			mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) {
				n.inc()
				w.Header().Set("X-RateLimit-Limit", "60")
				w.Header().Set("X-RateLimit-Remaining", "0")
				reset := "7"
				if form == "epoch" {
					reset = fmt.Sprint(fc.Now().Add(7 * time.Second).Unix())
				}
				w.Header().Set("X-RateLimit-Reset", reset)
				w.WriteHeader(204)
			})
			ctx := context.Background()
			if err := c.DeleteContact(ctx, "1"); err != nil {
				t.Fatal(err)
			}
			if st := c.RateStatus(); st.Remaining != 0 {
				t.Errorf("RateStatus after Remaining: 0 = %+v", st)
			}
			if len(fc.Sleeps()) != 0 {
				t.Fatalf("waited before the first request: %v", fc.Sleeps())
			}
			if err := c.DeleteContact(ctx, "2"); err != nil {
				t.Fatal(err)
			}
			s := fc.Sleeps()
			if len(s) != 1 || s[0] < 6*time.Second || s[0] > 8*time.Second {
				t.Errorf("waits %v, want one of about 7 s before the second request", s)
			}
		})
	}
}

// TestClient_WaitsOutRetryAfter: a 429 with Retry-After 12 is waited out
// (on the clock the test controls): 12 s from its answer, the latest the
// service can mean; then the request goes again.
func TestClient_WaitsOutRetryAfter(t *testing.T) {
	c, mux, _, fc := setup(t)
	var n counter
	mux.HandleFunc("GET /contact-groups/1/contacts", func(w http.ResponseWriter, r *http.Request) {
		if n.inc() == 1 {
			w.Header().Set("Retry-After", "12")
			writeJSON(w, 429, `{"error_code":"rate_limited"}`)
			return
		}
		writeJSON(w, 200, `[]`)
	})
	if _, err := c.ListContacts(context.Background(), "1", nil); err != nil {
		t.Fatal(err)
	}
	if got := fc.Sleeps(); len(got) != 1 || got[0] <= 11*time.Second || got[0] > 12*time.Second || n.get() != 2 {
		t.Fatalf("slept %v over %d requests; want one wait to the end of the 12 s the server asked for, and a second request", got, n.get())
	}
}

// TestClient_BudgetAtOnce: the default 60 a minute may all go at once; the
// 61st waits until the first is a minute old (no minute holds more than 60),
// and then goes with the 62nd.
func TestClient_BudgetAtOnce(t *testing.T) {
	c, mux, _, fc := setup(t, WithRatePerMinute(60))
	mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	if st := c.RateStatus(); st.Limit != 60 || st.Window != time.Minute || st.Remaining != 60 || st.Learned || st.Budget() != "60 per minute" {
		t.Errorf("fresh RateStatus = %+v, want 60 per minute, all of it now, from the profile", st)
	}
	for i := range 62 {
		if err := c.DeleteContact(context.Background(), "1"); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if i == 59 && len(fc.Sleeps()) != 0 {
			t.Fatalf("waited %v within the budget", fc.Sleeps())
		}
	}
	if s := fc.Sleeps(); len(s) != 1 || s[0] != time.Minute {
		t.Fatalf("waits %v, want one of a minute before the 61st", s)
	}
}

// memStore is a RateStore in memory, for clients sharing one budget.
type memStore struct {
	mu sync.Mutex
	b  []byte
}

func (m *memStore) Update(f func([]byte) ([]byte, error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := f(m.b)
	if err == nil {
		m.b = b
	}
	return err
}

func (m *memStore) Load() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.b, nil
}

func TestClient_SharedStore(t *testing.T) {
	store := &memStore{}
	fc := fakeclock.New(time.Now())
	c1, mux1, _, _ := setup(t, WithRatePerMinute(2), WithRateStore(store), withClock(fc))
	c2, mux2, _, _ := setup(t, WithRatePerMinute(2), WithRateStore(store), withClock(fc))
	for _, mux := range []*http.ServeMux{mux1, mux2} {
		mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	}
	for _, c := range []*Client{c1, c2, c2} {
		if err := c.DeleteContact(context.Background(), "1"); err != nil {
			t.Fatal(err)
		}
	}
	if s := fc.Sleeps(); len(s) != 1 || s[0] != time.Minute {
		t.Errorf("waits %v: the third request (the budget of 2 a minute spent by both clients) should wait a minute", s)
	}
	if st := c1.RateStatus(); st.Remaining != 1 || st.Limit != 2 { // the first two a minute old, the third a moment
		t.Errorf("c1 RateStatus = %+v", st)
	}
}

func TestClient_RateStatusUnknownWithoutPacing(t *testing.T) {
	c, mux, _, _ := setup(t)
	if st := c.RateStatus(); st.Remaining != -1 || st.Waiting != 0 {
		t.Errorf("RateStatus without pacing or server headers = %+v, want Remaining -1", st)
	}
	mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "60")
		w.Header().Set("X-RateLimit-Remaining", "41")
		w.WriteHeader(204)
	})
	if err := c.DeleteContact(context.Background(), "1"); err != nil {
		t.Fatal(err)
	}
	if st := c.RateStatus(); st.Limit != 60 || st.Remaining != 41 {
		t.Errorf("RateStatus after server headers = %+v, want 60 and 41", st)
	}
}
