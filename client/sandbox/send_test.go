package sandbox

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func item(recipient, message any) map[string]any {
	return map[string]any{"recipient": recipient, "message": message}
}

func sendBody(sender string, items ...map[string]any) map[string]any {
	return map[string]any{"sender": sender, "items": items}
}

func TestSendPairPerItem(t *testing.T) {
	e := setup(t, Options{Senders: []string{"3000505"}})
	tests := []struct {
		name          string
		item          map[string]any
		status, code  string
		wantRecipient string
	}{
		{"persian text", item("09121234567", "سلام علی جان"), "accepted", "", "09121234567"},
		{"normalised recipient", item("+98 912 765 4321", "hi"), "accepted", "", "09127654321"},
		{"600 runes", item("09121234567", strings.Repeat("ب", 600)), "accepted", "", "09121234567"},
		{"numeric recipient", item(9121234567, "hi"), "accepted", "", "09121234567"},
		{"invalid recipient", item("12345", "hi"), "rejected", "invalid_recipient", "12345"},
		{"landline", item("02188776655", "hi"), "rejected", "invalid_recipient", "02188776655"},
		{"foreign", item("+447911123456", "hi"), "rejected", "invalid_recipient", "+447911123456"},
		{"recipient not text", item(true, "hi"), "rejected", "invalid_recipient", ""},
		{"empty message", item("09121234567", ""), "rejected", "empty_message", "09121234567"},
		{"blank message", item("09121234567", " \n "), "rejected", "empty_message", "09121234567"},
		{"missing message", map[string]any{"recipient": "09121234567"}, "rejected", "empty_message", "09121234567"},
		{"601 runes", item("09121234567", strings.Repeat("ب", 601)), "rejected", "message_too_long", "09121234567"},
		{"message not text", item("09121234567", []int{1}), "rejected", "invalid_message", "09121234567"},
	}
	items := make([]map[string]any, len(tests))
	for i, tt := range tests {
		items[i] = tt.item
	}
	r := e.do("POST", "/sms/send-pair", sendBody("3000505", items...))
	d := r.data(t, 200)
	got := d["items"].([]any)
	if len(got) != len(tests) {
		t.Fatalf("%d items answered, want %d", len(got), len(tests))
	}
	accepted := 0
	ids := map[string]bool{}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := got[i].(map[string]any)
			if num(t, it, "index") != i || it["status"] != tt.status || it["recipient"] != tt.wantRecipient {
				t.Fatalf("item %d: %v; want index %d status %s recipient %s", i, it, i, tt.status, tt.wantRecipient)
			}
			if tt.status == "accepted" {
				accepted++
				id, _ := it["message_id"].(string)
				if id == "" || ids[id] {
					t.Errorf("message_id %q missing or repeated", id)
				}
				ids[id] = true
				if _, ok := it["error_code"]; ok {
					t.Errorf("accepted item with an error_code: %v", it)
				}
				return
			}
			if it["error_code"] != tt.code || it["message"] == "" || it["message"] == nil {
				t.Errorf("rejection %v, want code %s and a reason", it, tt.code)
			}
			if _, ok := it["message_id"]; ok {
				t.Errorf("rejected item with a message_id: %v", it)
			}
		})
	}
	if num(t, d, "accepted") != accepted || num(t, d, "rejected") != len(tests)-accepted {
		t.Errorf("counts %v/%v, want %d/%d", d["accepted"], d["rejected"], accepted, len(tests)-accepted)
	}
	if b, _ := d["batch_id"].(string); b == "" {
		t.Error("no batch_id")
	}
	// Only the accepted items were recorded, in order, with their texts.
	sent := e.srv.Sent()
	if len(sent) != accepted {
		t.Fatalf("Sent() holds %d, want %d", len(sent), accepted)
	}
	for _, m := range sent {
		if !ids[m.MessageID] || m.Sender != "3000505" || m.Message == "" || m.At.IsZero() {
			t.Errorf("recorded %+v", m)
		}
	}
	if sent[0].Message != "سلام علی جان" || sent[1].Recipient != "09127654321" {
		t.Errorf("recorded out of order or altered: %+v", sent[:2])
	}
}

func TestSendPairWholeRequestErrors(t *testing.T) {
	e := setup(t, Options{Senders: []string{"3000505"}, MaxItems: 3})
	ok := item("09121234567", "hi")
	tests := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"sender not owned", sendBody("9999", ok), 403, "sender_not_allowed"},
		{"missing sender", map[string]any{"items": []any{ok}}, 422, "validation_failed"},
		{"no items", sendBody("3000505"), 422, "validation_failed"},
		{"items missing", map[string]any{"sender": "3000505"}, 422, "validation_failed"},
		{"too many items", sendBody("3000505", ok, ok, ok, ok), 422, "too_many_items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.do("POST", "/sms/send-pair", tt.body).wantError(t, tt.status, tt.code)
		})
	}
	if n := len(e.srv.Sent()); n != 0 {
		t.Fatalf("refused requests recorded %d messages", n)
	}
	// MaxItems is inclusive; every item invalid is still 200.
	d := e.do("POST", "/sms/send-pair", sendBody("3000505", ok, ok, ok)).data(t, 200)
	if num(t, d, "accepted") != 3 {
		t.Errorf("3 items at MaxItems 3: %v", d)
	}
	d = e.do("POST", "/sms/send-pair", sendBody("3000505", item("1", "x"), item("09121234567", ""))).data(t, 200)
	if num(t, d, "accepted") != 0 || num(t, d, "rejected") != 2 {
		t.Errorf("all invalid: %v", d)
	}
	// The 403 message names the sender tried, not the account's lines.
	r := e.do("POST", "/sms/send-pair", sendBody("9999", ok))
	if m := r.body["message"].(string); !strings.Contains(m, "9999") || strings.Contains(m, "3000505") {
		t.Errorf("403 message %q", m)
	}
}

