package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// fillVersion2 brings what a version-1 ledger knows into version 2's new
// columns and tables, in the migration's transaction:
//
//   - an opt-out added by an import is marked so (source import): the
//     import's audit record names its time, line and note, which every
//     entry it added shares; every other entry stays operator's (what
//     version 1 knew of it: a person put it there);
//   - every message its sends' records say the service accepted gets its
//     deliveries row, with the last delivery state polled for it (and the
//     time of that poll), so that a send made before the upgrade has its
//     delivery report as a new one does. A send whose records do not
//     replay is left without rows: it is found damaged when read, as
//     before, and the upgrade does not stop every other send's.
func fillVersion2(ctx context.Context, l *Ledger, tx *sql.Tx) error {
	if err := fillOptOutSources(ctx, l, tx); err != nil {
		return err
	}
	return fillDeliveries(ctx, l, tx)
}

// fillOptOutSources marks the entries each optout_import audit record added.
func fillOptOutSources(ctx context.Context, l *Ledger, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT body FROM audit WHERE action = 'optout_import'")
	if err != nil {
		return err
	}
	type mark struct{ added, sender, note string }
	var marks []mark
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			closeRows(rows)
			return err
		}
		var r struct {
			Time   time.Time `json:"time"`
			Sender string    `json:"sender"`
			Note   string    `json:"note"`
			Error  string    `json:"error"`
		}
		if json.Unmarshal([]byte(body), &r) != nil || r.Time.IsZero() || r.Error != "" {
			continue // not an import that added anything this can tell
		}
		marks = append(marks, mark{r.Time.UTC().Format(time.RFC3339Nano), r.Sender, r.Note})
	}
	closeRows(rows)
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range marks {
		if _, err := tx.ExecContext(ctx, l.q("UPDATE optouts SET source = 'import' WHERE added = ? AND sender = ? AND note = ?"),
			m.added, m.sender, m.note); err != nil {
			return err
		}
	}
	return nil
}

// fillDeliveries writes the deliveries rows of every send's accepted messages.
func fillDeliveries(ctx context.Context, l *Ledger, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, account, sender FROM sends WHERE records > 0 ORDER BY id")
	if err != nil {
		return err
	}
	type send struct{ id, account, sender string }
	var sends []send
	for rows.Next() {
		var s send
		if err := rows.Scan(&s.id, &s.account, &s.sender); err != nil {
			closeRows(rows)
			return err
		}
		sends = append(sends, s)
	}
	closeRows(rows)
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range sends {
		list, err := acceptedOf(ctx, l, tx, s.id)
		if err != nil {
			return err
		}
		for i := range list {
			list[i].account, list[i].sender = s.account, s.sender
		}
		if err := l.insertDeliveries(ctx, tx, list); err != nil {
			return err
		}
	}
	return nil
}

// acceptedOf reads send id's records in tx: a deliveries row for each
// message accepted, in the state last polled. Records that do not replay
// give none.
func acceptedOf(ctx context.Context, l *Ledger, tx *sql.Tx, id string) ([]deliveryRow, error) {
	rows, err := tx.QueryContext(ctx, l.q("SELECT body FROM send_records WHERE send_id = ? ORDER BY seq"), id)
	if err != nil {
		return nil, err
	}
	defer closeRows(rows)
	var buf bytes.Buffer
	var records []model.JournalRecord
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		buf.WriteString(body)
		buf.WriteByte('\n')
		if rec, err := model.UnmarshalJournalRecord([]byte(body)); err == nil {
			records = append(records, rec)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	st, err := model.ReplayJournal(&buf)
	if err != nil || st.Damaged > 0 || st.TruncatedTail {
		return nil, nil
	}
	return acceptedRows(id, st, records, l.deliveryPollAfter()), nil
}

// acceptedRows are the deliveries rows of send id, replayed as st from
// records: one for each message accepted, in the state last polled (at
// that poll's time), due for the poller pollAfter after its acceptance
// unless final. The caller fills in the account and the line.
func acceptedRows(id string, st *model.JournalState, records []model.JournalRecord, pollAfter time.Duration) []deliveryRow {
	polled := map[int]time.Time{} // the time of each item's last polled state
	for _, rec := range records {
		if d, ok := rec.(*model.JournalDelivery); ok {
			for _, u := range d.Updates {
				polled[u.Index] = d.Time
			}
		}
	}
	var out []deliveryRow
	for _, it := range st.Items {
		if it.State != model.StateAccepted {
			continue
		}
		r := deliveryRow{sendID: id, idx: it.Index, messageID: it.MessageID, recipient: canonicalNumber(it.Recipient),
			state: model.DeliveryPending, acceptedAt: it.At, at: it.At}
		if s, ok := model.ParseDeliveryState(it.Delivery); ok && s != model.DeliveryNoReport {
			r.state, r.at = s, polled[it.Index]
		}
		if !r.state.Final() {
			r.nextPoll = r.acceptedAt.Add(pollAfter)
		}
		out = append(out, r)
	}
	return out
}
