package app

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// TestRunningSendLeavesOutAReplyOptOut: a send of four chunks (one pair
// each) against the sandbox; while its first chunk is in flight the third
// recipient replies «لغو ۱۱» to the line (filed through the ledger, as the
// webhook receiver files it). The engine looked the opt-out list up only
// as the send was planned: the number got its message. Now it is looked up
// before each chunk's intent: the number is not sent, the rest are, and
// the journal says "opted out" for it (replay and history), never unknown.
func TestRunningSendLeavesOutAReplyOptOut(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	first, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			held := false
			once.Do(func() { held = true })
			if held { // the first chunk waits, in flight, until the reply is filed
				close(first)
				<-release
			}
		}
		sb.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	base := hs.URL + "/api/v1"
	paths := tempPaths(t)
	t.Cleanup(func() { paths.CloseLedger() })
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
	c, err := NewClient(paths, base, sb.Key(), prof, ClientOptions{}, client.WithRatePerMinute(60000))
	if err != nil {
		t.Fatal(err)
	}
	s := (&Engine{Profile: ResolveProfile(prof.Name, base, prof, config.KeyKind(sb.Key())), Client: c, Paths: paths}).Session(nil)

	rows := pairs(4)
	p := prepare(t, s, rows, false)
	if p.Refusal != nil {
		t.Fatal(p.Refusal)
	}
	x, err := p.Start(t.Context(), SendOptions{ChunkSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	<-first
	l, err := paths.Ledger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := l.RecordEvents(t.Context(), []ledger.Event{{Account: "acct", Profile: "live", MessageID: "in-1",
		Kind: ledger.EventInbound, ReceivedAt: now, Body: []byte(`{}`),
		Inbound: &ledger.Inbound{Sender: rows[2].Recipient, Line: sandbox.DefaultSender, Message: "لغو ۱۱"}}}); err != nil {
		t.Fatal(err)
	}
	close(release)
	out := finish(t, x)

	var sent []string
	for _, m := range sb.Sent() {
		sent = append(sent, m.Recipient)
	}
	slices.Sort(sent)
	if want := []string{rows[0].Recipient, rows[1].Recipient, rows[3].Recipient}; !slices.Equal(sent, want) {
		t.Errorf("the sandbox got messages for %v, want %v (not the number that opted out meanwhile)", sent, want)
	}
	if c := out.Summary.Counts; c.Accepted != 3 || c.OptedOut != 1 || c.Unknown != 0 {
		t.Errorf("the run's counts %+v, want 3 accepted, 1 opted out", c)
	}
	st, err := config.ReadJournal(t.Context(), paths, x.ID())
	if err != nil {
		t.Fatal(err)
	}
	if it, ok := st.Item(2); !ok || it.State != model.StateOptedOut {
		t.Errorf("the journal replays item 2 as %+v, want opted out", it)
	}
	if c := st.Counts(); c.Accepted != 3 || c.OptedOut != 1 {
		t.Errorf("the journal's counts %+v, want 3 accepted, 1 opted out", c)
	}
}
