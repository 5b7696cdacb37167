package model

import (
	"testing"
	"time"
)

func TestOptOutListBlocks(t *testing.T) {
	l := NewOptOutList([]OptOut{
		{Mobile: "09121234567"},                    // every line
		{Mobile: "09351234567", Sender: "3000505"}, // one line
	})
	for _, tc := range []struct {
		recipient, sender string
		blocked           bool
	}{
		{"09121234567", "3000505", true},
		{"+989121234567", "10004346", true},
		{"00989121234567", "3000505", true},
		{"9121234567", "3000505", true},
		{"۰۹۱۲۱۲۳۴۵۶۷", "3000505", true},
		{"٠٩١٢١٢٣٤٥٦٧", "3000505", true},
		{"09351234567", "3000505", true},
		{"09351234567", "10004346", false}, // an opt-out for one line does not stop another
		{"09130000000", "3000505", false},
		{"not a number", "3000505", false},
	} {
		_, got := l.Blocks(tc.recipient, tc.sender)
		if got != tc.blocked {
			t.Errorf("Blocks(%q, %q) = %v, want %v", tc.recipient, tc.sender, got, tc.blocked)
		}
	}
	if l.Len() != 2 {
		t.Errorf("Len = %d", l.Len())
	}
	var none *OptOutList
	if _, b := none.Blocks("09121234567", "1"); b || none.Len() != 0 {
		t.Error("a nil list blocks")
	}
}

func TestOptedOutCount(t *testing.T) {
	got := OptedOutCount([]string{"09121111111", "09122222222", "09123333333", "09124444444"}, 3)
	want := "4 opted out: not sent (09121111111, 09122222222, 09123333333, …)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if OptedOutCount(nil, 3) != "" {
		t.Error("none opted out says something")
	}
}

// TestOptedOutPlan: opted-out items are marked for the plan's line only,
// left out of the recipients, parts, samples and estimate, and repeat
// nothing.
func TestOptedOutPlan(t *testing.T) {
	rows := []PairRow{
		{Line: 2, Recipient: "09121110001", Message: "a"},
		{Line: 3, Recipient: "+989121110002", Message: "b"},
		{Line: 4, Recipient: "09121110003", Message: "c"},
	}
	l := NewOptOutList([]OptOut{{Mobile: "09121110002"}, {Mobile: "09121110003", Sender: "10004346"}})
	p := BuildPlan("3000505", rows, PlanOptions{Format: FormatE164})
	got := MarkOptedOut(p, l)
	if len(got) != 1 || got[0].Line != 3 || !p.Items[1].OptedOut || p.Items[2].OptedOut {
		t.Fatalf("marked %+v", got)
	}
	if r := p.OptedOutRecipients(); len(r) != 1 || r[0] != "+989121110002" {
		t.Errorf("recipients %v", r)
	}
	v := CheckSend(p, SendFacts{Lines: []string{"3000505"}})
	if s := v.Summary; s.Recipients != 2 || s.OptedOut != 1 || s.Parts != 2 || len(s.Samples) != 2 || s.Samples[1].Line != 4 {
		t.Errorf("summary %+v", s)
	}
	hist := []SentPairs{{SendID: "x", Keys: []uint64{PairKey("+989121110002", "b")}, At: []int64{1}}}
	if reps := FindRepeats(p, hist, time.Unix(0, 0)); len(reps) != 0 {
		t.Errorf("an opted-out item repeats: %+v", reps)
	}
}

func TestHeldAtQuiet(t *testing.T) {
	now := time.Date(2026, 11, 25, 21, 20, 0, 0, time.UTC)
	start := now.Add(40 * time.Minute)
	for _, tc := range []struct {
		n, chunk, req int
		d             time.Duration
		want          int
	}{
		{1000, 100, 10, 90 * time.Minute, 600}, // every 10 min: 4 chunks before 22:00
		{1000, 100, 10, 30 * time.Minute, 0},
		{50, 100, 1, 0, 0},
		{300, 100, 3, 0, 0},
	} {
		if got := HeldAtQuiet(now, start, tc.n, tc.chunk, tc.req, tc.d); got != tc.want {
			t.Errorf("%+v: %d held", tc, got)
		}
	}
}
