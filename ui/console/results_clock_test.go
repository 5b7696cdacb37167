package console

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// The rate counts the send phase only: it holds still while delivery is
// watched, and the elapsed time shows sending and watching separately.
func TestResultsRateFrozenWhileWatchingDelivery(t *testing.T) {
	now := fixedNow
	// The ETA comes from the rate budget (60 a minute here, 5 items a
	// request): the requests still to make, one a second.
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{RatePerMinute: 60, ChunkSize: 5}), Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	items := make([]model.JournalItem, 20)
	results := make([]model.SentItem, 20)
	for i := range items {
		items[i] = model.JournalItem{Index: i, Recipient: "0912000000" + string(rune('0'+i%10)), Message: "hi"}
		results[i] = model.SentItem{JournalItem: model.JournalItem{Index: i, Recipient: items[i].Recipient}, State: model.StateQueued}
	}
	p := m.results
	p.begin("job-1", "3000505", len(items), len(items), results, "test")
	m.screen = screenResults
	ev := func(e app.Event) { e.JobID = "job-1"; m.Update(sendEventMsg{JobID: "job-1", Event: e}) }
	progressLine := func() string {
		t.Helper()
		for _, l := range strings.Split(m.text(), "\n") {
			if strings.Contains(l, "· rate ") {
				return l
			}
		}
		t.Fatalf("no progress line:\n%s", m.text())
		return ""
	}
	steps := []struct {
		at      time.Duration // since the send started
		event   *app.Event
		want    []string
		notWant []string
	}{
		{0, nil, []string{"0/20 · rate – · elapsed 0s · ETA 4s"}, []string{"watching"}},
		{2 * time.Second, &app.Event{Kind: app.EventItem, Done: 5, Result: model.SentItem{JournalItem: model.JournalItem{Index: 4}, State: model.StateAccepted}},
			[]string{"5/20 · rate 2.5/s · elapsed 2s · ETA 3s"}, []string{"watching"}},
		{4 * time.Second, &app.Event{Kind: app.EventItem, Done: 20, Result: model.SentItem{JournalItem: model.JournalItem{Index: 19}, State: model.StateAccepted}},
			[]string{"20/20 · rate 5.0/s · elapsed 4s"}, []string{"ETA"}},
		{5 * time.Second, &app.Event{Kind: app.EventSent, Done: 20, Summary: &app.Summary{JobID: "job-1"}},
			[]string{"rate 4.0/s · elapsed 5s · watching delivery 0s"}, nil},
		// Delivery updates keep coming for a minute: the rate and the sending
		// time stay where sending ended.
		{35 * time.Second, &app.Event{Kind: app.EventDelivery, Result: model.SentItem{JournalItem: model.JournalItem{Index: 0}, State: model.StateAccepted, Delivery: "delivered"}},
			[]string{"rate 4.0/s · elapsed 5s · watching delivery 30s"}, nil},
		{65 * time.Second, nil, []string{"rate 4.0/s · elapsed 5s · watching delivery 1m0s"}, nil},
	}
	for _, s := range steps {
		now = fixedNow.Add(s.at)
		if s.event != nil {
			ev(*s.event)
		}
		l := progressLine()
		for _, w := range s.want {
			if !strings.Contains(l, w) {
				t.Errorf("at %v: progress line %q lacks %q", s.at, l, w)
			}
		}
		for _, w := range s.notWant {
			if strings.Contains(l, w) {
				t.Errorf("at %v: progress line %q has %q", s.at, l, w)
			}
		}
	}
	now = fixedNow.Add(70 * time.Second)
	m.Update(sendDoneMsg{JobID: "job-1"})
	now = fixedNow.Add(10 * time.Minute)
	if l := progressLine(); !strings.Contains(l, "rate 4.0/s · elapsed 5s · watched delivery 1m5s") {
		t.Errorf("after the run ended: %q", l)
	}
}

// A service without delivery status: no watching clock at all.
func TestResultsClockWithoutDeliveryStatus(t *testing.T) {
	now := fixedNow
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{}), Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.results.begin("job-2", "3000505", 1, 1, []model.SentItem{{JournalItem: model.JournalItem{Index: 0}, State: model.StateQueued}}, "test")
	m.screen = screenResults
	now = fixedNow.Add(500 * time.Millisecond)
	m.Update(sendEventMsg{JobID: "job-2", Event: app.Event{Kind: app.EventItem, Done: 1, Result: model.SentItem{JournalItem: model.JournalItem{Index: 0}, State: model.StateAccepted}}})
	m.Update(sendEventMsg{JobID: "job-2", Event: app.Event{Kind: app.EventSent, Done: 1, Summary: &app.Summary{}}})
	m.Update(sendEventMsg{JobID: "job-2", Event: app.Event{Kind: app.EventDeliveryOff}})
	now = fixedNow.Add(time.Minute)
	m.Update(sendDoneMsg{JobID: "job-2"})
	v := m.text()
	// Half a second of sending: the finished send's rate is shown, not "–".
	if !strings.Contains(v, "1/1 · rate 2.0/s · elapsed 1s") || strings.Contains(v, "delivery 0s") || strings.Contains(v, "watch") {
		t.Fatalf("results without delivery status:\n%s", v)
	}
}

// TestETAFromTheBudget: a 300-pair send at 60 a minute, one pair a request,
// takes about 4 minutes (60 at once, then one a second); the ETA says so
// from the start instead of extrapolating the burst ("14 s").
func TestETAFromTheBudget(t *testing.T) {
	cl, err := client.New("http://127.0.0.1:9/api/v1", "sk_test_x", client.WithRatePerMinute(60))
	if err != nil {
		t.Fatal(err)
	}
	m := newRoot(t.Context(), Options{Session: testSession(t, cl, app.Profile{RatePerMinute: 60, ChunkSize: 1}), Now: fixedClock})
	p := m.results
	p.total, p.done = 300, 0
	eta, ok := p.budgetETA()
	if want := 240 * time.Second; !ok || eta < want*8/10 || eta > want*12/10 {
		t.Errorf("ETA at the start: %v, want about %v (within 20 %%)", eta, want)
	}
}
