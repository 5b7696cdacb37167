package console

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
// the newest 100 (its title says "100+"), and the rest when the cursor
// goes past the last one read; the cursor's row stays on the screen. It
// read and replayed all 130 at once, and would every send ever made.
func TestHistoryPaneReadsAPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	seedPast(t, e, 130, fixedNow.Add(-time.Hour), time.Minute)
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitModel(t, tm, "the first page", func(m *root) bool {
		return m.screen == screenHistory && !m.history.loading && len(m.history.entries) > 0
	})
	waitModel(t, tm, "100 of them, more to come", func(m *root) bool {
		h := m.history
		return len(h.entries) == historyPageSize && h.more && strings.Contains(m.text(), "Send history (100+)")
	})
	tm.Send(press("G"))
	waitModel(t, tm, "the rest read", func(m *root) bool {
		h := m.history
		return !h.loading && len(h.entries) == 130 && !h.more && h.cursor == historyPageSize-1
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
// says it has them all ("100", not "100+"): it reads one more than a page
// to know whether more follow.
func TestHistoryPaneFullPageIsAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	seedPast(t, e, historyPageSize, fixedNow.Add(-time.Hour), time.Minute)
	tm := e.startOnGroup1(t)
	tm.Send(press("h"))
	waitModel(t, tm, "every send, all said", func(m *root) bool {
		h := m.history
		return m.screen == screenHistory && !h.loading && len(h.entries) == historyPageSize && !h.more &&
			strings.Contains(m.text(), "Send history (100) ·")
	})
}
