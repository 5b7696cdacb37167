package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// each runs test against a new ledger on every backend.
func each(t *testing.T, test func(t *testing.T, l *Ledger, loc string)) {
	t.Helper()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc := b.Location(t)
			l, err := Create(context.Background(), loc)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			test(t, l, loc)
		})
	}
}

func reopen(t *testing.T, loc string) *Ledger {
	t.Helper()
	l, err := Open(context.Background(), loc)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func plan(id string, n int, scheduled time.Time) *model.JournalPlan {
	p := &model.JournalPlan{ID: id, Time: t0, Profile: "work", Sender: "3000", Account: "acct1", BaseURL: "https://sms.example.com",
		ScheduledFor: scheduled}
	for i := range n {
		p.Items = append(p.Items, model.JournalItem{Index: i, Recipient: "0912000000" + string(rune('0'+i%10)), Message: "hi"})
	}
	return p
}

func TestCreateAndOpen(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		if l.ID() == "" || l.SchemaVersion() != SchemaVersion {
			t.Fatalf("id %q version %d", l.ID(), l.SchemaVersion())
		}
		again := reopen(t, loc)
		if again.ID() != l.ID() {
			t.Errorf("reopened id %q, made %q", again.ID(), l.ID())
		}
		if _, err := Create(ctx, loc); !errors.Is(err, ErrExists) {
			t.Errorf("Create over a ledger: %v, want ErrExists", err)
		}
		if l.Backend() == SQLite {
			fi, err := os.Stat(loc)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("ledger file mode %v (%v), want 0600", fi.Mode().Perm(), err)
			}
		}
	})
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "none.db")); !errors.Is(err, ErrMissing) {
		t.Errorf("Open of no file: %v, want ErrMissing", err)
	}
	if loc := os.Getenv(ledgertest.EnvPostgres); loc != "" {
		empty := ledgertest.Postgres(t)
		if _, err := Open(ctx, empty); !errors.Is(err, ErrMissing) {
			t.Errorf("Open of an empty database: %v, want ErrMissing", err)
		}
	}
}

func TestPasswordInURLIsRefusedAndNeverPrinted(t *testing.T) {
	for _, loc := range []string{
		"postgres://smsdesk:s3cretpw@db.example.com/smsdesk",
		"postgres://smsdesk@db.example.com/smsdesk?password=s3cretpw",
	} {
		_, err := Open(context.Background(), loc)
		if err == nil || !strings.Contains(err.Error(), "PGPASSWORD") || strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("Open(%s): %v", Redact(loc), err)
		}
		if strings.Contains(Redact(loc), "s3cretpw") {
			t.Errorf("Redact kept the password: %s", Redact(loc))
		}
	}
}

// A PostgreSQL ledger's location reads as every URL smsdesk prints for
// people and logs: its user name [REDACTED] too (model.RedactURLs), in
// every error and status that names it. A zombie runner's last words
// printed postgres://postgres@… where the log's lines printed [REDACTED].
func TestLedgerURLPrintedRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://postgres@127.0.0.1:55432/smsdesk?sslmode=disable": "postgres://[REDACTED]@127.0.0.1:55432/smsdesk?sslmode=disable",
		"postgresql://sara:pw@db.example.com/smsdesk":                 "postgresql://[REDACTED]@db.example.com/smsdesk",
		"postgres://db.example.com/smsdesk?password=pw":               "postgres://db.example.com/smsdesk?password=xxxxx",
		"/var/lib/smsdesk/smsdesk.db":                                 "/var/lib/smsdesk/smsdesk.db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
	de := &DamagedError{Where: Redact("postgres://postgres@127.0.0.1/x"), Backend: Postgres, Problem: "p"}
	if strings.Contains(de.Error(), "postgres@") {
		t.Errorf("the damage names the user: %s", de)
	}
}

func TestSchemaNewerIsRefused(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		if _, err := l.db.Exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'"); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), loc)
		if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "version 99") {
			t.Fatalf("Open: %v, want ErrSchemaTooNew naming version 99", err)
		}
	})
}

// TestVersion2MovesOnToThree: a version-2 ledger (before a journal could
// hold an opted_out record) opens at version 3, so that a version-2 smsdesk
// on the same ledger refuses it as newer rather than reading the new record
// as damage and marking the ledger damaged for everyone.
func TestVersion2MovesOnToThree(t *testing.T) {
	each(t, func(t *testing.T, l *Ledger, loc string) {
		if _, err := l.db.Exec("UPDATE meta SET value = '2' WHERE key = 'schema_version'"); err != nil {
			t.Fatal(err)
		}
		again, err := Open(context.Background(), loc)
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		var v string
		if err := l.db.QueryRow("SELECT value FROM meta WHERE key = 'schema_version'").Scan(&v); err != nil || again.SchemaVersion() != 3 || v != "3" {
			t.Fatalf("a version-2 ledger opened at version %d, %q on disk (%v); want 3", again.SchemaVersion(), v, err)
		}
	})
}

