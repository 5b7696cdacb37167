package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// A record that does not parse in a finished send is read by no send:
// the pages it sits in are whole, so neither SQLite's checks nor
// PostgreSQL's see it, and the sends that follow would never look. The
// verification reads every row instead: `ledger status` and doctor run
// it, and runners at their start and at most once an hour (VerifyDue:
// the time of the last one is kept in the ledger, metaVerified). A CLI
// send never runs it: it costs as the ledger grows (BENCHMARKS.md).

// metaVerified is the meta key of the last verification's time.
const metaVerified = "verified_at"

// Verified counts the rows a verification read.
type Verified struct {
	Sends, Records, OptOuts, OnceIDs, Audit int
}

// VerifyRows reads every row of the ledger and checks it reads as smsdesk
// wrote it: every send's records parse, are in order and replay, and its
// summary row (what history and runners read) agrees with them; every
// opt-out is a number in its list's form with its time; every once-only id
// is one, with its send's id, its pairs' digest and its time; every audit
// record is JSON. The first row that does not is a *DamagedError, kept in
// the ledger (every process then refuses every start). Each table is read
// in one statement (one consistent view of it, while others write).
func (l *Ledger) VerifyRows(ctx context.Context) (Verified, error) {
	var v Verified
	for _, check := range []func(context.Context, *Verified) (string, error){l.verifySends, l.verifyOnce, l.verifyOptOuts, l.verifyAudit} {
		problem, err := check(ctx, &v)
		if err != nil {
			return v, l.fail("verifying the ledger's rows", err)
		}
		if problem != "" {
			return v, l.keep(l.damaged(problem, nil).(*DamagedError))
		}
	}
	return v, nil
}

