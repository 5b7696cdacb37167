package client

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestTypedPath_ReadsTheSandbox: the sandbox answers as the docs say, and every
// one of its answers is read by the typed path, not the tolerant reader.
func TestTypedPath_ReadsTheSandbox(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{Key: testKey, Senders: []string{"3000"}, DeliveryDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path, body string) []byte {
		t.Helper()
		req := httptest.NewRequest(method, "/api/v1"+path, bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		sb.Handler().ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	g, ok := documented[groupJSON](call(http.MethodPost, "/contact-groups", `{"name":"VIPs"}`))
	if !ok || g.ID == "" {
		t.Fatalf("group answer not typed: %+v", g)
	}
	ct, ok := documented[contactJSON](call(http.MethodPost, "/contacts", `{"group_id":`+string(g.ID)+`,"name":"Sara","mobile":"09121111111"}`))
	if !ok || ct.ID == "" || ct.GroupID != g.ID {
		t.Fatalf("contact answer not typed: %+v", ct)
	}
	var pg pageJSON
	if !decodeStrict(call(http.MethodGet, "/contact-groups/"+string(g.ID)+"/contacts", ""), &pg) || !pg.Success || len(pg.Data) != 1 {
		t.Fatalf("page answer not typed: %+v", pg)
	}
	send, ok := documented[sendJSON](call(http.MethodPost, "/sms/send-pair", `{"sender":"3000","items":[{"recipient":"09121111111","message":"hi"},{"recipient":"12","message":"x"}]}`))
	if !ok || len(send.Items) != 2 || send.Items[0].MessageID == "" || send.Items[1].ErrorCode == "" {
		t.Fatalf("send-pair answer not typed: %+v", send)
	}
	st, ok := documented[statusJSON](call(http.MethodGet, "/sms/"+send.Items[0].MessageID+"/status", ""))
	if !ok || st.Status == "" {
		t.Fatalf("status answer not typed: %+v", st)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/contacts", bytes.NewBufferString(`{"group_id":`+string(g.ID)+`,"mobile":"123"}`))
	req.Header.Set("Authorization", "Bearer "+testKey)
	rec := httptest.NewRecorder()
	sb.Handler().ServeHTTP(rec, req)
	var e errorJSON
	if !decodeStrict(rec.Body.Bytes(), &e) || e.Success || e.ErrorCode == "" {
		t.Fatalf("error answer not typed: %d %s", rec.Code, rec.Body)
	}
}
