package console

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// seedPast puts n past sends of the env's profile in its ledger, the
// newest planned at newest, each a step before the next.
func seedPast(t *testing.T, e *env, n int, newest time.Time, step time.Duration) {
	t.Helper()
	sess := e.opts.Session
	if _, err := config.CountJournals(t.Context(), sess.Paths, ledger.SendQuery{}); err != nil { // the ledger is made at its first use
		t.Fatal(err)
	}
	ledgertest.SeedSends(t, filepath.Join(sess.Paths.StateDir, ledger.FileName), n,
		model.JournalPlan{Profile: sess.Profile.Name, Sender: "3000505", BaseURL: sess.Profile.BaseURL}, newest, step)
}

// TestHistoryPaneReadsAPage: with 130 past sends the history pane reads
// the newest 100, and the rest when the cursor goes past the last one
// read; the cursor's row stays on the screen. It read and replayed all
// 130 at once, and would every send ever made.
func TestHistoryPaneReadsAPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	seedPast(t, e, 130, fixedNow.Add(-time.Hour), time.Minute)
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitModel(t, tm, "100 of them, more to come, 130 in all", func(m *root) bool {
		h := m.history
		return m.screen == screenHistory && !h.loading && len(h.entries) == historyPageSize && h.top && !h.end &&
			strings.Contains(m.text(), "Send history (130)")
	})
	for range historyPageSize {
		tm.Send(press("down"))
	}
	waitModel(t, tm, "the rest read, the cursor past the first page", func(m *root) bool {
		h := m.history
		return !h.loading && len(h.entries) == 130 && h.end && h.cursor == historyPageSize
	})
	tm.Send(press("G"))
	waitModel(t, tm, "the oldest under the cursor, on screen", func(m *root) bool {
		text := m.text()
		return m.history.cursor == 129 && strings.Contains(text, "Send history (130)") && strings.Contains(text, "›seed-0000129")
	})
}

// TestUnfinishedNoteReadsTheNewest: the note of unfinished sends at start
// looks at the newest unfinishedLook sends, not every send ever made (every
// console's start read them all): an interrupted send among them is named,
// one older than them is left to history.
func TestUnfinishedNoteReadsTheNewest(t *testing.T) {
	t.Parallel()
	for _, newer := range []int{unfinishedLook - 1, unfinishedLook} {
		t.Run(fmt.Sprint(newer), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			writeInterruptedSend(t, e.opts.Session.Paths, "3000505") // at fixedNow-30m
			seedPast(t, e, newer, fixedNow.Add(-time.Minute), time.Second)
			m := newRoot(context.Background(), e.opts)
			t.Cleanup(m.shutdown)
			msg, _ := m.unfinishedSends()().(statusMsg)
			named := strings.Contains(msg.Text, pastSendID)
			if want := newer < unfinishedLook; named != want {
				t.Errorf("with %d sends newer than the interrupted one, the note is %q (want it named: %v)", newer, msg.Text, want)
			}
		})
	}
}

// TestHistoryPaneFullPageIsAll: with exactly a page of sends the pane
// knows it has them all (the top and the end): it reads one more than a
// page to know whether more follow.
func TestHistoryPaneFullPageIsAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	seedPast(t, e, historyPageSize, fixedNow.Add(-time.Hour), time.Minute)
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitModel(t, tm, "every send, all said", func(m *root) bool {
		h := m.history
		return m.screen == screenHistory && !h.loading && len(h.entries) == historyPageSize && h.top && h.end &&
			strings.Contains(m.text(), "Send history (100) ·")
	})
}

// TestHistoryPagesToTheOldest: among 7,148 past sends, G read 100 more
// each press (68 presses and 23 s to the oldest) and pgdn/pgup did nothing
// (issue 40 item 9). G now reads the last page at once, the oldest under
// the cursor; pgup goes up a screen and reads the page above when it gets
// there; g reads the top again; pgdn goes down a screen. Goldens of the
// oldest at 80×23 and 100×30 (the OUTCOME column whole: issue 40 item 18).
func TestHistoryPagesToTheOldest(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			seedPast(t, e, 7_148, fixedNow.Add(-time.Hour), time.Minute)
			tm := e.startOnGroup1(t)
			tm.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			tm.Send(press("h"))
			var rows, loads int
			waitModel(t, tm, "the first page", func(m *root) bool {
				h := m.history
				rows, loads = h.rows(), h.seq
				return m.c.width == size[0] && m.screen == screenHistory && !h.loading && len(h.entries) == historyPageSize
			})
			tm.Send(press("pgdown"))
			waitModel(t, tm, "a screen down", func(m *root) bool { return m.history.cursor == rows })
			tm.Send(press("G"))
			var frame string
			waitModel(t, tm, "the oldest, one page read", func(m *root) bool {
				h := m.history
				frame = m.text()
				return !h.loading && h.end && h.cursor == len(h.entries)-1 && h.entries[h.cursor].ID == "seed-0007147" &&
					h.seq == loads+1 && strings.Contains(frame, "›seed-0007147") && strings.Contains(frame, "Send history (7,148)")
			})
			if !strings.Contains(frame, "complete · 1 accepted") || strings.Contains(frame, "…") {
				t.Errorf("the oldest page:\n%s", frame)
			}
			requireGolden(t, frame)
			for range historyPageSize/rows + 1 {
				tm.Send(press("pgup"))
			}
			waitModel(t, tm, "up past the last page read: the page above read", func(m *root) bool {
				h := m.history
				return !h.loading && len(h.entries) == 2*historyPageSize && !h.top && h.entries[h.cursor].ID == fmt.Sprintf("seed-%07d", 7147-(historyPageSize/rows+1)*rows)
			})
			tm.Send(press("g"))
			waitModel(t, tm, "the newest again", func(m *root) bool {
				h := m.history
				return !h.loading && h.top && h.cursor == 0 && h.entries[0].ID == "seed-0000000"
			})
		})
	}
}

// TestHistoryFilter: / filters the history by what its rows say (an id,
// the sender, the group or file, who sent it), read from the ledger, not
// the pages read so far; esc clears it. The history had no filter (issue
// 40 item 9).
func TestHistoryFilter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	seedPast(t, e, 500, fixedNow.Add(-time.Hour), time.Minute)
	writeInterruptedSend(t, e.opts.Session.Paths, "3000505")
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitModel(t, tm, "the first page", func(m *root) bool {
		return m.screen == screenHistory && !m.history.loading && len(m.history.entries) == historyPageSize
	})
	tm.Send(press("/"))
	typeText(tm, "seed-000042")
	waitModel(t, tm, "ten of 501", func(m *root) bool {
		h := m.history
		return !h.loading && h.match == "seed-000042" && len(h.entries) == 10 && h.top && h.end &&
			strings.Contains(m.text(), `Send history · 10 sends matching "seed-000042"`)
	})
	tm.Send(press("enter")) // keeps the filter, leaves the field
	tm.Send(press("G"))
	waitModel(t, tm, "the last of them", func(m *root) bool { return m.history.entries[m.history.cursor].ID == "seed-0000429" })
	tm.Send(press("esc")) // clears it
	waitModel(t, tm, "every send again", func(m *root) bool {
		h := m.history
		return !h.loading && h.match == "" && len(h.entries) == historyPageSize && strings.Contains(m.text(), "Send history (501)")
	})
	tm.Send(press("/"))
	typeText(tm, "group 1")
	waitModel(t, tm, "the send over group 1", func(m *root) bool {
		h := m.history
		return !h.loading && len(h.entries) == 1 && h.entries[0].ID == pastSendID
	})
}