func TestSendRecordsReplay(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		lease, err := l.CreateSend(ctx, "s1", plan("s1", 3, time.Time{}), "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateSend(ctx, "s1", plan("s1", 3, time.Time{}), "test", 0); !errors.Is(err, ErrSendExists) {
			t.Errorf("second CreateSend: %v, want ErrSendExists", err)
		}
		for _, rec := range []model.JournalRecord{
			&model.JournalIntent{Time: t0.Add(time.Second), Chunk: 0, Indexes: []int{0, 1, 2}, Key: "k1"},
			&model.JournalOutcome{Time: t0.Add(2 * time.Second), Chunk: 0, Results: []model.JournalResult{
				{Index: 0, State: model.StateAccepted, MessageID: "m0"}, {Index: 1, State: model.StateRejected}, {Index: 2, State: model.StateAccepted}}},
			&model.JournalEnd{Time: t0.Add(3 * time.Second)},
		} {
			if err := lease.Append(ctx, rec); err != nil {
				t.Fatalf("Append %s: %v", rec.RecordType(), err)
			}
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := reopen(t, loc).ReadSend(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		c := st.Counts()
		if c.Accepted != 2 || c.Rejected != 1 || !st.Ended || st.Items[0].MessageID != "m0" {
			t.Errorf("replayed %+v ended %v", c, st.Ended)
		}
		s, err := l.GetSend(ctx, "s1")
		if err != nil || s.State != StateEnded || s.Records != 4 || s.Leased || s.Items != 3 || s.Host != "sms.example.com:443" {
			t.Errorf("summary %+v, %v", s, err)
		}
		if _, err := l.ReadSend(ctx, "nope"); !errors.Is(err, ErrNoSuchSend) {
			t.Errorf("ReadSend of no send: %v", err)
		}
	})
}

func TestListSendsPagesNewestFirst(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		for i := range 5 {
			id := "s" + string(rune('a'+i))
			p := plan(id, 1, time.Time{})
			p.Time = t0.Add(time.Duration(i) * time.Minute)
			lease, err := l.CreateSend(ctx, id, p, "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(ctx)
		}
		page, err := l.ListSends(ctx, SendQuery{Limit: 2, Offset: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 2 || page[0].ID != "sd" || page[1].ID != "sc" {
			t.Errorf("page %v", ids(page))
		}
		n, err := l.CountSends(ctx, SendQuery{States: []State{StateOpen}})
		if err != nil || n != 5 {
			t.Errorf("CountSends open: %d, %v", n, err)
		}
	})
}

func ids(list []Send) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}

func TestLeases(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		first, err := l.CreateSend(ctx, "s1", plan("s1", 1, time.Time{}), "first", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		other := reopen(t, loc)
		if _, err := other.Claim(ctx, "s1", "second", time.Minute); !errors.Is(err, ErrInUse) {
			t.Fatalf("Claim of a held send: %v, want ErrInUse", err)
		}
		if used, err := other.InUse(ctx, "s1"); err != nil || !used {
			t.Errorf("InUse: %v %v", used, err)
		}
		if err := first.Renew(ctx); err != nil {
			t.Errorf("Renew: %v", err)
		}
		// The lease expires (the ledger's clock passes its time).
		expire(t, l, "s1")
		second, err := other.Claim(ctx, "s1", "second", time.Minute)
		if err != nil {
			t.Fatalf("Claim of an expired lease: %v", err)
		}
		if err := first.Append(ctx, &model.JournalEnd{Time: t0}); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("Append under a lost lease: %v, want ErrLeaseLost", err)
		}
		if err := first.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("Renew of a lost lease: %v", err)
		}
		if err := second.Append(ctx, &model.JournalEnd{Time: t0}); err != nil {
			t.Errorf("Append under the new lease: %v", err)
		}
		if err := second.Release(ctx); err != nil {
			t.Fatal(err)
		}
		third, err := l.Claim(ctx, "s1", "third", time.Minute)
		if err != nil {
			t.Fatalf("Claim after release: %v", err)
		}
		_ = third.Release(ctx)
		if _, err := l.Claim(ctx, "nope", "x", 0); !errors.Is(err, ErrNoSuchSend) {
			t.Errorf("Claim of no send: %v", err)
		}
	})
}

func TestLeaseOfADeadProcessOnThisHostIsFree(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		if _, err := l.CreateSend(ctx, "s1", plan("s1", 1, time.Time{}), "gone", time.Hour); err != nil {
			t.Fatal(err)
		}
		// A process of this host that has ended held it.
		if _, err := l.db.Exec("UPDATE sends SET lease_pid = 999999999"); err != nil {
			t.Fatal(err)
		}
		if _, err := reopen(t, loc).Claim(ctx, "s1", "next", time.Minute); err != nil {
			t.Errorf("Claim of a dead process's lease: %v", err)
		}
	})
}

func TestWriteFailureSurfaces(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		lease, err := l.CreateSend(ctx, "s1", plan("s1", 1, time.Time{}), "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		err = lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: []int{0}, Key: "k"})
		if err == nil {
			t.Fatal("Append on a closed ledger returned nil")
		}
	})
}

// A reserved send is in use and in no list until its plan is written, its
// lease's first record.
func TestReserveSend(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		lease, err := l.ReserveSend(ctx, "r1", "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.ReserveSend(ctx, "r1", "test", 0); !errors.Is(err, ErrSendExists) {
			t.Errorf("second ReserveSend: %v", err)
		}
		if used, _ := l.InUse(ctx, "r1"); !used {
			t.Error("a reserved send is not in use")
		}
		if list, _ := l.ListSends(ctx, SendQuery{}); len(list) != 0 {
			t.Errorf("a reserved send is listed: %v", ids(list))
		}
		if err := lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: []int{0}, Key: "k"}); err == nil {
			t.Error("a record before the plan was written")
		}
		if err := lease.Append(ctx, plan("r1", 1, time.Time{})); err != nil {
			t.Fatal(err)
		}
		if err := lease.Append(ctx, plan("r1", 1, time.Time{})); err == nil {
			t.Error("a second plan was written")
		}
		if list, _ := l.ListSends(ctx, SendQuery{}); len(list) != 1 || list[0].Items != 1 || list[0].Profile != "work" {
			t.Errorf("after its plan: %+v", list)
		}
		if err := lease.Discard(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := l.ReadSend(ctx, "r1"); !errors.Is(err, ErrNoSuchSend) {
			t.Errorf("a discarded send reads: %v", err)
		}
	})
}
