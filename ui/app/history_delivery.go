package app

import (
	"context"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ReadSendDelivery is ReadSend with each accepted item's delivery as the
// ledger's deliveries rows have it now: webhook events and the runner's
// polls move those rows, while the journal's own delivery records are
// only the polls of the run that sent it. It is what a face shows of a
// past send and reads again as events land (the console's history
// detail).
func (s *Session) ReadSendDelivery(ctx context.Context, id string) (HistoryEntry, error) {
	e, err := s.ReadSend(ctx, id)
	if err != nil {
		return e, err
	}
	rows, err := config.SendDeliveries(ctx, s.Paths, id)
	if err != nil {
		return HistoryEntry{ID: id, Err: err}, err
	}
	state := make(map[int]model.DeliveryState, len(rows))
	for _, d := range rows {
		state[d.Index] = d.State
	}
	for i := range e.State.Items {
		it := &e.State.Items[i]
		if d, ok := state[it.Index]; ok && it.State == model.StateAccepted {
			it.Delivery = string(d)
		}
	}
	return e, nil
}
