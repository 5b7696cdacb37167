package app

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// stalledFile is an opt-out file whose read gives its first rows, says so
// on read, then waits for resume before it gives the rest: a pipe whose
// writer stalls (`(echo N; sleep 25; echo M) | smsdesk optout import -`).
func stalledFile(first, rest []model.ContactRow, read chan<- struct{}, resume <-chan struct{}) OptOutFile {
	return OptOutFile{Name: "stdin", Read: func(row func(model.ContactRow) error) error {
		for _, r := range first {
			if err := row(r); err != nil {
				return err
			}
		}
		close(read)
		<-resume
		for _, r := range rest {
			if err := row(r); err != nil {
				return err
			}
		}
		return nil
	}}
}

// TestImportHoldsNothingWhileItsInputStalls (issue 39 §1): an opt-out
// import whose input stalls holds no transaction of the ledger meanwhile:
// a send made then creates and writes its journal and ends while the
// import's reader is still blocked, and the import adds every number once
// its input ends. The import read its file inside its transaction: on
// SQLite that held the write lock for as long as the pipe was open, and
// the send failed after the busy timeout ("reserving send …: database is
// locked"); on PostgreSQL its COPY kept a transaction open, idle, for as
// long (and idle_in_transaction_session_timeout would end it).
func TestImportHoldsNothingWhileItsInputStalls(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			v := newService(t, sandbox.Options{})
			paths, location := ledgerPaths(t, b)
			importer := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
			sender := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})

			var first, rest []model.ContactRow
			for i := range 3 {
				first = append(first, model.ContactRow{Line: i + 1, Mobile: fmt.Sprintf("0913%07d", i)})
				rest = append(rest, model.ContactRow{Line: i + 4, Mobile: fmt.Sprintf("0914%07d", i)})
			}
			read, resume := make(chan struct{}), make(chan struct{})
			type result struct {
				res config.OptOutImport
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, _, err := importer.ImportOptOuts(t.Context(), stalledFile(first, rest, read, resume), false, "", "")
				done <- result{res, err}
			}()
			<-read
			resumed := false
			defer func() {
				if !resumed {
					close(resume)
					<-done
				}
			}()

			if b.Name == "postgres" {
				if n := openTransactions(t, location); n != 0 {
					t.Errorf("%d transactions open on the ledger while the import's input stalls, want none", n)
				}
			}
			p := prepare(t, sender, pairs(2), false)
			if p.Refusal != nil {
				t.Fatal(p.Refusal)
			}
			x, err := p.Start(t.Context(), SendOptions{})
			if err != nil {
				t.Fatalf("a send while the import's input stalls: %v", err)
			}
			if out := finish(t, x); out.Summary.Counts.Accepted != 2 {
				t.Fatalf("the send while the import's input stalls: %+v", out.Summary.Counts)
			}
			select {
			case r := <-done:
				t.Fatalf("the import ended before its input did: %+v %v", r.res, r.err)
			default:
			}

			resumed = true
			close(resume)
			r := <-done
			if r.err != nil || r.res.Read != 6 || r.res.Added != 6 {
				t.Fatalf("the import once its input ended: %+v %v, want 6 read and added", r.res, r.err)
			}
			if n, err := config.CountOptOuts(t.Context(), paths); err != nil || n != 6 {
				t.Errorf("the list holds %d (%v), want 6", n, err)
			}
		})
	}
}

// openTransactions counts the sessions on the PostgreSQL ledger at
// location, other than this question's own, that have a transaction open.
func openTransactions(t *testing.T, location string) int {
	t.Helper()
	db, err := sql.Open("pgx", location)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
