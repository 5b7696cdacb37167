package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

var threePairs = []model.Pair{
	{Recipient: "09121111111", Message: "سلام علی"},
	{Recipient: "09122222222", Message: "hello Sara"},
	{Recipient: "+989123333333", Message: "hi Reza"},
}

func TestClient_SendPair_Shapes(t *testing.T) {
	type want struct {
		index  int
		id     string
		status ItemStatus
		errSub string
	}
	tests := []struct {
		name  string
		body  string
		batch string
		items []want
	}{
		{"data.items with index", `{"success":true,"data":{"batch_id":"b-1","items":[{"index":0,"message_id":"m0","status":"accepted"},{"index":1,"message_id":"m1","status":"queued"},{"index":2,"status":"rejected","error_code":"invalid_recipient","message":"Bad number"}]}}`,
			"b-1", []want{{0, "m0", ItemAccepted, ""}, {1, "m1", ItemAccepted, ""}, {2, "", ItemRejected, "Bad number"}}},
		{"data.results by recipient, reordered, other number forms", `{"data":{"results":[{"recipient":"+989123333333","id":"m2","status":"sent"},{"recipient":"989121111111","messageId":"m0","status":"pending"},{"recipient":"۰۹۱۲۲۲۲۲۲۲۲","status":"failed","reason":"blacklisted"}]}}`,
			"", []want{{2, "m2", ItemAccepted, ""}, {0, "m0", ItemAccepted, ""}, {1, "", ItemRejected, "blacklisted"}}},
		{"data.messages", `{"data":{"id":777,"messages":[{"message_id":1,"status":"accepted"},{"message_id":2,"status":"accepted"},{"status":"error","error":{"code":"message_too_long","message":"too long"}}]}}`,
			"777", []want{{0, "1", ItemAccepted, ""}, {1, "2", ItemAccepted, ""}, {2, "", ItemRejected, "too long"}}},
		{"bare array by position", `[{"message_id":"a"},{"message_id":"b"},{"error":"no credit","error_code":"insufficient_credit"}]`,
			"", []want{{0, "a", ItemAccepted, ""}, {1, "b", ItemAccepted, ""}, {2, "", ItemRejected, "no credit"}}},
		{"data array with echoed message", `{"success":true,"data":[{"recipient":"09121111111","message":"سلام علی","status":"accepted","message_id":"x"},{"recipient":"09122222222","message":"hello Sara","status":"ok","message_id":"y"},{"recipient":"09123333333","message":"Number is blocked","status":"rejected"}]}`,
			"", []want{{0, "x", ItemAccepted, ""}, {1, "y", ItemAccepted, ""}, {2, "", ItemRejected, "Number is blocked"}}},
		{"one-based indexes", `{"items":[{"index":3,"status":"failed","error":"bad"},{"index":1,"message_id":"p","status":"accepted"},{"index":2,"message_id":"q","status":"accepted"}]}`,
			"", []want{{2, "", ItemRejected, "bad"}, {0, "p", ItemAccepted, ""}, {1, "q", ItemAccepted, ""}}},
		{"success flags and unknown words", `{"data":{"items":[{"index":0,"success":true,"message_id":"s"},{"index":1,"status":"weird"},{"index":2,"success":false}]}}`,
			"", []want{{0, "s", ItemAccepted, ""}, {1, "", ItemUnknown, ""}, {2, "", ItemRejected, ""}}},
		{"object keyed by recipient", `{"success":true,"data":{"results":{"09122222222":{"status":"rejected","error":{"code":"blacklisted","message":"blocked"}},"09121111111":{"status":"accepted","message_id":"m0"},"+989123333333":{"status":"sent","message_id":"m2"}}}}`,
			"", []want{{2, "m2", ItemAccepted, ""}, {0, "m0", ItemAccepted, ""}, {1, "", ItemRejected, "blocked"}}},
		{"object keyed by something else is not items", `{"success":true,"data":{"batch_id":"B-3","results":{"ok":{"status":"accepted"}}}}`, "B-3", nil},
		{"bare message ids", `{"data":{"messages":["id-a","id-b",9007199254740993]}}`,
			"", []want{{0, "id-a", ItemAccepted, ""}, {1, "id-b", ItemAccepted, ""}, {2, "9007199254740993", ItemAccepted, ""}}},
		{"batch only", `{"success":true,"data":{"batch_id":"B-9","count":3},"message":"queued"}`, "B-9", nil},
		{"batch only, huge numeric id", `{"id":9007199254740993}`, "9007199254740993", nil},
		{"empty 202", ``, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			var n counter
			mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
				n.inc()
				if r.Header.Get("Idempotency-Key") != "job-1-chunk-0" {
					t.Errorf("Idempotency-Key = %q", r.Header.Get("Idempotency-Key"))
				}
				b := readBody(t, r)
				items, _ := b["items"].([]any)
				if b["sender"] != "3000" || len(items) != 3 || items[0].(map[string]any)["message"] != "سلام علی" {
					t.Errorf("body = %v", b)
				}
				if tt.body == "" {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				writeJSON(w, 200, tt.body)
			})
			res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs, IdempotencyKey: "job-1-chunk-0"})
			if err != nil {
				t.Fatal(err)
			}
			if res.BatchID != tt.batch || len(res.Items) != len(tt.items) || n.get() != 1 {
				t.Fatalf("result %+v (after %d requests), want batch %q and %d items", res, n.get(), tt.batch, len(tt.items))
			}
			for i, w := range tt.items {
				got := res.Items[i]
				if got.Index != w.index || got.MessageID != w.id || got.Status != w.status || !strings.Contains(got.Error, w.errSub) {
					t.Errorf("item %d = %+v, want %+v", i, got, w)
				}
				if w.status == ItemAccepted && got.Error != "" {
					t.Errorf("item %d: accepted with error %q (the echoed text is not an error)", i, got.Error)
				}
			}
		})
	}
}