func TestDefaultSender(t *testing.T) {
	e := setup(t, Options{})
	d := e.do("POST", "/sms/send-pair", sendBody(DefaultSender, item("09121234567", "hi"))).data(t, 200)
	if num(t, d, "accepted") != 1 {
		t.Fatalf("DefaultSender refused: %v", d)
	}
}

func TestDeliveryProgression(t *testing.T) {
	clk := newClock()
	const step = 2 * time.Second
	e := setup(t, Options{Now: clk.Now, DeliveryDelay: step, MaxItems: 500})
	var items []map[string]any
	for i := 0; i < 200; i++ {
		items = append(items, item(fmt.Sprintf("0912%07d", 1000001+i), "hi"))
	}
	items = append(items, item("09121230000", "always fails"))
	e.do("POST", "/sms/send-pair", map[string]any{"sender": DefaultSender, "items": items}).data(t, 200)
	sent := e.srv.Sent()
	if len(sent) != len(items) {
		t.Fatalf("%d sent", len(sent))
	}
	states := func() map[string]int {
		n := map[string]int{}
		for _, m := range sent {
			d := e.do("GET", "/sms/"+m.MessageID+"/status", nil).data(t, 200)
			if d["message_id"] != m.MessageID || d["updated_at"] == "" {
				t.Fatalf("status %v", d)
			}
			n[d["status"].(string)]++
		}
		return n
	}
	if n := states(); n[StatusPending] != len(sent) {
		t.Fatalf("at once: %v, want all pending", n)
	}
	clk.Advance(step)
	if n := states(); n[StatusSent] != len(sent) {
		t.Fatalf("after one step: %v, want all sent", n)
	}
	clk.Advance(step)
	mid := states()
	if mid[StatusSent] == 0 || mid[StatusSent] == len(sent) || mid[StatusPending] != 0 {
		t.Fatalf("after two steps: %v, want some final and some still sent", mid)
	}
	clk.Advance(step)
	n := states()
	if n[StatusDelivered]+n[StatusFailed] != len(sent) {
		t.Fatalf("after three steps: %v, want all final", n)
	}
	if f := n[StatusFailed]; f < 2 || f > 25 { // ~5% of 200, plus the 0000 number
		t.Errorf("%d failed of %d; want about 5%%", f, len(sent))
	}
	last := e.do("GET", "/sms/"+sent[len(sent)-1].MessageID+"/status", nil).data(t, 200)
	if last["status"] != StatusFailed {
		t.Errorf("number ending 0000: %v, want failed", last["status"])
	}
	// Stable: the same ids give the same outcomes in another sandbox.
	e2 := setup(t, Options{DeliveryDelay: -1, MaxItems: 500})
	e2.do("POST", "/sms/send-pair", map[string]any{"sender": DefaultSender, "items": items}).data(t, 200)
	for _, m := range sent {
		a := e.do("GET", "/sms/"+m.MessageID+"/status", nil).data(t, 200)["status"]
		b := e2.do("GET", "/sms/"+m.MessageID+"/status", nil).data(t, 200)["status"]
		if a != b {
			t.Fatalf("%s: %v here, %v in a new sandbox with immediate delivery", m.MessageID, a, b)
		}
	}
	e.do("GET", "/sms/msg_nope/status", nil).wantError(t, 404, "not_found")
}

func TestConcurrentSends(t *testing.T) {
	e := setup(t, Options{})
	const workers, per = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for i := 0; i < per; i++ {
				r := e.do("POST", "/sms/send-pair", sendBody(DefaultSender,
					item(fmt.Sprintf("0935%07d", 1000000+w*1000+i), fmt.Sprintf("w%d i%d", w, i))))
				if r.status != 200 {
					t.Errorf("worker %d: %d %s", w, r.status, r.raw)
					return
				}
			}
		})
	}
	wg.Wait()
	sent := e.srv.Sent()
	if len(sent) != workers*per {
		t.Fatalf("%d recorded, want %d", len(sent), workers*per)
	}
	ids, texts := map[string]bool{}, map[string]bool{}
	for _, m := range sent {
		if ids[m.MessageID] || texts[m.Message] {
			t.Fatalf("duplicate %+v", m)
		}
		ids[m.MessageID], texts[m.Message] = true, true
	}
	if got := e.srv.Requests(); got != workers*per {
		t.Errorf("Requests() = %d, want %d", got, workers*per)
	}
}
