package model

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func planOf(t *testing.T, sender string, n int, msg func(i int) string) *SendPlan {
	t.Helper()
	rows := make([]PairRow, n)
	for i := range rows {
		rows[i] = PairRow{Line: i + 2, Recipient: fmt.Sprintf("0912%07d", i+1), Message: msg(i)}
	}
	return BuildPlan(sender, rows, PlanOptions{})
}

func TestCheckSend(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	fa := func(i int) string { return fmt.Sprintf("سلام %d", i) }
	mixed := func(i int) string {
		if i%4 == 0 {
			return "Hello"
		}
		return "سلام"
	}
	tests := []struct {
		name     string
		plan     *SendPlan
		facts    SendFacts
		problems []string // substrings, in order
		kinds    []ProblemKind
		blocked  bool
	}{
		{"fine", planOf(t, "3000", 3, fa), SendFacts{Lines: []string{"3000"}}, nil, nil, false},
		{"no lines: the service decides", planOf(t, "3000", 3, fa), SendFacts{}, nil, nil, false},
		{"no sender", planOf(t, "", 3, fa), SendFacts{}, []string{"no sender line"}, []ProblemKind{ProblemNoSender}, true},
		{"unknown line", planOf(t, "9999", 3, fa), SendFacts{Profile: "work", Lines: []string{"3000", "4000"}},
			[]string{"sender 9999 is not one of profile work's lines (3000, 4000)"}, []ProblemKind{ProblemSenderLine}, true},
		{"no rows", planOf(t, "3000", 0, fa), SendFacts{}, []string{"no rows to send"}, []ProblemKind{ProblemNoRows}, true},
		{"credit short", planOf(t, "3000", 1240, fa), SendFacts{Credit: &Credit{Parts: 800, HasParts: true}},
			[]string{"not enough credit: the send needs 1,240 parts, the account has 800"}, []ProblemKind{ProblemCreditParts}, true},
		{"credit enough", planOf(t, "3000", 800, fa), SendFacts{Credit: &Credit{Parts: 800, HasParts: true}}, nil, nil, false},
		{"rial short", planOf(t, "3000", 8, mixed), SendFacts{Credit: &Credit{Rial: 1000, HasRial: true}, Prices: Prices{GSM7: 250, UCS2: 120}},
			[]string{"the send costs 1,220 rial, the account has 1,000"}, []ProblemKind{ProblemCreditRial}, true},
		{"rial unknown cost", planOf(t, "3000", 8, mixed), SendFacts{Credit: &Credit{Rial: 10, HasRial: true}, Prices: Prices{UCS2: 120}}, nil, nil, false},
	}
	for _, tt := range tests {
		v := CheckSend(tt.plan, tt.facts)
		if v.Blocked() != tt.blocked || len(v.Problems) != len(tt.problems) {
			t.Errorf("%s: blocked %v, problems %q; want %v, %q", tt.name, v.Blocked(), v.Problems, tt.blocked, tt.problems)
			continue
		}
		for i, want := range tt.problems {
			if got := v.Problems[i]; !strings.Contains(got.Text, want) || got.Kind != tt.kinds[i] {
				t.Errorf("%s: problem %s %q, want %s %q", tt.name, got.Kind, got.Text, tt.kinds[i], want)
			}
		}
	}
	_ = now
}

func TestCheckSendBadItemsBlock(t *testing.T) {
	p := BuildPlan("3000", []PairRow{{Line: 2, Recipient: "09121234567", Message: "a"}, {Line: 3, Recipient: "+15551234567", Message: "b"}}, PlanOptions{})
	v := CheckSend(p, SendFacts{})
	if !v.Blocked() || len(v.Bad) != 1 || v.Bad[0].Line != 3 {
		t.Fatalf("verdict %+v", v)
	}
}

func TestPlanSummary(t *testing.T) {
	rows := make([]PairRow, 0, 316)
	for i := range 312 {
		rows = append(rows, PairRow{Recipient: fmt.Sprintf("0912%07d", i), Message: "سلام، کد شما " + fmt.Sprint(i)})
	}
	for i := range 4 {
		rows = append(rows, PairRow{Recipient: fmt.Sprintf("0935%07d", i), Message: strings.Repeat("x", 161)}) // 2 parts
	}
	p := BuildPlan("3000", rows, PlanOptions{})
	v := CheckSend(p, SendFacts{Credit: &Credit{Parts: 5000, HasParts: true, Rial: 1_000_000, HasRial: true},
		Prices: Prices{GSM7: 250, UCS2: 120}, RatePerMinute: 60, ChunkSize: 100})
	s := v.Summary
	if got := s.PartsText(); got != "312 UCS-2 · 4 GSM-7 → 320 parts" {
		t.Errorf("PartsText = %q", got)
	}
	if got := s.CostText(); got != "39,440 rial" { // 312×120 + 8×250
		t.Errorf("CostText = %q", got)
	}
	if got := s.CreditText(); got != "5,000 parts → 4,680 after · 1,000,000 rial → 960,560 after" {
		t.Errorf("CreditText = %q", got)
	}
	if got := s.DurationText(); got != "not known: under a second at the profile's 60 per minute (4 requests), but the service has not said its limit" {
		t.Errorf("DurationText = %q", got)
	}
	if len(s.Samples) != 3 || s.Samples[2].Message != rows[2].Message {
		t.Errorf("Samples = %+v", s.Samples)
	}
	one := CheckSend(BuildPlan("3000", rows[:1], PlanOptions{}), SendFacts{Prices: Prices{GSM7: 250}})
	if one.Summary.CostText() != "" || one.Summary.CreditText() != "" || one.Summary.DurationText() != "under a second (1 request)" ||
		len(one.Summary.Samples) != 1 || one.Summary.PartsText() != "1 UCS-2 → 1 part" {
		t.Errorf("one-item summary: %+v", one.Summary)
	}
}

