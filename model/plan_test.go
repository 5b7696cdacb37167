package model

import (
	"reflect"
	"strings"
	"testing"
)

func TestBuildPlan(t *testing.T) {
	long := strings.Repeat("ب", 712)
	rows := []PairRow{
		{Line: 2, Recipient: "0912 123 4567", Message: "سلام مریم"},
		{Line: 3, Recipient: "+4915112345678", Message: "Hello"},
		{Line: 4, Recipient: "0913-123-4567", Message: "  \n "},
		{Line: 5, Recipient: "abc", Message: "x"},
		{Line: 6, Recipient: "+98 912 123 4567", Message: "again"},
		{Line: 7, Recipient: "09141234567", Message: long},
		{Line: 8, Recipient: "09151234567", Message: "\x1b[31mred"},
		{Line: 9, Recipient: "09161234567", Message: "bad \xff byte"},
		{Line: 10, Recipient: "09171234567", Message: "two\nlines\tand a tab"},
		{Line: 11, Recipient: "", Message: ""},
	}
	p := BuildPlan(" 3000 ", rows, PlanOptions{AllowInternational: true})
	if p.Sender != "3000" || len(p.Items) != len(rows) {
		t.Fatalf("plan sender %q with %d items", p.Sender, len(p.Items))
	}
	want := []struct {
		recipient string
		problems  []string
	}{
		{"09121234567", nil},
		{"+4915112345678", nil},
		{"09131234567", []string{"empty message"}},
		{"", []string{"invalid number: contains the letter 'a': a number has only digits"}},
		{"09121234567", []string{"duplicate recipient (also line 2)"}},
		{"09141234567", []string{"message is 712 characters, over the 600 limit"}},
		{"09151234567", []string{"control characters in message"}},
		{"09161234567", []string{"message is not UTF-8 text"}},
		{"09171234567", nil},
		{"", []string{"invalid number: empty: no digits", "empty message"}},
	}
	for i, w := range want {
		it := p.Items[i]
		if it.Index != i || it.Line != rows[i].Line || it.Input != rows[i].Recipient || it.Message != rows[i].Message {
			t.Errorf("item %d: %+v does not carry its row %+v", i, it, rows[i])
		}
		if it.Recipient != w.recipient || !reflect.DeepEqual(it.Problems, w.problems) {
			t.Errorf("item %d: recipient %q problems %q; want %q %q", i, it.Recipient, it.Problems, w.recipient, w.problems)
		}
		if it.Parts != Parts(rows[i].Message) {
			t.Errorf("item %d: parts %+v, want %+v", i, it.Parts, Parts(rows[i].Message))
		}
	}
	if p.OK() {
		t.Error("plan with problems is OK")
	}
	var lines []int
	for _, it := range p.Invalid() {
		lines = append(lines, it.Line)
	}
	if !reflect.DeepEqual(lines, []int{4, 5, 6, 7, 8, 9, 11}) {
		t.Errorf("Invalid() lines = %v", lines)
	}
	// 1 + 1 + 1 + 1 + 1 + 11 (712 UCS-2 units / 67) + 1 + 1 + 1 + 0
	if got := p.TotalParts(); got != 19 {
		t.Errorf("TotalParts = %d, want 19", got)
	}
	if gsm, ucs := p.Encodings(); gsm != 5 || ucs != 5 { // ESC, a bad byte and a tab force UCS-2
		t.Errorf("Encodings = %d GSM-7, %d UCS-2; want 5, 5", gsm, ucs)
	}
}

func TestBuildPlanForeignNumbers(t *testing.T) {
	rows := []PairRow{
		{Line: 2, Recipient: "+1 555 123 4567", Message: "Hi"},
		{Line: 3, Recipient: "+44 7700 900123", Message: "Hi"},
		{Line: 4, Recipient: "0044 7700 900124", Message: "Hi"},
		{Line: 5, Recipient: "+98 912 123 4567", Message: "Hi"},
		{Line: 6, Recipient: "0912 123 4568", Message: "Hi"},
	}
	p := BuildPlan("3000", rows, PlanOptions{})
	var lines []int
	for _, it := range p.Invalid() {
		lines = append(lines, it.Line)
		if len(it.Problems) != 1 || !strings.HasPrefix(it.Problems[0], "foreign number +") ||
			!strings.Contains(it.Problems[0], "allow_international = true") {
			t.Errorf("line %d: problems %q", it.Line, it.Problems)
		}
	}
	if !reflect.DeepEqual(lines, []int{2, 3, 4}) {
		t.Errorf("foreign lines = %v, want [2 3 4]", lines)
	}
	if p.Items[0].Recipient != "" || p.Items[3].Recipient != "09121234567" {
		t.Errorf("a refused number is not planned: %+v", p.Items[:4])
	}
	p = BuildPlan("3000", rows, PlanOptions{AllowInternational: true})
	if !p.OK() || p.Items[0].Recipient != "+15551234567" || p.Items[2].Recipient != "+447700900124" {
		t.Errorf("allow_international: %+v", p.Items)
	}
}

