package model

import "testing"

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