// TestClient_SendPair_NoGuessing: per-item answers are placed by index only
// where the base is plain, else by echoed recipient, else by position in a list
// of exactly one entry per item; anything else leaves the whole chunk unknown
// (Unreadable, no items), never accepted.
func TestClient_SendPair_NoGuessing(t *testing.T) {
	dup := []model.Pair{threePairs[0], threePairs[1], {Recipient: "0912 111 1111", Message: "again"}}
	tests := []struct {
		name  string
		req   []model.Pair
		body  string
		index []int // the request index of each answer; nil: the chunk is unknown
	}{
		{"index 0 appears: 0-based, partial", threePairs, `[{"index":2,"status":"accepted"},{"index":0,"status":"rejected","error":"x"}]`, []int{2, 0}},
		{"indexes exactly 1..n: 1-based", threePairs, `[{"index":2},{"index":3},{"index":1}]`, []int{1, 2, 0}},
		{"indexes agree with echoed recipients", threePairs, `[{"index":1,"recipient":"09122222222"},{"index":0,"recipient":"+989121111111"}]`, []int{1, 0}},
		{"recipients without indexes, partial", threePairs, `[{"recipient":"989123333333","status":"rejected"}]`, []int{2}},
		{"n entries in request order", threePairs, `[{"recipient":"09121111111"},{"message_id":"b"},{"message_id":"c"}]`, []int{0, 1, 2}},

		{"indexes 1..2 of 3: 0- or 1-based?", threePairs, `[{"index":1,"message_id":"a"},{"index":2,"message_id":"b"}]`, nil},
		{"indexes 2..3 of 3 with recipients", threePairs, `[{"index":2,"recipient":"09121111111"},{"index":3,"recipient":"09122222222"}]`, nil},
		{"index 1 twice", threePairs, `[{"index":1},{"index":1},{"index":2}]`, nil},
		{"index out of range", threePairs, `[{"index":0},{"index":3}]`, nil},
		{"negative index", threePairs, `[{"index":-1},{"index":0},{"index":1}]`, nil},
		{"0-based index disagrees with recipient", threePairs, `[{"index":0,"recipient":"09122222222","status":"accepted"}]`, nil},
		{"1-based index disagrees with recipient", threePairs, `[{"index":1,"recipient":"09122222222"},{"index":2},{"index":3}]`, nil},
		{"index on some entries only", threePairs, `[{"index":0},{"message_id":"b"},{"message_id":"c"}]`, nil},
		{"recipient not in the request", threePairs, `[{"recipient":"09129999999","status":"accepted"}]`, nil},
		{"two answers for one item", threePairs, `[{"recipient":"09121111111","status":"accepted"},{"recipient":"09121111111","status":"rejected"}]`, nil},
		{"recipient twice in the request, no index", dup, `[{"recipient":"09121111111","status":"accepted"},{"recipient":"09122222222","status":"accepted"}]`, nil},
		{"fewer entries than items, no index or recipient", threePairs, `[{"message_id":"a"},{"message_id":"b"}]`, nil},
		{"list out of request order", threePairs, `[{"recipient":"09122222222"},{"message_id":"b"},{"message_id":"c"}]`, nil},
		{"bare ids, fewer than items", threePairs, `{"data":{"messages":["id-a","id-b"]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, tt.body) })
			res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: tt.req})
			if err != nil {
				t.Fatal(err)
			}
			if tt.index == nil {
				if !res.Unreadable || len(res.Items) != 0 {
					t.Fatalf("result %+v, want the chunk unknown (Unreadable, no items)", res)
				}
				return
			}
			var got []int
			for _, it := range res.Items {
				got = append(got, it.Index)
			}
			if res.Unreadable || fmt.Sprint(got) != fmt.Sprint(tt.index) {
				t.Fatalf("result %+v: indexes %v, want %v", res, got, tt.index)
			}
		})
	}
}

// TestClient_SendPair_TypedAndTolerantAgree: the documented answer (the
// sandbox's own, typed path) reads as the tolerant reader reads the same
// answer with one undocumented key added.
func TestClient_SendPair_TypedAndTolerantAgree(t *testing.T) {
	doc := `{"success":true,"data":{"batch_id":"b-7","accepted":2,"rejected":1,"items":[{"index":0,"recipient":"09121111111","status":"accepted","message_id":"m-1"},{"index":1,"recipient":"09122222222","status":"rejected","error_code":"invalid_recipient","message":"blocked \u001b[31mnumber"},{"index":2,"recipient":"+989123333333","status":"accepted","message_id":"m-3"}]},"message":null}`
	tolerant := strings.Replace(doc, `"accepted":2`, `"accepted":2,"cost":3`, 1)
	if _, ok := documented[sendJSON]([]byte(doc)); !ok {
		t.Fatal("the documented answer is not read by the typed path")
	}
	if _, ok := documented[sendJSON]([]byte(tolerant)); ok {
		t.Fatal("an undocumented key was taken by the typed path")
	}
	var got [2]SendPairResult
	for i, body := range []string{doc, tolerant} {
		c, mux, _, _ := setup(t)
		mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, body) })
		res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
		if err != nil {
			t.Fatal(err)
		}
		got[i] = res
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Fatalf("typed    %+v\ntolerant %+v", got[0], got[1])
	}
	if r := got[0]; r.BatchID != "b-7" || len(r.Items) != 3 || r.Items[1].Status != ItemRejected || r.Items[1].Code != "invalid_recipient" ||
		r.Items[1].Error != "blocked number" || r.Items[2].MessageID != "m-3" || r.Items[2].Index != 2 {
		t.Fatalf("read as %+v", r)
	}
}

func TestClient_SendPair_SingleItemMessageID(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":true,"data":{"message_id":"only-one","status":"queued"}}`)
	})
	res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs[:1]})
	if err != nil || len(res.Items) != 1 || res.Items[0].Index != 0 || res.Items[0].MessageID != "only-one" || res.Items[0].Status != ItemAccepted {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestClient_SendPair_FreshIdempotencyKeyPerCall(t *testing.T) {
	c, mux, _, _ := setup(t)
	var keys []string
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		writeJSON(w, 200, `{"batch_id":"b"}`)
	})
	for range 2 {
		if _, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs}); err != nil {
			t.Fatal(err)
		}
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] == keys[1] {
		t.Fatalf("keys = %q, want two different non-empty keys", keys)
	}
}

