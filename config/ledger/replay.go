package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// replay reads and replays send id's records through q, a record at a
// time: the records are never joined into one text (a send of 100,000
// messages held its plan's text, its records' and the buffer's growth at
// once: 139 MB of heap for a 36 MB state; issue 42 costs).
func (l *Ledger) replay(ctx context.Context, q querier, id string) (*model.JournalState, error) {
	rows, err := q.QueryContext(ctx, l.q("SELECT seq, body FROM send_records WHERE send_id = ? ORDER BY seq"), id)
	if err != nil {
		return nil, err
	}
	defer closeRows(rows)
	rr := &recordReader{rows: rows}
	st, err := model.ReplayJournal(rr)
	switch {
	case rr.bad:
		return nil, l.damaged(fmt.Sprintf("send %s: its record %d is out of order or holds a line break", id, rr.badSeq), nil)
	case rr.err != nil:
		return nil, rr.err
	case errors.Is(err, model.ErrNotJournal) && rr.n == 0:
		return nil, fmt.Errorf("send %s: %w (see `smsdesk history`)", id, ErrNoSuchSend)
	case err != nil:
		return nil, l.damaged(fmt.Sprintf("send %s: %v", id, err), err)
	case st.Damaged > 0 || st.TruncatedTail:
		return nil, l.damaged(fmt.Sprintf("send %s: its record %v does not parse", id, st.DamagedLines), nil)
	}
	return st, nil
}

// errRecordStop ends a recordReader's text early: bad or err says why.
var errRecordStop = errors.New("the send's records stopped")

// recordReader is a send's records as a journal's text, a record and its
// newline at a time, for model.ReplayJournal. A record out of order or
// holding a line break stops it (bad: its seq); a failed read too (err).
type recordReader struct {
	rows *sql.Rows
	cur  string // what is left of the current record
	nl   bool   // its newline is still to come
	n    int    // records read
	// bad: a record was out of order or held a line break (badSeq its
	// seq); err: the read failed.
	bad    bool
	badSeq int
	err    error
}

func (r *recordReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for r.cur == "" {
		if r.nl { // the record's own text is never copied to add it
			r.nl = false
			p[0] = '\n'
			return 1, nil
		}
		if r.bad || r.err != nil {
			return 0, errRecordStop
		}
		if !r.rows.Next() {
			if r.err = r.rows.Err(); r.err != nil {
				return 0, errRecordStop
			}
			return 0, io.EOF
		}
		var seq int
		var body string
		if r.err = r.rows.Scan(&seq, &body); r.err != nil {
			return 0, errRecordStop
		}
		r.n++
		if seq != r.n || strings.ContainsAny(body, "\n\r") {
			r.bad, r.badSeq = true, seq
			return 0, errRecordStop
		}
		r.cur, r.nl = body, true
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}
