package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// HistoryEntry is one past send: its journal replayed, or why it could not
// be read.
type HistoryEntry struct {
	ID      string
	State   *model.JournalState // nil when Err is set
	Running bool                // another run (here or in another process) is working on it
	Err     error
	key     HistoryKey // its place in the ledger's history (HistoryPage's entries)
}

// Key is the send's place in the history (for HistoryQuery.Before and
// After): from the ledger's summary row, so that an unreadable send has
// one too.
func (e HistoryEntry) Key() HistoryKey {
	if e.key.ID == "" && e.State != nil {
		return HistoryKey{PlanTime: e.State.Plan.Time, ID: e.ID}
	}
	return e.key
}

// Profile is the profile the send was made with ("" for an unreadable
// journal, or one written before journals named it).
func (e HistoryEntry) Profile() string {
	if e.State == nil {
		return ""
	}
	return e.State.Plan.Profile
}

// Status is complete, unresolved (over, with outcomes unknown),
// interrupted, stopped (by a refusal that would repeat, or refused as it
// was to start at its time), held (at quiet hours), running, scheduled
// (waiting for its time), cancelled, missed, or unreadable.
func (e HistoryEntry) Status() string {
	if e.State == nil {
		return "unreadable"
	}
	return SendStatus(e.State, e.Running)
}

// SendStatus is complete, unresolved, interrupted, stopped, held (at quiet
// hours), running, scheduled, cancelled or missed. A send that ended with
// every recipient given a verdict, some of them unknown, is unresolved:
// its history must not call it complete (a cron job's check for sends
// that need a look found none). A send whose run wrote its end
// record is no longer running, even while that run still holds the journal
// to record delivery states: its sending is over.
func SendStatus(st *model.JournalState, running bool) string {
	switch {
	case running && !st.Ended:
		return "running"
	case st.Waiting():
		return "scheduled"
	case st.Cancel != nil:
		return st.Cancel.Cause // cancelled, or missed
	case st.Complete():
		return "complete"
	case st.Unresolved():
		return "unresolved"
	case st.Held():
		return "held" // quiet hours began: the rest waits for them to end
	case st.Stopped != "":
		return "stopped"
	}
	return "interrupted"
}

// History lists sends, newest first after the scheduled ones that wait for
// their time (soonest first): those made with this session's profile
// against its service, or every send on this machine when all is true.
// Unreadable journals are listed either way (nobody can tell whose they
// are), last. It replays every send ever made: faces read a page of it
// (HistoryPage), whose cost does not grow with the past.
func (s *Session) History(ctx context.Context, all bool) ([]HistoryEntry, error) {
	list, err := config.ListJournals(ctx, s.Paths)
	if err != nil {
		return nil, err
	}
	out := make([]HistoryEntry, 0, len(list))
	for _, l := range list {
		e := HistoryEntry{ID: l.ID, State: l.State, Running: l.Running, Err: l.Err}
		if all || s.mine(e) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b HistoryEntry) int {
		wa, wb := a.Waiting(), b.Waiting()
		switch {
		case wa && wb:
			return a.State.Plan.ScheduledFor.Compare(b.State.Plan.ScheduledFor)
		case wa:
			return -1
		case wb:
			return 1
		}
		return 0
	})
	return out, nil
}

// Waiting reports whether the send is scheduled and waits for its time.
func (e HistoryEntry) Waiting() bool { return e.State != nil && !e.Running && e.State.Waiting() }

// mine reports whether a send was made with the session's profile and
// service (a journal that does not name its service counts by profile).
func (s *Session) mine(e HistoryEntry) bool {
	if e.State == nil {
		return true
	}
	p := e.State.Plan
	return p.Profile == s.Profile.Name && (p.BaseURL == "" || s.Profile.BaseURL == "" || p.BaseURL == s.Profile.BaseURL)
}

// ReadSend reads one past send, and whether a run is working on it now.
//
// A run may end, or start, between reading the send and asking whether it
// runs: asked before and after, a send that ran at either moment counts as
// running, so that a run which ended meanwhile is never read as a send
// left unfinished with nobody at it ("interrupted"); its records, read
// again, show it ended.
func (s *Session) ReadSend(ctx context.Context, id string) (HistoryEntry, error) {
	before := config.JournalInUse(ctx, s.Paths, id)
	st, err := config.ReadJournal(ctx, s.Paths, id)
	if err != nil {
		return HistoryEntry{ID: id, Err: err}, err
	}
	running := before || config.JournalInUse(ctx, s.Paths, id)
	if running && st.Ended {
		running = config.JournalInUse(ctx, s.Paths, id)
	}
	return HistoryEntry{ID: id, State: st, Running: running}, nil
}

