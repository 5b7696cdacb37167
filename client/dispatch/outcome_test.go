package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

func TestClassify(t *testing.T) {
	chunk := []model.JournalItem{{Index: 10, Recipient: "09120000001"}, {Index: 11, Recipient: "09120000002"}, {Index: 12, Recipient: "09120000003"}}
	const (
		A = model.StateAccepted
		R = model.StateRejected
		U = model.StateUnknown
		Q = model.StateQueued
	)
	api := func(status int, code string) *client.APIError {
		return &client.APIError{Method: "POST", Path: "/sms/send-pair", Status: status, Code: code, RetryAfter: 3 * time.Second}
	}
	tests := []struct {
		name   string
		res    client.SendPairResult
		err    error
		kind   verdictKind
		states []model.ItemState
		ids    []string
	}{
		{"per item by index", client.SendPairResult{Items: []client.ItemResult{
			{Index: 2, Status: client.ItemAccepted, MessageID: "c"}, {Index: 0, Status: client.ItemAccepted, MessageID: "a"},
			{Index: 1, Status: client.ItemRejected, Code: "invalid_recipient"}}},
			nil, verdictDone, []model.ItemState{A, R, A}, []string{"a", "", "c"}},
		{"per item by recipient, other spelling", client.SendPairResult{Items: []client.ItemResult{
			{Index: -1, Recipient: "+989120000003", Status: client.ItemAccepted, MessageID: "c"},
			{Index: -1, Recipient: "09120000001", Status: client.ItemAccepted, MessageID: "a"}}},
			nil, verdictDone, []model.ItemState{A, U, A}, []string{"a", "", "c"}},
		{"index disagrees with recipient", client.SendPairResult{Items: []client.ItemResult{
			{Index: 0, Recipient: "09120000002", Status: client.ItemAccepted, MessageID: "b"}}},
			nil, verdictDone, []model.ItemState{U, A, U}, []string{"", "b", ""}},
		{"odd status is unknown", client.SendPairResult{Items: []client.ItemResult{
			{Index: 0, Status: "queued"}, {Index: 1, Status: client.ItemAccepted}, {Index: 2, Status: client.ItemAccepted}}},
			nil, verdictDone, []model.ItemState{U, A, A}, nil},
		{"batch only", client.SendPairResult{BatchID: "b1"}, nil, verdictDone, []model.ItemState{A, A, A}, nil},
		{"timeout after writing", client.SendPairResult{}, fmt.Errorf("%w: %w", client.ErrOutcomeUnknown, context.DeadlineExceeded), verdictDone, []model.ItemState{U, U, U}, nil},
		{"500", client.SendPairResult{}, fmt.Errorf("%w: %w", client.ErrOutcomeUnknown, api(500, "provider_error")), verdictDone, []model.ItemState{U, U, U}, nil},
		{"429", client.SendPairResult{}, fmt.Errorf("%w: %w", client.ErrNotSent, api(429, "rate_limited")), verdictRetry, []model.ItemState{Q, Q, Q}, nil},
		{"refused", client.SendPairResult{}, fmt.Errorf("%w: connection refused", client.ErrNotSent), verdictRetry, []model.ItemState{Q, Q, Q}, nil},
		{"413", client.SendPairResult{}, api(413, ""), verdictSplit, []model.ItemState{Q, Q, Q}, nil},
		{"too many items", client.SendPairResult{}, api(422, "too_many_items"), verdictSplit, []model.ItemState{Q, Q, Q}, nil},
		// A refusal that will repeat (credit, sender, key) took nothing: not sent, resumable.
		{"402 whole chunk", client.SendPairResult{}, api(402, "insufficient_credit"), verdictDone, []model.ItemState{Q, Q, Q}, nil},
		{"403 sender", client.SendPairResult{}, api(403, "sender_not_allowed"), verdictDone, []model.ItemState{Q, Q, Q}, nil},
		{"422 whole chunk", client.SendPairResult{}, api(422, "invalid_recipient"), verdictDone, []model.ItemState{R, R, R}, nil},
		{"unmarked error", client.SendPairResult{}, io.ErrUnexpectedEOF, verdictDone, []model.ItemState{U, U, U}, nil},
		{"success:false in a 200", client.SendPairResult{}, api(200, "insufficient_credit"), verdictDone, []model.ItemState{Q, Q, Q}, nil},
		{"success:false invalid_recipient in a 200", client.SendPairResult{}, api(200, "invalid_recipient"), verdictDone, []model.ItemState{R, R, R}, nil},
		{"success:false provider_error in a 200", client.SendPairResult{}, api(200, "provider_error"), verdictDone, []model.ItemState{U, U, U}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := classify(chunk, tt.res, tt.err)
			var states []model.ItemState
			var ids []string
			for i, r := range v.results {
				if r.Index != chunk[i].Index {
					t.Errorf("result %d has index %d, want %d", i, r.Index, chunk[i].Index)
				}
				states = append(states, r.State)
				ids = append(ids, r.MessageID)
			}
			if v.kind != tt.kind || !slices.Equal(states, tt.states) {
				t.Errorf("kind %v states %v, want %v %v", v.kind, states, tt.kind, tt.states)
			}
			if tt.ids != nil && !slices.Equal(ids, tt.ids) {
				t.Errorf("ids %v, want %v", ids, tt.ids)
			}
			if tt.err != nil && v.err == "" {
				t.Error("error text lost")
			}
		})
	}
	// A single item that is still too many cannot be split: rejected.
	if v := classify(chunk[:1], client.SendPairResult{}, api(413, "")); v.kind != verdictDone || v.results[0].State != R {
		t.Errorf("1-item 413: %v %v", v.kind, v.results[0].State)
	}
}

