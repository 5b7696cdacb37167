package config

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

func TestOptOutsAddRemove(t *testing.T) {
	p := testPaths(t)
	acct := model.AccountID("https://sms.example.com/api/v1", "sk_live_abc")
	at := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	ch, err := AddOptOuts(t.Context(), p, acct, []model.OptOut{
		{Mobile: "09121234567", Added: at},
		{Mobile: "09351234567", Sender: "3000505", Added: at, Note: "asked by phone"},
	})
	if err != nil || len(ch.Changed) != 2 || len(ch.Already) != 0 {
		t.Fatalf("add: %+v %v", ch, err)
	}
	// The same account in another spelling of its base URL (another profile) sees them.
	other := model.AccountID("https://SMS.example.com/api", "sk_live_abc")
	list, err := LoadOptOuts(t.Context(), p, other)
	if err != nil || len(list) != 2 || list[1].Note != "asked by phone" {
		t.Fatalf("load by the other spelling: %+v %v", list, err)
	}
	for _, tc := range []struct {
		name    string
		add     model.OptOut
		already bool
	}{
		{"every line covers a line", model.OptOut{Mobile: "09121234567", Sender: "10004346"}, true},
		{"the same line", model.OptOut{Mobile: "09351234567", Sender: "3000505"}, true},
		{"another line", model.OptOut{Mobile: "09351234567", Sender: "10004346"}, false},
	} {
		ch, err := AddOptOuts(t.Context(), p, acct, []model.OptOut{tc.add})
		if err != nil || (len(ch.Already) == 1) != tc.already {
			t.Errorf("%s: %+v %v", tc.name, ch, err)
		}
	}
	ch, err = RemoveOptOuts(t.Context(), p, acct, []string{"09351234567"}, "3000505")
	if err != nil || len(ch.Changed) != 1 {
		t.Fatalf("remove one line: %+v %v", ch, err)
	}
	ch, err = RemoveOptOuts(t.Context(), p, acct, []string{"09351234567", "09990000000"}, "")
	if err != nil || len(ch.Changed) != 1 || len(ch.Already) != 1 || ch.Already[0].Mobile != "09990000000" {
		t.Fatalf("remove every line: %+v %v", ch, err)
	}
	list, _ = LoadOptOuts(t.Context(), p, acct)
	if len(list) != 1 || list[0].Mobile != "09121234567" {
		t.Fatalf("left: %+v", list)
	}
	// Another key, or none at all, sees the same list: it is the
	// ledger's (a rotated key sent to every opted-out number when it
	// was the key's).
	for _, acct := range []string{model.AccountID("https://sms.example.com/api/v1", "sk_live_other"), ""} {
		if l, err := LoadOptOuts(t.Context(), p, acct); err != nil || len(l) != 1 {
			t.Fatalf("another key %q: %+v %v", acct, l, err)
		}
	}
	found, err := LookupOptOuts(t.Context(), p, []string{"+989121234567", "09351234567", "not a number"})
	if _, ok := found.Blocks("09121234567", "3000505"); err != nil || !ok || found.Len() != 1 {
		t.Fatalf("LookupOptOuts: %d entries, %v", found.Len(), err)
	}
}

// Two processes adding at once both keep their numbers (the lock).
func TestOptOutsConcurrentAdds(t *testing.T) {
	p := testPaths(t)
	acct := model.AccountID("http://127.0.0.1:8080", "sk_test_sandbox")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := AddOptOuts(t.Context(), p, acct, []model.OptOut{{Mobile: fmt.Sprintf("0912000000%d", i)}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if list, err := LoadOptOuts(t.Context(), p, acct); err != nil || len(list) != 8 {
		t.Fatalf("%d of 8 kept: %v", len(list), err)
	}
}

func TestProfileRulesSettings(t *testing.T) {
	for _, tc := range []struct {
		prof  Profile
		field string
	}{
		{Profile{Name: "a", Timezone: "Asia/Tehran", QuietHours: "22:00-08:00", OptOutSuffix: "لغو۱۱"}, ""},
		{Profile{Name: "a", Timezone: "Tehran"}, "timezone"},
		{Profile{Name: "a", QuietHours: "22-"}, "quiet_hours"},
		{Profile{Name: "a", OptOutSuffix: "a\nb"}, "optout_suffix"},
	} {
		err := tc.prof.Validate()
		if tc.field == "" && err != nil || tc.field != "" && (err == nil || !strings.Contains(err.Error(), tc.field+":")) {
			t.Errorf("%+v: %v, want %q", tc.prof, err, tc.field)
		}
	}
}
