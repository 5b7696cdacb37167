package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The key check passes only on an answer in the API's shape: a web site's
// 200, a web server's 404 page or a bare text 404 (a mistyped base URL) fail
// with what was seen.
func TestClient_Verify_ProvesTheAPI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		ctype   string
		body    string
		wantErr error // nil: accepted
	}{
		{"the API: group 0 not found, and nothing answers 2xx", 404, "application/json", `{"success":false,"error_code":"not_found","message":"Group not found"}`, ErrNotProved},
		{"the API: an empty list", 200, "application/json", `{"success":true,"data":[]}`, nil},
		{"a bare list", 200, "application/json", `[]`, nil},
		{"a web site answering 200", 200, "text/html", `<!doctype html><title>Welcome</title>`, ErrNotAPI},
		{"a web server's 404 page", 404, "text/html", `<html><body>Not Found</body></html>`, ErrNotAPI},
		{"a text 404", 404, "text/plain", `404 page not found`, ErrNotAPI},
		{"200 with text", 200, "text/plain", `OK`, ErrNotAPI},
		{"the key refused", 401, "application/json", `{"success":false,"error_code":"unauthorized","message":"bad key"}`, ErrUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer ts.Close()
			c, err := New(ts.URL+"/api/v1", "sk_test_verify")
			if err != nil {
				t.Fatal(err)
			}
			err = c.Verify(context.Background())
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
