package console

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// startSendMsg asks the root to start a confirmed send. Its start looks
// again, under the send-start lock, for sends begun since it was prepared
// (another terminal's, another operator's) with its pairs, and refuses
// (app.PendingSend.Start). A repeat the dialog showed is not refused again
// (the operator's yes was to it), but one begun while it was on the screen
// is: nobody has seen it.
type startSendMsg struct {
	Pending *app.PendingSend
}

// sendEventMsg is one event of a running send, tagged with its job id and
// its run (a resume runs the same job again), and the events that followed
// it within a frame gap.
type sendEventMsg struct {
	JobID string
	Run   *app.Send
	Event app.Event
	// More are the events that came within frameGap of Event: however fast
	// a send goes, its rows, bar and counts change (and are redrawn over the
	// link) at most a few times a second.
	More []app.Event
	next tea.Cmd
}

// frameGap is how long a send's events are gathered into one message.
const frameGap = 250 * time.Millisecond

// sendDoneMsg says a send's event stream is over, and its journal closed.
type sendDoneMsg struct {
	JobID    string
	Run      *app.Send
	Err      error
	CloseErr error // closing the journal failed
	work     int   // the send's work id: it ends with this message
}

func (m sendDoneMsg) failure() error { return m.Err }

// resultsPane shows every recipient of a send moving queued → sending →
// accepted / rejected / failed / unknown, then delivery updates.
type resultsPane struct {
	c       *common
	w, h    int
	focused bool

	jobID    string
	sender   string
	source   string
	results  []model.SentItem
	pos      map[int]int // plan index → position in results
	shown    []int       // positions shown (all, or the failures)
	failOnly bool
	scroll
	run      *app.Send // the run shown: a resume keeps the job id, so messages are matched by run; it holds the journal
	done     int       // items of this run with a verdict (of total)
	base     int       // items settled by earlier runs (a resume): ev.Done counts them too
	total    int
	sending  bool      // events still arriving for the send phase
	polling  bool      // delivery updates may still arrive
	started  time.Time // sending began
	sentAt   time.Time // sending ended (zero while sending)
	watchEnd time.Time // delivery watching ended (zero while watching)
	noWatch  bool      // the service reports no delivery status
	summary  *app.Summary
	waiting  string
	note     string
	err      string
	cancel   context.CancelFunc
	bar      progress.Model
	// held follows a send whose run ended held at quiet hours (nil
	// otherwise), its journal read every heldEvery once the hold is over,
	// at most every heldWhile before (results_held.go).
	held                 *heldFollow
	heldEvery, heldWhile time.Duration
}

func newResultsPane(c *common) *resultsPane {
	bar := progress.New(progress.WithColors(barColour(c.theme)), progress.WithoutPercentage(),
		progress.WithFillCharacters(progress.DefaultFullCharFullBlock, progress.DefaultEmptyCharBlock))
	return &resultsPane{c: c, bar: bar, pos: map[int]int{}, heldEvery: heldLookEvery, heldWhile: heldLookWhileHeld}
}

func (p *resultsPane) SetSize(w, h int) { p.w, p.h = w, h; p.bar.SetWidth(max(10, w-40)); p.clamp() }
func (p *resultsPane) Focus() tea.Cmd   { p.focused = true; return nil }
func (p *resultsPane) Blur()            { p.focused = false }
func (p *resultsPane) Editing() bool    { return false }
func (p *resultsPane) LeaveField()      {}
func (p *resultsPane) busy() bool       { return p.sending }

// running reports whether a send is in progress (quitting then asks first).
func (p *resultsPane) running() bool { return p.sending }

// cancelSend stops the send before its next chunk.
func (p *resultsPane) cancelSend() {
	if p.cancel != nil && p.sending {
		p.cancel()
		p.note = "cancelling: the chunk in flight finishes, nothing more is sent…"
	}
}

