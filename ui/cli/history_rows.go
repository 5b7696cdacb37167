package cli

// What `history` prints of a send: its JSON object, its table or CSV row
// and the words of its status.

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyJSON is one send in `history --json`.
type historyJSON struct {
	ID       string            `json:"id"`
	Time     time.Time         `json:"time"`
	Profile  string            `json:"profile"`
	Sender   string            `json:"sender"`
	Source   string            `json:"source"`
	Status   string            `json:"status"` // complete, unresolved, interrupted, stopped, held, running, scheduled, cancelled, missed, unreadable
	Complete bool              `json:"complete"`
	Counts   model.StateCounts `json:"counts"`
	Error    *string           `json:"error"` // why the journal cannot be read
	// Stopped is the service's refusal that stopped the send, StopCause its
	// kind (credit, key, sender, account).
	Stopped   *string `json:"stopped"`
	StopCause *string `json:"stop_cause"`
	// DamagedLines are the journal's unreadable lines: the recipients they
	// may concern are unknown, never "not sent".
	DamagedLines []int `json:"damaged_lines"` // [] for a sound journal
	// Operator made the send on a served console (smsdesk serve): name and
	// key fingerprint; null for a send made at a local terminal. For a
	// scheduled send, who scheduled it.
	Operator *model.Operator `json:"operator"`
	// ScheduledFor is a scheduled send's time (null for a send started at
	// once); StartedBy the runner that started it (serve, scheduler, cron),
	// null before it starts or for a send an operator started; StartedAt
	// when it did (a late runner starts it after scheduled_for).
	ScheduledFor *time.Time `json:"scheduled_for"`
	StartedBy    *string    `json:"started_by"`
	StartedAt    *time.Time `json:"started_at"`
	// HeldUntil is when a send held at quiet hours may go on, kept after
	// it went on (null when quiet hours never held it); ContinuedBy is who
	// went on with it after the hold (null while held, or never held).
	HeldUntil   *time.Time     `json:"held_until"`
	ContinuedBy *continuedJSON `json:"continued_by"`
	// ResendOf is the send whose failed messages this one sent again
	// (send-pair --resend-failed); null otherwise.
	ResendOf *string `json:"resend_of"`
	// Delivery counts the send's accepted messages by delivery state
	// (messages 0: none accepted, or an unreadable send).
	Delivery model.DeliveryCounts `json:"delivery"`
}

// continuedJSON is who went on with a send held at quiet hours, and when:
// a runner (serve, scheduler, cron), or an operator's resume (operator
// null at a local terminal).
type continuedJSON struct {
	At       time.Time       `json:"at"`
	Runner   *string         `json:"runner"`
	Operator *model.Operator `json:"operator"`
}

// humanStatus is the status for people: "complete · 12 unknown" when a send
// ended with recipients nobody can account for; "scheduled · in 9h 40m" for
// a send that waits for its time.
func humanStatus(h historyJSON, now time.Time) string {
	switch {
	case h.Counts.Unknown > 0 && (h.Status == "complete" || h.Status == "unresolved"):
		return fmt.Sprintf("%s · %d unknown", h.Status, h.Counts.Unknown)
	case h.Status == "scheduled" && h.ScheduledFor != nil:
		return "scheduled · " + model.DueText(*h.ScheduledFor, now)
	case h.StartedAt != nil: // TIME is the planned time; this, when it went
		return h.Status + " · started " + startedText(*h.StartedAt, *h.ScheduledFor)
	case h.ResendOf != nil:
		return h.Status + " · resend of " + *h.ResendOf
	}
	return h.Status
}

// startedText is when a scheduled send started, beside its planned time:
// "18:00" the same day, "2026-03-21 08:00" another.
func startedText(started, planned time.Time) string {
	if started.Format("2006-01-02") == planned.In(started.Location()).Format("2006-01-02") {
		return started.Format("15:04")
	}
	return started.Format("2006-01-02 15:04")
}

