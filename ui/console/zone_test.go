package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// lateNight is 02:10:31 on 2026-11-29 in Tehran: 22:40:31 the day before
// in UTC (the evening).
var lateNight = time.Date(2026, 11, 28, 22, 40, 31, 0, time.UTC)

// tehranRoot is a bare console at w×h whose profile's zone is Tehran and
// whose clock says now.
func tehranRoot(t *testing.T, w, h int, now time.Time) *root {
	t.Helper()
	zone, err := model.LoadTimezone("Asia/Tehran")
	if err != nil {
		t.Fatal(err)
	}
	if _, off := now.In(time.Local).Zone(); off == 3*3600+1800 {
		t.Skip("this machine's own zone is Tehran's: the test cannot tell the two apart")
	}
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{Sender: "3000505", Location: zone}), Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// TestMessageLogInTheProfilesZone: the message log showed "22:40:31 ✗
// quiet hours…" at 02:10 in Tehran, the machine's zone where every other
// time is the profile's (issue 40 item 14). Goldens at 80×23 and 100×30.
func TestMessageLogInTheProfilesZone(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := tehranRoot(t, size[0], size[1], lateNight)
			m.logNote("✗ quiet hours 22:00–08:00 Asia/Tehran: nothing was sent")
			m.send("L")
			v := m.text()
			if !strings.Contains(v, "02:10:31  ✗ quiet hours") || strings.Contains(v, "22:40:31") {
				t.Errorf("the message log:\n%s", v)
			}
			requireGolden(t, v)
		})
	}
}

// TestTimeFormExampleIsToCome: the time form's example named 2026-11-26,
// already past on the 29th (issue 40 item 18). It names tomorrow in the
// profile's zone: the 30th at 02:10 on the 29th in Tehran (still the 28th
// in UTC).
func TestTimeFormExampleIsToCome(t *testing.T) {
	t.Parallel()
	m := tehranRoot(t, 100, 30, lateNight)
	m.composer.askWhen(m.c.session.Plan("3000505", []model.PairRow{{Line: 2, Recipient: "09121234567", Message: "hi"}}), app.FileSource("pairs.csv"), "")
	v := m.text()
	if !strings.Contains(v, "08:00 (the next), 2026-11-30 08:00 or +30m, in Asia/Tehran.") {
		t.Fatalf("the time form:\n%s", v)
	}
}

// TestComposerSaysWhatBecameOfTheLastSend: after a cancelled send, c on
// its results started a new message saying "the last one went" (issue 40
// item 18). It says it was cancelled, and what was not sent.
func TestComposerSaysWhatBecameOfTheLastSend(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		summary app.Summary
		want    string
	}{
		{"went", app.Summary{}, "a new message: the last one went (h shows it in the history)"},
		{"cancelled", app.Summary{Interrupted: true}, "a new message: the last one was cancelled: 2 not sent; R in the history sends them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := resultsAfterASend(t, 100, 30, true)
			if tc.summary.Interrupted {
				for i := 1; i < 3; i++ { // the last two never went
					m.results.results[i].State = model.StateQueued
				}
			}
			m.results.summary = &tc.summary
			m.send("c")
			typeInto(m, "Hi")
			m.composer.markSent("")   // as its send's start does: the draft went
			m.send("esc", "esc", "c") // the editor, the composer, then c on the results
			if m.screen != screenComposer || m.composer.note != tc.want {
				t.Fatalf("screen %v, the composer's note %q, want %q", m.screen, m.composer.note, tc.want)
			}
		})
	}
}
