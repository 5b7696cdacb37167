package app

import (
	"context"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestDeliveryReportReadsDeliveriesInPages: the report reads a send's
// deliveries a page at a time beside its items (issue 42 costs: all of a
// 100,000-message send's at once took it to 300 MB); with pages of two,
// every recipient still has its own delivery, and the counts are all of
// them. Not parallel: it sets the package's page size.
func TestDeliveryReportReadsDeliveriesInPages(t *testing.T) {
	defer func(n int) { deliveryPage = n }(deliveryPage)
	deliveryPage = 2
	v := newService(t, sandbox.Options{})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "p", Sender: sandbox.DefaultSender})
	out := send(t, s, pairs(7))
	rep, err := s.DeliveryReport(context.Background(), out.Summary.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 7 || rep.Delivery.Messages != 7 {
		t.Fatalf("%d rows, %d messages counted; want 7 and 7", len(rep.Rows), rep.Delivery.Messages)
	}
	for i, r := range rep.Rows {
		if r.Index != i || r.Recipient != pairs(7)[i].Recipient || r.Status != model.StateAccepted || r.Delivery == "" {
			t.Errorf("row %d: %+v", i, r)
		}
	}
}
