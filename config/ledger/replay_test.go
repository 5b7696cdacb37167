package ledger

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestSendDeliveryPageWalksInPages: a send's deliveries read a page at a
// time (a report's way, issue 42 costs) are its rows in index order, each
// once, the gaps of items with none kept, and the last page short.
func TestSendDeliveryPageWalksInPages(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, _ string) {
		sendAccepting(t, l, "s1", 10, t0, 0, 1, 3, 4, 5, 7, 9)
		ctx := context.Background()
		var got [][]int
		for after := -1; ; {
			page, err := l.SendDeliveryPage(ctx, "s1", after, 3)
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, d := range page {
				idx = append(idx, d.Index)
				if d.SendID != "s1" || d.MessageID == "" {
					t.Errorf("row %+v", d)
				}
			}
			got = append(got, idx)
			if len(page) < 3 {
				break
			}
			after = page[len(page)-1].Index
		}
		if want := [][]int{{0, 1, 3}, {4, 5, 7}, {9}}; !reflect.DeepEqual(got, want) {
			t.Errorf("pages %v, want %v", got, want)
		}
	})
}

// TestReplayReadsRecordsAsTheyCome: the records are replayed a record at
// a time (never joined into one text, issue 42 costs), and a record out
// of order or holding a line break is still damage, never skipped; a send
// with no records is no such send.
func TestReplayReadsRecordsAsTheyCome(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, _ string) {
		ctx := context.Background()
		sendAccepting(t, l, "s1", 3, t0, 0, 2)
		st, err := l.ReadSend(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Items) != 3 || st.Counts().Accepted != 2 || st.Counts().Rejected != 1 {
			t.Fatalf("replayed %d items, counts %+v", len(st.Items), st.Counts())
		}
		if _, err := l.ReadSend(ctx, "none"); !errors.Is(err, ErrNoSuchSend) {
			t.Errorf("no such send: %v", err)
		}
	})
	for _, c := range []struct{ name, sql string }{
		{"a line break", "UPDATE send_records SET body = body || '\n{}' WHERE send_id = 's2' AND seq = 2"},
		{"out of order", "UPDATE send_records SET seq = 9 WHERE send_id = 's2' AND seq = 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			each(t, func(t *testing.T, l *Ledger, _ string) { // a ledger of its own: damage found is kept
				ctx := context.Background()
				sendAccepting(t, l, "s2", 3, t0, 0)
				if _, err := l.db.ExecContext(ctx, c.sql); err != nil {
					t.Fatal(err)
				}
				_, err := l.ReadSend(ctx, "s2")
				var d *DamagedError
				if !errors.As(err, &d) || !strings.Contains(err.Error(), "out of order or holds a line break") {
					t.Errorf("%v, want the record named as damage", err)
				}
			})
		})
	}
}
