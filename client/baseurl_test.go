package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNormalizeBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://host", "https://host/api/v1/"},
		{"https://host/", "https://host/api/v1/"},
		{"https://host/api", "https://host/api/v1/"},
		{"https://host/api/", "https://host/api/v1/"},
		{"https://host/api/v1", "https://host/api/v1/"},
		{"https://host/api/v1/", "https://host/api/v1/"},
		{"https://host/v1", "https://host/v1/"},
		{"https://host/v1/", "https://host/v1/"},
		{"  https://HOST:8443/sms/  ", "https://host:8443/sms/api/v1/"},
		{"https://host/gateway/api", "https://host/gateway/api/v1/"},
		{"HTTPS://host/V1", "https://host/V1/"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/api/v1/"},
		{"http://127.9.0.1/v1", "http://127.9.0.1/v1/"},
		{"http://[::1]:9000/api", "http://[::1]:9000/api/v1/"},
		{"http://localhost:8080/", "http://localhost:8080/api/v1/"},
		// An endpoint pasted from the docs: its API root.
		{"https://host/api/v1/sms/send-pair", "https://host/api/v1/"},
		{"https://host/v1/contact-groups/12/contacts/", "https://host/v1/"},
		{"https://host/gw/API/V1/Account/credit", "https://host/gw/API/V1/"},
		{"https://host/v1/other", "https://host/v1/other/api/v1/"}, // not a resource: kept
	}
	for _, tt := range tests {
		u, err := normalizeBaseURL(tt.in, false)
		if err != nil {
			t.Errorf("normalizeBaseURL(%q): %v", tt.in, err)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("normalizeBaseURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeBaseURL_Refusals(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"", "empty"},
		{"host/v1", "no scheme"},
		{"ftp://host/v1", "scheme"},
		{"file:///etc/passwd", "scheme"},
		{"http://sms.example.com/v1", "allow_insecure_http"},
		{"http://10.0.0.1/v1", "allow_insecure_http"},
		{"https://user:hunter2@host/v1", "user name or password"},
		{"https://host/v1?key=x", "query"},
		{"https://host/v1?", "query"},
		{"https://host/v1#frag", "fragment"},
		{"https:///v1", "no host"},
	}
	for _, tt := range tests {
		_, err := normalizeBaseURL(tt.in, false)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("normalizeBaseURL(%q) error = %v, want one mentioning %q", tt.in, err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error shows the URL's password: %v", err)
		}
	}
}

func TestNormalizeBaseURL_AllowInsecure(t *testing.T) {
	u, err := normalizeBaseURL("http://sms.example.com/v1", true)
	if err != nil || u.String() != "http://sms.example.com/v1/" {
		t.Fatalf("allowed insecure: %v, %v", u, err)
	}
	if _, err := New("http://sms.example.com", testKey); err == nil {
		t.Fatal("New accepted plain http to a remote host without WithAllowInsecureHTTP")
	}
	if _, err := New("http://sms.example.com", testKey, WithAllowInsecureHTTP(true)); err != nil {
		t.Fatalf("New with WithAllowInsecureHTTP: %v", err)
	}
}

// TestClient_BaseURLForms sends a request through every pasted form and checks
// the path the server sees.
func TestClient_BaseURLForms(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.EscapedPath())
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	forms := map[string]string{
		"": "/api/v1/contacts/7", "/": "/api/v1/contacts/7",
		"/api": "/api/v1/contacts/7", "/api/": "/api/v1/contacts/7",
		"/api/v1": "/api/v1/contacts/7", "/api/v1/": "/api/v1/contacts/7",
		"/v1": "/v1/contacts/7", "/v1/": "/v1/contacts/7",
	}
	for form, want := range forms {
		got = nil
		c, err := New(srv.URL+form, testKey, WithRatePerMinute(0))
		if err != nil {
			t.Fatalf("New(%q): %v", form, err)
		}
		if err := c.DeleteContact(context.Background(), "7"); err != nil {
			t.Fatalf("form %q: %v", form, err)
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("form %q: server saw %v, want %s", form, got, want)
		}
	}
}

func TestClient_PathEscapesIDs(t *testing.T) {
	c, mux, _, _ := setup(t)
	var seen string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		seen = r.URL.EscapedPath()
		w.WriteHeader(http.StatusNoContent)
	})
	if err := c.DeleteContact(context.Background(), "a/b?c#d"); err != nil {
		t.Fatal(err)
	}
	if seen != "/contacts/a%2Fb%3Fc%23d" {
		t.Errorf("server saw %q", seen)
	}
}