// DamageText says what damaged journal lines mean, or "" for a sound journal.
func DamageText(st *model.JournalState) string {
	if st.Damaged == 0 {
		return ""
	}
	lines := make([]string, len(st.DamagedLines))
	for i, n := range st.DamagedLines {
		lines[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("the journal has %d damaged line(s) (line %s): recipients whose outcome they may hold are unknown, never \"not sent\"; check them before sending again",
		st.Damaged, strings.Join(lines, ", "))
}

// ErrNoDelivery: the service does not report delivery states (it answered
// 404 or 405, now or before); polling is off for the send.
var ErrNoDelivery = errors.New("the service does not report delivery status (404 or 405)")

// RefreshDelivery asks the service once for the delivery state of each of
// a send's accepted messages with none final yet (at the poller's share of
// the rate budget, giving way to sends) and records the answers in their
// deliveries rows; the runner's schedule of polls is kept. It returns how
// many states moved; ErrNoDelivery when the service has no status
// endpoint (now, or within the last DeliveryOffFor).
func (s *Session) RefreshDelivery(ctx context.Context, id string) (n int, err error) {
	if s.Client == nil {
		return 0, ErrNotSignedIn
	}
	account := s.Client.AccountID()
	if off, err := config.DeliveryOff(ctx, s.Paths, account); err != nil || s.now().Before(off) {
		return 0, cmp.Or(err, ErrNoDelivery)
	}
	rows, err := config.SendDeliveries(ctx, s.Paths, id)
	if err != nil {
		return 0, err
	}
	p := &DeliveryPoller{Session: s}
	for _, d := range rows {
		if d.State.Final() || d.MessageID == "" {
			continue
		}
		if err := p.waitTurn(ctx); err != nil {
			return n, err
		}
		state, err := p.ask(ctx, d.MessageID)
		if errors.Is(err, errPollOff) {
			return n, errors.Join(ErrNoDelivery, config.SetDeliveryOff(ctx, s.Paths, account, s.now().Add(DeliveryOffFor)))
		}
		if err != nil {
			return n, err
		}
		moved, err := config.RecordPoll(ctx, s.Paths, config.DeliveryPoll{SendID: id, Index: d.Index, State: state, At: s.now(), Next: d.NextPoll, Asked: true})
		if err != nil {
			return n, err
		}
		if moved {
			n++
		}
	}
	return n, nil
}

// Operator is who made the send on a served console (smsdesk serve), nil
// for a send made at a local terminal or an unreadable journal.
func (e HistoryEntry) Operator() *model.Operator {
	if e.State == nil {
		return nil
	}
	return e.State.Plan.Operator
}

// ByText is history's BY column, the same in both faces: who made (or
// scheduled) a send and the runner that started it: "sara", "sara via
// cron", "- via serve" (made at the machine's own terminal), "-".
func ByText(operator, runner string) string {
	if operator == "" {
		operator = "-"
	}
	if runner != "" {
		operator += " via " + runner
	}
	return operator
}

// HoldText says a send's latest hold at quiet hours for people, the same
// in every face (kept after the send went on): "held at quiet hours until
// 2026-11-25 08:00 Asia/Tehran; continued by cron at 08:00", "…; resumed by
// sara at 08:10", or "" when quiet hours never held it.
func HoldText(st *model.JournalState, zone *time.Location) string {
	h := st.Hold
	if h == nil {
		return ""
	}
	s := "held at quiet hours until " + model.AtText(h.Until, zone)
	if !h.Continued() {
		return s
	}
	return s + "; " + ContinuedText(h) + " at " + h.ContinuedAt.In(zone).Format("15:04")
}

// ContinuedText says who went on with a send after its hold: "continued by
// cron", "resumed by sara" (an operator on a served console), "resumed" (at
// a local terminal).
func ContinuedText(h *model.JournalHold) string {
	switch {
	case h.Runner != "":
		return "continued by " + h.Runner
	case h.Operator != nil:
		return "resumed by " + model.SanitizeLine(h.Operator.Name)
	}
	return "resumed"
}
