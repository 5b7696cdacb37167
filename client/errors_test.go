package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// errorShapes are error answers in every shape deployments and proxies use.
// %KEY% is replaced by the Authorization header the server received, so the
// key-redaction test can reuse them.
var errorShapes = []struct {
	name        string
	status      int
	ctype       string
	body        string
	wantCode    string
	wantMessage string
	wantFields  map[string][]string
	wantError   string // exact Error() when not empty
	sentinel    error
}{
	{
		name: "documented envelope", status: 422, ctype: "application/json",
		body:     `{"success":false,"error_code":"invalid_recipient","message":"The mobile field is invalid","errors":{"mobile":["must be 11 digits"]}}`,
		wantCode: "invalid_recipient", wantMessage: "The mobile field is invalid",
		wantFields: map[string][]string{"mobile": {"must be 11 digits"}},
		wantError:  "POST /contacts: 422 invalid_recipient: The mobile field is invalid (mobile: must be 11 digits)",
		sentinel:   ErrValidation,
	},
	{
		name: "error object", status: 402, ctype: "application/json",
		body:     `{"error":{"code":"insufficient_credit","message":"Balance too low"}}`,
		wantCode: "insufficient_credit", wantMessage: "Balance too low",
		wantError: "POST /contacts: 402 insufficient_credit: Balance too low", sentinel: ErrInsufficientCredit,
	},
	{
		name: "error string", status: 401, ctype: "application/json",
		body: `{"error":"Invalid API key"}`, wantMessage: "Invalid API key",
		wantError: "POST /contacts: 401 Invalid API key", sentinel: ErrUnauthorized,
	},
	{
		name: "laravel validation", status: 422, ctype: "application/json",
		body:        `{"message":"The given data was invalid.","errors":{"mobile":["The mobile format is invalid."],"group_id":["The selected group id is invalid."]}}`,
		wantMessage: "The given data was invalid.",
		wantFields:  map[string][]string{"mobile": {"The mobile format is invalid."}, "group_id": {"The selected group id is invalid."}},
		wantError:   "POST /contacts: 422 The given data was invalid. (group_id: The selected group id is invalid., mobile: The mobile format is invalid.)",
		sentinel:    ErrValidation,
	},
	{
		name: "problem+json", status: 403, ctype: "application/problem+json",
		body:     `{"type":"https://sms.example/probs/sender_not_allowed","title":"Forbidden","status":403,"detail":"Sender 3000 is not yours"}`,
		wantCode: "sender_not_allowed", wantMessage: "Sender 3000 is not yours",
		wantError: "POST /contacts: 403 sender_not_allowed: Sender 3000 is not yours", sentinel: ErrForbidden,
	},
	{
		name: "problem+json about:blank", status: 404, ctype: "application/problem+json",
		body: `{"type":"about:blank","title":"Not Found","status":404}`, wantMessage: "Not Found",
		sentinel: ErrNotFound,
	},
	{
		name: "json:api errors", status: 400, ctype: "application/vnd.api+json",
		body:     `{"errors":[{"code":"bad_mobile","detail":"mobile is not a number","source":{"pointer":"/data/attributes/mobile"}},{"detail":"something else"}]}`,
		wantCode: "bad_mobile", wantMessage: "something else",
		wantFields: map[string][]string{"mobile": {"mobile is not a number"}}, sentinel: ErrValidation,
	},
	{
		name: "plain text", status: 429, ctype: "text/plain",
		body: "Too many requests, slow down\nsecond line", wantMessage: "Too many requests, slow down",
		wantError: "POST /contacts: 429 Too many requests, slow down", sentinel: ErrRateLimited,
	},
	{
		name: "html from a proxy", status: 502, ctype: "text/html",
		body:        "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center><script>alert(1)</script></body></html>",
		wantMessage: "Bad Gateway (HTML page from a proxy)",
		wantError:   "POST /contacts: 502 Bad Gateway (HTML page from a proxy)", sentinel: ErrServer,
	},
	{
		name: "html without title or content type", status: 504, ctype: "",
		body:        "<!DOCTYPE html><body>upstream timed out</body>",
		wantMessage: "Gateway Timeout (HTML page from a proxy)", sentinel: ErrServer,
	},
	{
		name: "empty body", status: 500, ctype: "",
		body: "", wantError: "POST /contacts: 500 Internal Server Error", sentinel: ErrServer,
	},
	{
		name: "code only, number", status: 500, ctype: "application/json",
		body: `{"success":false,"code":1042,"message":"provider_error"}`, wantCode: "1042", wantMessage: "provider_error",
		sentinel: ErrServer,
	},
	{
		name: "escapes in message", status: 422, ctype: "application/json",
		body:     `{"success":false,"error_code":"message_too_long","message":"too\u001b[31m long\r\nnow"}`,
		wantCode: "message_too_long", wantMessage: "too long now",
		sentinel: ErrValidation,
	},
}

