package client

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
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
					reset = fmt.Sprint(fc.now().Add(7 * time.Second).Unix())
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
			if len(fc.sleeps()) != 0 {
				t.Fatalf("waited before the first request: %v", fc.sleeps())
			}
			if err := c.DeleteContact(ctx, "2"); err != nil {
				t.Fatal(err)
			}
			s := fc.sleeps()
			if len(s) != 1 || s[0] < 6*time.Second || s[0] > 8*time.Second {
				t.Errorf("waits %v, want one of about 7 s before the second request", s)
			}
		})
	}
}

func TestClient_WaitNotify(t *testing.T) {
	var mu sync.Mutex
	var seen []RateStatus
	notify := func(st RateStatus) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	}
	c, mux, _, _ := setup(t, WithWaitNotify(notify))
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
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0].Waiting != 12*time.Second || seen[0].Reason != reasonServer429 || seen[1].Waiting != 0 {
		t.Fatalf("notified %+v, want a 12 s wait (server asked) then its end", seen)
	}
}

// TestClient_TokenBucketPaces: the default 60 a minute lets a small burst go
// at once, then spaces requests about a second apart.
func TestClient_TokenBucketPaces(t *testing.T) {
	c, mux, _, fc := setup(t, WithRatePerMinute(60))
	mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	if st := c.RateStatus(); st.Limit != 60 || st.Remaining != 3 {
		t.Errorf("fresh RateStatus = %+v, want limit 60, 3 at once", st)
	}
	for i := range 6 {
		if err := c.DeleteContact(context.Background(), "1"); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	s := fc.sleeps()
	if len(s) != 3 {
		t.Fatalf("waits %v, want 3 (after a burst of 3)", s)
	}
	for i, d := range s {
		if d < time.Duration(i)*time.Second+500*time.Millisecond || d > time.Duration(i+1)*time.Second+200*time.Millisecond {
			t.Errorf("wait %d = %v, want about %d s", i, d, i+1)
		}
	}
}

func TestClient_SharedLimiter(t *testing.T) {
	lim := rate.NewLimiter(rate.Limit(2), 1)
	c1, mux1, _, fc1 := setup(t, WithLimiter(lim))
	c2, mux2, _, fc2 := setup(t, WithLimiter(lim))
	for _, mux := range []*http.ServeMux{mux1, mux2} {
		mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	}
	if err := c1.DeleteContact(context.Background(), "1"); err != nil {
		t.Fatal(err)
	}
	if err := c2.DeleteContact(context.Background(), "1"); err != nil {
		t.Fatal(err)
	}
	if len(fc1.sleeps()) != 0 || len(fc2.sleeps()) != 1 {
		t.Errorf("waits %v and %v: the second client should wait for the shared token", fc1.sleeps(), fc2.sleeps())
	}
	if st := c2.RateStatus(); st.Limit != 120 {
		t.Errorf("RateStatus().Limit = %d, want 120 (2 per second)", st.Limit)
	}
}

func TestNewMinuteLimiter(t *testing.T) {
	for _, n := range []int{1, 2, 10, 60, 600} {
		lim := newMinuteLimiter(n)
		perMinute := float64(lim.Limit())*60 + float64(lim.Burst())
		if n < 3 {
			// Too small for a burst beside the refill: the refill alone keeps to it.
			perMinute = float64(lim.Limit()) * 60
		}
		if perMinute > float64(n)+0.001 || lim.Burst() < 1 {
			t.Errorf("limit %d: burst %d + %.2f/min may exceed the budget", n, lim.Burst(), float64(lim.Limit())*60)
		}
	}
	if newMinuteLimiter(0) != nil {
		t.Error("0 should turn pacing off")
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