// memJournal records what the engine appends, and can fail on demand.
type memJournal struct {
	recs    []model.JournalRecord
	syncs   int
	failAt  int // fail the n-th Append (1-based); 0 never
	appends int
}

func (m *memJournal) Append(r model.JournalRecord) error {
	m.appends++
	if m.appends == m.failAt {
		return errors.New("disk full")
	}
	m.recs = append(m.recs, r)
	return nil
}
func (m *memJournal) Sync() error { m.syncs++; return nil }

// stubClient answers every chunk as accepted, counting calls. It calls
// the context's client.Attempts as *client.Client does, unless deaf.
type stubClient struct {
	calls int
	deaf  bool
}

func (s *stubClient) SendPair(ctx context.Context, req client.SendPairRequest) (client.SendPairResult, error) {
	if a, ok := client.AttemptsOf(ctx); ok && !s.deaf {
		if err := a.Before(); err != nil {
			return client.SendPairResult{}, fmt.Errorf("not written: %w (%w)", err, client.ErrNotSent)
		}
	}
	s.calls++
	return client.SendPairResult{BatchID: "b"}, nil
}
func (s *stubClient) MessageStatus(context.Context, string) (client.DeliveryStatus, error) {
	return client.DeliveryStatus{}, errors.New("no")
}
func (s *stubClient) RateStatus() client.RateStatus { return client.RateStatus{} }

