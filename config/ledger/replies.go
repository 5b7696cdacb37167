package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// actOnReply does what an inbound message asks of its line's opt-out list
// (issue 42 §5), inside the transaction that files it: «۱۱», «لغو» or
// «لغو۱۱» in any spelling (model.ReplyActionOf) puts the number that wrote
// on the list of the line it wrote to, source reply, with the message's id;
// «۱۲» takes back a reply's entry for that line, never one an operator or
// an import made. It returns what it changed (model.ReplyOptOut,
// ReplyOptIn, or ReplyNothing: any other reply, a number already so, a
// reply whose number or line is not known). Each change is audited.
func (l *Ledger) actOnReply(ctx context.Context, tx *sql.Tx, e Event) (model.ReplyAction, error) {
	m := e.Inbound
	mobile, err := model.OptOutKey(m.Sender)
	if err != nil || m.Line == "" {
		return model.ReplyNothing, nil // not a number an opt-out can name, or no line to hold it for
	}
	switch model.ReplyActionOf(m.Message) {
	case model.ReplyOptOut:
		return l.replyOptOut(ctx, tx, e, mobile)
	case model.ReplyOptIn:
		return l.replyOptIn(ctx, tx, e, mobile)
	}
	return model.ReplyNothing, nil
}

// replyOptOut puts mobile on the line's list unless it is on it already
// (for that line or every line).
func (l *Ledger) replyOptOut(ctx context.Context, tx *sql.Tx, e Event, mobile string) (model.ReplyAction, error) {
	line := e.Inbound.Line
	var one int
	err := tx.QueryRowContext(ctx, l.q("SELECT 1 FROM optouts WHERE mobile = ? AND (sender = '' OR sender = ?) LIMIT 1"), mobile, line).Scan(&one)
	switch {
	case err == nil:
		return model.ReplyNothing, nil
	case !errors.Is(err, sql.ErrNoRows):
		return model.ReplyNothing, err
	}
	o := model.OptOut{Mobile: mobile, Sender: line, Note: replyNote(e), Added: e.ReceivedAt.UTC(),
		Source: model.OptOutReply, MessageID: e.MessageID}
	if err := insertOptOut(ctx, l, tx, o); err != nil {
		return model.ReplyNothing, err
	}
	return model.ReplyOptOut, l.replyChanged(ctx, tx, e, "optout_reply", mobile)
}

// replyOptIn removes the line's entry of mobile if a reply made it.
func (l *Ledger) replyOptIn(ctx context.Context, tx *sql.Tx, e Event, mobile string) (model.ReplyAction, error) {
	res, err := tx.ExecContext(ctx, l.q("DELETE FROM optouts WHERE mobile = ? AND sender = ? AND source = ?"),
		mobile, e.Inbound.Line, model.OptOutReply)
	if err != nil {
		return model.ReplyNothing, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return model.ReplyNothing, err
	}
	return model.ReplyOptIn, l.replyChanged(ctx, tx, e, "optin_reply", mobile)
}

// replyNote is the entry's note: the reply as written (sanitised, short).
func replyNote(e Event) string {
	text := []rune(model.SanitizeLine(e.Inbound.Message))
	if len(text) > 40 {
		text = append(text[:40], '…')
	}
	return fmt.Sprintf("reply «%s»", string(text))
}

// replyAudit is config.AuditRecord's JSON for a reply's change (the ledger
// cannot import config; the field names are the same, and message_id is
// the reply's).
type replyAudit struct {
	Time      string `json:"time"`
	Action    string `json:"action"`
	Mobile    string `json:"mobile"`
	Sender    string `json:"sender"`
	Note      string `json:"note,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	Profile   string `json:"profile,omitempty"`
}

// replyChanged audits a reply's change and tells watchers the list moved.
func (l *Ledger) replyChanged(ctx context.Context, tx *sql.Tx, e Event, action, mobile string) error {
	at := e.ReceivedAt.UTC()
	body, err := json.Marshal(replyAudit{Time: at.Format(time.RFC3339Nano), Action: action, Mobile: mobile,
		Sender: e.Inbound.Line, Note: replyNote(e), MessageID: e.MessageID, Profile: e.Profile})
	if err != nil {
		return err
	}
	if err := l.appendAudit(ctx, tx, AuditEntry{Time: at, Action: action, Body: body}); err != nil {
		return err
	}
	return l.bumpCounter(ctx, tx, counterOptOuts)
}