func TestClient_SendPair_Refusals(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		sentinel error
		unknown  bool
		notSent  bool
	}{
		{"success false in 200", 200, `{"success":false,"error_code":"sender_not_allowed","message":"no"}`, errAnyAPI, false, false},
		{"403 sender", 403, `{"success":false,"error_code":"sender_not_allowed","message":"Sender 3000 is not yours"}`, ErrForbidden, false, false},
		{"402 credit", 402, `{"success":false,"error_code":"insufficient_credit","message":"Top up"}`, ErrInsufficientCredit, false, false},
		{"422", 422, `{"success":false,"error_code":"message_too_long","message":"too long"}`, ErrValidation, false, false},
		{"500 provider_error", 500, `{"success":false,"error_code":"provider_error","message":"upstream"}`, ErrServer, true, false},
		{"502 html", 502, `<html><title>502 Bad Gateway</title></html>`, ErrServer, true, false},
		{"200 html page", 200, `<html><title>Login</title></html>`, nil, true, false},
		{"200 garbage", 200, `{"data":`, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			var n counter
			mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
				n.inc()
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			_, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
			if err == nil {
				t.Fatal("no error")
			}
			var ae *APIError
			if tt.sentinel == errAnyAPI && !errors.As(err, &ae) || tt.sentinel != nil && tt.sentinel != errAnyAPI && !errors.Is(err, tt.sentinel) {
				t.Errorf("err = %v, want %v", err, tt.sentinel)
			}
			if errors.Is(err, ErrOutcomeUnknown) != tt.unknown || errors.Is(err, ErrNotSent) != tt.notSent {
				t.Errorf("err = %v: unknown %v, not sent %v; want %v, %v", err, errors.Is(err, ErrOutcomeUnknown), errors.Is(err, ErrNotSent), tt.unknown, tt.notSent)
			}
			if n.get() != 1 {
				t.Errorf("server saw %d requests, want exactly 1", n.get())
			}
		})
	}
}

