package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"

	"github.com/smsdesk/smsdesk/model"
)

// keepNumbers keeps plan's recipients for the lease's outcomes.
func (s *Lease) keepNumbers(plan *model.JournalPlan) {
	numbers := make([]string, len(plan.Items))
	for i, it := range plan.Items {
		numbers[i] = canonicalNumber(it.Recipient)
	}
	s.mu.Lock()
	s.numbers = numbers
	s.mu.Unlock()
}

// planNumbers are the send's recipients by item index: kept by the lease,
// or read once from its plan in tx (a lease that claimed a send another
// run planned), then kept.
func (s *Lease) planNumbers(ctx context.Context, tx *sql.Tx) ([]string, error) {
	s.mu.Lock()
	numbers := s.numbers
	s.mu.Unlock()
	if numbers != nil {
		return numbers, nil
	}
	var body string
	if err := tx.QueryRowContext(ctx, s.l.q("SELECT body FROM send_records WHERE send_id = ? AND seq = 1"), s.id).Scan(&body); err != nil {
		return nil, err
	}
	var plan struct {
		Items []model.JournalItem `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &plan); err != nil {
		return nil, s.l.damaged("send "+s.id+": its plan does not parse", err)
	}
	s.keepNumbers(&model.JournalPlan{Items: plan.Items})
	return s.planNumbers(ctx, tx)
}

// recordDeliveryRows writes what rec, the next record of lease s's send
// (its row as read), says of its messages' deliveries rows: an outcome
// writes them, a run's own poll moves them.
func (l *Ledger) recordDeliveryRows(ctx context.Context, tx *sql.Tx, s *Lease, row leasedSendRow, rec model.JournalRecord) error {
	switch r := rec.(type) {
	case *model.JournalOutcome:
		return l.recordDeliveries(ctx, tx, s, row.account, row.sender, r)
	case *model.JournalDelivery:
		return l.recordPolled(ctx, tx, s.id, r)
	}
	return nil
}

// recordPolled moves send id's deliveries rows forward (never back) to the
// states a run's own poll found (a console's results pane polls while it
// watches its send), in the record's transaction: the rows are what every
// face reads (history show, the report, the console's history detail), and
// were left pending while the journal said delivered.
func (l *Ledger) recordPolled(ctx context.Context, tx *sql.Tx, id string, d *model.JournalDelivery) error {
	moved := false
	for _, u := range d.Updates {
		state, ok := model.ParseDeliveryState(u.State)
		if !ok || state == model.DeliveryNoReport {
			continue // a word this version does not know; no_report is the poller's give-up alone
		}
		m, err := l.moveDelivery(ctx, tx, deliveryKey{sendID: id, idx: u.Index}, state, d.Time)
		if err != nil {
			return err
		}
		moved = moved || m
	}
	if !moved {
		return nil
	}
	return l.bumpCounter(ctx, tx, counterDeliveries)
}

// recordDeliveries writes, in the outcome's transaction, a deliveries row
// for each message o says the service accepted, then applies the events
// that came for them before (matchEvents).
func (l *Ledger) recordDeliveries(ctx context.Context, tx *sql.Tx, s *Lease, account, sender string, o *model.JournalOutcome) error {
	var accepted []model.JournalResult
	for _, r := range o.Results {
		if r.State == model.StateAccepted {
			accepted = append(accepted, r)
		}
	}
	if len(accepted) == 0 {
		return nil
	}
	numbers, err := s.planNumbers(ctx, tx)
	if err != nil {
		return err
	}
	if err := l.lockAccounts(ctx, tx, []string{account}); err != nil {
		return err
	}
	next := o.Time.Add(l.deliveryPollAfter())
	rows := make([]deliveryRow, 0, len(accepted))
	ids := make([]string, 0, len(accepted))
	for _, r := range accepted {
		if r.Index < 0 || r.Index >= len(numbers) {
			continue // not an item of the plan: replay ignores it too
		}
		rows = append(rows, deliveryRow{sendID: s.id, idx: r.Index, messageID: r.MessageID, account: account,
			sender: sender, recipient: numbers[r.Index], state: model.DeliveryPending, acceptedAt: o.Time, at: o.Time, nextPoll: next})
		if r.MessageID != "" {
			ids = append(ids, r.MessageID)
		}
	}
	if err := l.insertDeliveries(ctx, tx, rows); err != nil {
		return err
	}
	if err := l.matchEvents(ctx, tx, account, ids); err != nil {
		return err
	}
	return l.bumpCounter(ctx, tx, counterDeliveries)
}

// matchEvents applies the delivery events of account's messageIDs stored
// unmatched (they came before the outcome that accepted them), each in
// the order of its state's rank (so each state's time is kept), and marks
// them matched.
func (l *Ledger) matchEvents(ctx context.Context, tx *sql.Tx, account string, messageIDs []string) error {
	if len(messageIDs) == 0 {
		return nil
	}
	var waiting bool
	if err := tx.QueryRowContext(ctx, l.q("SELECT EXISTS (SELECT 1 FROM events WHERE account = ? AND matched IS NULL)"), account).Scan(&waiting); err != nil || !waiting {
		return err
	}
	var found []Event
	for batch := range slices.Chunk(messageIDs, lookupBatch) {
		args := append([]any{account}, anys(batch)...)
		rows, err := tx.QueryContext(ctx, l.q(`SELECT message_id, event, status, occurred_at, received_at FROM events
			WHERE account = ? AND matched IS NULL AND message_id IN `+marks(len(batch))), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			e := Event{Account: account}
			var occurred, received int64
			if err := rows.Scan(&e.MessageID, &e.Kind, &e.Status, &occurred, &received); err != nil {
				closeRows(rows)
				return err
			}
			e.OccurredAt, e.ReceivedAt = fromNanos(occurred), fromNanos(received)
			found = append(found, e)
		}
		closeRows(rows)
		if err := rows.Err(); err != nil {
			return err
		}
	}
	slices.SortStableFunc(found, func(a, b Event) int {
		sa, _ := a.DeliveryState()
		sb, _ := b.DeliveryState()
		return sa.Rank() - sb.Rank()
	})
	for _, e := range found {
		if err := l.applyWaiting(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// applyWaiting applies one event stored unmatched to its message's rows,
// now written, and marks it matched.
func (l *Ledger) applyWaiting(ctx context.Context, tx *sql.Tx, e Event) error {
	state, ok := e.DeliveryState()
	if !ok {
		return nil
	}
	keys, err := l.deliveriesOf(ctx, tx, e.Account, e.MessageID)
	if err != nil || len(keys) == 0 {
		return err
	}
	for _, k := range keys {
		if _, err := l.moveDelivery(ctx, tx, k, state, e.at()); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, l.q("UPDATE events SET matched = ? WHERE account = ? AND message_id = ? AND event = ?"),
		keys[0].sendID, e.Account, e.MessageID, e.Kind)
	return err
}

// anys is list as arguments.
func anys(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
