package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// steps logs, in order, what a call did: "wait" (a sleep of the client's
// clock), "before" and "not taken" (its Attempts), "request" (one reached
// the service).
type steps struct {
	mu  sync.Mutex
	log []string
}

func (s *steps) add(step string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, step)
}

func (s *steps) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// TestClient_SendPairTracksAttempts: a send-pair call tells its caller of
// each attempt (TrackAttempts) after every wait before it (the rate
// budget's turn, a 429's hold, a backoff after a connection refused) and
// before any byte of it leaves; an attempt not taken is closed before the
// wait to make it again; an error from either ends the call not sent,
// with nothing more at the service.
func TestClient_SendPairTracksAttempts(t *testing.T) {
	errRecord := errors.New("the journal refuses writes")
	for _, tc := range []struct {
		name      string
		perMinute int  // 1: the first call spends the budget, the second waits
		refuse    bool // the first connection is refused (never written)
		first429  bool // the first request is answered 429, Retry-After 1
		failAt    string
		want      []string // the second call's steps
		wantErr   error    // the second call's error; nil: it is accepted
	}{
		{name: "its turn after the budget's wait", perMinute: 1,
			want: []string{"wait", "before", "request"}},
		{name: "the record fails after the wait", perMinute: 1, failAt: "before",
			want: []string{"wait", "before"}, wantErr: errRecord},
		{name: "429: closed before the hold", first429: true,
			want: []string{"before", "request", "not taken", "wait", "before", "request"}},
		{name: "429: the close fails", first429: true, failAt: "not taken",
			want: []string{"before", "request", "not taken"}, wantErr: errRecord},
		{name: "refused: closed before the backoff", refuse: true,
			want: []string{"before", "not taken", "wait", "before", "request"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s steps
			var n429 counter
			mux := http.NewServeMux()
			mux.HandleFunc("POST /api/v1/sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
				s.add("request")
				if tc.first429 && n429.inc() == 1 {
					w.Header().Set("Retry-After", "1")
					writeJSON(w, 429, `{"success":false,"error_code":"rate_limited","message":"slow down"}`)
					return
				}
				writeJSON(w, 200, `{"success":true,"data":{"batch_id":"b-1","accepted":1,"rejected":0,"items":[{"index":0,"recipient":"09121234567","status":"accepted","message_id":"m-1"}]}}`)
			})
			srv := httptest.NewUnstartedServer(mux)
			t.Cleanup(srv.Close)
			fc := fakeclock.New(time.Now())
			addr := srv.Listener.Addr().String()
			if tc.refuse {
				srv.Listener.Close()
				addr = closedAddr(t)
				fc.OnSleep = func(int) { // the service comes up in the backoff
					if srv.URL == "" {
						l, err := net.Listen("tcp", addr)
						if err != nil {
							t.Error(err)
							return
						}
						srv.Listener = l
						srv.Start()
					}
				}
			} else {
				srv.Start()
			}
			c, err := New("http://"+addr, testKey, WithRatePerMinute(tc.perMinute), withClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			req := SendPairRequest{Sender: "3000", Items: []model.Pair{{Recipient: "09121234567", Message: "hi"}}}
			if tc.perMinute > 0 {
				if _, err := c.SendPair(context.Background(), req); err != nil { // spends the budget
					t.Fatal(err)
				}
			}
			s = steps{}
			prev := fc.OnSleep
			fc.OnSleep = func(n int) {
				s.add("wait")
				if prev != nil {
					prev(n)
				}
			}
			ctx := TrackAttempts(context.Background(), Attempts{
				Before: func() error {
					s.add("before")
					if tc.failAt == "before" {
						return errRecord
					}
					return nil
				},
				NotTaken: func(err error) error {
					s.add("not taken")
					if !errors.Is(err, ErrNotSent) {
						t.Errorf("NotTaken(%v): want an error matching ErrNotSent", err)
					}
					if tc.failAt == "not taken" {
						return errRecord
					}
					return nil
				},
			})
			_, err = c.SendPair(ctx, req)
			if got := s.get(); !slices.Equal(got, tc.want) {
				t.Errorf("steps %s, want %s", strings.Join(got, ", "), strings.Join(tc.want, ", "))
			}
			switch {
			case tc.wantErr == nil && err != nil:
				t.Errorf("err %v, want none", err)
			case tc.wantErr != nil && (!errors.Is(err, tc.wantErr) || !errors.Is(err, ErrNotSent) || errors.Is(err, ErrOutcomeUnknown)):
				t.Errorf("err %v, want %v, not sent", err, tc.wantErr)
			}
		})
	}
}