// TestClient_SendPair_ConnectionDiesAfterProcessing: the server records the
// send, then drops the connection without answering. The connection is a
// reused keep-alive one, where net/http itself would replay a request carrying
// an Idempotency-Key if it could rewind the body.
func TestClient_SendPair_ConnectionDiesAfterProcessing(t *testing.T) {
	c, mux, _, _ := setup(t)
	var n counter
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		readBody(t, r)
		if n.inc() == 1 {
			writeJSON(w, 200, `{"batch_id":"first"}`)
			return
		}
		hijackClose(t, w) // processed, then the connection dies
	})
	if _, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs}); err != nil {
		t.Fatal(err)
	}
	_, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
	if !errors.Is(err, ErrOutcomeUnknown) || errors.Is(err, ErrNotSent) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	if !strings.Contains(err.Error(), "check before sending again") {
		t.Errorf("err = %q does not say what to do", err)
	}
	// SendPair's return marks the moment: net/http replays a request inside
	// the call that sent it, and a replay here ends only when the server has
	// counted it (it answers or hangs up on every request it sees).
	if n.get() != 2 {
		t.Fatalf("server saw %d send requests, want 2 (the dropped one exactly once)", n.get())
	}
}

func TestClient_SendPair_TimeoutAfterWriteIsUnknown(t *testing.T) {
	c, mux, _, _ := setup(t, WithTimeout(100*time.Millisecond))
	var n counter
	release := make(chan struct{})
	defer close(release)
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		select {
		case <-release:
		case <-time.After(2 * time.Second):
		}
	})
	_, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
	if !errors.Is(err, ErrOutcomeUnknown) || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v, want ErrOutcomeUnknown after a timeout", err)
	}
	if n.get() != 1 {
		t.Errorf("server saw %d requests, want 1", n.get())
	}
}

func TestClient_SendPair_429ThenOK(t *testing.T) {
	c, mux, _, fc := setup(t)
	var n counter
	var keys []string
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if n.inc() == 1 {
			w.Header().Set("Retry-After", "3")
			writeJSON(w, 429, `{"success":false,"error_code":"rate_limited","message":"slow down"}`)
			return
		}
		writeJSON(w, 200, `{"data":{"items":[{"index":0,"message_id":"a","status":"accepted"},{"index":1,"message_id":"b","status":"accepted"},{"index":2,"message_id":"c","status":"accepted"}]}}`)
	})
	res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
	if err != nil || len(res.Items) != 3 {
		t.Fatalf("got %+v, %v", res, err)
	}
	if n.get() != 2 || keys[0] != keys[1] || keys[0] == "" {
		t.Errorf("server saw %d requests with keys %q, want 2 with the same key", n.get(), keys)
	}
	if fc.Slept() <= 2*time.Second || fc.Slept() > 3*time.Second {
		t.Errorf("waited %v, want to the end of the 3 s Retry-After (counted from the second the service answered in)", fc.Slept())
	}
}