func TestBuildPlanOptions(t *testing.T) {
	rows := []PairRow{{Line: 1, Recipient: "09121234567", Message: "12345"}, {Line: 2, Recipient: "+989121234567", Message: "123456"}}
	p := BuildPlan("3000", rows, PlanOptions{Format: FormatE164, MaxChars: 5, AllowDuplicates: true})
	if p.Items[0].Recipient != "+989121234567" || p.Items[0].Problems != nil {
		t.Errorf("item 0 = %+v", p.Items[0])
	}
	if !reflect.DeepEqual(p.Items[1].Problems, []string{"message is 6 characters, over the 5 limit"}) {
		t.Errorf("item 1 problems = %q", p.Items[1].Problems)
	}
	// Rows without lines name the first occurrence by item number.
	p = BuildPlan("3000", []PairRow{{Recipient: "09121234567", Message: "a"}, {Recipient: "9121234567", Message: "b"}}, PlanOptions{})
	if !reflect.DeepEqual(p.Items[1].Problems, []string{"duplicate recipient (also item 1)"}) {
		t.Errorf("problems = %q", p.Items[1].Problems)
	}
	// The 600 default counts characters, not bytes.
	p = BuildPlan("3000", []PairRow{{Line: 1, Recipient: "09121234567", Message: strings.Repeat("ب", 600)}}, PlanOptions{})
	if !p.OK() {
		t.Errorf("600 Persian characters rejected: %q", p.Items[0].Problems)
	}
}

func TestSendPlanOK(t *testing.T) {
	good := []PairRow{{Line: 1, Recipient: "09121234567", Message: "a"}, {Line: 2, Recipient: "09131234567", Message: "سلام"}}
	tests := []struct {
		name   string
		sender string
		rows   []PairRow
		want   bool
	}{
		{"good", "3000", good, true},
		{"no sender", "  ", good, false},
		{"no items", "3000", nil, false},
		{"one problem", "3000", append(good[:1:1], PairRow{Line: 3, Recipient: "1", Message: "x"}), false},
	}
	for _, tt := range tests {
		if got := BuildPlan(tt.sender, tt.rows, PlanOptions{}).OK(); got != tt.want {
			t.Errorf("%s: OK() = %v, want %v", tt.name, got, tt.want)
		}
	}
	p := BuildPlan("3000", good, PlanOptions{})
	want := []Pair{{"09121234567", "a"}, {"09131234567", "سلام"}}
	if got := p.Pairs(); !reflect.DeepEqual(got, want) {
		t.Errorf("Pairs() = %q, want %q", got, want)
	}
	if p.Invalid() != nil {
		t.Errorf("Invalid() = %+v, want none", p.Invalid())
	}
}

// TestPlanCountsLeaveOutOptedOut: an opted-out item is never sent, counted
// or billed: Recipients and TotalParts count as CheckSend's summary does
// (the console's composer said 3 recipients where the confirmation said 2).
func TestPlanCountsLeaveOutOptedOut(t *testing.T) {
	for _, tc := range []struct {
		name              string
		optedOut          []bool
		recipients, parts int
	}{
		{"none opted out", []bool{false, false, false}, 3, 4},
		{"one opted out", []bool{false, true, false}, 2, 2},
		{"every one opted out", []bool{true, true, true}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := BuildPlan("3000", []PairRow{{Recipient: "09121234567", Message: "hi"},
				{Recipient: "09121234568", Message: strings.Repeat("a", 200)}, {Recipient: "09121234569", Message: "hi"}}, PlanOptions{})
			for i, o := range tc.optedOut {
				p.Items[i].OptedOut = o
			}
			sum := CheckSend(p, SendFacts{}).Summary
			if p.Recipients() != tc.recipients || p.TotalParts() != tc.parts || sum.Recipients != tc.recipients || sum.Parts != tc.parts {
				t.Errorf("Recipients %d, TotalParts %d, summary %d/%d; want %d, %d", p.Recipients(), p.TotalParts(), sum.Recipients, sum.Parts, tc.recipients, tc.parts)
			}
		})
	}
}
