package config

import (
	"context"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// InboxMessage is one message a recipient wrote to one of the account's
// lines (an sms.inbound webhook), with what it did.
type InboxMessage = ledger.InboxMessage

// InboxFilter chooses messages of the inbox (since, line, limit).
type InboxFilter = ledger.InboxFilter

// Inbox are the messages of account's inbox f chooses, newest first.
func Inbox(ctx context.Context, p Paths, account string, f InboxFilter) ([]InboxMessage, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.Inbox(ctx, account, f)
}