func TestClient_SendPair_429UntilDeadlineIsNotSent(t *testing.T) {
	c, mux, _, _ := setup(t, WithRetryDeadline(10*time.Second))
	var n counter
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		n.inc()
		w.Header().Set("Retry-After", "4")
		writeJSON(w, 429, `{"success":false,"error_code":"rate_limited","message":"slow down"}`)
	})
	_, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
	var ae *APIError
	if !errors.Is(err, ErrNotSent) || !errors.Is(err, ErrRateLimited) || !errors.As(err, &ae) {
		t.Fatalf("err = %v, want ErrNotSent and ErrRateLimited", err)
	}
	// Two waits of 4 s, then the deadline: not sent.
	if n.get() != 3 || ae.Waited <= 7*time.Second || ae.Waited > 8*time.Second || !strings.Contains(ae.Hint(), "rate limited: waited ") {
		t.Errorf("%d requests, waited %v, hint %q; want 3, about 8s", n.get(), ae.Waited, ae.Hint())
	}
}

func TestClient_SendPair_CancelledBeforeWriteIsNotSent(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
		t.Error("a cancelled send reached the server")
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.SendPair(ctx, SendPairRequest{Sender: "3000", Items: threePairs})
	if !errors.Is(err, ErrNotSent) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrNotSent wrapping context.Canceled", err)
	}
}

func TestClient_SendPair_ConnectionRefusedIsNotSent(t *testing.T) {
	addr := closedAddr(t)
	fc := fakeclock.New(time.Now())
	c, err := New("http://"+addr, testKey, WithRatePerMinute(0), withClock(fc), WithRetryDeadline(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
	if !errors.Is(err, ErrNotSent) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v, want ErrNotSent (connection refused)", err)
	}
	if len(fc.Sleeps()) == 0 {
		t.Error("connection refused was not retried")
	}
}

func TestClient_SendPair_Validation(t *testing.T) {
	c, _, _, _ := setup(t)
	if _, err := c.SendPair(context.Background(), SendPairRequest{Items: threePairs}); err == nil {
		t.Error("empty sender accepted")
	}
	if _, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000"}); err == nil {
		t.Error("no items accepted")
	}
}

func TestDigitsKey(t *testing.T) {
	same := [][]string{
		{"09121234567", "+989121234567", "989121234567", "00989121234567", "0912 123 4567", "۰۹۱۲۱۲۳۴۵۶۷", "٠٩١٢١٢٣٤٥٦٧"},
	}
	for _, group := range same {
		for _, s := range group {
			if digitsKey(s) != digitsKey(group[0]) {
				t.Errorf("digitsKey(%q) = %q, want %q", s, digitsKey(s), digitsKey(group[0]))
			}
		}
	}
	if digitsKey("09121234567") == digitsKey("09121234568") {
		t.Error("different numbers compare equal")
	}
}

// A success answer the client cannot read must say so, so that the engine marks
// the chunk unknown rather than accepted; a bare acknowledgement is not that.
func TestClient_SendPair_UnreadableAnswer(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		unreadable bool
	}{
		{"empty 202", ``, false},
		{"success only", `{"success":true,"message":"queued"}`, false},
		{"data null", `{"success":true,"data":null,"message":null}`, false},
		{"empty data object", `{"success":true,"data":{}}`, false},
		{"batch only", `{"data":{"batch_id":"B"}}`, false},
		{"unknown shape", `{"success":true,"data":{"outcome":{"ok":["09121234567"],"bad":["09351234567"]}}}`, true},
		{"keyed by something else, no batch", `{"success":true,"data":{"results":{"ok":{"status":"accepted"}}}}`, true},
		{"empty items list", `{"success":true,"data":{"items":[]}}`, true},
		{"a bare string", `"done"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			mux.HandleFunc("POST /sms/send-pair", func(w http.ResponseWriter, r *http.Request) {
				if tt.body == "" {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				writeJSON(w, 200, tt.body)
			})
			res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: threePairs})
			if err != nil {
				t.Fatal(err)
			}
			if res.Unreadable != tt.unreadable || len(res.Items) != 0 {
				t.Fatalf("result %+v, want Unreadable=%v and no items", res, tt.unreadable)
			}
		})
	}
}
