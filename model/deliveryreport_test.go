package model

import (
	"math"
	"testing"
)

func TestDeliveryReport(t *testing.T) {
	fa, ucs := PartCount{Encoding: UCS2, Parts: 2}, PartCount{Encoding: UCS2, Parts: 1}
	latin := PartCount{Encoding: GSM7, Parts: 1}
	msgs := []DeliveredMessage{
		{DeliveryDelivered, fa}, {DeliveryDelivered, ucs}, {DeliveryDelivered, latin},
		{DeliveryFailed, fa}, {DeliveryRejected, latin}, {DeliveryNoReport, ucs}, {DeliveryPending, ucs}, {DeliverySent, ucs},
		{"bogus", fa}, // a word no version knows: not counted
	}
	for _, tc := range []struct {
		name          string
		prices        Prices
		cost          *int64
		deliveredCost *int64
	}{
		{"both prices", Prices{GSM7: 100, UCS2: 50}, ptr(int64(8*50 + 2*100)), ptr(int64(3*50 + 100))},
		{"no Latin price", Prices{UCS2: 50}, nil, nil},
		{"no prices", Prices{}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewDeliveryReport(msgs, tc.prices)
			want := DeliveryCounts{Messages: 8, Delivered: 3, Failed: 1, Rejected: 1, Pending: 1, Sent: 1, NoReport: 1}
			if r.DeliveryCounts != want || r.Parts != 10 {
				t.Fatalf("counts %+v, parts %d; want %+v, 10", r.DeliveryCounts, r.Parts, want)
			}
			if !eqCost(r.Cost, tc.cost) {
				t.Errorf("cost %v, want %v", show(r.Cost), show(tc.cost))
			}
			if len(r.States) != len(DeliveryStates) || r.States[0].State != DeliveryDelivered {
				t.Fatalf("states %+v", r.States)
			}
			d := r.States[0]
			if d.Count != 3 || d.Parts != 4 || math.Abs(d.Share-3.0/8) > 1e-9 || !eqCost(d.Cost, tc.deliveredCost) {
				t.Errorf("delivered %+v (cost %v); want 3, 4 parts, 0.375, cost %v", d, show(d.Cost), show(tc.deliveredCost))
			}
			var sum float64
			for _, s := range r.States {
				sum += s.Share
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("shares sum to %v", sum)
			}
		})
	}
	if r := NewDeliveryReport(nil, Prices{GSM7: 1}); r.Messages != 0 || r.States[0].Share != 0 || r.Text() != "-" {
		t.Errorf("empty report %+v, %q", r, r.Text())
	}
}

func TestDeliveryCountsText(t *testing.T) {
	for _, tc := range []struct {
		c    DeliveryCounts
		want string
	}{
		{DeliveryCounts{}, "-"},
		{DeliveryCounts{Messages: 10, Delivered: 10}, "10/10 delivered"},
		{DeliveryCounts{Messages: 10, Delivered: 7, Failed: 1, NoReport: 2}, "7/10 delivered · 1 failed · 2 no report"},
		{DeliveryCounts{Messages: 3, Pending: 2, Sent: 1}, "0/3 delivered · 2 pending · 1 sent"},
	} {
		if got := tc.c.Text(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func eqCost(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func show(c *int64) any {
	if c == nil {
		return "null"
	}
	return *c
}
