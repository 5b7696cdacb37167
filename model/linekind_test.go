package model

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/fakeclock"
)

func TestIsMCI(t *testing.T) {
	for _, tc := range []struct {
		n    string
		want bool
	}{
		{"09121234567", true}, {"09101234567", true}, {"09191234567", true},
		{"09901234567", true}, {"09941234567", true}, {"+989121234567", true}, {"+989941234567", true},
		{"09951234567", false}, {"09351234567", false}, {"09011234567", false}, {"09201234567", false},
		{"+989351234567", false}, {"+4915112345678", false}, {"", false}, {"09", false},
	} {
		if got := IsMCI(tc.n); got != tc.want {
			t.Errorf("IsMCI(%q) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestParseLineKindAndCheckLine(t *testing.T) {
	for in, want := range map[string]LineKind{"service": LineService, " Advertising ": LineAdvertising, "none": "", "ads": "", "": ""} {
		k, err := ParseLineKind(in)
		if k != want || (want == "") != (err != nil) {
			t.Errorf("ParseLineKind(%q) = %q, %v; want %q", in, k, err, want)
		}
	}
	for in, bad := range map[string]string{"3000505": "", "": "empty", " 3000": "space", "30\x1b[2J": "control", "3000\n1": "control",
		strings.Repeat("9", MaxLineChars+1): "over"} {
		err := CheckLine(in)
		if (bad == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckLine(%q) = %v, want %q", in, err, bad)
		}
	}
}

// TestLineRules decides, for each kind of line × the profile's quiet hours
// and suffix × the recipients' operators × the time (Tehran, on a fake
// clock), whether a send may start, until when it waits, which suffix it
// carries and what the rules say of it.
func TestLineRules(t *testing.T) {
	tehran, _ := LoadTimezone("")
	utc, _ := LoadTimezone("UTC")
	at := func(h, m int) time.Time { return time.Date(2026, 11, 29, h, m, 0, 0, tehran) }
	mci, irancell, foreign := "09121234567", "09351234567", "+4915112345678"
	profile22to08, _ := ParseQuietHours("22:00-08:00")
	utc20to21, _ := ParseQuietHours("20:00-21:00") // 23:30–00:30 Tehran
	for _, tc := range []struct {
		name       string
		kind       LineKind
		quiet      QuietHours
		zone       *time.Location
		suffix     string
		noSuffix   bool
		recipients []string
		now        time.Time
		// wantUntil zero: may start now.
		wantUntil  time.Time
		wantWhy    string // the window that holds it names this
		wantSuffix string
		wantText   string
	}{
		{name: "advertising, MCI, 23:00", kind: LineAdvertising, recipients: []string{mci, irancell}, now: at(23, 0),
			wantUntil: at(7, 0).AddDate(0, 0, 1), wantWhy: "advertising line 3000 to MCI numbers", wantText: "advertising line 3000: quiet hours 22:00–07:00 Asia/Tehran for MCI numbers (1 of 2 recipients)"},
		{name: "advertising, MCI, 06:59", kind: LineAdvertising, recipients: []string{mci}, now: at(6, 59), wantUntil: at(7, 0), wantWhy: "advertising"},
		{name: "advertising, MCI, 07:00", kind: LineAdvertising, recipients: []string{mci}, now: at(7, 0)},
		{name: "advertising, MCI, 21:59", kind: LineAdvertising, recipients: []string{mci}, now: at(21, 59)},
		{name: "advertising, Irancell only, 23:00", kind: LineAdvertising, recipients: []string{irancell, foreign}, now: at(23, 0),
			wantText: "advertising line 3000: no MCI numbers"},
		{name: "advertising, MCI, profile 22-08 wins at 07:30", kind: LineAdvertising, quiet: profile22to08, zone: tehran,
			recipients: []string{mci}, now: at(7, 30), wantUntil: at(8, 0), wantWhy: "", wantText: "the profile's quiet hours 22:00–08:00 Asia/Tehran hold too"},
		{name: "advertising, MCI, 23:00 in both: the line named, the later end", kind: LineAdvertising, quiet: profile22to08, zone: tehran,
			recipients: []string{mci}, now: at(23, 0), wantUntil: at(8, 0).AddDate(0, 0, 1), wantWhy: "advertising"},
		{name: "advertising, MCI, profile window in UTC, free at 21:45 Tehran", kind: LineAdvertising, quiet: utc20to21, zone: utc,
			recipients: []string{mci}, now: at(21, 45), wantText: "advertising line 3000: quiet hours"},
		{name: "advertising, MCI opted out only", kind: LineAdvertising, recipients: []string{"optedout:" + mci, irancell}, now: at(23, 0),
			wantText: "no MCI numbers"},
		{name: "service, MCI, 23:00", kind: LineService, recipients: []string{mci}, now: at(23, 0), wantSuffix: "لغو۱۱",
			wantText: "service line 3000: suffix «لغو۱۱», no quiet hours of its own"},
		{name: "service, the profile's spelling", kind: LineService, suffix: "لغو 11", recipients: []string{mci}, now: at(12, 0), wantSuffix: "لغو 11",
			wantText: "(the profile's spelling)"},
		{name: "service, --no-suffix", kind: LineService, noSuffix: true, recipients: []string{mci}, now: at(12, 0), wantText: "suffix left out"},
		{name: "service, profile 22-08 still holds", kind: LineService, quiet: profile22to08, zone: tehran, recipients: []string{irancell}, now: at(23, 0),
			wantUntil: at(8, 0).AddDate(0, 0, 1), wantSuffix: "لغو۱۱"},
		{name: "no kind, MCI, 23:00", recipients: []string{mci}, now: at(23, 0), wantText: "line 3000 has no kind"},
		{name: "no kind, profile 22-08, 23:00", quiet: profile22to08, zone: tehran, suffix: "لغو۱۱", recipients: []string{mci}, now: at(23, 0),
			wantUntil: at(8, 0).AddDate(0, 0, 1), wantSuffix: "لغو۱۱"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New(tc.now)
			plan := &SendPlan{Sender: "3000"}
			for i, r := range tc.recipients {
				r, opted := strings.CutPrefix(r, "optedout:")
				plan.Items = append(plan.Items, PlanItem{Index: i, Recipient: r, OptedOut: opted})
			}
			mci, n := CountMCI(plan)
			r := DecideLineRules(LineFacts{Line: "3000", Kind: tc.kind, ProfileQuiet: tc.quiet, ProfileZone: tc.zone,
				ProfileSuffix: tc.suffix, NoSuffix: tc.noSuffix}, mci, n)
			now := clock.Now()
			w, inside := r.Quiet.Inside(now)
			switch {
			case tc.wantUntil.IsZero() && inside:
				t.Fatalf("at %s inside %s, want free to start", now.Format("15:04"), w.Text())
			case !tc.wantUntil.IsZero() && !inside:
				t.Fatalf("at %s free to start, want held until %s", now.Format("15:04"), tc.wantUntil)
			case inside && !strings.HasPrefix(w.Why, tc.wantWhy):
				t.Errorf("held by %q, want %q", w.Why, tc.wantWhy)
			}
			if got := r.Quiet.AllowedFrom(now); inside && !got.Equal(tc.wantUntil) {
				t.Errorf("allowed from %s, want %s", got.In(tehran), tc.wantUntil)
			}
			if r.Suffix != tc.wantSuffix {
				t.Errorf("suffix %q, want %q", r.Suffix, tc.wantSuffix)
			}
			if texts := strings.Join(r.Texts(), "\n"); !strings.Contains(texts, tc.wantText) {
				t.Errorf("texts:\n%s\nwant %q", texts, tc.wantText)
			}
		})
	}
}

// TestQuietSetChains: a window whose end falls inside another's waits for
// the other's end; the earliest start ahead is the one a send reaches.
func TestQuietSetChains(t *testing.T) {
	tehran, _ := LoadTimezone("")
	a, _ := ParseQuietHours("21:00-23:00")
	qs := QuietSet{{Hours: AdvertisingQuiet, Zone: tehran, Why: "line"}, {Hours: a, Zone: tehran}}
	now := time.Date(2026, 11, 29, 21, 30, 0, 0, tehran)
	if got, want := qs.AllowedFrom(now), time.Date(2026, 11, 30, 7, 0, 0, 0, tehran); !got.Equal(want) {
		t.Errorf("AllowedFrom %s, want %s", got, want)
	}
	start, r, reaches := qs.Reaches(now.Add(-time.Hour), 2*time.Hour)
	if !reaches || r.Why != "" || !start.Equal(now.Add(-30*time.Minute)) {
		t.Errorf("Reaches = %s %q %v, want 21:00 the profile's", start, r.Why, reaches)
	}
	if _, _, reaches := (QuietSet{}).Reaches(now, time.Hour); reaches {
		t.Error("an empty set reaches a window")
	}
}
