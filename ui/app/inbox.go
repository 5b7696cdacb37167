package app

import (
	"context"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// InboxQuery chooses messages of the inbox: received since Since (zero:
// any time), written to Line ("": any), at most Limit (0: every one).
type InboxQuery struct {
	Since time.Time
	Line  string
	Limit int
}

// InboxMessage is one reply, its strings sanitised for a terminal and its
// times in the profile's zone.
type InboxMessage struct {
	MessageID, Sender, Line, Message string
	ReceivedAt                       time.Time
	// Action is what it did to the line's opt-out list: opted_out,
	// opted_in, or "" (model.ReplyAction).
	Action model.ReplyAction
	// SendID is the last send from Line to Sender before it ("": none).
	SendID string
}

// Inbox is what recipients wrote to the account's lines, newest first
// (issue 42 §4): kept by the webhook receiver as sms.inbound events came.
func (s *Session) Inbox(ctx context.Context, q InboxQuery) ([]InboxMessage, error) {
	if q.Limit < 0 {
		return nil, fmt.Errorf("a limit of %d messages: give a positive number", q.Limit)
	}
	acct, err := s.account()
	if err != nil {
		return nil, err
	}
	msgs, err := config.Inbox(ctx, s.Paths, acct, config.InboxFilter{Since: q.Since, Line: q.Line, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	loc := s.Profile.Zone()
	out := make([]InboxMessage, len(msgs))
	for i, m := range msgs {
		out[i] = InboxMessage{MessageID: model.SanitizeLine(m.MessageID), Sender: model.SanitizeLine(m.Sender),
			Line: model.SanitizeLine(m.Line), Message: model.SanitizeLine(m.Message), ReceivedAt: m.ReceivedAt.In(loc),
			Action: model.ReplyAction(m.Action), SendID: model.SanitizeLine(m.SendID)}
	}
	return out, nil
}