// historyRows are history's table (or, csv, its CSV): a scheduled send at
// its planned time; the table's status counts down to it and says when a
// started one started, the CSV's is the status alone (a file keeps no live
// countdown) with started_at its own column. The table has BY when any send
// names an operator or a runner; the CSV always has it.
func historyRows(out []historyJSON, zone *time.Location, now time.Time, csv bool) ([]string, [][]string) {
	header := []string{"ID", "TIME", "PROFILE", "SENDER", "DELIVERY", "TOTAL", "ACCEPTED", "REJECTED", "FAILED", "UNKNOWN", "NOT SENT", "OPTED OUT", "STATUS"}
	if csv {
		// A CSV keeps its columns where scripts read them: delivery is
		// its last.
		header = append(slices.Delete(header, 4, 5), "BY", "STARTED AT", "DELIVERY")
	}
	rows := make([][]string, len(out))
	for i, h := range out {
		c := h.Counts
		when := h.Time
		if h.ScheduledFor != nil {
			when = *h.ScheduledFor // the time it is (or was) to go
		}
		status := humanStatus(h, now)
		if csv {
			status = h.Status
		}
		rows[i] = []string{h.ID, fmtTime(when, zone), h.Profile, h.Sender, deliveryCell(h.Delivery, csv), strconv.Itoa(c.Total), strconv.Itoa(c.Accepted),
			strconv.Itoa(c.Rejected), strconv.Itoa(c.Failed), strconv.Itoa(c.Unknown), strconv.Itoa(c.NotSent), strconv.Itoa(c.OptedOut), status}
		if csv {
			started := ""
			if h.StartedAt != nil {
				started = fmtTime(*h.StartedAt, zone)
			}
			rows[i] = append(slices.Delete(rows[i], 4, 5), csvBy(h), started, deliveryCell(h.Delivery, csv))
		}
	}
	if csv {
		for i := range header {
			header[i] = strings.ToLower(strings.ReplaceAll(header[i], " ", "_"))
		}
		return header, rows
	}
	return withOperators(out, header, rows)
}

// setDelivery sets the send's delivery counts, and its counts' delivered
// and undelivered from them: the deliveries rows are where webhooks and
// the runner's polls land.
func (h *historyJSON) setDelivery(c model.DeliveryCounts) {
	h.Delivery = c
	if c.Messages > 0 {
		h.Counts.Delivered, h.Counts.Undelivered = c.Delivered, c.Failed+c.Rejected
	}
}

// deliveryCell is the DELIVERY column: "8/10 delivered · 2 failed", "-"
// when none was accepted ("" in a CSV, where "-" reads as a formula's
// start).
func deliveryCell(c model.DeliveryCounts, csv bool) string {
	if csv && c.Messages == 0 {
		return ""
	}
	return c.Text()
}

// entryJSON is one send as history --json lists it, every time in the
// profile's timezone (zone) with its offset (RFC 3339), as the opt-out
// list's and a scheduled send's are: the same instant, read the same way as
// the table.
func entryJSON(l app.HistoryEntry, zone *time.Location) historyJSON {
	h := historyJSON{ID: l.ID, Status: l.Status(), DamagedLines: []int{}}
	if l.Err != nil {
		h.Error = nullable(l.Err.Error())
		return h
	}
	st := l.State
	p := st.Plan
	h.Time, h.Profile, h.Sender, h.Source, h.Operator = p.Time.In(zone), p.Profile, p.Sender, p.Source, p.Operator
	h.Complete, h.Counts = st.Complete(), st.Counts()
	h.DamagedLines = append([]int{}, st.DamagedLines...)
	h.Stopped, h.StopCause = nullable(st.Stopped), nullable(st.StopCause)
	h.ResendOf = nullable(p.ResendOf)
	if st.Scheduled() {
		at := p.ScheduledFor.In(zone)
		h.ScheduledFor, h.StartedBy = &at, nullable(st.StartedBy)
		if !st.StartedAt.IsZero() {
			started := st.StartedAt.In(zone)
			h.StartedAt = &started
		}
	}
	if hold := st.Hold; hold != nil {
		until := hold.Until.In(zone)
		h.HeldUntil = &until
		if hold.Continued() {
			h.ContinuedBy = &continuedJSON{At: hold.ContinuedAt.In(zone), Runner: nullable(hold.Runner), Operator: hold.Operator}
		}
	}
	if c := st.Cancel; c != nil { // cancelled or missed: why, in stopped
		h.Stopped, h.StopCause = nullable(cancelText(c, zone)), nullable(c.Cause)
	}
	if st.Damaged > 0 {
		h.Status += fmt.Sprintf(" · %d damaged line(s)", st.Damaged)
	}
	return h
}

// cancelText says why a scheduled send never started: "cancelled by sara
// at 2026-11-25 10:12:00 +0330", or a missed send's reason.
func cancelText(c *model.JournalCancel, zone *time.Location) string {
	if c.Cause == model.CancelMissed {
		return "missed: " + c.Reason
	}
	by := ""
	if c.Operator != nil {
		by = " by " + c.Operator.Name
	}
	return fmt.Sprintf("cancelled%s at %s", by, fmtTime(c.Time, zone))
}

// writeCSV writes a header and rows as CSV, every cell neutralised.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(header)
	for _, r := range rows {
		_ = cw.Write(model.CSVRow(r))
	}
	cw.Flush()
	return cw.Error()
}
