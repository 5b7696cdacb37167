package client

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/fakeclock"
)

func TestClient_GetRetriedOn503(t *testing.T) {
	c, mux, _, fc := setup(t)
	var n counter
	mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) {
		if n.inc() < 3 {
			w.Header().Set("Retry-After", "2")
			writeJSON(w, 503, `{"message":"maintenance"}`)
			return
		}
		writeJSON(w, 200, `[{"id":1,"mobile":"1"}]`)
	})
	got, err := c.ListContacts(context.Background(), "12", nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	if n.get() != 3 || fc.Slept() != 4*time.Second {
		t.Errorf("%d requests, waited %v; want 3 and the 2 × 2 s Retry-After", n.get(), fc.Slept())
	}
}

func TestClient_GetRetriedOnDroppedConnection(t *testing.T) {
	c, mux, _, _ := setup(t)
	var n counter
	mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) {
		if n.inc() == 1 {
			hijackClose(t, w)
			return
		}
		writeJSON(w, 200, `[]`)
	})
	if _, err := c.ListContacts(context.Background(), "12", nil); err != nil {
		t.Fatal(err)
	}
	if n.get() != 2 {
		t.Errorf("%d requests, want 2", n.get())
	}
}

func TestClient_GetGivesUpAtRetryDeadline(t *testing.T) {
	c, mux, _, fc := setup(t, WithRetryDeadline(20*time.Second))
	var n counter
	mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		writeJSON(w, 500, `{"success":false,"error_code":"provider_error","message":"temporary"}`)
	})
	_, err := c.ListContacts(context.Background(), "12", nil)
	if !errors.Is(err, ErrServer) || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrServer (a read has no outcome to lose)", err)
	}
	if fc.Slept() > 20*time.Second || n.get() < 3 {
		t.Errorf("%d requests over %v, want several within the 20 s budget", n.get(), fc.Slept())
	}
}

func TestClient_GetStopsRetryingWhenCancelled(t *testing.T) {
	c, mux, _, fc := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	fc.OnSleep = func(n int) {
		if n == 2 {
			cancel()
		}
	}
	var n counter
	mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		writeJSON(w, 503, ``)
	})
	if _, err := c.ListContacts(ctx, "12", nil); err == nil {
		t.Fatal("no error")
	}
	if n.get() != 2 {
		t.Errorf("%d requests, want 2 (none after the cancel)", n.get())
	}
}

func TestClient_AddContactNotRetriedOn500(t *testing.T) {
	c, mux, _, _ := setup(t)
	var n counter
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		writeJSON(w, 500, `{"success":false,"error_code":"provider_error","message":"temporary"}`)
	})
	_, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
	if !errors.Is(err, ErrServer) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrServer and ErrOutcomeUnknown", err)
	}
	if n.get() != 1 {
		t.Errorf("%d requests, want 1", n.get())
	}
}

func TestClient_AddContactRetriedOn429(t *testing.T) {
	c, mux, _, fc := setup(t)
	var n counter
	var keys []string
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if n.inc() == 1 {
			w.Header().Set("Retry-After", time.Now().Add(5*time.Second).UTC().Format(http.TimeFormat))
			writeJSON(w, 429, `{"success":false,"error_code":"rate_limited","message":"slow down"}`)
			return
		}
		writeJSON(w, 201, `{"id":8}`)
	})
	ct, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
	if err != nil || ct.ID != "8" {
		t.Fatalf("got %+v, %v", ct, err)
	}
	if n.get() != 2 || keys[0] != keys[1] {
		t.Errorf("%d requests, keys %q; want 2 with one key", n.get(), keys)
	}
	if w := fc.Slept(); w < 3*time.Second || w > 6*time.Second {
		t.Errorf("waited %v, want about the 5 s of the Retry-After date", w)
	}
}

// TestClient_AddContactRetriedOnConnectionRefused: nothing listens at first; the
// server starts during the client's back-off.
func TestClient_AddContactRetriedOnConnectionRefused(t *testing.T) {
	addr := closedAddr(t)
	var n counter
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		writeJSON(w, 201, `{"data":{"id":9}}`)
	}))
	defer srv.Close()
	fc := fakeclock.New(time.Now())
	fc.OnSleep = func(k int) {
		if k == 1 {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Errorf("listen: %v", err)
				return
			}
			srv.Listener = l
			srv.Start()
		}
	}
	c, err := New("http://"+addr, testKey, WithRatePerMinute(0), withClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
	if err != nil || ct.ID != "9" {
		t.Fatalf("got %+v, %v", ct, err)
	}
	if n.get() != 1 {
		t.Errorf("server saw %d requests, want 1", n.get())
	}
}

func TestClient_AddContactDroppedAfterWriteIsUnknown(t *testing.T) {
	c, mux, _, _ := setup(t)
	var n counter
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		hijackClose(t, w)
	})
	_, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
	if !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	if n.get() != 1 {
		t.Errorf("%d requests, want 1", n.get())
	}
}

// TestClient_DeleteUnknownThen404IsSuccess: the first DELETE is processed but
// its connection dies; the retry finds nothing to delete.
func TestClient_DeleteUnknownThen404IsSuccess(t *testing.T) {
	c, mux, _, _ := setup(t)
	var n counter
	mux.HandleFunc("DELETE /contacts/5", func(w http.ResponseWriter, r *http.Request) {
		if n.inc() == 1 {
			hijackClose(t, w)
			return
		}
		writeJSON(w, 404, `{"success":false,"error_code":"not_found","message":"No such contact"}`)
	})
	if err := c.DeleteContact(context.Background(), "5"); err != nil {
		t.Fatalf("err = %v, want success", err)
	}
	if n.get() != 2 {
		t.Errorf("%d requests, want 2", n.get())
	}
}

func TestClient_BodyCap(t *testing.T) {
	c, mux, _, _ := setup(t, withMaxBody(1024))
	var n counter
	mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		writeJSON(w, 200, `[`+strings.Repeat(`{"id":1},`, 500)+`{"id":2}]`)
	})
	got, err := c.ListContacts(context.Background(), "12", nil)
	if err == nil || !strings.Contains(err.Error(), "larger than") || len(got) != 0 {
		t.Fatalf("got %d contacts, %v; want an error about the size", len(got), err)
	}
	if n.get() != 1 {
		t.Errorf("%d requests, want 1 (a too large answer is not retried)", n.get())
	}
}

func TestClient_RedirectForPOSTNotFollowed(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v1/contacts/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/contacts/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("redirect followed: %s %s", r.Method, r.URL)
	})
	_, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 301 || !strings.Contains(ae.Hint(), "base URL") {
		t.Fatalf("err = %v, want a 301 APIError with a base URL hint", err)
	}
}

func TestClient_LogsWithoutKeyOrBody(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mux, _, _ := setup(t, WithLogger(log), WithRetryDeadline(0))
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 422, `{"message":"`+r.Header.Get("Authorization")+` `+strings.Repeat("x", 500)+`"}`)
	})
	c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
	out := buf.String()
	if strings.Contains(out, testKey) || strings.Contains(out, strings.Repeat("x", 100)) {
		t.Fatalf("log shows the key or a long body:\n%s", out)
	}
	for _, want := range []string{"method=POST", "path=/contacts", "status=422", "duration="} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
