package sandbox

import (
	"net/http"
	"testing"
	"time"
)

func TestAuth(t *testing.T) {
	e := setup(t, Options{Key: "sk_test_abc"})
	gid := e.mkGroup("g")
	_ = gid
	tests := []struct {
		name   string
		header map[string]string
		key    string
		want   int
	}{
		{"missing", nil, "", 401},
		{"wrong key", nil, "sk_test_nope", 401},
		{"prefix of key", nil, "sk_test_ab", 401},
		{"basic scheme", map[string]string{"Authorization": "Basic c2tfdGVzdF9hYmM="}, "", 401},
		{"right key", nil, "sk_test_abc", 201},
		{"lower-case scheme", map[string]string{"Authorization": "bearer sk_test_abc"}, "", 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.doKey(tt.key, "POST", "/contact-groups", map[string]any{"name": "x"}, tt.header)
			if tt.want == 401 {
				r.wantError(t, 401, "unauthorized")
				if r.header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
				return
			}
			r.data(t, tt.want)
		})
	}
	// Every endpoint is behind auth, even for ids that do not exist.
	for _, ep := range [][2]string{
		{"POST", "/contact-groups"}, {"POST", "/contacts"}, {"GET", "/contact-groups/1/contacts"},
		{"DELETE", "/contacts/1"}, {"POST", "/sms/send-pair"}, {"GET", "/sms/msg_1/status"},
	} {
		e.doKey("", ep[0], ep[1], nil, nil).wantError(t, 401, "unauthorized")
	}
}

func TestRouting(t *testing.T) {
	e := setup(t, Options{})
	tests := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/contact-groups", 405, "method_not_allowed"},
		{"GET", "/contacts/1", 405, "method_not_allowed"},
		{"GET", "/sms/send-pair", 405, "method_not_allowed"},
		{"POST", "/sms/msg_1/status", 405, "method_not_allowed"},
		{"GET", "/nope", 404, "not_found"},
		{"GET", "/contact-groups/1/members", 404, "not_found"},
		{"GET", "", 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			r := e.do(tt.method, tt.path, nil)
			r.wantError(t, tt.status, tt.code)
			if tt.status == 405 && r.header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
	// Outside /api/v1: 404 even without a key, saying where the API lives.
	r := e.doKey("", "GET", e.base[:len(e.base)-len("/api/v1")]+"/v1/contacts", nil, nil)
	r.wantError(t, 404, "not_found")
}

func TestBadBodies(t *testing.T) {
	e := setup(t, Options{})
	tests := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"not json", "/contact-groups", "name=x", 400, "bad_request"},
		{"two values", "/contact-groups", `{"name":"a"}{"name":"b"}`, 400, "bad_request"},
		{"empty body", "/contacts", "", 400, "bad_request"},
		{"items not a list", "/sms/send-pair", `{"sender":"3000505","items":{}}`, 400, "bad_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.do("POST", tt.path, tt.body).wantError(t, tt.status, tt.code)
		})
	}
	big := make([]byte, maxBodyBytes+10)
	for i := range big {
		big[i] = ' '
	}
	e.do("POST", "/sms/send-pair", string(big)).wantError(t, http.StatusRequestEntityTooLarge, "payload_too_large")
}

func TestRequestsCountsEverything(t *testing.T) {
	e := setup(t, Options{RatePerMinute: 2})
	e.do("POST", "/contact-groups", map[string]any{"name": "a"})
	e.doKey("bad", "GET", "/contact-groups/1/contacts", nil, nil)
	e.do("GET", "/nope", nil)
	e.do("GET", "/nope", nil) // 429
	if got := e.srv.Requests(); got != 4 {
		t.Fatalf("Requests() = %d, want 4", got)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{RatePerMinute: -1}, {RatePerMinute: 5, RateWindow: 1500 * time.Millisecond}, {RatePerMinute: 5, RateHeaders: "github"}, {RatePerMinute: 5, RateWindowStart: "minute"}, {MaxItems: -1}, {PageSize: -1}, {PageSize: MaxPageSize + 1}, {Key: "a b"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v): want an error", o)
		}
	}
}
