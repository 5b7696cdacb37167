package config

import (
	"context"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// Deliveries: where every accepted message stands after the service took
// it (see package ledger's deliveries), for the fallback poller and the
// delivery report.

// Delivery is one accepted message's deliveries row.
type Delivery = ledger.Delivery

// DeliveryPoll is what the poller learned of one delivery.
type DeliveryPoll = ledger.Poll

// SendDeliveries are send id's deliveries rows, by item index.
func SendDeliveries(ctx context.Context, p Paths, id string) ([]Delivery, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.SendDeliveries(ctx, id)
}

// SendDeliveryPage is up to limit of send id's deliveries past index after
// (-1: from the first), in index order (ledger.Ledger.SendDeliveryPage).
func SendDeliveryPage(ctx context.Context, p Paths, id string, after, limit int) ([]Delivery, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.SendDeliveryPage(ctx, id, after, limit)
}

// DuePolls are up to limit of account's deliveries due to be polled at now.
func DuePolls(ctx context.Context, p Paths, account string, now time.Time, limit int) ([]Delivery, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.DuePolls(ctx, account, now, limit)
}

// NextPoll is when account's next delivery is due to be polled (zero: none).
func NextPoll(ctx context.Context, p Paths, account string) (time.Time, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return l.NextPoll(ctx, account)
}

// RecordPoll writes what a poll learned; moved: the state moved forward.
func RecordPoll(ctx context.Context, p Paths, poll DeliveryPoll) (moved bool, err error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return false, err
	}
	return l.RecordPoll(ctx, poll)
}

// SetDeliveryOff records that account's service is not polled until until.
func SetDeliveryOff(ctx context.Context, p Paths, account string, until time.Time) error {
	l, err := p.Ledger(ctx)
	if err != nil {
		return err
	}
	return l.SetDeliveryOff(ctx, account, until)
}

// DeliveryOff is until when account's service is not polled (zero: it is).
func DeliveryOff(ctx context.Context, p Paths, account string) (time.Time, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return l.DeliveryOff(ctx, account)
}

// SetDeliveryPollAfter sets, for the ledger of this process, when a message
// accepted from now on is first due for the poller (delivery_poll_after).
func (j *JournalFile) SetDeliveryPollAfter(d time.Duration) { j.l.SetDeliveryPollAfter(d) }

// DeliveryCounts counts each of sends ids' accepted messages by state.
func DeliveryCounts(ctx context.Context, p Paths, ids []string) (map[string]model.DeliveryCounts, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.DeliveryCounts(ctx, ids)
}

// SendReplies are the first message each number wrote back after send id,
// by number.
func SendReplies(ctx context.Context, p Paths, id string) (map[string]string, error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	return l.SendReplies(ctx, id)
}