func TestIntentSyncedBeforeEachRequestAndJournalFailureStops(t *testing.T) {
	j := &memJournal{}
	c := &stubClient{}
	run, err := Start(context.Background(), c, NewJob("j", "3000505", []model.JournalItem{{Index: 0}, {Index: 1}, {Index: 2}}), Options{ChunkSize: 1, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	for range run.Events() {
	}
	run.Wait()
	var types []string
	for _, r := range j.recs {
		types = append(types, r.RecordType())
	}
	want := []string{"plan", "intent", "outcome", "intent", "outcome", "intent", "outcome", "end"}
	if !slices.Equal(types, want) || c.calls != 3 || j.syncs != 5 {
		t.Errorf("records %v (syncs %d, calls %d), want %v, 5 syncs, 3 calls", types, j.syncs, c.calls, want)
	}

	// The second intent cannot be written: nothing more is sent.
	j = &memJournal{failAt: 4}
	c = &stubClient{}
	run, err = Start(context.Background(), c, NewJob("j", "3000505", []model.JournalItem{{Index: 0}, {Index: 1}, {Index: 2}}), Options{ChunkSize: 1, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	for range run.Events() {
	}
	sum, err := run.Wait()
	if err == nil || c.calls != 1 || sum.Counts.NotSent != 2 {
		t.Errorf("err %v, calls %d, counts %+v: want an error after 1 call, 2 not sent", err, c.calls, sum.Counts)
	}
}

// An answer the client could not read leaves the chunk unknown, never accepted.
func TestFromResponse_Unreadable(t *testing.T) {
	items := []model.JournalItem{{Index: 3, Recipient: "09121234567"}, {Index: 4, Recipient: "09351234567"}}
	for _, tt := range []struct {
		res  client.SendPairResult
		want model.ItemState
	}{
		{client.SendPairResult{}, model.StateAccepted},
		{client.SendPairResult{BatchID: "b-1"}, model.StateAccepted},
		{client.SendPairResult{Unreadable: true}, model.StateUnknown},
	} {
		v := fromResponse(items, tt.res)
		for i, r := range v.results {
			if r.State != tt.want || r.Index != items[i].Index {
				t.Errorf("%+v: item %d = %+v, want state %s", tt.res, i, r, tt.want)
			}
			if tt.want == model.StateUnknown && !strings.Contains(r.Error, "check before sending again") {
				t.Errorf("unknown item without the reason: %+v", r)
			}
		}
	}
}

// TestStopCause: the documented codes stop a send, matched whole; a code
// the service's documentation does not list is read by its HTTP status.
// Codes that merely contain "sender" or "credit" stopped every later chunk
// (issue 35 item 12).
func TestStopCause(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
		want   StopCause
	}{
		// The documented codes.
		{402, "insufficient_credit", StopCredit},
		{401, "unauthorized", StopKey},
		{403, "sender_not_allowed", StopSender},
		{422, "invalid_recipient", ""},
		{422, "message_too_long", ""},
		{200, "sender_not_allowed", StopSender}, // success:false in a 2xx
		{422, "INSUFFICIENT_CREDIT", StopCredit},
		// Codes not documented: the status decides.
		{401, "", StopKey},
		{403, "", StopAccount},
		{402, "payment_required", StopCredit},
		{403, "account_suspended", StopAccount},
		{400, "", ""},
		{422, "sender_credit_note", ""},
		{422, "not_a_sender_issue", ""},
		{422, "credit_card_expired", ""},
		{400, "insufficient_balance", ""},
		{400, "account_suspended", ""},
		{200, "invalid_sender", ""},
		{200, "low_credit_warning", ""},
		{403, "not_a_sender_issue", StopAccount},
	} {
		err := &client.APIError{Status: tc.status, Code: tc.code}
		if got := stopCause(err); got != tc.want {
			t.Errorf("%d %s: %q, want %q", tc.status, tc.code, got, tc.want)
		}
		v := classify([]model.JournalItem{{Index: 0, Recipient: "09120000001"}}, client.SendPairResult{}, err)
		if v.stop != tc.want && tc.status != 200 {
			t.Errorf("classify %d %s: stop %q, want %q", tc.status, tc.code, v.stop, tc.want)
		}
		if v.code != tc.code || !strings.Contains(v.err, tc.code) {
			t.Errorf("classify %d %s: code %q, error %q; want the code as the service sent it", tc.status, tc.code, v.code, v.err)
		}
	}
}

// A Client that sends without calling the context's client.Attempts still
// gets each chunk's intent before its outcome (written late): the outcome
// is tied to it, and nothing it sent reads "not sent".
func TestClientThatDoesNotTellGetsItsIntentLate(t *testing.T) {
	j := &memJournal{}
	c := &stubClient{deaf: true}
	run, err := Start(context.Background(), c, NewJob("j", "3000505", []model.JournalItem{{Index: 0}, {Index: 1}}), Options{ChunkSize: 1, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	for range run.Events() {
	}
	sum, err := run.Wait()
	var types []string
	for _, r := range j.recs {
		types = append(types, r.RecordType())
	}
	want := []string{"plan", "intent", "outcome", "intent", "outcome", "end"}
	if err != nil || !slices.Equal(types, want) || sum.Counts.Accepted != 2 {
		t.Errorf("records %v, counts %+v, err %v; want %v, 2 accepted", types, sum.Counts, err, want)
	}
}