// Verify is a runner's verification: the store's pages (QuickCheck), then
// every row (VerifyRows). Its time is kept in the ledger once it passes
// (VerifyDue).
func (l *Ledger) Verify(ctx context.Context) (Verified, error) {
	if err := l.QuickCheck(ctx); err != nil {
		return Verified{}, err
	}
	if err := l.DamageMark(ctx); err != nil {
		return Verified{}, err
	}
	v, err := l.VerifyRows(ctx)
	if err != nil {
		return v, err
	}
	return v, l.withTx(ctx, "keeping the time of the ledger's verification", func(tx *sql.Tx) error {
		var now int64
		if err := tx.QueryRowContext(ctx, "SELECT "+l.d.clock()).Scan(&now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, l.q("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
			metaVerified, time.Unix(0, now).UTC().Format(time.RFC3339Nano))
		return err
	})
}

// VerifyDue reports whether the ledger's last verification (by any process
// on it) is every or more ago by the ledger's clock, or there was none.
func (l *Ledger) VerifyDue(ctx context.Context, every time.Duration) (bool, error) {
	var at sql.NullString
	var now int64
	err := l.db.QueryRowContext(ctx, l.q("SELECT (SELECT value FROM meta WHERE key = ?), "+l.d.clock()), metaVerified).Scan(&at, &now)
	if err != nil {
		return false, l.fail("reading when the ledger was last verified", err)
	}
	if !at.Valid {
		return true, nil
	}
	t, err := time.Parse(time.RFC3339Nano, at.String)
	if err != nil {
		return true, nil // verified again, and its time written anew
	}
	return time.Unix(0, now).Sub(t) >= every, nil
}

// sendRow is a send's summary row as VerifyRows reads it, and its records.
type sendRow struct {
	id, state                                        string
	planTime, scheduled, held, touched               int64
	due                                              sql.NullInt64
	profile, account, host, sender, operator, source string
	items, records                                   int
	bodies                                           []string
	types                                            []string
}

// verifySends reads every send's summary row with its records, in one
// statement, and checks each send (checkSend).
func (l *Ledger) verifySends(ctx context.Context, v *Verified) (string, error) {
	var orphans int
	if err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM send_records r WHERE NOT EXISTS (SELECT 1 FROM sends s WHERE s.id = r.send_id)`).
		Scan(&orphans); err != nil {
		return "", err
	}
	if orphans > 0 {
		return fmt.Sprintf("%d send records belong to no send", orphans), nil
	}
	rows, err := l.db.QueryContext(ctx, `SELECT s.id, s.plan_time, s.state, s.due_at, s.scheduled_for, s.held_until, s.touched,
		s.profile, s.account, s.host, s.sender, s.operator, s.source, s.items, s.records, r.seq, r.type, r.body
		FROM sends s LEFT JOIN send_records r ON r.send_id = s.id ORDER BY s.id, r.seq`)
	if err != nil {
		return "", err
	}
	defer closeRows(rows)
	var cur *sendRow
	for rows.Next() {
		var s sendRow
		var seq sql.NullInt64
		var typ, body sql.NullString
		if err := rows.Scan(&s.id, &s.planTime, &s.state, &s.due, &s.scheduled, &s.held, &s.touched, &s.profile, &s.account, &s.host,
			&s.sender, &s.operator, &s.source, &s.items, &s.records, &seq, &typ, &body); err != nil {
			return "", err
		}
		if cur == nil || cur.id != s.id {
			if problem := checkSend(cur, v); problem != "" {
				return problem, nil
			}
			cur = &s
		}
		if seq.Valid {
			if int(seq.Int64) != len(cur.bodies)+1 {
				return fmt.Sprintf("send %s: its record %d is out of order", model.SanitizeLine(cur.id), seq.Int64), nil
			}
			cur.bodies, cur.types = append(cur.bodies, body.String), append(cur.types, typ.String)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return checkSend(cur, v), nil
}

// checkSend checks one send's records and summary row (nil: none): "" when
// they agree, else what is wrong.
func checkSend(s *sendRow, v *Verified) string {
	if s == nil {
		return ""
	}
	v.Sends++
	v.Records += len(s.bodies)
	id := model.SanitizeLine(s.id)
	if CheckID(s.id) != nil {
		return fmt.Sprintf("a send's id %q is not an id", id)
	}
	if len(s.bodies) != s.records {
		return fmt.Sprintf("send %s: its summary row counts %d records, it has %d", id, s.records, len(s.bodies))
	}
	if s.records == 0 {
		if s.state != string(StateReserved) {
			return fmt.Sprintf("send %s: it has no records, and its summary row says %s", id, s.state)
		}
		return "" // a reserved id whose plan has not come
	}
	recs := make([]model.JournalRecord, len(s.bodies))
	for i, body := range s.bodies {
		rec, err := model.UnmarshalJournalRecordOf(s.types[i], []byte(body)) // one pass: the row says its type
		if err != nil || strings.ContainsAny(body, "\n\r") {
			if rec, err := model.UnmarshalJournalRecord([]byte(body)); err == nil && rec.RecordType() != s.types[i] {
				return fmt.Sprintf("send %s: its record %d is a %s, its row says %s", id, i+1, rec.RecordType(), model.SanitizeLine(s.types[i]))
			}
			return fmt.Sprintf("send %s: its record %d does not parse", id, i+1)
		}
		recs[i] = rec
	}
	return s.agrees(recs)
}

// agrees checks a send's summary row against its records (parsed): the
// plan's fields, the latest time they name, and its state and due time as
// the ledger keeps them (replayed as of its latest record that may change
// them, as Append does, or whole, as a bulk load does).
func (s *sendRow) agrees(recs []model.JournalRecord) string {
	id := model.SanitizeLine(s.id)
	plan, ok := recs[0].(*model.JournalPlan)
	if !ok {
		return fmt.Sprintf("send %s: its first record is a %s, not its plan", id, recs[0].RecordType())
	}
	for _, rec := range recs[1:] {
		if _, again := rec.(*model.JournalPlan); again {
			return fmt.Sprintf("send %s: it has a second plan", id)
		}
	}
	var touched int64
	last := 0 // the latest record that may change its state (changesDue)
	for i, rec := range recs {
		touched = touchedBy(touched, rec)
		if changesDue(rec) {
			last = i
		}
	}
	operator := ""
	if plan.Operator != nil {
		operator = plan.Operator.Name
	}
	for _, f := range []struct {
		name      string
		row, recs any
	}{
		{"plan time", s.planTime, nanos(plan.Time)}, {"scheduled time", s.scheduled, nanos(plan.ScheduledFor)},
		{"latest time", s.touched, touched}, {"profile", s.profile, plan.Profile}, {"account", s.account, plan.Account},
		{"service", s.host, model.ServiceHost(plan.BaseURL)}, {"sender", s.sender, plan.Sender}, {"operator", s.operator, operator},
		{"source", s.source, plan.Source}, {"items", s.items, len(plan.Items)},
	} {
		if f.row != f.recs {
			return fmt.Sprintf("send %s: its summary row's %s is %v, its records say %v", id, f.name, f.row, f.recs)
		}
	}
	return s.stateAgrees(recs, plan, last)
}

// stateAgrees checks the row's state, due and held times against the
// records replayed.
func (s *sendRow) stateAgrees(recs []model.JournalRecord, plan *model.JournalPlan, last int) string {
	id := model.SanitizeLine(s.id)
	st, err := model.ReplayRecords(recs)
	if err != nil {
		return fmt.Sprintf("send %s: %v", id, err)
	}
	want := []func() (State, time.Time, time.Time){func() (State, time.Time, time.Time) { return summarize(st, &st.Plan) }}
	if len(recs) == 1 {
		want = append(want, func() (State, time.Time, time.Time) { return summarize(&model.JournalState{Plan: *plan}, plan) })
	}
	if last < len(recs)-1 {
		want = append(want, func() (State, time.Time, time.Time) {
			prefix, err := model.ReplayRecords(recs[:last+1])
			if err != nil {
				return "", time.Time{}, time.Time{}
			}
			return summarize(prefix, &prefix.Plan)
		})
	}
	var state State
	var due, held time.Time
	for _, w := range want {
		state, due, held = w()
		if string(state) == s.state && nullNanos(due) == s.due && nanos(held) == s.held {
			return ""
		}
	}
	return fmt.Sprintf("send %s: its summary row says %s (due %s, held until %s), its records say %s (due %s, held until %s)", id,
		model.SanitizeLine(s.state), timeWord(fromNanos(s.due.Int64)), timeWord(fromNanos(s.held)), state, timeWord(due), timeWord(held))
}

// timeWord is t for a problem's words ("none" for zero).
func timeWord(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}

// verifyOnce checks every once-only id's row.
func (l *Ledger) verifyOnce(ctx context.Context, v *Verified) (string, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT "+onceColumns+" FROM once_ids")
	if err != nil {
		return "", err
	}
	defer closeRows(rows)
	for rows.Next() {
		var o OnceSend
		var at string
		if err := rows.Scan(&o.ID, &o.SendID, &o.Pairs, &o.Count, &o.Source, &at, &o.Profile, &o.Operator); err != nil {
			return "", err
		}
		v.OnceIDs++
		id := model.SanitizeLine(o.ID)
		_, terr := time.Parse(time.RFC3339Nano, at)
		switch {
		case model.CheckOnceID(o.ID) != nil:
			return fmt.Sprintf("once-only id %q is not an id", id), nil
		case CheckID(o.SendID) != nil:
			return fmt.Sprintf("once-only id %q: its send %q is not a send's id", id, model.SanitizeLine(o.SendID)), nil
		case !isDigest(o.Pairs):
			return fmt.Sprintf("once-only id %q: its pairs' digest %q is not one", id, model.SanitizeLine(o.Pairs)), nil
		case o.Count < 0:
			return fmt.Sprintf("once-only id %q: its count %d is not a count", id, o.Count), nil
		case terr != nil:
			return fmt.Sprintf("once-only id %q: its time %q does not parse", id, model.SanitizeLine(at)), nil
		}
	}
	return "", rows.Err()
}

// isDigest reports whether s is a model.PairsDigest: 64 lower-case hex
// digits.
func isDigest(s string) bool {
	return len(s) == 64 && !strings.ContainsFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') })
}

// verifyOptOuts checks every opt-out's row: its number in its list's form
// (model.OptOutKey), its line, its time and its operator.
func (l *Ledger) verifyOptOuts(ctx context.Context, v *Verified) (string, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT "+optOutColumns+" FROM optouts")
	if err != nil {
		return "", err
	}
	defer closeRows(rows)
	for rows.Next() {
		o, err := scanOptOut(rows)
		if err != nil {
			return err.Error(), nil
		}
		v.OptOuts++
		if key, err := model.OptOutKey(o.Mobile); err != nil || key != o.Mobile {
			return fmt.Sprintf("opt-out %q is not a number in the list's form", model.SanitizeLine(o.Mobile)), nil
		}
		if model.SanitizeLine(o.Sender) != o.Sender || strings.TrimSpace(o.Sender) != o.Sender {
			return fmt.Sprintf("opt-out %s: its line %q is not a line", o.Mobile, model.SanitizeLine(o.Sender)), nil
		}
	}
	return "", rows.Err()
}

// verifyAudit checks every audit record is a JSON object with its action.
func (l *Ledger) verifyAudit(ctx context.Context, v *Verified) (string, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT seq, action, body FROM audit")
	if err != nil {
		return "", err
	}
	defer closeRows(rows)
	for rows.Next() {
		var seq int64
		var action, body string
		if err := rows.Scan(&seq, &action, &body); err != nil {
			return "", err
		}
		v.Audit++
		var obj map[string]json.RawMessage
		if action == "" || json.Unmarshal([]byte(body), &obj) != nil {
			return fmt.Sprintf("audit record %d does not parse", seq), nil
		}
	}
	return "", rows.Err()
}
