package app

import (
	"context"
	"errors"
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
	rows, err := rep.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rep.Len() != 7 || rep.Delivery.Messages != 7 {
		t.Fatalf("%d rows, %d messages counted; want 7 and 7", len(rows), rep.Delivery.Messages)
	}
	for i, r := range rows {
		if r.Index != i || r.Recipient != pairs(7)[i].Recipient || r.Status != model.StateAccepted || r.Delivery == "" {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	// Walked as made, a row at a time: an error of the writer's ends the
	// walk there (a closed pipe stops the report).
	stop, seen := errors.New("the pipe closed"), 0
	if err := rep.EachRow(context.Background(), func(ReportRow) error {
		if seen++; seen == 3 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || seen != 3 {
		t.Errorf("EachRow went on past its writer's error: %v after %d rows", err, seen)
	}
}
