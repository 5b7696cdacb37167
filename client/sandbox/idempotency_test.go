package sandbox

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestIdempotency(t *testing.T) {
	body := sendBody(DefaultSender, item("09121234567", "once"))
	other := sendBody(DefaultSender, item("09121234567", "something else"))
	hdr := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	tests := []struct {
		name     string
		enabled  bool
		wantSent int  // messages recorded after sending body twice with the same key
		replay   bool // second answer is the first one replayed
	}{
		{"off: the key is ignored", false, 2, false},
		{"on: the second is a replay", true, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, Options{Idempotency: tt.enabled})
			a := e.doKey(e.key, "POST", "/sms/send-pair", body, hdr("k1"))
			b := e.doKey(e.key, "POST", "/sms/send-pair", body, hdr("k1"))
			a.data(t, 200)
			b.data(t, 200)
			if got := len(e.srv.Sent()); got != tt.wantSent {
				t.Fatalf("Sent() holds %d, want %d", got, tt.wantSent)
			}
			if same := string(a.raw) == string(b.raw); same != tt.replay {
				t.Errorf("answers identical: %v, want %v\n%s\n%s", same, tt.replay, a.raw, b.raw)
			}
			if (b.header.Get("Idempotent-Replayed") == "true") != tt.replay {
				t.Errorf("Idempotent-Replayed %q", b.header.Get("Idempotent-Replayed"))
			}
			if !tt.enabled {
				return
			}
			// A new key is a new request; the same key with another body is refused.
			e.doKey(e.key, "POST", "/sms/send-pair", body, hdr("k2")).data(t, 200)
			e.doKey(e.key, "POST", "/sms/send-pair", other, hdr("k1")).wantError(t, 422, "idempotency_key_reused")
			// No key: no replay.
			e.do("POST", "/sms/send-pair", body).data(t, 200)
			if got := len(e.srv.Sent()); got != 3 {
				t.Errorf("Sent() holds %d, want 3", got)
			}
			// Errors are replayed too, and creates are covered.
			g1 := e.doKey(e.key, "POST", "/contact-groups", map[string]any{"name": "g"}, hdr("g"))
			g2 := e.doKey(e.key, "POST", "/contact-groups", map[string]any{"name": "g"}, hdr("g"))
			if num(t, g1.data(t, 201), "id") != num(t, g2.data(t, 201), "id") {
				t.Error("group create with the same key made two groups")
			}
		})
	}
}

func TestIdempotencyConcurrent(t *testing.T) {
	e := setup(t, Options{Idempotency: true})
	body := sendBody(DefaultSender, item("09121234567", "once"))
	var wg sync.WaitGroup
	answers := make([]string, 10)
	for i := range answers {
		wg.Go(func() {
			r := e.doKey(e.key, "POST", "/sms/send-pair", body, map[string]string{"Idempotency-Key": "same"})
			answers[i] = string(r.raw)
		})
	}
	wg.Wait()
	if n := len(e.srv.Sent()); n != 1 {
		t.Fatalf("10 concurrent requests with one key recorded %d messages", n)
	}
	for _, a := range answers[1:] {
		if a != answers[0] {
			t.Fatalf("answers differ:\n%s\n%s", answers[0], a)
		}
	}
}

func TestIdempotencyCacheEvicts(t *testing.T) {
	c := newIdempotencyCache(2)
	calls := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls++
		fmt.Fprint(w, calls)
	})
	serve := func(key string) string {
		w := httptest.NewRecorder()
		c.serve(w, httptest.NewRequest("POST", "/x", strings.NewReader("{}")), key, next)
		return w.Body.String()
	}
	steps := []struct {
		key, want string
	}{
		{"a", "1"}, {"b", "2"}, {"a", "1"}, // a is remembered
		{"c", "3"},             // a, the oldest, is forgotten
		{"b", "2"}, {"a", "4"}, // b still remembered; a runs again
	}
	for i, st := range steps {
		if got := serve(st.key); got != st.want {
			t.Fatalf("step %d key %s: answer %s, want %s", i, st.key, got, st.want)
		}
	}
}
