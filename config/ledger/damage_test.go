package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// A ledger file that is damaged is refused with ErrDamaged and the way
// to restore it; it is never read as an empty ledger.
func TestDamagedFileIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 500)), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, path string) {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func(t *testing.T, path string) {
			if err := os.Truncate(path, 2000); err != nil {
				t.Fatal(err)
			}
		}},
		{"pages overwritten", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, _ := f.Stat()
			junk := []byte(strings.Repeat("\xff\x00junk", 512))
			for off := int64(4096); off < fi.Size(); off += 4096 {
				if _, err := f.WriteAt(junk, off); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "smsdesk.db")
			l, err := Create(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000001", Added: t0}}); err != nil {
				t.Fatal(err)
			}
			lease, err := l.CreateSend(ctx, "s1", plan("s1", 50, time.Time{}), "t", 0)
			if err != nil {
				t.Fatal(err)
			}
			_ = lease.Release(ctx)
			l.Close()
			tc.damage(t, path)
			os.Remove(path + "-wal")
			os.Remove(path + "-shm")
			err = readAll(ctx, path)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("reading a damaged ledger: %v, want ErrDamaged", err)
			}
			for _, want := range []string{"the ledger " + path + " is damaged", "nothing was sent", "backup"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// readAll opens the ledger and reads what a send would: the opt-out list
// and the history. The first error is returned.
func readAll(ctx context.Context, path string) error {
	l, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer l.Close()
	if _, err := l.Status(ctx); err != nil {
		return err
	}
	list, err := l.LookupOptOuts(ctx, []string{"09120000001"})
	if err != nil {
		return err
	}
	if len(list) != 1 {
		return errors.New("the opt-out list read as empty")
	}
	_, err = l.ReadSend(ctx, "s1")
	return err
}

// A record that does not parse makes its send unreadable (ErrDamaged),
// on either backend: it may have been an intent.
func TestRecordThatDoesNotParseIsDamage(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		lease, err := l.CreateSend(ctx, "s1", plan("s1", 1, time.Time{}), "t", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: []int{0}, Key: "k"}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.db.Exec(l.q("UPDATE send_records SET body = ? WHERE seq = 2"), `{"type":"intent","chunk":`); err != nil {
			t.Fatal(err)
		}
		if _, err := l.ReadSend(ctx, "s1"); !errors.Is(err, ErrDamaged) {
			t.Errorf("ReadSend: %v, want ErrDamaged", err)
		}
		if _, err := l.db.Exec(l.q("UPDATE optouts SET added = 'yesterday'")); err != nil {
			t.Fatal(err)
		}
		if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000009", Added: t0}}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.db.Exec(l.q("UPDATE optouts SET added = 'yesterday'")); err != nil {
			t.Fatal(err)
		}
		if _, err := l.LookupOptOuts(ctx, []string{"09120000009"}); !errors.Is(err, ErrDamaged) {
			t.Errorf("LookupOptOuts of a row that does not parse: %v, want ErrDamaged", err)
		}
	})
}

// A ledger this process may not open is ErrUnopenable: neither missing
// (it would be made anew) nor damaged (a backup restored over it would
// lose what it holds), and nothing is sent.
func TestUnopenableIsRefused(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		location func(t *testing.T) string
	}{
		{"through a file", func(t *testing.T) string {
			file := filepath.Join(t.TempDir(), "a-file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(file, FileName)
		}},
		{"mode 000", func(t *testing.T) string {
			if os.Geteuid() == 0 {
				t.Skip("root opens a file of mode 000")
			}
			path := filepath.Join(t.TempDir(), FileName)
			l, err := Create(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
			if err := os.Chmod(path, 0); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(ctx, tc.location(t))
			if !errors.Is(err, ErrUnopenable) || errors.Is(err, ErrMissing) || errors.Is(err, ErrDamaged) {
				t.Fatalf("Open: %v, want ErrUnopenable alone", err)
			}
			if !strings.Contains(err.Error(), "cannot be opened") || strings.Count(err.Error(), "nothing was sent") != 1 {
				t.Errorf("error %q", err)
			}
		})
	}
}

// Once this process has found a row that does not parse, the ledger starts
// no send at all, whichever it is (issue 36: a damaged ledger refuses
// every send): a new one, a resume's claim, a runner's claim.
func TestDamageFoundRefusesEveryStart(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		schedule(t, l, "s1", 1, t0.Add(time.Minute), nil)
		schedule(t, l, "s2", 1, t0.Add(time.Minute), nil)
		if _, err := l.db.Exec(l.q("UPDATE send_records SET body = ? WHERE send_id = 's1'"), `{"type":"plan",`); err != nil {
			t.Fatal(err)
		}
		reserved, err := l.ReserveSend(ctx, "s4", "t", 0) // reserved before the damage is found
		if err != nil {
			t.Fatal(err)
		}
		if l.Damaged() != nil {
			t.Fatal("damaged before any read")
		}
		if _, err := l.ReadSend(ctx, "s1"); !errors.Is(err, ErrDamaged) {
			t.Fatalf("ReadSend: %v", err)
		}
		starts := map[string]func() error{
			"CreateSend":        func() error { _, err := l.CreateSend(ctx, "s3", plan("s3", 1, time.Time{}), "t", 0); return err },
			"Claim":             func() error { _, err := l.Claim(ctx, "s2", "t", 0); return err },
			"ReserveSend":       func() error { _, err := l.ReserveSend(ctx, "s5", "t", 0); return err },
			"the plan's Append": func() error { return reserved.Append(ctx, plan("s4", 1, time.Time{})) },
			"ClaimDueFor": func() error {
				_, err := l.ClaimDueFor(ctx, DueQuery{Now: t0.Add(time.Hour)}, "t", 0)
				return err
			},
		}
		for name, start := range starts {
			if err := start(); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "send s1") {
				t.Errorf("%s after the damage was found: %v, want ErrDamaged naming s1", name, err)
			}
		}
	})
}