// release stops watching send id's delivery, so that a resume of the same
// send (R) can take the journal's lock, and returns the run shown (nil when
// it is not send id's, or is still sending). Its polling ends at once when
// cancelled; the caller waits for its end and closes its journal off the
// UI loop (closeRun), so that no record is written after the journal
// closes.
func (p *resultsPane) release(id string) *app.Send {
	run := p.run
	if p.jobID != id || p.sending || run == nil {
		return nil
	}
	if p.cancel != nil {
		p.cancel()
	}
	p.polling = false
	p.endWatching()
	return run
}

// ShortHelp lists the results screen's keys.
func (p *resultsPane) ShortHelp() []key.Binding {
	k := p.c.keys
	if p.sending {
		return []key.Binding{k.Up, k.Down, k.Enter, k.Failures, k.Cancel}
	}
	if len(p.retryable()) == 0 || p.held != nil && p.held.running { // R only when something can be retried
		return p.c.forRole([]key.Binding{k.Up, k.Down, k.Enter, k.Failures, k.Export.Binding, k.GoBack}, k.Export)
	}
	return p.c.forRole([]key.Binding{k.Up, k.Down, k.Enter, k.Failures, k.Retry.Binding, k.Export.Binding, k.GoBack}, k.Retry, k.Export)
}

// FullHelp lists the results screen's keys.
func (p *resultsPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// start begins showing a new run's events. The run is work (its id): cancel
// stops it before its next chunk, or ends its delivery polls.
func (p *resultsPane) start(run *app.Send, work int, cancel context.CancelFunc, source string) tea.Cmd {
	p.begin(run.ID(), run.Sender(), len(run.Items()), len(run.ToSend()), run.Results(), source)
	p.cancel, p.run = cancel, run
	return listenRun(run, work)
}

// begin resets the screen for a send of items items, toSend of them going
// in this run, which start as results.
func (p *resultsPane) begin(id, sender string, items, toSend int, results []model.SentItem, source string) {
	p.jobID, p.sender, p.source = id, sender, source
	p.results = results
	p.pos = make(map[int]int, len(p.results))
	for i, r := range p.results {
		p.pos[r.Index] = i
	}
	p.total = toSend
	p.base = items - p.total
	p.done = 0
	p.failOnly, p.cursor, p.offset = false, 0, 0
	p.sending, p.polling = true, true
	p.summary, p.waiting, p.note, p.err, p.held = nil, "", "", "", nil
	p.cancel = nil
	p.started, p.sentAt, p.watchEnd, p.noWatch = p.c.now(), time.Time{}, time.Time{}, false
	p.refilter()
}

// runDone is how many of this run's items have a verdict, from an event's
// Done, which counts every item of the job (a resume's earlier ones too).
func (p *resultsPane) runDone(done int) int { return min(p.total, max(0, done-p.base)) }

// listenRun reads the events of one frame gap per Cmd (the first event and
// those that follow it within frameGap) and re-issues itself until the run
// ends. The end of sending is handed over at once.
func listenRun(run *app.Send, work int) tea.Cmd {
	id := run.ID()
	events := run.Events()
	var next tea.Cmd
	next = func() tea.Msg {
		ev, ok := <-events
		if !ok {
			// Over, with its delivery polls: its journal is closed here,
			// off the UI loop (the close syncs it to disk).
			_, err := run.Wait()
			return sendDoneMsg{JobID: id, Run: run, Err: err, CloseErr: run.Close(), work: work}
		}
		msg := sendEventMsg{JobID: id, Run: run, Event: ev, next: next}
		gap := time.NewTimer(frameGap)
		defer gap.Stop()
		for ev.Kind != app.EventSent {
			select {
			case ev, ok = <-events:
				if !ok {
					return msg // the next call finds the stream closed
				}
				msg.More = append(msg.More, ev)
			case <-gap.C:
				return msg
			}
		}
		return msg
	}
	return next
}

// Update handles the run's events and the screen's keys.
func (p *resultsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sendEventMsg:
		if msg.Run != p.run {
			return msg.next // a previous send's late events still drain
		}
		p.event(msg.Event)
		for _, ev := range msg.More {
			p.event(ev)
		}
		return msg.next
	case sendDoneMsg:
		if msg.Run != p.run {
			return nil
		}
		p.sending, p.polling = false, false
		p.endSending()
		p.endWatching()
		if msg.CloseErr != nil && p.err == "" {
			p.err = errorLine(fmt.Errorf("closing the send's journal: %w", msg.CloseErr))
		}
		if msg.Err != nil {
			p.err = errorLine(msg.Err)
		}
		return p.followHeld()
	case heldLookMsg:
		return p.heldLooked(msg)
	case exportDoneMsg:
		if msg.Err != nil {
			p.err = errorLine(p.c.shownErr(msg.Err))
			return nil
		}
		p.note = fmt.Sprintf("exported %d results to %s", msg.Rows, p.c.shownPath(msg.Path))
		return cmdOf(statusMsg{Text: p.note})
	case tea.KeyPressMsg:
		return p.key(msg)
	}
	return nil
}

