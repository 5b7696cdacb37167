package ledger

import (
	"context"
	"slices"

	"github.com/smsdesk/smsdesk/model"
)

// DeliveryCounts counts the accepted messages of each of sends ids by
// delivery state (a send nothing of which was accepted is not in the
// map), a batch of sends a query: a page of the history reads its
// deliveries column in one or two.
func (l *Ledger) DeliveryCounts(ctx context.Context, ids []string) (map[string]model.DeliveryCounts, error) {
	out := make(map[string]model.DeliveryCounts, len(ids))
	for batch := range slices.Chunk(ids, lookupBatch) {
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		rows, err := l.db.QueryContext(ctx, l.q("SELECT send_id, state, count(*) FROM deliveries WHERE send_id IN "+marks(len(batch))+" GROUP BY send_id, state"), args...)
		if err != nil {
			return nil, l.fail("counting deliveries", err)
		}
		for rows.Next() {
			var id, state string
			var n int
			if err := rows.Scan(&id, &state, &n); err != nil {
				closeRows(rows)
				return nil, l.fail("counting deliveries", err)
			}
			s, ok := model.ParseDeliveryState(state)
			if !ok {
				closeRows(rows)
				return nil, l.damaged("send "+id+": a delivery state "+model.SanitizeLine(state)+" that this smsdesk does not know", nil)
			}
			c := out[id]
			c.Add(s, n)
			out[id] = c
		}
		closeRows(rows)
		if err := rows.Err(); err != nil {
			return nil, l.fail("counting deliveries", err)
		}
	}
	return out, nil
}

// SendReplies are the first message each number wrote back after send id
// (the inbox's messages linked to it: the last send from that line to
// that number when it came), by number (canonical, as deliveries keep
// it).
func (l *Ledger) SendReplies(ctx context.Context, id string) (map[string]string, error) {
	rows, err := l.db.QueryContext(ctx, l.q("SELECT sender, message FROM inbox WHERE send_id = ? ORDER BY received_at, seq"), id)
	if err != nil {
		return nil, l.fail("reading the replies to send "+id, err)
	}
	defer closeRows(rows)
	out := map[string]string{}
	for rows.Next() {
		var sender, message string
		if err := rows.Scan(&sender, &message); err != nil {
			return nil, l.fail("reading the replies to send "+id, err)
		}
		if _, ok := out[sender]; !ok {
			out[sender] = message
		}
	}
	return out, l.fail("reading the replies to send "+id, rows.Err())
}