func TestFindRepeats(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.Local)
	msg := func(i int) string { return fmt.Sprintf("code %d", i) }
	p := planOf(t, "3000", 10, msg)
	var old, recent, other SentPairs
	old.SendID, recent.SendID, other.SendID = "old", "recent", "other"
	for i := range 10 {
		old.Add(fmt.Sprintf("0912%07d", i+1), msg(i), now.Add(-30*time.Hour)) // outside a 24h window
	}
	for i := range 4 { // the same pairs, written +98…: the same numbers
		recent.Add(fmt.Sprintf("+98912%07d", i+1), msg(i), now.Add(-2*time.Hour))
	}
	recent.Add("09120000001", msg(0), now.Add(-1*time.Hour)) // the same pair twice counts once
	recent.Add(fmt.Sprintf("0912%07d", 1), msg(0), now.Add(-time.Hour))
	other.Add(fmt.Sprintf("0912%07d", 5), "another text", now.Add(-time.Hour)) // same recipient, other text
	other.Add(fmt.Sprintf("0912%07d", 6), msg(5), now.Add(-10*time.Minute))
	hist := []SentPairs{old, recent, other}

	got := FindRepeats(p, hist, now.Add(-24*time.Hour))
	if len(got) != 2 {
		t.Fatalf("repeats = %+v", got)
	}
	if got[0].SendID != "other" || got[0].Pairs != 1 || !reflect.DeepEqual(got[0].Items, []int{5}) {
		t.Errorf("newest first: %+v", got[0])
	}
	if got[1].SendID != "recent" || got[1].Pairs != 4 || !reflect.DeepEqual(got[1].Items, []int{0, 1, 2, 3}) ||
		!got[1].At.Equal(now.Add(-time.Hour)) {
		t.Errorf("recent: %+v", got[1])
	}
	want := "4 of these pairs (same recipient, same text) were already accepted by send recent at 2026-01-02 14:00 (1h ago)"
	if s := got[1].Problem(now, time.UTC); s != want {
		t.Errorf("Problem = %q\nwant      %q", s, want)
	}
	if s := got[0].Problem(now, time.UTC); !strings.HasPrefix(s, "1 of these pairs (same recipient, same text) was already") || !strings.HasSuffix(s, "(10 min ago)") {
		t.Errorf("Problem = %q", s)
	}

	v := CheckSend(p, SendFacts{History: hist, Since: now.Add(-24 * time.Hour), Now: now})
	if v.Blocked() || len(v.Repeats) != 2 || v.RepeatedPairs() != 5 {
		t.Errorf("verdict: blocked %v, repeats %d, pairs %d", v.Blocked(), len(v.Repeats), v.RepeatedPairs())
	}
	if v := CheckSend(p, SendFacts{History: hist}); len(v.Repeats) != 0 {
		t.Error("a zero Since (repeat_window = 0) must turn the check off")
	}
	if got := FindRepeats(p, hist, now.Add(-48*time.Hour)); len(got) != 3 || got[2].SendID != "old" {
		t.Errorf("48h window: %+v", got)
	}
}

func TestPairKey(t *testing.T) {
	if PairKey("09121234567", "a") != PairKey("+989121234567", "a") {
		t.Error("09… and +989… spellings must share a key")
	}
	for _, pair := range [][4]string{
		{"09121234567", "a", "09121234567", "b"},
		{"09121234567", "a", "09121234568", "a"},
		{"0912123456", "7a", "09121234567", "a"}, // the separator keeps fields apart
		{"09121234567", "a", "09121234567", "a "},
	} {
		if PairKey(pair[0], pair[1]) == PairKey(pair[2], pair[3]) {
			t.Errorf("PairKey(%q, %q) = PairKey(%q, %q)", pair[0], pair[1], pair[2], pair[3])
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1240: "1,240", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkFindRepeats(b *testing.B) {
	const sends, pairs = 100, 10_000
	now := time.Now()
	hist := make([]SentPairs, sends)
	for s := range hist {
		hist[s].SendID = fmt.Sprint(s)
		for i := range pairs {
			hist[s].Add(fmt.Sprintf("0912%07d", i), fmt.Sprintf("send %d message %d", s, i), now)
		}
	}
	rows := make([]PairRow, pairs)
	for i := range rows {
		rows[i] = PairRow{Recipient: fmt.Sprintf("0912%07d", i), Message: fmt.Sprintf("send 7 message %d", i)}
	}
	p := BuildPlan("3000", rows, PlanOptions{})
	since := now.Add(-time.Hour)
	for b.Loop() {
		if r := FindRepeats(p, hist, since); len(r) != 1 || r[0].Pairs != pairs {
			b.Fatalf("repeats %+v", r)
		}
	}
}