// event applies one engine event.
func (p *resultsPane) event(ev app.Event) {
	switch ev.Kind {
	case app.EventItem, app.EventDelivery:
		if i, ok := p.pos[ev.Result.Index]; ok {
			p.results[i] = ev.Result
		}
		p.waiting = ""
		if ev.Kind == app.EventItem {
			p.done = p.runDone(ev.Done)
		}
		p.refilterKeep()
	case app.EventWait:
		p.waiting = fmt.Sprintf("waiting %d s (%s)", int(ev.Wait.Seconds()+0.999), ev.Reason)
	case app.EventLedgerWait: // a record waits for another writer of the ledger: said until it goes
		p.waiting = ""
		if !ev.Over {
			p.waiting = ev.Reason
		}
	case app.EventSent:
		p.sent(ev)
	case app.EventDeliveryOff:
		p.polling, p.noWatch = false, true
		p.endWatching()
		p.note = "this service does not report delivery status"
	}
}

// sent applies the end of sending (EventSent): the summary, and what the
// last line says of it.
func (p *resultsPane) sent(ev app.Event) {
	p.sending = false
	p.endSending()
	p.summary = ev.Summary
	p.done = p.runDone(ev.Done)
	p.waiting = ""
	switch {
	case p.isHeld():
		p.note = "held at quiet hours" + p.heldUntil() + ": the rest goes on then"
	case ev.Summary != nil && ev.Summary.Stopped != "":
		p.note = "stopped: " + stopReason(ev.Summary) + "; " + ev.Summary.Cause.Todo() + ", then R sends the rest"
	case ev.Summary != nil && ev.Summary.Interrupted:
		p.note = "cancelled: items never sent stay queued; R sends them"
	default:
		p.note = ""
	}
	if ev.Summary != nil && ev.Summary.Err != nil {
		p.err = errorLine(ev.Summary.Err)
	}
}

func (p *resultsPane) key(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.keys
	if p.scroll.pageKey(k, msg, len(p.shown), p.tableRows()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Enter) && p.cursor < len(p.shown):
		r := p.results[p.shown[p.cursor]]
		return p.c.openViewer("Recipient "+r.Recipient, resultDetail(p.jobID, r, outcomeWord(r.State, p.sending, nil)))
	case key.Matches(msg, k.Failures):
		p.failOnly = !p.failOnly
		p.cursor, p.offset = 0, 0
		p.refilter()
	case key.Matches(msg, k.Cancel) && p.sending:
		// esc means "back" everywhere; on a running send it asks first, as
		// quitting does: a stop is not undone by a second esc.
		return p.c.showModal(newConfirm(p.c, "Stop the send?",
			fmt.Sprintf("Stop send %s after the chunk in flight?\nWhat has not gone stays \"not sent\"; R (or --resume) sends it later.\nThe default is No: the send goes on.", model.SanitizeLine(p.jobID)),
			func() tea.Cmd { p.cancelSend(); return nil }))
	case key.Matches(msg, k.Back):
		return p.c.back()
	case key.Matches(msg, k.Retry.Binding) && p.held != nil && p.held.running:
		p.note = "send " + p.jobID + " was " + p.held.goneOn + " and is sending: nothing to retry while it runs (followed here)"
	case key.Matches(msg, k.Retry.Binding) && !p.sending:
		return p.retry()
	case key.Matches(msg, k.Export.Binding) && len(p.results) > 0:
		return p.c.gate(k.Export.Action, func() tea.Cmd { return p.c.showModal(exportResultsForm(p.c, p)) })
	}
	return nil
}

