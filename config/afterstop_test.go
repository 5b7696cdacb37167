package config

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// heldGuard bounds a wait that should end while another session holds the
// ledger: generous for a busy machine, shorter than the record wait a
// write would otherwise wait out (ledger.RecordWait). It measures nothing.
const heldGuard = 90 * time.Second

// pathsOn are a process's paths on the ledger at location, made first.
func pathsOn(t *testing.T, location string) Paths {
	t.Helper()
	l, err := ledger.Create(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	dir := t.TempDir()
	p, err := PathsFromEnv(func(k string) (string, bool) {
		switch k {
		case EnvConfigDir:
			return filepath.Join(dir, "config"), true
		case EnvStateDir:
			return filepath.Join(dir, "state"), true
		case EnvLedger:
			return location, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.CloseLedger() })
	return p
}

// TestAStopWaitsItsGraceOnly: the records a stop itself causes (the
// outcome of the chunk in flight, the end, the lease let go) are written
// when the ledger answers, and a ledger another session holds keeps the
// stop no longer than StopGrace: the first such write gives up, the rest
// at once, while the hold is still in place (the outcome not written
// reads unknown). Without the grace they waited the record wait, minutes.
func TestAStopWaitsItsGraceOnly(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	plan := func(id string) *model.JournalPlan {
		return &model.JournalPlan{ID: id, Time: at, Profile: "default", Sender: "3000", ChunkSize: 1,
			Items: []model.JournalItem{{Index: 0, Recipient: "09120000001", Message: "hi", Parts: 1}}}
	}
	intent := &model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0}, Key: "k-0"}
	outcome := &model.JournalOutcome{Time: at, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m-1"}}}
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc := b.Location(t)
			p := pathsOn(t, loc)

			// The ledger answers: what the stop causes is written.
			ctx, stop := context.WithCancel(context.Background())
			j, err := CreateJournal(ctx, p, "20260301-100000-aaaaaa")
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range []model.JournalRecord{plan(j.ID()), intent} {
				if err := j.Append(rec); err != nil {
					t.Fatal(err)
				}
			}
			stop()
			if err := j.Append(outcome); err != nil {
				t.Fatalf("the chunk in flight's outcome after the stop: %v", err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if st, err := ReadJournal(t.Context(), p, j.ID()); err != nil || st.Counts().Accepted != 1 {
				t.Fatalf("read back: %v, %+v", err, st)
			}

			// Another session holds the ledger: the stop waits its grace.
			ctx, stop = context.WithCancel(context.Background())
			defer stop()
			j, err = CreateJournal(ctx, p, "20260301-100000-bbbbbb")
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range []model.JournalRecord{plan(j.ID()), intent} {
				if err := j.Append(rec); err != nil {
					t.Fatal(err)
				}
			}
			hold := ledgertest.HoldLedger(t, loc)
			stop()
			errs := make(chan [3]error, 1)
			go func() {
				errs <- [3]error{j.Append(outcome), j.Append(&model.JournalEnd{Time: at, Interrupted: true}), j.Close()}
			}()
			select {
			case got := <-errs:
				for i, err := range got {
					if !errors.Is(err, ErrStopGrace) {
						t.Errorf("write %d after the stop while the ledger is held: %v, want ErrStopGrace", i, err)
					}
				}
			case <-time.After(heldGuard):
				t.Fatal("the writes after the stop are still waiting for the held ledger")
			}
			if !hold.Held() {
				t.Error("the hold ended before the writes gave up")
			}
			hold.Release()
			if st, err := ReadJournal(t.Context(), p, j.ID()); err != nil || st.Counts().Unknown != 1 {
				t.Fatalf("read back: %v, %+v", err, st)
			}
		})
	}
}
