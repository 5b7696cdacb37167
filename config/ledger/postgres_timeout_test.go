package ledger

import (
	"testing"
	"time"
)

// A PostgreSQL ledger's connections are bounded: a server that takes the
// connection and never answers made `ledger status`, send-pair and
// `scheduler --once` wait for ever (seen by hand against a listener that
// accepts and says nothing). The URL's connect_timeout still wins.
func TestPostgresConnectTimeout(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want time.Duration
	}{
		{"postgres://smsdesk@db.example.com/smsdesk", connectTimeout},
		{"postgresql://smsdesk@db.example.com:5433/smsdesk?sslmode=verify-full", connectTimeout},
		{"postgres://smsdesk@db.example.com/smsdesk?connect_timeout=30", 30 * time.Second},
	} {
		d, err := newPostgres(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if d.cfg.ConnectTimeout != tc.want {
			t.Errorf("%s: connect timeout %v, want %v", tc.url, d.cfg.ConnectTimeout, tc.want)
		}
	}
}
