package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// waitLimit bounds the tests' waits on a run, a server or a process. It
// guards against a hang and is no budget: a machine busy with other work
// (load 17-29 on 2 cores, under -race) takes longer than the 5 to 40 s that
// stood here.
const waitLimit = 3 * time.Minute

// TestClient_AgainstSandbox runs every endpoint against the real sandbox over
// loopback.
func TestClient_AgainstSandbox(t *testing.T) {
	srv, err := sandbox.New(sandbox.Options{Key: testKey, PageSize: 2, MaxPerPage: 2, DeliveryDelay: -1, Senders: []string{"3000"}})
	if err != nil {
		t.Fatal(err)
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := New(base, testKey, WithRatePerMinute(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Verify(ctx); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	bad, _ := New(base, "sk_test_wrong", WithRatePerMinute(0))
	if err := bad.Verify(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Verify with a wrong key = %v, want ErrUnauthorized", err)
	}

	g, err := c.CreateGroup(ctx, NewGroup{Name: "مشتریان", Description: "test"})
	if err != nil || g.ID.IsZero() || g.Name != "مشتریان" {
		t.Fatalf("CreateGroup = %+v, %v", g, err)
	}
	mobiles := []string{"09121111111", "09122222222", "09123333333", "09124444444", "09125555555"}
	for _, m := range mobiles {
		if _, err := c.AddContact(ctx, NewContact{GroupID: g.ID, Name: "n" + m[7:], Mobile: m}); err != nil {
			t.Fatalf("AddContact(%s): %v", m, err)
		}
	}
	if _, err := c.AddContact(ctx, NewContact{GroupID: g.ID, Mobile: "12345"}); !errors.Is(err, ErrValidation) {
		t.Errorf("AddContact with a bad number = %v, want ErrValidation", err)
	}
	var pages int
	list, err := c.ListContacts(ctx, g.ID, func(p ListProgress) { pages = p.Page })
	if err != nil || len(list) != len(mobiles) || pages != 3 {
		t.Fatalf("ListContacts = %d contacts over %d pages, %v; want 5 over 3", len(list), pages, err)
	}
	if err := c.DeleteContact(ctx, list[0].ID); err != nil {
		t.Fatalf("DeleteContact: %v", err)
	}
	if err := c.DeleteContact(ctx, list[0].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second DeleteContact = %v, want ErrNotFound", err)
	}

	res, err := c.SendPair(ctx, SendPairRequest{Sender: "3000", Items: []model.Pair{
		{Recipient: "09121111111", Message: "سلام"}, {Recipient: "+989122222222", Message: "hello"},
	}})
	if err != nil || len(res.Items) != 2 {
		t.Fatalf("SendPair = %+v, %v", res, err)
	}
	for i, it := range res.Items {
		if it.Index != i || it.Status != ItemAccepted || it.MessageID == "" {
			t.Errorf("item %d = %+v", i, it)
		}
	}
	if n := len(srv.Sent()); n != 2 {
		t.Errorf("sandbox sent %d messages, want 2", n)
	}
	st, err := c.MessageStatus(ctx, res.Items[0].MessageID)
	if err != nil || st.State == "" {
		t.Fatalf("MessageStatus = %+v, %v", st, err)
	}
	_, err = c.SendPair(ctx, SendPairRequest{Sender: "9999", Items: []model.Pair{{Recipient: "09121111111", Message: "x"}}})
	var ae *APIError
	if !errors.As(err, &ae) || !errors.Is(err, ErrForbidden) || errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("SendPair from a foreign line = %v, want a 403 refusal", err)
	}
}

// TestClient_SandboxRateLimit: the sandbox allows 2 requests a minute; the
// client waits out each 429 (on a shared fake clock) and sends every pair once.
func TestClient_SandboxRateLimit(t *testing.T) {
	fc := fakeclock.New(time.Now())
	srv, err := sandbox.New(sandbox.Options{Key: testKey, RatePerMinute: 2, Now: fc.Now, DeliveryDelay: -1, Senders: []string{"3000"}})
	if err != nil {
		t.Fatal(err)
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := New(base, testKey, WithRatePerMinute(0), withClock(fc), WithRetryDeadline(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		res, err := c.SendPair(context.Background(), SendPairRequest{Sender: "3000", Items: []model.Pair{{Recipient: "09121111111", Message: "m" + string(rune('0'+i))}}})
		if err != nil || len(res.Items) != 1 || res.Items[0].Status != ItemAccepted {
			t.Fatalf("send %d: %+v, %v", i, res, err)
		}
	}
	if sent := srv.Sent(); len(sent) != 5 {
		t.Fatalf("sandbox sent %d messages, want 5 (each once)", len(sent))
	}
	if fc.Slept() < time.Minute {
		t.Errorf("waited %v in all, want at least the minute the sandbox asked for", fc.Slept())
	}
}