func TestAPIError_Shapes(t *testing.T) {
	for _, tt := range errorShapes {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t, WithRetryDeadline(0))
			mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				w.Header().Set("X-Request-Id", "req-77")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			_, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *APIError", err)
			}
			if ae.Status != tt.status || ae.Code != tt.wantCode || tt.wantMessage != "" && ae.Message != tt.wantMessage {
				t.Errorf("status, code, message = %d, %q, %q; want %d, %q, %q", ae.Status, ae.Code, ae.Message, tt.status, tt.wantCode, tt.wantMessage)
			}
			for f, want := range tt.wantFields {
				if got := ae.Fields[f]; strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("Fields[%s] = %q, want %q", f, got, want)
				}
			}
			if tt.wantError != "" && ae.Error() != tt.wantError {
				t.Errorf("Error() = %q\nwant      %q", ae.Error(), tt.wantError)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("errors.Is(err, %v) = false", tt.sentinel)
			}
			if ae.RequestID != "req-77" || ae.Method != "POST" || ae.Path != "/contacts" {
				t.Errorf("request id, method, path = %q, %q, %q", ae.RequestID, ae.Method, ae.Path)
			}
			if len([]rune(ae.Snippet)) > 200 || strings.ContainsAny(ae.Snippet+ae.Message, "\x1b\r\n") {
				t.Errorf("snippet or message not sanitised: %q / %q", ae.Snippet, ae.Message)
			}
			if strings.Contains(ae.Error(), "<") || strings.Contains(ae.Snippet, "<script") {
				t.Errorf("HTML leaked into the error: %q / %q", ae.Error(), ae.Snippet)
			}
		})
	}
}

// TestAPIError_NeverShowsKey runs every error shape against a server that
// echoes the Authorization header into the body and a header.
func TestAPIError_NeverShowsKey(t *testing.T) {
	for _, tt := range errorShapes {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t, WithRetryDeadline(0))
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				auth := r.Header.Get("Authorization")
				body := tt.body
				for _, k := range []string{`"message":"`, `"detail":"`, `"code":"`, `<title>`, `"error":"`, `["`} {
					body = strings.Replace(body, k, k+auth+" ", 1)
				}
				if body == tt.body {
					body = auth + " " + tt.body
				}
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				w.Header().Set("X-Request-Id", auth)
				w.WriteHeader(tt.status)
				w.Write([]byte(body))
			})
			var errs []error
			_, err := c.AddContact(context.Background(), NewContact{GroupID: "1", Mobile: "09121234567"})
			errs = append(errs, err)
			_, err = c.ListContacts(context.Background(), "1", nil)
			errs = append(errs, err, c.DeleteContact(context.Background(), "5"))
			_, err = c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: []model.Pair{{Recipient: "09121234567", Message: "hi"}}})
			errs = append(errs, err)
			for _, err := range errs {
				if err == nil {
					t.Fatal("no error")
				}
				var ae *APIError
				errors.As(err, &ae)
				text := err.Error() + ae.Snippet + ae.Message + ae.Code + ae.RequestID + ae.Hint() + ae.fieldText()
				if strings.Contains(text, testKey) || strings.Contains(text, "S3cretKey") {
					t.Errorf("the key shows in the error: %s", text)
				}
			}
		})
	}
}