// failed reports whether a result belongs in the failures filter.
// Once the send is over (sending false), recipients never sent count too:
// after an unreachable service, "failures only" showed 0 rows while 286 were
// not sent.
func failed(r model.SentItem, sending bool) bool {
	switch r.State {
	case model.StateRejected, model.StateFailed, model.StateUnknown:
		return true
	case model.StateQueued:
		return !sending
	}
	return r.Delivery == "failed" || r.Delivery == "rejected"
}

func (p *resultsPane) refilter() {
	p.shown = p.shown[:0]
	for i, r := range p.results {
		if !p.failOnly || failed(r, p.sending) {
			p.shown = append(p.shown, i)
		}
	}
	p.clamp()
}

// refilterKeep rebuilds the failures filter only when it is on.
func (p *resultsPane) refilterKeep() {
	if p.failOnly || len(p.shown) != len(p.results) {
		p.refilter()
	}
}

func (p *resultsPane) tableRows() int { return max(1, p.h-2-5-len(p.foot(p.w-2))) }

func (p *resultsPane) clamp() { p.scroll.clamp(len(p.shown), p.tableRows()) }

// resultDetail is everything known of one recipient, in full: its outcome
// (in words, as its row says it) and its message's delivery apart.
func resultDetail(jobID string, r model.SentItem, outcome string) []string {
	out := []string{
		"Send:        " + jobID,
		"Recipient:   " + r.Recipient + fmt.Sprintf(" (row %d)", r.Index+1),
		"Outcome:     " + outcome,
	}
	add := func(label, v string) {
		if v != "" {
			out = append(out, label+v)
		}
	}
	if w := deliveryWord(r.Delivery); w != "" && w != r.Delivery {
		add("Delivery:    ", w+" (the service said "+model.SanitizeLine(r.Delivery)+")")
	} else {
		add("Delivery:    ", w)
	}
	add("Message id:  ", r.MessageID)
	add("Batch id:    ", r.BatchID)
	if r.Chunk > 0 {
		out = append(out, fmt.Sprintf("Chunk:       %d", r.Chunk))
	}
	add("Code:        ", r.Code)
	add("Reason:      ", r.Error)
	return append(out, "", "Message, as sent:", r.Message)
}

// stopWhy says in a few words why a send stopped before its end.
// lastSendText says what became of the draft last sent, for the composer's
// note when c starts a new message: it "went" only when it did. After a
// cancelled send the composer said "the last one went" over 250 not sent
// (issue 40 item 18).
func (m *root) lastSendText() string {
	if id := m.composer.scheduledAs; id != "" {
		return "the last one is scheduled as send " + id + " (h shows it in the history)"
	}
	p := m.results
	notSent := len(p.retryable())
	switch {
	case p.jobID == "":
	case p.sending:
		return "the last one is still sending (its results: esc, then the history)"
	case p.isHeld():
		return "the last one is held at quiet hours" + p.heldUntil() + ": the rest goes on then"
	case p.summary != nil && p.summary.Stopped != "":
		return fmt.Sprintf("the last one stopped (%s): %s not sent; R in the history sends them", stopWhy(p.summary.Cause), thousands(notSent))
	case p.summary != nil && p.summary.Interrupted:
		return fmt.Sprintf("the last one was cancelled: %s not sent; R in the history sends them", thousands(notSent))
	}
	return "the last one went (h shows it in the history)"
}
