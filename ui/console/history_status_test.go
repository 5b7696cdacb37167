package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestHistoryStatusIsTheLayers: the history list says what `smsdesk history`
// says (app.SendStatus): a send stopped by a refusal reads "stopped" (the
// console said "interrupted"), and a send whose run ended reads "complete"
// while that run still holds its journal to watch delivery (it said
// "running" for as long as the delivery was watched).
func TestHistoryStatusIsTheLayers(t *testing.T) {
	sess := testSession(t, nil, app.Profile{Name: "default"})
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	journal := func(id string, end *model.JournalEnd) *config.JournalFile {
		j, err := config.CreateJournal(t.Context(), sess.Paths, id)
		if err != nil {
			t.Fatal(err)
		}
		plan := &model.JournalPlan{ID: id, Time: at, Profile: "default", Sender: "3000505", ChunkSize: 1,
			Items: []model.JournalItem{{Index: 0, Recipient: "09121110001", Message: "hi", Parts: 1}, {Index: 1, Recipient: "09121110002", Message: "hi", Parts: 1}}}
		sent, results := []int{0}, []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m-1"}}
		if end.Stopped == "" { // else the refusal came before item 1 was sent
			sent, results = append(sent, 1), append(results, model.JournalResult{Index: 1, State: model.StateAccepted, MessageID: "m-2"})
		}
		for _, r := range []model.JournalRecord{plan,
			&model.JournalIntent{Time: at, Chunk: 0, Indexes: sent, Key: id + "-0"},
			&model.JournalOutcome{Time: at, Chunk: 0, Results: results}, end} {
			if err := j.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		return j
	}
	if err := journal("20250301-093000-aaaaaa", &model.JournalEnd{Time: at, Stopped: "insufficient_credit"}).Close(); err != nil {
		t.Fatal(err)
	}
	watching := journal("20250301-093000-bbbbbb", &model.JournalEnd{Time: at}) // left open: its run watches delivery
	defer watching.Close()

	p := &historyPane{c: &common{ctx: t.Context(), session: sess, now: fixedClock}}
	msg, ok := p.load()().(historyLoadedMsg)
	if !ok || msg.Err != nil || len(msg.Entries) != 2 {
		t.Fatalf("history = %+v", msg)
	}
	want := map[string]string{"20250301-093000-aaaaaa": "stopped · ", "20250301-093000-bbbbbb": "complete · "}
	for _, e := range msg.Entries {
		if got := e.outcome(fixedClock()); !strings.HasPrefix(got, want[e.ID]) {
			t.Errorf("send %s reads %q, want it to start %q", e.ID, got, want[e.ID])
		}
	}
}

// TestHistoryShowsUnresolved: a send over with an outcome unknown reads
// "unresolved" in the console's history, as in smsdesk history, not
// "complete" (issue 27 item 7).
func TestHistoryShowsUnresolved(t *testing.T) {
	sess := testSession(t, nil, app.Profile{Name: "default"})
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	const id = "20250301-093000-cccccc"
	j, err := config.CreateJournal(t.Context(), sess.Paths, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []model.JournalRecord{
		&model.JournalPlan{ID: id, Time: at, Profile: "default", Sender: "3000505", ChunkSize: 1,
			Items: []model.JournalItem{{Index: 0, Recipient: "09121110001", Message: "hi", Parts: 1}, {Index: 1, Recipient: "09121110002", Message: "hi", Parts: 1}}},
		&model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0}, Key: id + "-0"},
		&model.JournalOutcome{Time: at, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m-1"}}},
		&model.JournalIntent{Time: at, Chunk: 1, Indexes: []int{1}, Key: id + "-1"},
		&model.JournalOutcome{Time: at, Chunk: 1, Results: []model.JournalResult{{Index: 1, State: model.StateUnknown, Error: "no answer"}}},
		&model.JournalEnd{Time: at},
	} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	p := &historyPane{c: &common{ctx: t.Context(), session: sess, now: fixedClock}}
	msg, ok := p.load()().(historyLoadedMsg)
	if !ok || msg.Err != nil || len(msg.Entries) != 1 {
		t.Fatalf("history = %+v", msg)
	}
	if got := msg.Entries[0].outcome(fixedClock()); got != "unresolved · 1 accepted, 1 unknown" {
		t.Errorf("the send reads %q, want unresolved", got)
	}
}

// TestHistoryEntryWords: a send's outcome names the outcomes its
// recipients had, none other (issue 40 item 18: "complete · 300 it…" at
// 80 columns), and on a served console a
// send made at the server's own terminal and started by a runner reads
// "- via serve" in the BY column, as the CLI's does (it read " via serve").
func TestHistoryEntryWords(t *testing.T) {
	t.Parallel()
	e := historyEntry{Status: "complete", Total: 1, Counts: model.StateCounts{Accepted: 1}}
	if got := e.outcome(fixedClock()); got != "complete · 1 accepted" {
		t.Errorf("one item reads %q", got)
	}
	for _, tc := range []struct {
		e    historyEntry
		want string
	}{
		{historyEntry{Operator: "sara"}, "sara"},
		{historyEntry{Operator: "sara", Runner: "cron"}, "sara via cron"},
		{historyEntry{Runner: "serve"}, "- via serve"},
		{historyEntry{}, "-"},
	} {
		if got := tc.e.by(); got != tc.want {
			t.Errorf("by of %+v = %q, want %q", tc.e, got, tc.want)
		}
	}
}