func TestAPIError_Is(t *testing.T) {
	tests := []struct {
		e    APIError
		is   []error
		isnt []error
	}{
		{APIError{Status: 401}, []error{ErrUnauthorized}, []error{ErrForbidden, ErrServer}},
		{APIError{Status: 200, Code: "unauthorized"}, []error{ErrUnauthorized}, []error{ErrValidation}},
		{APIError{Status: 403, Code: "sender_not_allowed"}, []error{ErrForbidden}, []error{ErrUnauthorized}},
		{APIError{Status: 404}, []error{ErrNotFound}, []error{ErrValidation}},
		{APIError{Status: 400}, []error{ErrValidation}, []error{ErrServer}},
		{APIError{Status: 422}, []error{ErrValidation}, []error{ErrNotFound}},
		{APIError{Status: 429}, []error{ErrRateLimited}, []error{ErrServer}},
		{APIError{Status: 402}, []error{ErrInsufficientCredit}, []error{ErrValidation}},
		{APIError{Status: 422, Code: "insufficient_credit"}, []error{ErrInsufficientCredit, ErrValidation}, nil},
		{APIError{Status: 503}, []error{ErrServer}, []error{ErrRateLimited}},
		{APIError{Status: 500, Code: "provider_error"}, []error{ErrServer}, []error{ErrNotFound}},
	}
	for _, tt := range tests {
		for _, s := range tt.is {
			if !errors.Is(&tt.e, s) {
				t.Errorf("%d %s: errors.Is(%v) = false", tt.e.Status, tt.e.Code, s)
			}
		}
		for _, s := range tt.isnt {
			if errors.Is(&tt.e, s) {
				t.Errorf("%d %s: errors.Is(%v) = true", tt.e.Status, tt.e.Code, s)
			}
		}
	}
}

func TestAPIError_Hint(t *testing.T) {
	tests := []struct {
		e    APIError
		want string
	}{
		{APIError{Status: 401}, "check the API key (smsdesk login)"},
		{APIError{Status: 403, Code: "sender_not_allowed"}, "this sender line is not allowed for the account"},
		{APIError{Status: 429, Waited: 12 * time.Second}, "rate limited: waited 12 s"},
		{APIError{Status: 402}, "top up the account"},
		{APIError{Status: 503}, "the service failed; try again later"},
		{APIError{Status: 301}, "check the base URL"},
	}
	for _, tt := range tests {
		if got := tt.e.Hint(); !strings.Contains(got, tt.want) {
			t.Errorf("%d %s: Hint() = %q, want it to contain %q", tt.e.Status, tt.e.Code, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"3", 3 * time.Second}, {" 120 ", 2 * time.Minute}, {"0", 0}, {"-5", 0}, {"soon", 0},
		{"0.25", 250 * time.Millisecond},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzAPIError: no body makes the error reader panic, and a body holding the
// key never puts it in Error().
func FuzzAPIError(f *testing.F) {
	for _, s := range errorShapes {
		f.Add(s.status, s.ctype, s.body)
	}
	f.Add(500, "application/json", `{"errors":[1,null,{"source":7}],"error":{"code":{}}}`)
	f.Add(418, "text/html", "<title>"+testKey+"</title>")
	c := &Client{key: testKey}
	f.Fuzz(func(t *testing.T, status int, ctype, body string) {
		h := http.Header{}
		h.Set("Content-Type", ctype)
		ae := c.apiError("GET", "/x", status, h, []byte(body+testKey), time.Now())
		if s := ae.Error() + ae.Snippet; strings.Contains(s, testKey) {
			t.Fatalf("key in %q", s)
		}
		_ = ae.Hint()
	})
}
