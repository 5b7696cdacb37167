package client

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// scanPairs is the request the fast-path tests read answers for.
var scanPairs = []model.Pair{
	{Recipient: "09121111111", Message: "سلام علی"},
	{Recipient: "09122222222", Message: "hello Sara"},
	{Recipient: "+989123333333", Message: "hi Reza"},
	{Recipient: "12", Message: "bad number"},
}

// genericSendResult reads a 2xx send-pair body the tolerant way (decodeBody
// then sendResult), as SendPair does when the fast path declines.
func genericSendResult(c *Client, body []byte, req []model.Pair) (SendPairResult, error) {
	r := &request{method: http.MethodPost, u: c.resolve("sms/send-pair")}
	v, err := c.decodeBody(r, &response{status: 200, header: http.Header{}, body: body})
	if err != nil {
		return SendPairResult{}, err
	}
	return c.sendResult(v, req), nil
}

// sameAsGeneric reads body with the fast path and, when it takes the body,
// fails unless the tolerant reader gives exactly the same result.
func sameAsGeneric(t *testing.T, c *Client, body []byte, req []model.Pair) (taken bool) {
	t.Helper()
	fast, ok := c.readSendPairFast(&response{status: 200, header: http.Header{}, body: body}, req)
	if !ok {
		return false
	}
	want, err := genericSendResult(c, body, req)
	if err != nil {
		t.Fatalf("fast path read %q, the tolerant reader refuses it: %v", body, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("body %q:\nfast    %+v\ngeneric %+v", body, fast, want)
	}
	return true
}

func scanClient(t testing.TB) *Client {
	t.Helper()
	c, err := New("http://127.0.0.1:1/api/v1", testKey, WithRatePerMinute(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sandboxAnswer is the sandbox's real answer to scanPairs (one item rejected
// for its number, one for its length).
func sandboxAnswer(t testing.TB) []byte {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Key: testKey, Senders: []string{"3000"}})
	if err != nil {
		t.Fatal(err)
	}
	pairs := append([]model.Pair(nil), scanPairs...)
	pairs = append(pairs, model.Pair{Recipient: "09124444444", Message: string(bytes.Repeat([]byte("x"), 601))})
	body, _ := json.Marshal(SendPairRequest{Sender: "3000", Items: pairs})
	req := httptest.NewRequest(http.MethodPost, "/api/v1/sms/send-pair", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	sb.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("sandbox answered %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// scanCases are answers the fast path must take (fast=true) or leave to the
// tolerant reader (fast=false).
var scanCases = []struct {
	name string
	body string
	fast bool
}{
	{"documented", `{"success":true,"data":{"batch_id":"batch_7","accepted":2,"rejected":1,"items":[{"index":0,"recipient":"09121111111","status":"accepted","message_id":"msg_1"},{"index":1,"recipient":"09122222222","status":"accepted","message_id":"msg_2"},{"index":3,"recipient":"12","status":"rejected","error_code":"invalid_recipient","message":"not a mobile number"}]},"message":null}`, true},
	{"reordered, spaced, message text", " {\n \"message\" : \"ok\", \"data\":{ \"items\" : [ {\"status\":\"Accepted\",\"message_id\":\" m \",\"index\":2,\"recipient\":\"09123333333\"} ] ,\"batch_id\":\" b \"},\"success\":true}\n", true},
	{"escapes and Persian", `{"success":true,"data":{"items":[{"index":0,"status":"rejected","message":"\u0628\u062f \"x\"\n\t","error_code":"\u0069nvalid"},{"index":1,"status":"rejected","message":"hello Sara"},{"index":2,"status":"rejected","message":"شماره مسدود است"}]}}`, true},
	{"nulls and missing fields", `{"success":true,"data":{"batch_id":null,"items":[{"index":null,"recipient":"09121111111","message_id":null,"status":null},{"message_id":"m2"},{}]},"message":null}`, true},
	{"one-based, by recipient", `{"success":true,"data":{"items":[{"index":4,"status":"failed"},{"index":1,"recipient":"989121111111","message_id":"a"},{"index":2,"message_id":"b","status":"sent"},{"index":3,"recipient":"+98 912 333 3333","status":"weird","error_code":"x"}]}}`, true},
	{"index not an integer", `{"success":true,"data":{"items":[{"index":1.0,"message_id":"a"},{"index":-0,"message_id":"b"},{"index":1e0,"message_id":"c"},{"index":99999999999999999999,"message_id":"d"}]}}`, true},
	{"empty items (left to the tolerant reader)", `{"success":true,"data":{"batch_id":"b","items":[]}}`, false},
	{"invalid UTF-8 and controls", "{\"success\":true,\"data\":{\"items\":[{\"index\":0,\"status\":\"rejected\",\"message\":\"a\xffb\\u001b[31m\"}]}}", true},
	{"key holding the API key", `{"success":true,"data":{"batch_id":"sk_test_abcdefgh1234","items":[{"index":0,"status":"rejected","message":"key sk_live_0123456789abcdef is bad"}]}}`, true},

	{"keys in another case", `{"success":true,"data":{"Items":[{"index":0,"message_id":"a"}]}}`, false},
	{"extra item key", `{"success":true,"data":{"items":[{"index":0,"message_id":"a","error":"x"}]}}`, false},
	{"extra top key", `{"success":true,"status":"error","data":{"items":[]}}`, false},
	{"duplicate key", `{"success":true,"data":{"items":[{"index":0,"index":1}]}}`, false},
	{"success false", `{"success":false,"data":{"items":[]},"error_code":"x"}`, false},
	{"success missing", `{"data":{"items":[]}}`, false},
	{"success as string", `{"success":"true","data":{"items":[]}}`, false},
	{"index as string", `{"success":true,"data":{"items":[{"index":"0","message_id":"a"}]}}`, false},
	{"message id as number", `{"success":true,"data":{"items":[{"index":0,"message_id":12}]}}`, false},
	{"bare ids", `{"success":true,"data":{"items":["a","b"]}}`, false},
	{"no items", `{"success":true,"data":{"batch_id":"b"}}`, false},
	{"items null", `{"success":true,"data":{"items":null}}`, false},
	{"data a list", `{"success":true,"data":[{"index":0}]}`, false},
	{"trailing comma", `{"success":true,"data":{"items":[{"index":0},]}}`, false},
	{"trailing value", `{"success":true,"data":{"items":[]}} {}`, false},
	{"cut short", `{"success":true,"data":{"items":[{"index":0`, false},
	{"bad number", `{"success":true,"data":{"accepted":01,"items":[]}}`, false},
	{"raw control in string", "{\"success\":true,\"data\":{\"items\":[{\"message\":\"a\x01\"}]}}", false},
}

// TestReadSendPairFast_SameAsGeneric: on the documented shape (the sandbox's
// real answer among them) the fast path gives exactly what the tolerant reader
// gives; other shapes are left to the tolerant reader.
func TestReadSendPairFast_SameAsGeneric(t *testing.T) {
	c := scanClient(t)
	real := sandboxAnswer(t)
	pairs := append(append([]model.Pair(nil), scanPairs...), model.Pair{Recipient: "09124444444", Message: "long"})
	if !sameAsGeneric(t, c, real, pairs) {
		t.Fatalf("the fast path declined the sandbox's answer %s", real)
	}
	got, _ := c.readSendPairFast(&response{status: 200, header: http.Header{}, body: real}, pairs)
	if got.BatchID == "" || len(got.Items) != 5 || got.Items[0].Status != ItemAccepted || got.Items[0].MessageID == "" ||
		got.Items[3].Status != ItemRejected || got.Items[3].Code != "invalid_recipient" || got.Items[4].Code != "message_too_long" {
		t.Errorf("sandbox answer read as %+v", got)
	}
	for _, tt := range scanCases {
		t.Run(tt.name, func(t *testing.T) {
			if taken := sameAsGeneric(t, c, []byte(tt.body), scanPairs); taken != tt.fast {
				t.Errorf("fast path took it: %v, want %v", taken, tt.fast)
			}
		})
	}
}

// TestReadSendPairFast_HTML: an HTML content type is never read as an answer.
func TestReadSendPairFast_HTML(t *testing.T) {
	c := scanClient(t)
	h := http.Header{"Content-Type": {"text/html"}}
	if _, ok := c.readSendPairFast(&response{status: 200, header: h, body: []byte(scanCases[0].body)}, scanPairs); ok {
		t.Fatal("fast path read an answer labelled text/html")
	}
}

// FuzzReadSendPairFast: whatever the fast path takes, the tolerant reader
// reads the same way.
func FuzzReadSendPairFast(f *testing.F) {
	for _, tt := range scanCases {
		f.Add([]byte(tt.body), uint8(3))
	}
	f.Add(sandboxAnswer(f), uint8(4))
	f.Fuzz(func(t *testing.T, body []byte, n uint8) {
		req := scanPairs[:int(n)%(len(scanPairs)+1)]
		if len(req) == 0 {
			req = scanPairs[:1]
		}
		sameAsGeneric(t, scanClient(t), body, req)
	})
}

// FuzzCleanWord: cleanWord always gives what clean gives.
func FuzzCleanWord(f *testing.F) {
	for _, s := range []string{"", "09121111111", "msg_12", "a b", "x\x1b[2J", testKey, "id-" + testKey, "sk_live_abcd1234", "\u202e", "۰۹۱۲", "abcdefghij"} {
		f.Add(s, 5)
		f.Add(s, 100)
	}
	c := scanClient(f)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if got, want := c.cleanWord(s, max), c.clean(s, max); got != want {
			t.Fatalf("cleanWord(%q, %d) = %q, clean gives %q", s, max, got, want)
		}
	})
}
