package ledgertest

import (
	"context"
	"database/sql"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Delivery is a deliveries row as WriteDeliveries writes it: an accepted
// message, pending since At, first due to be polled at NextPoll.
type Delivery struct {
	SendID, MessageID, Account, Sender, Recipient string
	Index                                         int
	At, NextPoll                                  time.Time
}

// WriteDeliveries writes pending deliveries rows straight into the ledger
// at location, as an outcome record writes them; a row the send has for
// that item already is left as it is.
func WriteDeliveries(tb testing.TB, location string, rows []Delivery) {
	tb.Helper()
	driver, dollar := "sqlite", false
	if u, err := url.Parse(location); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		driver, dollar = "pgx", true
	}
	db, err := sql.Open(driver, location)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	q := `INSERT INTO deliveries (send_id, idx, message_id, account, sender, recipient, state, state_rank,
		accepted_at, updated_at, next_poll_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (send_id, idx) DO NOTHING`
	if dollar {
		for i := 1; strings.Contains(q, "?"); i++ {
			q = strings.Replace(q, "?", "$"+strconv.Itoa(i), 1)
		}
	}
	ctx := context.Background()
	for _, r := range rows {
		if _, err := db.ExecContext(ctx, q, r.SendID, r.Index, r.MessageID, r.Account, r.Sender, r.Recipient,
			r.At.UnixNano(), r.At.UnixNano(), r.NextPoll.UnixNano()); err != nil {
			tb.Fatalf("writing deliveries: %v", err)
		}
	}
}
