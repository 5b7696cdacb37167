package dispatch_test

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// fullDisk is a journal on a disk that fills up: once the records written
// would pass room bytes, an append fails with ENOSPC and writes nothing
// (the ledger commits a record whole, or not at all).
type fullDisk struct {
	j       *config.JournalFile
	room    int64
	written int64
}

func (d *fullDisk) Append(rec model.JournalRecord) error {
	b, err := model.MarshalJournalRecord(rec)
	if err != nil {
		return err
	}
	if d.written+int64(len(b)) > d.room {
		return fmt.Errorf("writing send journal: %w", syscall.ENOSPC)
	}
	d.written += int64(len(b))
	return d.j.Append(rec)
}

func (d *fullDisk) Sync() error { return d.j.Sync() }

// TestDiskFullMidSend: the disk fills while a send runs, at every point of a
// chunk's records in turn. The send stops; the journal, read back as history
// and resume read it, never calls "not sent" a pair the service took (it is
// accepted or unknown), and a resume would send nothing twice.
func TestDiskFullMidSend(t *testing.T) {
	const n, chunk = 60, 10
	midSend := 0
	// The disk fills at every 61st byte from before the plan fits to after the
	// last record: at intents, outcomes and the end record.
	for room := int64(3000); room < 16000; room += 61 {
		t.Run(fmt.Sprint(room), func(t *testing.T) {
			e := newEnv(t, sandbox.Options{}, nil)
			p, j := newJournal(t, "full")
			job := dispatch.NewJob("full", sandbox.DefaultSender, items(n, 0))
			run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), job,
				dispatch.Options{ChunkSize: chunk, Journal: &fullDisk{j: j, room: room}})
			if err != nil {
				if len(e.sb.Sent()) != 0 {
					t.Fatalf("room %d: the plan did not fit, yet %d were sent", room, len(e.sb.Sent()))
				}
				return // refused before anything is sent
			}
			for range run.Events() {
			}
			if _, werr := run.Wait(); werr == nil {
				return // everything fitted
			}
			j.Close()
			st := replayState(t, p, "full")
			sent := sentCounts(e.sb)
			taken := 0
			for _, it := range st.Items {
				ids := sent[sentKey{it.Recipient, it.Message}]
				if len(ids) > 1 {
					t.Errorf("%s sent %d times", it.Recipient, len(ids))
				}
				if len(ids) == 1 {
					taken++
					if it.State != model.StateAccepted && it.State != model.StateUnknown {
						t.Errorf("room %d: %s was taken by the service but the journal says %s", room, it.Recipient, it.State)
					}
				}
			}
			if taken > 0 && taken < n {
				midSend++
			}
			// What a resume would send: only what certainly did not go.
			for _, i := range st.ResumeIndexes(false) {
				it, _ := st.Item(i)
				if len(sent[sentKey{it.Recipient, it.Message}]) > 0 {
					t.Errorf("room %d: a resume would send %s again", room, it.Recipient)
				}
			}
		})
	}
	t.Logf("the disk filled mid-send in %d runs", midSend)
	if midSend < 20 {
		t.Errorf("the disk filled mid-send in only %d runs", midSend)
	}
}
