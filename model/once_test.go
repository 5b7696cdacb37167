package model

import (
	"strings"
	"testing"
)

func TestPairsDigest(t *testing.T) {
	plan := func(sender string, pairs ...string) *SendPlan {
		p := &SendPlan{Sender: sender}
		for i := 0; i < len(pairs); i += 2 {
			p.Items = append(p.Items, PlanItem{Index: i / 2, Recipient: pairs[i], Message: pairs[i+1]})
		}
		return p
	}
	base := PairsDigest(plan("3000505", "09121234567", "Hi Ali", "09351234567", "Hi Sara"))
	for _, tt := range []struct {
		name string
		p    *SendPlan
		same bool
	}{
		{"the same", plan("3000505", "09121234567", "Hi Ali", "09351234567", "Hi Sara"), true},
		{"another order", plan("3000505", "09351234567", "Hi Sara", "09121234567", "Hi Ali"), true},
		{"another text", plan("3000505", "09121234567", "Hi Ali!", "09351234567", "Hi Sara"), false},
		{"texts swapped", plan("3000505", "09121234567", "Hi Sara", "09351234567", "Hi Ali"), false},
		{"one more", plan("3000505", "09121234567", "Hi Ali", "09351234567", "Hi Sara", "09191234567", "Hi"), false},
		{"one less", plan("3000505", "09121234567", "Hi Ali"), false},
		{"another line", plan("10004346", "09121234567", "Hi Ali", "09351234567", "Hi Sara"), false},
		{"a pair split otherwise", plan("3000505", "09121234567", "Hi Ali\x0009351234567", "", "Hi Sara"), false},
	} {
		if got := PairsDigest(tt.p) == base; got != tt.same {
			t.Errorf("%s: same digest %v, want %v", tt.name, got, tt.same)
		}
	}
}

func TestCheckOnceID(t *testing.T) {
	for _, ok := range []string{"reminders-2026-11-25", "campaign 7", "یادآوری-۱۴۰۵"} {
		if err := CheckOnceID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", " x", "x ", "a\nb", "a\x1b[2Jb", "a\u202eb", strings.Repeat("x", MaxOnceIDLen+1), "\xff"} {
		if CheckOnceID(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
