package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// A SQLite ledger's -wal or -shm replaced, deleted or truncated under a
// process that has it open is damage to that process: its next write is
// refused (never written through: that is how one process's commits
// overwrote another's), saying which file and what happened, and no mark
// is written through them: it is written beside the file, and another
// process on the file refuses every start (by hand, after `truncate -s 0
// smsdesk.db-wal` under a runner that refused, the next scheduler --once
// read a send that had gone as not started and sent its 300 again). On
// main, with a runner sending, `rm smsdesk.db-shm` then a CLI send of 30
// exited 0 and the send vanished, and `truncate -s 0 smsdesk.db-wal` left
// a malformed file.
func TestLedgerFilesChangedUnderneath(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		change     func(t *testing.T, path string)
	}{
		{"-shm deleted", "smsdesk.db-shm was deleted or moved", func(t *testing.T, path string) { remove(t, path+"-shm") }},
		{"-wal deleted", "smsdesk.db-wal was deleted or moved", func(t *testing.T, path string) { remove(t, path+"-wal") }},
		{"-shm replaced", "smsdesk.db-shm was replaced", func(t *testing.T, path string) {
			remove(t, path+"-shm")
			if err := os.WriteFile(path+"-shm", make([]byte, 32768), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"-wal truncated", "smsdesk.db-wal shrank from ", func(t *testing.T, path string) {
			if err := os.Truncate(path+"-wal", 0); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ledgertest.SQLite(t)
			l, err := Create(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			lease, err := l.CreateSend(ctx, "s1", plan("s1", 3, time.Time{}), "t", 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: []int{0}, Key: "k"}); err != nil {
				t.Fatal(err)
			}
			tc.change(t, path)
			err = lease.Append(ctx, &model.JournalOutcome{Time: t0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted}}})
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "could not be marked") {
				t.Fatalf("a write after %s: %v, want the damage saying %q, marked", tc.name, err, tc.want)
			}
			if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000009", Added: t0}}); !errors.Is(err, ErrDamaged) {
				t.Errorf("another write: %v, want it refused", err)
			}
			// Marked beside the file, not through it: another process
			// that opens the file now (it reads a ledger consistent and
			// perhaps older: what the -wal held may be gone) refuses every
			// start, naming what the first found.
			if _, err := os.Stat(path + ".damaged"); err != nil {
				t.Errorf("the mark beside the ledger: %v", err)
			}
			l.Close() // as this process ends: SQLite's own state of the file goes with it
			other, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("another process opening the ledger: %v", err)
			}
			defer other.Close()
			_, err = other.CreateSend(ctx, "s2", plan("s2", 1, time.Time{}), "t", 0)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "found ") {
				t.Errorf("another process's send after %s: %v, want it refused naming what the first found", tc.name, err)
			}
		})
	}
}

func remove(t *testing.T, file string) {
	t.Helper()
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
}

// What SQLite does to its own files is no damage: other processes open,
// write and close the ledger (the last to close would delete the -wal and
// -shm, were this process's connection not kept), and thousands of
// records carry the -wal past its checkpoints, where SQLite starts it
// again from its start; no write is refused.
func TestLedgerFilesKeptThroughCheckpoints(t *testing.T) {
	ctx := context.Background()
	path := ledgertest.SQLite(t)
	l, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 5 {
		other, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("other-%d", i)
		lease, err := other.CreateSend(ctx, id, plan(id, 1, time.Time{}), "t", 0)
		if err == nil {
			err = lease.Release(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		other.Close()
	}
	lease, err := l.CreateSend(ctx, "long", plan("long", 1, time.Time{}), "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("x", 2000) // two pages of -wal a record: past the 1,000-page checkpoint within 600 records
	for i := range 1500 {
		if err := lease.Append(ctx, &model.JournalDelivery{Time: t0, Updates: []model.DeliveryUpdate{{Index: 0, State: body}}}); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if err := l.Damaged(); err != nil {
		t.Fatal(err)
	}
}

// A read the -wal no longer holds (truncated underneath: SQLite's
// index still names its frames) is an I/O error of the ledger's own
// (SQLITE_IOERR_SHORT_READ, 522): damage, refused as the ledger's (exit 2,
// error.code ledger), where it was an error of no kind (exit 1).
func TestShortReadIsTheLedgersDamage(t *testing.T) {
	ctx := context.Background()
	path := ledgertest.SQLite(t)
	l, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lease, err := l.CreateSend(ctx, "s1", plan("s1", 3, time.Time{}), "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: []int{0}, Key: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(path+"-wal", 0); err != nil {
		t.Fatal(err)
	}
	_, err = l.ReadSend(ctx, "s1")
	if other, oerr := Open(ctx, path); oerr != nil {
		err = oerr
	} else {
		defer other.Close()
		if _, rerr := other.ReadSend(ctx, "s1"); rerr != nil {
			err = rerr
		}
	}
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "disk I/O error") {
		t.Fatalf("reading what the truncated -wal held: %v, want the ledger's damage (a disk I/O error)", err)
	}
}
